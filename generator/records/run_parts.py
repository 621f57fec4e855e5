"""The parts of run.json that `measure` writes and the report reads back, key by key: what a
block records (settings, conditions, compile, memory, energy, its profiled ops) and what the
run makes of its blocks (run.json's `compile`, `memory`, `energy`, `conditions`,
`complexity`, `environment`, `ncu`, `nsys`).

TypedDicts, not models: a block's record travels as JSON between processes and into
pending/, and run.json keeps keys a later version added (`extra="allow"`), in the order they
were written (fields below are declared in that order: pydantic writes declared keys first).
Numbers a run may hold as either (a median of whole bytes) are `int | float`, so that
validation keeps what was written. `typing_extensions.TypedDict`: pydantic needs it before
Python 3.12."""

from __future__ import annotations

from typing import Literal, NotRequired

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

_KEEP = ConfigDict(extra="allow")


@with_config(_KEEP)
class PrecisionSettings(TypedDict, total=False):
    """The precision switches as a block set them (`measure.step.apply_precision`)."""

    precision: str
    autocast_dtype: str | None
    cuda_matmul_allow_tf32: bool
    cudnn_allow_tf32: bool
    float32_matmul_precision: str
    cudnn_benchmark: bool
    cudnn_deterministic: bool
    torch_threads: int


@with_config(_KEEP)
class BusyProcess(TypedDict):
    """Another process that used more than `conditions.BUSY_PERCENT` of a core."""

    pid: int
    name: str
    cpu_percent: int | float


@with_config(_KEEP)
class GpuSample(TypedDict, total=False):
    """NVML's clocks, temperature, power and throttle reasons after a round."""

    sm_clock_mhz: int | float
    memory_clock_mhz: int | float
    max_sm_clock_mhz: int | float
    temperature_c: int | float
    power_w: int | float
    throttle_reasons: list[str]


@with_config(_KEEP)
class ConditionsSample(TypedDict, total=False):
    """The machine after one timed round or block (`measure.conditions`); run.json's
    `conditions.blocks` adds which invocation and block, and its setup time; `rounds`, the
    round."""

    round: int
    invocation: int
    block: int
    setup_s: int | float
    load_1m: int | float
    cpu_mhz: int | float | None
    busy_processes: list[BusyProcess] | None
    gpu: GpuSample


@with_config(_KEEP)
class RunConditions(TypedDict, total=False):
    """run.json's `conditions`: what holds for the whole run, and a sample per round or
    block."""

    cpu_governor: str | None
    cpu_count: int | None
    gpu_samples: str  # "nvml", or why there are none
    blocks: list[ConditionsSample]
    rounds: list[ConditionsSample]


@with_config(_KEEP)
class BlockCompile(TypedDict):
    """What one block says of compiling (`measure.compiled.compile_record`)."""

    mode: str
    first_step_s: float
    warm_step_s: float
    compile_s: float
    graphs: int
    recompiles_in_warmup: int
    recompiles_during_timing: int
    graph_breaks: NotRequired[int]
    cache: dict[str, int]


@with_config(_KEEP)
class CompileSummary(TypedDict, total=False):
    """run.json's `compile`: the blocks' compile records (`measure.resources`)."""

    mode: str
    cold_compile_s: int | float
    cold_cache: dict[str, int]
    warm_compile_s: int | float | None
    warm_cache: dict[str, int] | None
    graphs: int
    graph_breaks: int
    recompiles_in_warmup: int
    recompiles_during_timing: int
    cache_shared: str
    phases: str


@with_config(_KEEP)
class BlockMemory(TypedDict, total=False):
    """A block's peak memory over its timed steps (`measure.memory`): the worker's resident
    set on a CPU, the caching allocator's peaks on a GPU."""

    method: str
    peak_window: str
    peak_rss_bytes: int | None
    baseline_rss_bytes: int | None
    peak_allocated_bytes: int
    peak_reserved_bytes: int
    step_bytes: int | None


@with_config(_KEEP)
class MeasuredMemory(TypedDict, total=False):
    """The median over blocks of the step's measured bytes."""

    method: str
    peak_window: str
    step_bytes: int | float
    max_step_bytes: int
    blocks: int


