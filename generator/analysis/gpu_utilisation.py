"""GPU utilisation and achieved DRAM bandwidth of each GPU configuration whose run kept a
profiler trace, beside seed 004's nsys figures for the same model and phase (004 §2–3:
utilisation %, DRAM read and write GB/s on an A100 80GB PCIe, averaged over whole windows).

Ours, per configuration (`Result`), over its **timed median step** (unprofiled; its interval
and kind are the step's):
- utilisation: the GPU's busy time in the profiled step (trace_launch.py: the union of the
  step's kernels, copies and sets) over the timed median step, launch.py's
  `gpu_busy_share`, the same share its host-bound rule reads (1 − `gpu_idle_share`);
- achieved bandwidth: the step's **modelled** minimal bytes (the analytic count) over the
  timed median step. No run here has counted DRAM bytes for its whole step: ncu's kernel
  replay flushes the caches before each kernel (`--cache-control all`), so its DRAM bytes
  are cold-cache traffic of each kernel, not the step's, and are not used here.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from generator.analysis.interval import Interval
from generator.analysis.launch import PROFILED, LaunchTime
from generator.analysis.results import Result
from generator.records.literature import LiteratureRow

# (model, phase) of ours -> the prefix of seed 004's three rows for it (seeds.csv ids
# <prefix>-gpu-util, -dram-r, -dram-w); its closest configuration here is fp32, eager
SEED_ROWS: dict[tuple[str, str], str] = {
    ("simple_mlp", "train_step"): "004-mlp-train",
    ("simple_mlp", "inference"): "004-mlp-infer",
    ("resnet18", "train_step"): "004-rn18-train",
    ("resnet18", "inference"): "004-rn18-infer",
}
CLOSEST_PRECISION = "fp32"
CLOSEST_COMPILE = "eager"


@dataclass(frozen=True)
class Utilisation:
    """One configuration's GPU utilisation and modelled bandwidth over its timed median step."""

    workload: str
    device_label: str
    run_id: str  # the run whose trace gave the busy time
    busy_s: float  # GPU busy time of the profiled step (median over its profiled steps)
    step: Interval  # the timed median step, seconds
    share: Interval  # busy ÷ timed median step (a fraction)
    bandwidth: Interval | None  # modelled minimal bytes ÷ timed median step, B/s
    modelled_bytes: float | None
    host_bound: bool | None  # launch.py's verdict on the configuration (None: unknown)
    counted_elsewhere: bool  # ncu counted its kernels (cold caches: not the step's bytes)


def _busy_share(launch: LaunchTime, step_s: float | None) -> float | None:
    """launch.py's busy share of the profiled step's GPU time over `step_s`."""
    return replace(launch, timed_step_s=step_s).gpu_busy_share if step_s else None


def utilisation(
    result: Result, launch: LaunchTime, run_id: str, counted: bool = False
) -> Utilisation | None:
    """The configuration's figures from its profiled step's launch pair (PROFILED), None
    where the pair is not from a trace or there is no timed step."""
    step = result.step
    value = _busy_share(launch, step.value)
    if launch.source != PROFILED or value is None:
        return None
    # a longer step gives a smaller share: the interval's ends swap
    share = Interval(
        value, _busy_share(launch, step.high), _busy_share(launch, step.low),
        step.kind, step.processes, step.in_blocks,
    )  # fmt: skip
    modelled = result.modelled_bytes
    return Utilisation(
        workload=result.workload,
        device_label=result.device_label,
        run_id=run_id,
        busy_s=launch.gpu_s,
        step=step,
        share=share,
        bandwidth=step.inverse(modelled) if modelled else None,
        modelled_bytes=modelled,
        host_bound=result.launch.host_bound if result.launch is not None else None,
        counted_elsewhere=counted,
    )


def utilisations(
    results: Mapping[str, Result],
    launches: Mapping[str, LaunchTime],
    counted: Collection[str] = (),
) -> dict[str, Utilisation]:
    """Workload -> its figures, for each GPU configuration one of whose runs (the first by id,
    as results.with_trace_launch picks) kept a trace with a profiled step.
    `launches`: run id -> its trace's launch pair; `counted`: run ids ncu profiled."""
    found = {}
    for workload, result in results.items():
        run_id = next((r for r in result.run_ids if r in launches), None)
        if run_id is None:
            continue
        figures = utilisation(result, launches[run_id], run_id, run_id in counted)
        if figures is not None:
            found[workload] = figures
    return found


@dataclass(frozen=True)
class SeedWindow:
    """Seed 004's three figures for one model and phase (nsys, whole windows)."""

    share: LiteratureRow  # GPU utilisation, %
    read: LiteratureRow  # DRAM read, GB/s
    write: LiteratureRow  # DRAM write, GB/s

    @property
    def device(self) -> str:
        return self.share.device

    @property
    def share_fraction(self) -> float:
        return self.share.published_base / 100

    @property
    def bandwidth(self) -> float:
        """DRAM read + write, B/s: the traffic our modelled bytes stand beside."""
        return self.read.published_base + self.write.published_base


@dataclass(frozen=True)
class BesideSeed:
    """Seed 004's window beside one configuration of ours."""

    seed: SeedWindow
    ours: Utilisation
    result: Result

    @property
    def share_ratio(self) -> Interval:
        """Ours ÷ the seed's utilisation (the seed's has no interval)."""
        return self.ours.share.scaled(1 / self.seed.share_fraction)

    def sentence(self) -> str:
        """The cause of the difference, in one sentence."""
        seed = (
            "004's figure averages a whole nsys window of its A100, idle gaps included (its "
            "data loader and Python between launches)"
        )
        if self.ours.host_bound:
            ours = (
                "ours is one step with its batch already on the GPU, host-bound (launch) by "
                "launch.py's rule, so the GPU waits on the host's launches"
            )
        elif self.ours.host_bound is None:
            ours = "ours is one step with its batch already on the GPU, without a data loader"
        else:
            ours = (
                "ours is one step with its batch already on the GPU, whose kernels (not the "
                "host) set its time by launch.py's rule"
            )
        return f"{seed}; {ours}."


def seed_windows(literature: Sequence[LiteratureRow]) -> dict[tuple[str, str], SeedWindow]:
    """(model, phase) -> seed 004's three rows, where all three are transcribed."""
    by_id = {row.id: row for row in literature}
    found = {}
    for key, prefix in SEED_ROWS.items():
        rows = [by_id.get(f"{prefix}-{part}") for part in ("gpu-util", "dram-r", "dram-w")]
        if rows[0] is not None and rows[1] is not None and rows[2] is not None:
            found[key] = SeedWindow(rows[0], rows[1], rows[2])
    return found


def beside_seed(
    literature: Sequence[LiteratureRow],
    results: Mapping[str, Result],
    figures: Mapping[str, Utilisation],
) -> list[BesideSeed]:
    """Every closest configuration of ours (same model and phase, fp32, eager) with figures,
    beside seed 004's window for it, by model, phase, batch and device."""
    windows = seed_windows(literature)
    pairs = []

    def order(workload: str) -> tuple[str, str, int, str]:
        r = results[workload]
        return (r.model, r.phase, r.batch, r.device_label)

    for workload in sorted(figures, key=order):
        result = results[workload]
        window = windows.get((result.model, result.phase))
        if window is None or result.precision != CLOSEST_PRECISION:
            continue
        if result.compile != CLOSEST_COMPILE:
            continue
        pairs.append(BesideSeed(window, figures[workload], result))
    return pairs
