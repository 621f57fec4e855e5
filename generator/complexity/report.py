"""`python -m generator complexity`: the per-layer table and totals, as text or JSON."""

from __future__ import annotations

from typing import TypedDict

from generator.complexity.analyze import Complexity
from generator.complexity.costs import LayerCost
from generator.complexity.flop_counter import FlopCounterSummary
from generator.formatting import number, si
from generator.records.run_parts import ComplexityTotals

LAYER_COLUMNS = (
    "name",
    "kind",
    "family",
    "input_shape",
    "output_shape",
    "params",
    "forward_macs",
    "forward_flops",
    "backward_input_flops",
    "backward_weight_flops",
    "needs_input_grad",
    "activation_bytes",
    "forward_bytes",
    "backward_bytes",
    "arithmetic_intensity",
    "formula",
)


class LayerRow(TypedDict):
    """One row of the per-layer table (complexity.csv, `LAYER_COLUMNS`)."""

    name: str
    kind: str
    family: str
    input_shape: str
    output_shape: str
    params: int
    forward_macs: int
    forward_flops: float
    backward_input_flops: float
    backward_weight_flops: float
    needs_input_grad: bool
    activation_bytes: int
    forward_bytes: int
    backward_bytes: int
    arithmetic_intensity: float | None
    formula: str


class ComplexityReport(ComplexityTotals):
    """`python -m generator complexity --json`: the configuration, its totals and its
    per-layer table."""

    model: str
    input: str
    batch: int
    classes: int
    optimizer: str
    precision: str
    phase: str
    uncounted_functions: dict[str, int]
    layers: list[LayerRow]
    flop_counter: FlopCounterSummary | None


def layer_dict(layer: LayerCost, element_bytes: int, training: bool = True) -> LayerRow:
    """One row of the per-layer table; AI is the layer's FLOPs over its minimal traffic
    (forward and backward in training, forward only in inference)."""
    flops = layer.forward_flops + (layer.backward_flops if training else 0.0)
    traffic = layer.forward_bytes(element_bytes) + (
        layer.backward_bytes(element_bytes) if training else 0
    )
    return {
        "name": layer.name,
        "kind": layer.kind,
        "family": layer.family,
        "input_shape": "x".join(map(str, layer.input_shape)),
        "output_shape": "x".join(map(str, layer.output_shape)),
        "params": layer.params,
        "forward_macs": layer.forward_macs,
        "forward_flops": layer.forward_flops,
        "backward_input_flops": layer.backward_input_flops,
        "backward_weight_flops": layer.backward_weight_flops,
        "needs_input_grad": layer.needs_input_grad,
        "activation_bytes": layer.output_elements * element_bytes if layer.saves_activation else 0,
        "forward_bytes": layer.forward_bytes(element_bytes),
        "backward_bytes": layer.backward_bytes(element_bytes),
        "arithmetic_intensity": flops / traffic if traffic else None,
        "formula": "; ".join([layer.formula, *layer.notes]).strip("; "),
    }


def complexity_dict(
    result: Complexity, flop_counter: FlopCounterSummary | None
) -> ComplexityReport:
    layers = list(result.layers)
    if result.loss is not None:
        layers.append(result.loss)
    return {
        "model": result.model,
        "input": "x".join(map(str, result.input_shape)),
        "batch": result.batch,
        "classes": result.classes,
        "optimizer": result.optimizer,
        "precision": result.precision,
        "phase": result.lm_phase or ("train_step" if result.training else "inference"),
        **result.totals(),
        "uncounted_functions": result.uncounted_functions,
        "layers": [layer_dict(layer, result.element_bytes, result.training) for layer in layers],
        "flop_counter": flop_counter,
    }


def format_complexity(data: ComplexityReport) -> str:
    header = (
        f"{'layer':<34} {'type':<22} {'output':<16} {'params':>10} "
        f"{'fwd MACs':>11} {'fwd FLOPs':>11} {'bwd FLOPs':>11}"
    )
    lines = [
        f"{data['model']}  input {data['input']}  batch {data['batch']}  classes "
        f"{data['classes']}  {data['phase']}  {data['precision']}  optimizer {data['optimizer']}",
        "",
        header,
        "-" * len(header),
    ]
    for layer in data["layers"]:
        backward = layer["backward_input_flops"] + layer["backward_weight_flops"]
        lines.append(
            f"{layer['name'][:34]:<34} {layer['kind'][:22]:<22} {layer['output_shape'][:16]:<16} "
            f"{layer['params']:>10,} {si(layer['forward_macs'], '', 3):>11} "
            f"{si(layer['forward_flops'], '', 3):>11} {si(backward, '', 3):>11}"
        )
    lines += [
        "",
        f"  parameters          {data['params']:,}",
        f"  forward             {si(data['forward_macs'], 'MAC')}  =  "
        f"{si(data['forward_flops'], 'FLOP')} (2 FLOP per MAC + other ops)",
        f"  loss (fwd + bwd)    {si(data['loss_flops'], 'FLOP')}",
        f"  backward            {si(data['backward_flops'], 'FLOP')}",
        f"  optimizer           {si(data['optimizer_flops'], 'FLOP')}",
        f"  step                {si(data['step_flops'], 'FLOP')}",
        f"  activations         {si(data['activation_bytes'], 'B')}",
        f"  minimal traffic     {si(data['min_traffic_bytes'], 'B')}",
        f"  intensity           {number(data['arithmetic_intensity'])} FLOP/byte "
        "(step FLOPs / minimal traffic)",
    ]
    if data["uncounted_functions"]:
        names = ", ".join(f"{k} ×{v}" for k, v in sorted(data["uncounted_functions"].items()))
        lines.append(f"  no formula (0 FLOP) {names}")
    counter = data.get("flop_counter")
    if counter:
        lines.append(
            f"  FlopCounterMode     forward {si(counter['forward_flops'], 'FLOP')}, backward "
            f"{si(counter['backward_flops'], 'FLOP')} "
            f"(groups-corrected {si(counter['backward_flops_corrected'], 'FLOP')}); "
            "matmul/conv/attention only"
        )
    return "\n".join(lines)
