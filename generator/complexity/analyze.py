"""One model at one input: per-layer costs and the step's totals."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from generator.complexity.conventions import BYTES_PER_ELEMENT, ELEMENTWISE, OPTIMIZERS
from generator.complexity.costs import LayerCost
from generator.errors import UserError
from generator.models import build_model
from generator.records.run_parts import ComplexityTotals


@dataclass
class Complexity:
    model: str
    input_shape: tuple[int, ...]
    batch: int
    classes: int
    optimizer: str
    precision: str
    training: bool
    layers: list[LayerCost]
    loss: LayerCost | None
    uncounted_functions: dict[str, int] = field(default_factory=dict)
    lm_phase: str | None = None  # prefill or decode of a causal language model

    @property
    def element_bytes(self) -> int:
        return BYTES_PER_ELEMENT[self.precision]

    @property
    def params(self) -> int:
        """Distinct parameters: a weight two layers share (GPT-2's tied embedding and LM
        head) counts once."""
        return sum(layer.params - layer.shared_params for layer in self.layers)

    @property
    def forward_macs(self) -> int:
        return sum(layer.forward_macs for layer in self.layers)

    @property
    def forward_flops(self) -> float:
        return sum(layer.forward_flops for layer in self.layers)

    @property
    def backward_macs(self) -> int:
        return sum(layer.backward_macs for layer in self.layers) if self.training else 0

    @property
    def backward_flops(self) -> float:
        return sum(layer.backward_flops for layer in self.layers) if self.training else 0.0

    @property
    def loss_flops(self) -> float:
        if self.loss is None:
            return 0.0
        return self.loss.forward_flops + (self.loss.backward_flops if self.training else 0.0)

    @property
    def optimizer_flops(self) -> float:
        return self.params * OPTIMIZERS[self.optimizer].flops_per_param if self.training else 0.0

    @property
    def step_flops(self) -> float:
        return self.forward_flops + self.loss_flops + self.backward_flops + self.optimizer_flops

    @property
    def activation_bytes(self) -> int:
        saved = sum(layer.output_elements for layer in self.layers if layer.saves_activation)
        return saved * self.element_bytes

    @property
    def min_traffic_bytes(self) -> int:
        size = self.element_bytes
        total = sum(layer.forward_bytes(size) for layer in self.layers)
        if self.training:
            total += sum(layer.backward_bytes(size) for layer in self.layers)
            # the optimizer works on fp32 parameters and states whatever the precision
            total += self.params * OPTIMIZERS[self.optimizer].accesses_per_param * 4
        return total

    @property
    def arithmetic_intensity(self) -> float:
        return self.step_flops / self.min_traffic_bytes if self.min_traffic_bytes else 0.0

    def totals(self) -> ComplexityTotals:
        return {
            "params": self.params,
            "forward_macs": self.forward_macs,
            "forward_flops": self.forward_flops,
            "backward_macs": self.backward_macs,
            "backward_flops": self.backward_flops,
            "loss_flops": self.loss_flops,
            "optimizer_flops": self.optimizer_flops,
            "step_flops": self.step_flops,
            "activation_bytes": self.activation_bytes,
            "min_traffic_bytes": self.min_traffic_bytes,
            "arithmetic_intensity": self.arithmetic_intensity,
        }


def _loss_cost(output: Any) -> LayerCost:
    """Cross-entropy over every logit of every head (FCN's auxiliary head too)."""
    from generator.models.feed import logits_of

    rule = ELEMENTWISE["cross_entropy"]
    heads = [head for head, _ in logits_of(output)]
    logits = sum(int(head.numel()) for head in heads)
    return LayerCost(
        name="loss",
        kind="CrossEntropyLoss",
        family="loss",
        input_shape=tuple(int(s) for s in heads[0].shape),
        output_shape=(),
        forward_flops=rule.forward * logits,
        backward_input_flops=rule.backward_input * logits,
        input_elements=logits,
        output_elements=1,
        saves_activation=False,
        formula=f"cross-entropy: {rule.forward:g} FLOP per logit",
    )


def analyze(
    model: str,
    input_shape: tuple[int, ...],
    batch: int,
    classes: int,
    optimizer: str = "sgd-momentum",
    precision: str = "fp32",
    training: bool = True,
    vocab: int | None = None,
    lm_phase: str | None = None,
) -> Complexity:
    """Cost `model` for one step on `batch` samples of `input_shape` ((C, H, W), or (S,)
    token ids when there is a vocabulary, or (samples,) of audio). `lm_phase` is prefill
    or decode for a causal language model (inference, with a KV cache)."""
    import torch

    from generator.complexity import lm_phases
    from generator.complexity.walk import walk
    from generator.models import model_spec
    from generator.models.feed import example_input
    from generator.models.hf import meta_safe

    if batch <= 0:
        raise UserError(f"batch must be positive, not {batch}", key="--batch", fix="use 1 or more")
    if optimizer not in OPTIMIZERS:
        raise UserError(
            f"unknown optimizer {optimizer!r}",
            key="optimizer",
            fix="use one of: " + ", ".join(OPTIMIZERS),
        )
    if precision not in BYTES_PER_ELEMENT:
        raise UserError(
            f"unknown precision {precision!r}",
            key="precision",
            fix="use one of: " + ", ".join(BYTES_PER_ELEMENT),
        )
    if vocab is None:
        vocab = model_spec(model).vocab
    with torch.device("meta"):
        module = build_model(model, classes, input_shape)
    inputs = example_input(batch, input_shape, vocab, "meta")
    try:
        kwargs: dict[str, Any] = {}
        extra: list[LayerCost] = []
        with meta_safe():
            if lm_phase is not None:
                training = False
                inputs, kwargs, extra = lm_phases.prepare(module, inputs, lm_phase)
            layers, output, uncounted = walk(module, inputs, training, kwargs)
        layers += extra
    except (RuntimeError, ValueError, AssertionError, IndexError, TypeError) as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
        if "more than 1 value per channel" in first_line:
            fix = (
                "use a batch of 2 or more: batch norm in training needs more than one value "
                "per channel, and this input leaves one pixel per channel"
            )
        elif "channel" in first_line or "shape" in first_line:
            fix = (
                "give the model the input it was built for: a dataset with as many channels "
                "as its first layer takes, or the group's input = CxHxW (--input)"
            )
        else:
            fix = "use a larger input (the model's downsampling leaves no pixels) or another model"
        raise UserError(
            f"{model} does not accept batch {batch} of {'x'.join(map(str, input_shape))} "
            f"input: {first_line}",
            key="--input",
            fix=fix,
        ) from error
    return Complexity(
        model=model,
        input_shape=input_shape,
        batch=batch,
        classes=classes,
        optimizer=optimizer,
        precision=precision,
        training=training,
        layers=layers,
        loss=_loss_cost(output) if training else None,
        uncounted_functions=uncounted,
        lm_phase=lm_phase,
    )
