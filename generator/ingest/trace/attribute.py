"""Attribute measured time to the ops that caused it, and cost each op once.

Work items are the GPU kernels (each joined to its launch by `correlation`, the launch to
the innermost op around it on its thread) or, in a trace without kernels, each op's self
time on the CPU. A work item is counted at the *outermost op of its call chain that the
formula table knows*: dispatching composites (aten::linear, aten::matmul, aten::conv2d,
autograd wrappers) have no formula, so their leaves (aten::addmm, aten::mm,
aten::convolution) are counted, once, and helpers a counted op calls itself (the copy_
inside a CPU addmm) are part of its time, not a second cost. Backward ops are placed in the
layer of the forward op with the same `Sequence number`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from generator.ingest.trace.events import OpArgs
from generator.ingest.trace.formulas import DTYPE_BYTES, FLOAT_DTYPES, Cost
from generator.ingest.trace.labels import LAYER_PREFIX, PHASE_PREFIX, STEP_PREFIX
from generator.ingest.trace.multi_tensor import BY_GRID, adam_kernel_cost
from generator.ingest.trace.op_table import TENSOR_FAMILIES, has_formula, op_cost
from generator.ingest.trace.read import RawTrace
from generator.ingest.trace.tbe import is_tbe, pair_args, width_caps
from generator.ingest.trace.timeline import (
    NO_PARENT,
    Windows,
    enclosing_ops,
    op_parents,
    self_times,
    windows,
)

BACKWARD_NODE = "autograd::engine::evaluate_function: "
# A CUDA (HIP) graph replay: one runtime call whose correlation id all its kernels carry.
GRAPH_LAUNCHES = frozenset({"cudaGraphLaunch", "cudaGraphLaunch_v10000", "hipGraphLaunch"})
# An op's row for kernels attributed to it by identity (no launch event), apart from the
# calls the trace recorded, so each is seen for what it is.
BY_IDENTITY = " (by identity)"
# Kernel-name fragments of tensor-core code (CUTLASS, cuBLAS/xmma, cuDNN, Hopper wgmma,
# AMD MFMA); a float32 matmul on them is TF32.
TENSOR_CORE_TAGS = ("tensorop", "xmma", "hmma", "1688", "16816", "wgmma", "gmma", "mfma", "tf32")
# ...except an xmma kernel whose operands are all f32: with TF32 off, cuDNN and cuBLAS run
# `sm80_xmma_*_f32f32_f32f32_f32_*` on an H100 and its tensor-op counters read 0
# (measurements/runs/*-fp32-cuda-*/ncu.csv); TF32 kernels say `tf32` in their names.
SIMT_TAGS = ("f32f32_f32f32",)

WORK_SCHEMA = {
    "time_s": pl.Float64,
    "kernel": pl.String,
    "launcher": pl.String,  # the innermost op around the launch (or the op itself on CPU)
    "instance": pl.Int64,  # the counted op's index, or -1 when no op in the chain has a formula
    "tensor_core": pl.Boolean,
    # CPU self time of a wrapper (no formula) around counted ops: dispatch overhead
    "overhead": pl.Boolean,
    "step": pl.String,
    "phase": pl.String,
    "layer": pl.String,
    "range": pl.String,
    # how a kernel reached its op: "launch" (its runtime event), "identity" (no launch event:
    # an identical kernel's op), "grid" (a launch-less fused optimizer's kernel, costed from
    # its grid: multi_tensor.py), or null (no op)
    "attributed_by": pl.String,
}
INSTANCE_SCHEMA = {
    "instance": pl.Int64,
    "op": pl.String,
    "family": pl.String,
    "dtype": pl.String,
    "flops": pl.Float64,  # null: the op has a formula but its shapes were not recorded
    "bytes": pl.Float64,
    "full_square_flops": pl.Float64,  # attention: the whole L×S square (FlopCounterMode's)
    "bounded": pl.Boolean,  # the cost rests on a value the trace lacks (formulas.Cost)
    # a bounded cost's upper end, where the trace bounds it; null: exact, or unbounded above
    "flops_upper": pl.Float64,
    "bytes_upper": pl.Float64,
}


@dataclass(frozen=True)
class Attribution:
    work: pl.DataFrame  # WORK_SCHEMA, one row per kernel (or per op's CPU self time)
    instances: pl.DataFrame  # INSTANCE_SCHEMA, one row per counted op
    on_gpu: bool
    ops_with_shapes: int
    steps: tuple[str, ...]


def _range_windows(trace: RawTrace) -> tuple[Windows, Windows, Windows, Windows, list[str]]:
    names = trace.ranges.name
    steps = {i for i, n in enumerate(names) if n.startswith(STEP_PREFIX)}
    phases = {i for i, n in enumerate(names) if n.startswith(PHASE_PREFIX)}
    layers = {i for i, n in enumerate(names) if n.startswith(LAYER_PREFIX)}
    other = set(range(len(names))) - steps - phases - layers
    order = [names[i] for i in sorted(steps, key=lambda i: trace.ranges.ts[i])]
    return (
        windows(trace.ranges, steps),
        windows(trace.ranges, phases),
        windows(trace.ranges, layers),
        windows(trace.ranges, other),
        order,
    )


def _counted_op(parents: list[int], start: int, has_formula: list[bool]) -> int:
    """The outermost op with a formula on the chain from `start` up, or -1."""
    found, node = -1, start
    while node != NO_PARENT:
        if has_formula[node]:
            found = node
        node = parents[node]
    return found


def _wraps_formula(parents: list[int], has_formula: list[bool]) -> list[bool]:
    """Ops with an op that has a formula somewhere beneath them."""
    wraps = [False] * len(parents)
    for i, known in enumerate(has_formula):
        node = parents[i] if known else NO_PARENT
        while node != NO_PARENT and not wraps[node]:
            wraps[node] = True
            node = parents[node]
    return wraps


def _backward_layers(trace: RawTrace, parents: list[int], layer_of: list[str | None]) -> None:
    """Give ops under an autograd node the layer of the forward op sharing its sequence."""
    ops = trace.ops
    forward_layer: dict[int, str] = {}
    for i, seq in enumerate(ops.sequence):
        if seq is not None and layer_of[i] and not ops.name[i].startswith(BACKWARD_NODE):
            forward_layer.setdefault(seq, layer_of[i])  # type: ignore[arg-type]
    for i in range(len(ops)):
        node = i
        while node != NO_PARENT:
            if ops.name[node].startswith(BACKWARD_NODE) and ops.sequence[node] is not None:
                layer_of[i] = forward_layer.get(ops.sequence[node])  # type: ignore[arg-type]
                break
            node = parents[node]


def attribute(trace: RawTrace) -> Attribution:
    ops = trace.ops
    parents = op_parents(ops)
    known = {name: has_formula(name) for name in set(ops.name)}
    formula_of = [known[name] for name in ops.name]
    step_w, phase_w, layer_w, range_w, step_order = _range_windows(trace)

    def strip(name: str | None, prefix: str) -> str | None:
        return name.removeprefix(prefix) if name else None

    layer_of = [strip(layer_w.at(t), LAYER_PREFIX) for t in ops.ts]
    if any(layer_of):
        _backward_layers(trace, parents, layer_of)

    rows: dict[str, list[object]] = {column: [] for column in WORK_SCHEMA}

    def add(
        time_us: float,
        kernel: str | None,
        op: int,
        at: float,
        tensor: bool = False,
        wrapper: bool = False,
    ) -> None:
        instance = _counted_op(parents, op, formula_of) if op != NO_PARENT else -1
        rows["attributed_by"].append("launch" if op != NO_PARENT else None)
        rows["time_s"].append(time_us * 1e-6)
        rows["kernel"].append(kernel)
        rows["launcher"].append(ops.name[op] if op != NO_PARENT else None)
        rows["instance"].append(instance)
        rows["tensor_core"].append(tensor)
        rows["overhead"].append(wrapper and instance == -1)
        rows["step"].append(step_w.at(at))
        rows["phase"].append(strip(phase_w.at(at), PHASE_PREFIX))
        rows["layer"].append(layer_of[op] if op != NO_PARENT else None)
        rows["range"].append(range_w.at(at))

    kernels = trace.kernels
    unlaunched: list[int] = []  # work rows of kernels with no launch event
    donors: dict[tuple[str, str], int] = {}  # (name, launch config) -> a launched kernel's row
    if len(kernels):
        launch_op = enclosing_ops(ops, trace.launches)
        by_correlation = {c: i for i, c in enumerate(trace.launches.correlation) if c is not None}
        for k in range(len(kernels)):
            launch = by_correlation.get(kernels.correlation[k])  # type: ignore[arg-type]
            op = launch_op[launch] if launch is not None else NO_PARENT
            at = trace.launches.ts[launch] if launch is not None else kernels.ts[k]
            name = kernels.name[k]
            lowered = name.lower()
            tensor = any(t in lowered for t in TENSOR_CORE_TAGS) and not any(
                t in lowered for t in SIMT_TAGS
            )
            config = kernels.config[k]
            graph = launch is not None and trace.launches.name[launch] in GRAPH_LAUNCHES
            if op == NO_PARENT or graph:  # a graph replay's kernels: expanded by identity
                unlaunched.append(len(rows["time_s"]))
            elif config is not None:
                donors.setdefault((name, config), len(rows["time_s"]))
            add(kernels.dur[k], name, op, at, tensor)
    else:
        wraps = _wraps_formula(parents, formula_of)
        for i, own in enumerate(self_times(ops, parents)):
            if own > 0:
                add(own, None, i, ops.ts[i], wrapper=wraps[i])

    counted = sorted({int(i) for i in rows["instance"]} - {-1})  # type: ignore[call-overload]
    # FBGEMM's table-batched embeddings cost from their forward and backward together
    paired = pair_args(ops) if any(map(is_tbe, known)) else {}
    caps = width_caps(paired, zip(rows["instance"], rows["kernel"], strict=True)) if paired else {}  # type: ignore[arg-type]
    costs = {
        i: op_cost(ops.name[i], list_dtype(trace, i, paired.get(i, ops.args[i])), caps.get(i))
        for i in counted
    }
    instance_rows: dict[str, list[object]] = {column: [] for column in INSTANCE_SCHEMA}

    def add_instance(instance: int, op: str, cost: Cost | None, share: float = 1.0) -> None:
        instance_rows["instance"].append(instance)
        instance_rows["op"].append(op)
        instance_rows["family"].append(cost.family if cost else None)
        instance_rows["dtype"].append(cost.dtype if cost else None)
        instance_rows["flops"].append(cost.flops * share if cost else None)
        instance_rows["bytes"].append(cost.bytes * share if cost else None)
        square = cost.full_square_flops if cost else None
        instance_rows["full_square_flops"].append(square * share if square is not None else None)
        instance_rows["bounded"].append(cost.bounded if cost else None)
        for column, upper in (
            ("flops_upper", cost.flops_upper if cost else None),
            ("bytes_upper", cost.bytes_upper if cost else None),
        ):
            instance_rows[column].append(upper * share if upper is not None else None)

    for i in counted:
        add_instance(i, ops.name[i], costs[i])
    if unlaunched and donors:
        _by_identity(trace, rows, unlaunched, donors, costs, add_instance)
    if unlaunched:
        _by_grid(trace, rows, unlaunched, instance_rows["instance"], add_instance)  # type: ignore[arg-type]
    work = pl.DataFrame(rows, schema=WORK_SCHEMA)
    instances = pl.DataFrame(instance_rows, schema=INSTANCE_SCHEMA)
    return Attribution(
        work=work,
        instances=instances,
        on_gpu=bool(len(kernels)),
        ops_with_shapes=sum(1 for a in ops.args if a is not None),
        steps=tuple(step_order),
    )


def _by_identity(
    trace: RawTrace,
    rows: dict[str, list[object]],
    unlaunched: list[int],
    donors: dict[tuple[str, str], int],
    costs: dict[int, Cost | None],
    add_instance: Callable[[int, str, Cost | None, float], None],
) -> None:
    """A kernel with no launch event (a dropped runtime record, a trace window that cut its
    launch off) or launched by a graph replay takes the op of an identical kernel an op
    launched (when the graph was captured, or in eager steps):
    same name, grid, block, registers and shared memory. Its cost is that kernel's share of
    its op's cost (the op's FLOPs spread over its kernels by time, as everywhere), as a new
    instance of the op, since it is the same work done once more, shown as
    "<op> (by identity)"."""
    kernels = trace.kernels
    time_of: dict[object, float] = {}
    for instance, time_s in zip(rows["instance"], rows["time_s"], strict=True):
        time_of[instance] = time_of.get(instance, 0.0) + time_s  # type: ignore[operator]
    next_instance = len(trace.ops)
    for row in unlaunched:
        k = row  # on a GPU trace every work row is a kernel, in the trace's kernel order
        config = kernels.config[k]
        donor = donors.get((kernels.name[k], config)) if config is not None else None
        if donor is None:
            continue  # no identical kernel: "(no op)", said so
        instance = int(rows["instance"][donor])  # type: ignore[call-overload]
        rows["launcher"][row] = rows["launcher"][donor]
        rows["layer"][row] = rows["layer"][donor]
        rows["attributed_by"][row] = "identity"
        if instance == -1:  # the donor's op has no formula: so has this kernel's
            rows["instance"][row] = -1
            continue
        share = rows["time_s"][donor] / time_of[instance]  # type: ignore[operator]
        rows["instance"][row] = next_instance
        add_instance(next_instance, trace.ops.name[instance] + BY_IDENTITY, costs[instance], share)
        next_instance += 1


def _by_grid(
    trace: RawTrace,
    rows: dict[str, list[object]],
    unlaunched: list[int],
    instances: list[int],
    add_instance: Callable[[int, str, Cost | None, float], None],
) -> None:
    """A fused optimizer's kernel that no op launched and no identical kernel gave an op
    (apex's FusedAdam, launched from its step range): a bounded cost from its grid
    (multi_tensor.py), each kernel an instance of its own, shown as BY_GRID."""
    kernels = trace.kernels
    next_instance = max([len(trace.ops) - 1, *instances]) + 1
    for row in unlaunched:
        if rows["instance"][row] != -1 or rows["launcher"][row] is not None:
            continue  # given an op by identity
        cost = adam_kernel_cost(kernels.name[row], kernels.config[row])
        if cost is None:
            continue
        rows["instance"][row] = next_instance
        rows["attributed_by"][row] = "grid"
        add_instance(next_instance, BY_GRID, cost, 1.0)
        next_instance += 1


def list_dtype(trace: RawTrace, op: int, args: OpArgs | None) -> OpArgs | None:
    """A tensor list's dtype, which the trace does not record, from the ops beside it on its
    thread: the float dtype of the op before it (its producer, as a rule) and after it (its
    consumer); the smaller where they differ (a lower bound). Other args as they are.
    A list whose shapes the trace left out (`[]`: long lists, as SGD's over every
    parameter) keeps its type: given a dtype, its `[]` would read as one 0-d tensor."""
    if args is None or not args.types or args.types[0] != "TensorList":
        return args
    if not (args.dims and isinstance(args.dims[0], list) and args.dims[0]):
        return args
    ops = trace.ops
    found = []
    for step in (-1, 1):
        at = op + step
        while 0 <= at < len(ops) and ops.tid[at] != ops.tid[op]:
            at += step
        near = ops.args[at] if 0 <= at < len(ops) else None
        dtype = next((t for t in near.types if t in FLOAT_DTYPES), None) if near else None
        if dtype is not None:
            found.append(dtype)
    if not found:
        return args
    dtype = min(found, key=lambda t: DTYPE_BYTES[t])
    return OpArgs(args.dims, [dtype, *args.types[1:]], args.concrete)


def tensor_path(family: str | None, dtype: str | None, tensor_core: bool) -> str:
    """The catalog peak an op runs against: tensor cores for matmul-like work when its kernels
    say so (or its dtype has no other path), CUDA cores otherwise."""
    if family in TENSOR_FAMILIES:
        if dtype is not None and dtype.startswith("c10::Float8_"):
            return "fp8_tensor"  # FP8 has no CUDA-core path
        if dtype == "c10::BFloat16":
            return "bf16_tensor"
        if dtype == "c10::Half":
            return "fp16_tensor"
        if dtype == "double":
            return "fp64_tensor" if tensor_core else "fp64"
        return "tf32_tensor" if tensor_core else "fp32"
    return "fp64" if dtype == "double" else "fp32"