# The parts of the footprint, each in bytes (`Footprint`'s keys but its total).
FootprintPart = Literal[
    "parameters_bytes", "gradients_bytes", "optimizer_state_bytes", "activations_bytes",
    "input_bytes",
]  # fmt: skip


@with_config(_KEEP)
class Footprint(TypedDict, total=False):
    """The analytic memory footprint (`complexity.footprint`), bytes per part."""

    parameters_bytes: int | float
    gradients_bytes: int | float
    optimizer_state_bytes: int | float
    activations_bytes: int | float
    input_bytes: int | float
    total_bytes: int | float


@with_config(_KEEP)
class MemorySummary(TypedDict, total=False):
    """run.json's `memory`: the measured peak beside the analytic footprint."""

    measured: MeasuredMemory | None
    why: str
    analytic: Footprint
    ratio: int | float | None
    mismatch_factor: int | float


@with_config(_KEEP)
class BlockEnergy(TypedDict, total=False):
    """A block's energy over its timed steps (`measure.energy`), or why it has none."""

    source: str
    joules: int | float | None
    why: str
    steps: int


@with_config(_KEEP)
class EnergySummary(TypedDict, total=False):
    """run.json's `energy`: joules per step over the blocks that could read it."""

    source: str | None
    joules_per_step: int | float | None
    why: str
    samples_per_joule: int | float | None
    blocks: int
    steps: int


@with_config(_KEEP)
class OpRow(TypedDict):
    """One op of the profiled step, per phase and input shapes (`measure.profile_ops`)."""

    phase: str
    op: str
    input_shapes: str
    calls: int
    self_time_s: float
    total_time_s: float
    self_device_time_s: float


@with_config(_KEEP)
class BlockError(TypedDict):
    """Why a block failed: the exception's type, message and the end of its traceback."""

    type: str
    message: str
    traceback: list[str]


@with_config(_KEEP)
class ComplexityTotals(TypedDict, total=False):
    """run.json's `complexity`: the analytic counts of one step
    (`complexity.analyze.Complexity.totals`)."""

    params: int | float
    forward_macs: int | float
    forward_flops: int | float
    backward_macs: int | float
    backward_flops: int | float
    loss_flops: int | float
    optimizer_flops: int | float
    step_flops: int | float
    activation_bytes: int | float
    min_traffic_bytes: int | float
    arithmetic_intensity: int | float


@with_config(_KEEP)
class GitState(TypedDict, total=False):
    """The commit the code was measured at, and whether it had changes."""

    commit: str | None
    dirty: bool | None
    source: str  # the variable that named a copied tree's commit


@with_config(_KEEP)
class Environment(TypedDict, total=False):
    """run.json's (and a ceilings file's) `environment` (`measure.provenance.environment`)."""

    host: str
    platform: str
    cpu_model: str | None
    cpu_cores: int | None
    cpu_bf16: bool | None
    torch_threads: int
    gpu_name: str | None
    gpu_capability: str | None
    driver: str | None
    cuda: str | None
    cudnn: int | None
    torch: str
    torchvision: str
    transformers: str | None
    python: str
    git: GitState
    slurm: dict[str, str]


@with_config(_KEEP)
class KernelSample(TypedDict):
    launch_skip: int
    launch_count: int


# One ncu pass: its profile and export commands, and the CSV its export went to ("pass" is
# a keyword, hence the functional form).
NcuPass = TypedDict(
    "NcuPass",
    {
        "pass": str,
        "profile_command": list[str],
        "export_command": list[str],
        "report": NotRequired[str],  # the binary report, until exported (not in run.json)
        "csv": str,
    },
)
NcuPass.__pydantic_config__ = _KEEP  # type: ignore[attr-defined]


@with_config(_KEEP)
class NcuRecord(TypedDict, total=False):
    """run.json's `ncu`: the replay, every pass, and the clock and cache control."""

    replay_mode: str
    kernel_sample: KernelSample
    passes: list[NcuPass]
    clock_control: str
    cache_control: str
    failed: str  # why ncu did not profile the step
    profiled_at: str  # profiled again after the run was timed (measure/reprofile.py)
    command: str


@with_config(_KEEP)
class NsysRecord(TypedDict, total=False):
    """run.json's `nsys`: its commands, or why it failed."""

    profile_command: list[str]
    export_command: list[str]
    failed: str
    profiled_at: str  # profiled again after the run was timed (measure/reprofile.py)
    command: str
