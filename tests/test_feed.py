"""One loss rule for every output layout (generator.models.feed)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from generator.models.feed import example_input, logits_of, make_targets, step_loss  # noqa: E402


def test_classification_segmentation_and_sequence_targets() -> None:
    assert make_targets(torch.zeros(4, 10)).shape == (4,)
    assert make_targets(torch.zeros(2, 21, 8, 8)).shape == (2, 8, 8)
    assert make_targets(torch.zeros(2, 16, 50)).shape == (2, 16)
    # a one-sample probe answers for the whole batch
    assert make_targets(torch.zeros(1, 16, 50), batch=32).shape == (32, 16)


def test_fcn_auxiliary_head_adds_half_its_loss() -> None:
    out = torch.randn(2, 21, 4, 4)
    aux = torch.randn(2, 21, 4, 4)
    targets = make_targets(out)
    expected = torch.nn.functional.cross_entropy(out, targets) + 0.5 * (
        torch.nn.functional.cross_entropy(aux, targets)
    )
    assert torch.allclose(step_loss({"out": out, "aux": aux}, targets), expected)


def test_sequence_loss_is_the_flattened_token_loss() -> None:
    logits = torch.randn(2, 5, 7)
    targets = make_targets(logits)
    expected = torch.nn.functional.cross_entropy(logits.reshape(-1, 7), targets.reshape(-1))
    assert torch.allclose(step_loss(logits, targets), expected)


def test_transformers_outputs_give_their_logits() -> None:
    class Output:
        logits = torch.zeros(1, 3)

    assert logits_of(Output())[0][0] is Output.logits
    with pytest.raises(TypeError, match="expected a tensor of logits"):
        logits_of("not a tensor")


def test_inputs_are_ids_below_the_vocabulary_or_floats() -> None:
    ids = example_input(2, (16,), 100, "cpu", torch.Generator().manual_seed(0))
    assert ids.dtype == torch.long and int(ids.max()) < 100
    assert example_input(2, (3, 8, 8), None, "meta").shape == (2, 3, 8, 8)
