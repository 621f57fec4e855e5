"""ncu mode: profile exactly one training step, after warmup, in a child process.

Two passes over that step (`ReplayPlan`): **range replay** (the default, `--replay-mode
range`, or `app-range` where the step cannot be replayed in memory) over the NVTX ranges the
child pushes around each phase, so every kernel of the step is counted, per phase, with one
replay per metric pass of the whole range; then **kernel replay** of a sampled subset of its
launches (`--launch-skip`/`--launch-count`), per kernel, which is what the report's kernel
tables read (ncu.csv). The plan is recorded with the run.

What ncu accepts in each mode, and so what the child does (`ncu_child`, its second argument):

- **kernel replay** (the kernel sample, `--ncu-replay kernel`): the child brackets the step
  with cudaProfilerStart/Stop and ncu starts with profiling off (`--profile-from-start off`),
  so the warm-up is never profiled and `--launch-skip` counts from the step's first launch.
- **range and app-range replay**: ncu 2025.3.1 refuses `--profile-from-start` there (the
  H200 run of 2026-11-27: "==ERROR== Option profile-from-start is not supported during range
  replay.", tests/data/h200; a public lab note, RUN-0043, saw the same refusal for app-range
  with 2025.3.1 and "Option '--app-replay-buffer' is not supported with range-based replay
  modes"; `--import-source` is refused likewise, GPU MODE's Discord, 2025-04). A range is
  marked either by cu(da)ProfilerStart/Stop pairs (the default) or by `--nvtx-include`
  expressions, a range being defined as soon as any expression matches (Profiling Guide,
  "Range Replay: Defining Ranges", docs.nvidia.com/nsight-compute/ProfilingGuide). So the
  phases' NVTX ranges alone mark what is profiled: the child makes no profiler start/stop
  call there (they would mark ranges of their own), and the warm-up, which pushes no NVTX
  range, is not profiled. A range must not contain CUDA calls range replay cannot capture
  (CUDA graphs, stream-ordered and virtual memory management: a compiled reduce-overhead
  step, or PYTORCH_CUDA_ALLOC_CONF=expandable_segments, cannot be range-replayed; app-range
  re-runs the child per pass instead and needs no such support, same page).
- **every mode**: PyTorch runs backward on its own autograd thread, so thread-scoped push/pop
  ranges miss it (tritonbench issue #87: ncu saw no range on the backward pass); the phase
  ranges are matched with process scope (`--nvtx-push-pop-scope process`, NsightComputeCli
  "Launch" options). NVTX filtering needs `--nvtx` (NsightComputeCli, "NVTX Filtering").

`--clock-control base` (our default; ncu 2026.1's documentation lists boost as its own) locks
the GPU's clocks to base for the profile; shared and cloud machines forbid it, so
`--ncu-clock-control none` profiles at the clocks the card runs at, and run.json's
`ncu.clock_control` says which was used (kernel times differ). ncu refuses the whole run when
one requested metric does not exist on the GPU, so the metric list is cut to what
`ncu --query-metrics` says this GPU has."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from generator.errors import UserError
from generator.ingest.metric_map import METRIC_COLUMNS
from generator.records.run_parts import NcuRecord

# Recorded with the run: base clocks and flushed caches make kernels slower than in a
# normal run, and a reader must know which was used.
CLOCK_CONTROL = "base"  # the default; `none` leaves the clocks as found (shared machines)
CLOCK_CONTROLS = ("base", "none")
CACHE_CONTROL = "all"

# How the child marks its profiled step (its second argument): cudaProfilerStart/Stop around
# it (kernel replay, and nsys's capture range), or the phases' NVTX ranges alone (range modes,
# where ncu refuses --profile-from-start and start/stop calls would mark ranges of their own).
MARKERS_PROFILER_API = "profiler-api"
MARKERS_NVTX = "nvtx"
CHILD_MARKERS = (MARKERS_PROFILER_API, MARKERS_NVTX)

# Collected whenever the GPU has them, mapped or not: tensor-pipe counters are named
# differently per architecture (Hopper's warpgroup MMA among them), and an export that
# holds them can be re-read when the metric map learns a new name, without re-profiling.
EXTRA_METRIC_PREFIXES = ("sm__ops_path_tensor_", "sm__inst_executed_pipe_tensor")

# Variants a DL training step never exercises: each metric more can add replay passes.
EXTRA_METRIC_SKIPPED = ("sparsity", "int1", "int8", "imma", "dmma", "fp8", "hfma2")

_METRIC_NAME = re.compile(r"^[a-z][a-z0-9_]*__[a-z0-9_]+$")


def metric_base(name: str) -> str:
    """`dram__bytes_read.sum` → `dram__bytes_read` (what --query-metrics lists)."""
    return name.split(".", 1)[0]


def _is_metric_name(name: str) -> bool:
    """Display names of exported sections (`sol:Duration`) are not metrics ncu can collect."""
    return bool(_METRIC_NAME.match(metric_base(name)))


def query_command(ncu: str) -> list[str]:
    return [ncu, "--query-metrics"]


def available_metrics(query_output: str) -> set[str]:
    """Base metric names in the output of `ncu --query-metrics` (first word of a row)."""
    names = set()
    for line in query_output.splitlines():
        words = line.split()
        if words and _METRIC_NAME.match(words[0]):
            names.add(words[0])
    return names


def ncu_metrics(available: set[str] | None = None) -> list[str]:
    """The metrics to collect: per mapped column, its first name the GPU has (every
    collectable alias when `available` is unknown), then the extra tensor counters."""
    names: list[str] = []
    for column in METRIC_COLUMNS:
        usable = [a for a in column.aliases if _is_metric_name(a) and "." in a]
        if available is not None:
            usable = [a for a in usable if metric_base(a) in available][:1]
        names += [a for a in usable if a not in names]
    for base in sorted(available or ()):
        extra = base.startswith(EXTRA_METRIC_PREFIXES) and not any(
            word in base for word in EXTRA_METRIC_SKIPPED
        )
        if extra and f"{base}.sum" not in names:
            names.append(f"{base}.sum")
    return names


REPLAY_MODES = ("range", "app-range", "kernel")
RANGE_MODES = ("range", "app-range")
# The NVTX push/pop ranges ncu_child wraps each phase in (the `name/` form of --nvtx-include
# matches a push/pop range of that name).
PHASE_RANGES = ("forward", "loss", "backward", "optimizer_step")


@dataclass(frozen=True)
class ReplayPlan:
    """How one run's step is replayed: `mode` for the step's ranges (or `kernel` for every
    kernel, the way ncu mode profiled before ranges), then `kernel_count` launches after
    `kernel_skip` replayed kernel by kernel (0: no kernel pass)."""

    mode: str = "range"
    kernel_count: int = 200
    kernel_skip: int = 0

    def __post_init__(self) -> None:
        if self.mode not in REPLAY_MODES:
            raise UserError(
                f"ncu replay mode {self.mode!r} is not one of {', '.join(REPLAY_MODES)}",
                key="--ncu-replay",
                fix="use range (the default), app-range or kernel",
            )
        if self.kernel_count < 0 or self.kernel_skip < 0:
            raise UserError(
                "the kernel sample's count and skip must be 0 or more",
                key="--ncu-kernels",
                fix="give a whole number of kernel launches, 0 for no kernel pass",
            )

    def record(self) -> NcuRecord:
        return {"replay_mode": self.mode, "kernel_sample": {
            "launch_skip": self.kernel_skip, "launch_count": self.kernel_count}}  # fmt: skip


def replay_arguments(mode: str, skip: int = 0, count: int = 0) -> list[str]:
    """ncu's replay options: range replay over the phases' NVTX ranges, or kernel replay of
    `count` launches after `skip` (count 0: every launch)."""
    if mode in RANGE_MODES:
        includes = [arg for name in PHASE_RANGES for arg in ("--nvtx-include", f"{name}/")]
        return ["--replay-mode", mode, *includes]
    sample = ["--launch-skip", str(skip), "--launch-count", str(count)] if count else []
    return ["--replay-mode", "kernel", *sample]


def check_clock_control(value: str) -> str:
    """A clock control ncu mode offers, or a UserError."""
    if value not in CLOCK_CONTROLS:
        raise UserError(
            f"ncu clock control {value!r} is not one of {', '.join(CLOCK_CONTROLS)}",
            key="--ncu-clock-control",
            fix="use base (ncu locks the clocks to base while profiling) or none (shared or "
            "cloud machines, where the clocks may not be changed)",
        )
    return value


def replay_mode_of(replay: list[str] | None) -> str:
    """The --replay-mode in replay_arguments(...) (none given: ncu's default, kernel)."""
    if replay and "--replay-mode" in replay:
        return replay[replay.index("--replay-mode") + 1]
    return "kernel"


def profile_command(
    ncu: str,
    report: Path,
    config_json: Path,
    python: str | None = None,
    metrics: list[str] | None = None,
    replay: list[str] | None = None,
    clock_control: str = CLOCK_CONTROL,
) -> list[str]:
    """The ncu command that runs the child step under the profiler (`replay`:
    replay_arguments(...); none: ncu's default, kernel replay of every launch). Kernel
    replay starts with profiling off until the child's cudaProfilerStart; range modes take
    the NVTX ranges alone (see the module's docstring)."""
    ranges = replay_mode_of(replay) in RANGE_MODES
    start = [] if ranges else ["--profile-from-start", "off"]
    return [
        ncu,
        "--target-processes", "all",
        *start,
        "--nvtx",
        "--nvtx-push-pop-scope", "process",
        *(replay or []),
        "--clock-control", clock_control,
        "--cache-control", CACHE_CONTROL,
        "--metrics", ",".join(metrics if metrics is not None else ncu_metrics()),
        "--export", str(report),
        "--force-overwrite",
        python or sys.executable, "-m", "generator.measure.ncu_child", str(config_json),
        MARKERS_NVTX if ranges else MARKERS_PROFILER_API,
    ]  # fmt: skip


def export_command(ncu: str, report: Path) -> list[str]:
    """Turns the report into the long CSV layout the ingest reads (written to ncu.csv)."""
    return [ncu, "--import", str(report), "--csv", "--page", "details"]


def find_ncu(device_available: bool) -> str:
    """The ncu executable, or a UserError saying why ncu mode cannot run here."""
    return find_profiler(
        "ncu",
        "Nsight Compute",
        device_available,
        "import an ncu CSV collected elsewhere into measurements/imported/",
    )


def find_profiler(tool: str, product: str, device_available: bool, elsewhere: str) -> str:
    """`tool` (ncu, nsys) on PATH, or a UserError saying why `measure --<tool>` cannot run
    here; `elsewhere`: what to do instead without a GPU."""
    if not device_available:
        raise UserError(
            f"--{tool} needs a CUDA device, and this machine has none",
            key=f"--{tool}",
            fix=f"run `nox -s measure -- --{tool}` on a GPU machine, or {elsewhere}",
        )
    found = shutil.which(tool)
    if found is None:
        raise UserError(
            f"--{tool} needs {product}'s `{tool}` on PATH, and it is not there",
            key=f"--{tool}",
            fix=f"install {product} (it comes with the CUDA toolkit) and add its folder to PATH",
        )
    return found


def metrics_for_this_gpu(ncu: str) -> list[str]:
    """ncu_metrics() cut to this GPU's metrics; every alias if the query fails."""
    try:
        output = subprocess.run(
            query_command(ncu), capture_output=True, text=True, check=True, timeout=300
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return ncu_metrics()
    available = available_metrics(output)
    return ncu_metrics(available or None)


class NcuFailed(RuntimeError):
    """ncu exited non-zero or ran out of time; the message ends with its own last lines."""


def run_ncu(command: list[str], timeout_s: float, log: Path | None = None) -> str:
    """Run an ncu command and return its stdout; ncu's messages go to `log` when given."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired as error:
        tail = _text(error.stderr) + _text(error.stdout)
        raise NcuFailed(f"ncu did not finish in {timeout_s:.0f} s: {_last_lines(tail)}") from None
    if log is not None:
        log.write_text("\n".join(filter(None, (done.stderr, _prof_lines(done.stdout)))) + "\n")
    if done.returncode != 0:
        raise NcuFailed(
            f"ncu exited with status {done.returncode}: {_last_lines(done.stderr + done.stdout)}"
        )
    return done.stdout


def said(log: str) -> str:
    """ncu's errors and warnings in its log, its last few (why it profiled nothing)."""
    lines = [line for line in log.splitlines() if line.startswith(("==ERROR==", "==WARNING=="))]
    return _last_lines("\n".join(lines))


def _text(data: str | bytes | None) -> str:
    if data is None:
        return ""
    return data.decode(errors="replace") if isinstance(data, bytes) else data


def _prof_lines(stdout: str) -> str:
    """ncu's own messages (==PROF==, ==WARNING==, ==ERROR==) from a child's stdout."""
    return "\n".join(line for line in stdout.splitlines() if line.startswith("=="))


def _last_lines(text: str, count: int = 8) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return " | ".join(lines[-count:]) or "(no output)"
