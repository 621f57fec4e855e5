"""Each model takes the group's datasets of its own kind; prefill/decode need a causal LM."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.config import load_experiments, resolve_runs
from generator.errors import UserError

HEADER = 'schema_version = 1\n[[groups]]\nid = "X"\ntitle = "t"\nhypothesis = "h"\n'


def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "experiments.toml"
    path.write_text(HEADER + body)
    return path


def test_each_model_takes_the_dataset_of_its_kind(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        'models = ["resnet18", "fcn_resnet50", "wav2vec2_base", "bert_base"]\n'
        'datasets = ["imagenet", "voc", "audio-16k", "tokens"]\nbatch_sizes = [1]\n'
        "seq_len = 64\n",
    )
    pairs = {
        (r.model, r.dataset, r.input_shape, r.vocab) for r in resolve_runs(load_experiments(path))
    }
    assert pairs == {
        ("resnet18", "imagenet", (3, 224, 224), None),
        ("fcn_resnet50", "voc", (3, 224, 224), None),
        ("wav2vec2_base", "audio-16k", (16000,), None),
        ("bert_base", "tokens", (64,), 30522),
    }


def test_a_model_with_no_dataset_of_its_kind_is_named(tmp_path: Path) -> None:
    path = _write(
        tmp_path, 'models = ["resnet18", "gpt2"]\ndatasets = ["cifar10"]\nbatch_sizes = [1]\n'
    )
    with pytest.raises(
        UserError, match="no dataset of this group is one model 'gpt2' reads"
    ) as error:
        load_experiments(path)
    assert error.value.key == "groups[0].models[1]"
    assert "'tokens'" in (error.value.fix or "")


def test_decode_needs_a_causal_language_model(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        'models = ["bert_base"]\ndatasets = ["tokens"]\nbatch_sizes = [1]\nphases = ["decode"]\n',
    )
    with pytest.raises(UserError, match="needs a causal language model") as error:
        load_experiments(path)
    assert error.value.key == "groups[0].phases"


def test_input_overrides_image_shapes_only(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        'models = ["resnet18"]\ndatasets = ["cifar10"]\nbatch_sizes = [1]\ninput = "3x64x64"\n',
    )
    (run,) = resolve_runs(load_experiments(path))
    assert run.input_shape == (3, 64, 64)
    bad = _write(
        tmp_path, 'models = ["resnet18"]\ndatasets = ["cifar10"]\nbatch_sizes = [1]\ninput = "64"\n'
    )
    with pytest.raises(UserError, match="not CxHxW") as error:
        load_experiments(bad)
    assert error.value.key == "groups[0].input"


def test_image_runs_keep_their_hash(tmp_path: Path) -> None:
    # Adding `vocab` to RunConfig must not re-measure every committed image run.
    path = _write(tmp_path, 'models = ["resnet18"]\ndatasets = ["cifar10"]\nbatch_sizes = [64]\n')
    (run,) = resolve_runs(load_experiments(path))
    assert "vocab" not in run.as_dict()
