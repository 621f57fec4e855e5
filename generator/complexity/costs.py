"""The cost record of one layer (or functional op), and how its totals combine."""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod

from generator.complexity.op_models import gather_bytes

INDEX_BYTES = 8  # embedding indices are int64


def numel(shape: tuple[int, ...]) -> int:
    return prod(shape) if shape else 1


@dataclass
class LayerCost:
    """Forward, backward (input and weight gradients apart) and traffic of one layer.

    MACs are multiply-accumulates; `*_flops` include 2 · MACs plus every other FLOP.
    """

    name: str
    kind: str  # module class name, or "fn:<function>" for functional ops
    family: str  # conv, linear, attention, matmul, norm, activation, pool, elementwise, ...
    input_shape: tuple[int, ...]
    output_shape: tuple[int, ...]
    params: int = 0
    shared_params: int = 0  # of `params`, those an earlier layer already used (tied weights)
    forward_macs: int = 0
    forward_flops: float = 0.0
    backward_input_macs: int = 0
    backward_input_flops: float = 0.0
    backward_weight_macs: int = 0
    backward_weight_flops: float = 0.0
    needs_input_grad: bool = True
    saves_activation: bool = True
    input_elements: int = 0
    output_elements: int = 0
    formula: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def backward_flops(self) -> float:
        return self.backward_input_flops + self.backward_weight_flops

    @property
    def backward_macs(self) -> int:
        return self.backward_input_macs + self.backward_weight_macs

    def forward_bytes(self, element_bytes: int) -> int:
        """Minimal traffic: read weights and input once, write output once. A lookup reads
        the rows it gathers and its int64 indices, never its whole table (op_models)."""
        if self.family == "embedding" and self.input_elements and self.output_elements:
            width = self.output_elements // self.input_elements
            rows = self.input_elements
            table_rows = self.params // width if width else 0
            index_bytes = rows * INDEX_BYTES
            return int(gather_bytes(rows, table_rows, width, element_bytes, index_bytes))
        return element_bytes * (self.params + self.input_elements + self.output_elements)

    def backward_bytes(self, element_bytes: int) -> int:
        """Input gradient: read grad-out and the weights (or the saved input), write
        grad-in. Weight gradient: read grad-out and input, write grad-weights."""
        total = 0
        if self.needs_input_grad and self.backward_input_flops:
            saved = self.params if self.params else self.input_elements
            total += self.output_elements + saved + self.input_elements
        if self.params and self.backward_weight_flops:
            total += self.output_elements + self.input_elements + self.params
        return element_bytes * total


def mac_layer(
    cost: LayerCost,
    macs: int,
    bias_elements: int,
    weight_grad: bool,
) -> LayerCost:
    """Fill a multiply-accumulate layer: the input gradient and the weight gradient each
    repeat every forward multiply-accumulate once (dgrad = conv-transpose with the same
    weights, wgrad = correlation of input with grad-out); a bias costs one add per output
    forward and one per output for its gradient."""
    cost.forward_macs = macs
    cost.forward_flops = 2 * macs + bias_elements
    if cost.needs_input_grad:
        cost.backward_input_macs = macs
        cost.backward_input_flops = 2 * macs
    if weight_grad:
        cost.backward_weight_macs = macs
        cost.backward_weight_flops = 2 * macs + bias_elements
    return cost
