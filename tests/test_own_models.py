"""Bring your own model: `module:callable` on the CLI and in experiments.toml (issue 16)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("torch")

from generator.cli import main
from generator.config import load_experiments, resolve_runs
from generator.errors import UserError

MYNET = textwrap.dedent(
    """
    from torch import nn


    class TinyNet(nn.Module):
        def __init__(self, num_classes: int = 10) -> None:
            super().__init__()
            self.conv = nn.Conv2d(1, 4, 3, padding=1)
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(4, num_classes)

        def forward(self, x):
            return self.fc(self.pool(self.conv(x)).flatten(1))


    def no_arguments():
        return nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 5))


    def broken():
        raise RuntimeError("the weights file is missing")


    def not_a_model():
        return 42
    """
)

GROUP = """
schema_version = 1
[defaults]
warmup = 1
iterations = 2
profile = false
[[groups]]
id = "mine"
title = "My TinyNet"
hypothesis = "It runs."
models = ["{model}"]
datasets = ["{dataset}"]
batch_sizes = [4]
"""


@pytest.fixture
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "mynet.py").write_text(MYNET)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_complexity_of_your_own_model(user_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["complexity", "mynet:TinyNet", "--dataset", "mnist", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    # conv 1→4 3×3 with bias (40) + linear 4→10 with bias (50), num_classes from mnist
    assert data["params"] == 40 + 50
    assert data["forward_flops"] > 0


def test_a_callable_without_num_classes_is_called_bare(
    user_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["complexity", "mynet:no_arguments", "--dataset", "cifar10", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["params"] == 3 * 32 * 32 * 5 + 5


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("nomodule:TinyNet", "cannot import module 'nomodule'"),
        ("mynet:Missing", "'Missing' in module 'mynet' does not exist"),
        ("mynet:broken", "calling mynet:broken failed: RuntimeError: the weights file"),
        ("mynet:not_a_model", "returned int, not a torch nn.Module"),
    ],
)
def test_bad_models_are_user_errors(
    user_dir: Path, model: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["complexity", model, "--dataset", "mnist", "--no-flop-counter"]) == 1
    err = capsys.readouterr().err
    assert message in err and "key 'model'" in err and "fix:" in err


def test_your_own_model_needs_a_dataset(user_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["complexity", "mynet:TinyNet"]) == 1
    err = capsys.readouterr().err
    assert "key '--dataset'" in err and "has no default dataset" in err


def test_measure_a_group_of_your_own_model(user_dir: Path) -> None:
    config = user_dir / "experiments.toml"
    config.write_text(GROUP.format(model="mynet:TinyNet", dataset="mnist"))
    measurements = user_dir / "measurements"
    code = main(["measure", "--config", str(config), "--measurements", str(measurements)])
    assert code == 0
    (folder,) = (measurements / "runs").iterdir()
    assert folder.name.startswith("mine-mynet.TinyNet-mnist-b4-train_step-fp32-cpu-")
    record = json.loads((folder / "run.json").read_text())
    assert record["status"] == "ok"
    assert record["config"]["model"] == "mynet:TinyNet"
    assert record["complexity"]["params"] == 90


def test_a_model_that_rejects_its_input_stops_the_plan(
    user_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # TinyNet's first convolution takes 1 channel; CIFAR-10 has 3.
    config = user_dir / "experiments.toml"
    config.write_text(GROUP.format(model="mynet:TinyNet", dataset="cifar10"))
    assert main(["measure", "--config", str(config), "--measurements", str(user_dir / "m")]) == 1
    err = capsys.readouterr().err
    assert "key 'groups.mine.models (mynet:TinyNet)'" in err
    assert "does not accept batch 2 of 3x32x32 input" in err and "channels" in err
    runs = user_dir / "m" / "runs"
    assert not runs.exists() or not any(runs.iterdir())  # stopped before any timing


def test_token_models_of_your_own_need_a_vocabulary(user_dir: Path) -> None:
    config = user_dir / "experiments.toml"
    config.write_text(GROUP.format(model="mynet:TinyNet", dataset="tokens"))
    with pytest.raises(UserError, match="gives no vocab"):
        resolve_runs(load_experiments(config))
    config.write_text(
        GROUP.format(model="mynet:TinyNet", dataset="tokens") + "seq_len = 64\nvocab = 1000\n"
    )
    (run,) = resolve_runs(load_experiments(config))
    assert run.input_shape == (64,) and run.vocab == 1000
