"""ncu mode: profile exactly one training step, after warmup, in a child process.

Two passes over that step (`ReplayPlan`): **range replay** (the default, `--replay-mode
range`, or `app-range` where the step cannot be replayed in memory) over the NVTX ranges the
child pushes around each phase, so every kernel of the step is counted, per phase, with one
replay per metric pass of the whole range; then **kernel replay** of a sampled subset of its
launches (`--launch-skip`/`--launch-count`), per kernel, which is what the report's kernel
tables read (ncu.csv). The plan is recorded with the run.

PyTorch runs backward on its own thread, so per-thread NVTX ranges would miss it: the
child brackets the step with cudaProfilerStart/Stop (`--profile-from-start off`) and the
phase ranges are pushed with process scope (`--nvtx-push-pop-scope process`).

ncu refuses the whole run when one requested metric does not exist on the GPU, so the
metric list is cut to what `ncu --query-metrics` says this GPU has."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.errors import UserError
from generator.ingest.metric_map import METRIC_COLUMNS

# Recorded with the run: base clocks and flushed caches make kernels slower than in a
# normal run, and a reader must know which was used.
CLOCK_CONTROL = "base"
CACHE_CONTROL = "all"

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

    def record(self) -> dict[str, Any]:
        return {"replay_mode": self.mode, "kernel_sample": {
            "launch_skip": self.kernel_skip, "launch_count": self.kernel_count}}  # fmt: skip


def replay_arguments(mode: str, skip: int = 0, count: int = 0) -> list[str]:
    """ncu's replay options: range replay over the phases' NVTX ranges, or kernel replay of
    `count` launches after `skip` (count 0: every launch)."""
    if mode in ("range", "app-range"):
        includes = [arg for name in PHASE_RANGES for arg in ("--nvtx-include", f"{name}/")]
        return ["--replay-mode", mode, *includes]
    sample = ["--launch-skip", str(skip), "--launch-count", str(count)] if count else []
    return ["--replay-mode", "kernel", *sample]


def profile_command(
    ncu: str,
    report: Path,
    config_json: Path,
    python: str | None = None,
    metrics: list[str] | None = None,
    replay: list[str] | None = None,
) -> list[str]:
    """The ncu command that runs the child step under the profiler (`replay`:
    replay_arguments(...); none: ncu's default, kernel replay of every launch)."""
    return [
        ncu,
        "--target-processes", "all",
        "--profile-from-start", "off",
        "--nvtx",
        "--nvtx-push-pop-scope", "process",
        *(replay or []),
        "--clock-control", CLOCK_CONTROL,
        "--cache-control", CACHE_CONTROL,
        "--metrics", ",".join(metrics if metrics is not None else ncu_metrics()),
        "--export", str(report),
        "--force-overwrite",
        python or sys.executable, "-m", "generator.measure.ncu_child", str(config_json),
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
