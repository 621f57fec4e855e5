"""Comparisons that go against the direction a reader expects, and what the data says decided
each one: every such sentence in the report names its cause, or says it is unexplained.

The expected directions:

- PRECISION: a reduced precision (tf32, bf16-amp, fp16-amp) takes no longer than fp32 for one
  model, dataset, batch, phase and compile mode on one device;
- BATCH: a smaller batch takes no longer per step than a larger one of the same
  configuration (else the larger batch's throughput gains more than 2x per doubling);
- DEVICE: a GPU takes no longer than a CPU for one configuration;
- PHASES: a training step's backward pass takes no less time than its forward pass (it does
  about twice the forward's FLOPs).

Where a measurement goes the other way, `cause` reads the step that should have been faster:
its host launch time beside its GPU time (`Result.launch`, the one rule in
analysis/launch.py) and its headline bound (analysis/points.py), and says

- HOST: it is host-bound (launch): the host's time to enqueue it, not its GPU's work, set
  its time, so the comparison measured the host;
- OVERHEAD: it is latency/overhead-bound (under 10 % of its roof): neither its arithmetic nor
  its memory traffic sets its time;
- UNEXPLAINED: neither; its runs get the `unexplained-comparison` finding
  (`findings/odd_checks.py`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from generator.analysis.bound_words import LATENCY
from generator.analysis.launch import HOST_BOUND, LaunchTime
from generator.analysis.phases import StepParts
from generator.analysis.points import Points
from generator.analysis.results import Result
from generator.formatting import number, seconds

PRECISION, BATCH, DEVICE, PHASES = "precision", "batch", "device", "phases"
HOST, OVERHEAD, UNEXPLAINED = "decided by the host", "decided by overhead", "unexplained"
BASELINE = "fp32"


@dataclass(frozen=True)
class Cause:
    kind: str  # HOST, OVERHEAD or UNEXPLAINED
    words: str  # a clause that starts with the kind

    @property
    def explained(self) -> bool:
        return self.kind != UNEXPLAINED


@dataclass(frozen=True)
class Odd:
    """One comparison against its expected direction: `expected` should have taken no
    longer than `other` (PHASES: one step, `other` None) and did not."""

    kind: str  # PRECISION, BATCH, DEVICE or PHASES
    expected: Result
    other: Result | None
    ratio: float  # expected's time over other's (PHASES: backward over forward), > 1
    cause: Cause

    def sentence(self) -> str:
        """What went the other way, then its cause, as one sentence."""
        return f"{self.what()}: {self.cause.words}."

    def what(self) -> str:
        e, o = self.expected, self.other
        if self.kind == PHASES:
            return (
                f"backward takes {_times(self.ratio)} the forward time for {_config(e)} on "
                f"{e.device_label}, less than the forward pass"
            )
        assert o is not None
        if self.kind == PRECISION:
            return (
                f"{e.precision} takes {_times(self.ratio)} as long as {o.precision} for "
                f"{_config(e, precision=False)} on {e.device_label}"
            )
        if self.kind == BATCH:
            return (
                f"batch {e.batch} takes {_times(self.ratio)} as long per step as batch "
                f"{o.batch} for {_config(e, batch=False)} on {e.device_label}"
            )
        return f"{e.device_label} takes {_times(self.ratio)} as long as {o.device_label} for {_config(e)}"


def _times(value: float) -> str:
    return f"{number(value, 3)}×"


def _config(r: Result, precision: bool = True, batch: bool = True) -> str:
    """'resnet18 (cifar10) b128 train_step fp32', less what the comparison varies."""
    text = f"{r.model} ({r.dataset})" + (f" b{r.batch}" if batch else "") + f" {r.phase}"
    text += f" {r.precision}" if precision else ""
    return text if r.compile == "eager" else f"{text}, torch.compile {r.compile}"


def _launch(launch: LaunchTime) -> str:
    return (
        f"the host took {seconds(launch.host_s)} to enqueue it and the GPU {seconds(launch.gpu_s)} "
        f"to run it (host/GPU {number(launch.ratio, 3)}, {launch.source})"
    )


def _side(result: Result, kind: str) -> str:
    """How a sentence names one side of the comparison."""
    return {PRECISION: result.precision, BATCH: f"batch {result.batch}",
            DEVICE: result.device_label}.get(kind, "")  # fmt: skip


def cause(kind: str, expected: Result, other: Result | None, points: Mapping[str, Points]) -> Cause:
    """What the data says decided it, from the step that should have been faster: its
    launch time (host-bound (launch) first), else its headline bound (latency/overhead)."""
    name = "the step" if kind == PHASES else f"the {_side(expected, kind)} step"
    launch = expected.launch
    if launch is not None and launch.host_bound:
        words = f"{HOST}: {name} is {HOST_BOUND}: {_launch(launch)}"
        if other is not None and other.launch is not None:
            theirs = other.launch
            state = (
                "host-bound too" if theirs.host_bound else "not host-bound: its GPU's work sets it"
            )
            words += f"; for the {_side(other, kind)} step, {_launch(theirs)}, {state}"
        if kind == PHASES:
            words += ": its phases' times are the host's enqueue times, not the GPU's work"
        return Cause(HOST, words)
    found = points.get(expected.workload)
    verdict = found.headline if found is not None else None
    if verdict is not None and verdict.bound == LATENCY:
        return Cause(
            OVERHEAD,
            f"{OVERHEAD}: {name} is {LATENCY}-bound at {verdict.of_roof.percent_text()}"
            f" of its roof ({verdict.point} point): neither its arithmetic nor its memory "
            "traffic sets its time",
        )
    host = (
        f"{_launch(launch)}, not host-bound"
        if launch is not None
        else "no host launch time is recorded for it"
        if expected.device != "cpu"
        else "a CPU step (no host/GPU split)"
    )
    bound = (
        f"; its headline bound: {verdict.bound_class} ({verdict.point} point)" if verdict else ""
    )
    return Cause(
        UNEXPLAINED,
        f"{UNEXPLAINED}: for {name}, {host}{bound}; nothing measured accounts for it",
    )


def _pairs(results: Iterable[Result], varied: str) -> list[list[Result]]:
    """Results that differ only in `varied` (the device label for DEVICE)."""
    keys = ("model", "dataset", "batch", "phase", "precision", "compile", "device_label")
    keep = tuple(k for k in keys if k != varied)
    groups: dict[tuple[object, ...], list[Result]] = {}
    for result in sorted(results, key=lambda r: r.workload):
        groups.setdefault(tuple(getattr(result, k) for k in keep), []).append(result)
    return [group for group in groups.values() if len(group) > 1]


def _odd(kind: str, slow: Result, fast: Result, points: Mapping[str, Points]) -> Odd:
    return Odd(kind, slow, fast, slow.step.value / fast.step.value, cause(kind, slow, fast, points))


def odd_pairs(results: Iterable[Result], points: Mapping[str, Points]) -> list[Odd]:
    """Every comparison of two results against its expected direction (PRECISION, BATCH,
    DEVICE), by kind and configuration."""
    found = list(results)
    odd = []
    for group in _pairs(found, "precision"):
        base = [r for r in group if r.precision == BASELINE]
        for reduced in (r for r in group if r.precision != BASELINE):
            odd += [_odd(PRECISION, reduced, b, points) for b in base
                    if reduced.step.value > b.step.value]  # fmt: skip
    for group in _pairs(found, "batch"):
        ordered = sorted(group, key=lambda r: r.batch)
        for i, small in enumerate(ordered):
            odd += [_odd(BATCH, small, big, points) for big in ordered[i + 1 :]
                    if big.batch > small.batch and small.step.value > big.step.value]  # fmt: skip
    for group in _pairs(found, "device_label"):
        cpus = [r for r in group if r.device == "cpu"]
        for gpu in (r for r in group if r.device != "cpu"):
            odd += [_odd(DEVICE, gpu, cpu, points) for cpu in cpus
                    if gpu.step.value > cpu.step.value]  # fmt: skip
    return odd


def odd_phases(
    parts: Iterable[StepParts], results: Mapping[str, Result], points: Mapping[str, Points]
) -> list[Odd]:
    """Every training step whose backward pass took less time than its forward."""
    odd = []
    for item in parts:
        result = results.get(item.workload)
        ratio = item.time_ratio
        if result is None or ratio is None or ratio.value >= 1:
            continue
        odd.append(Odd(PHASES, result, None, ratio.value, cause(PHASES, result, None, points)))
    return odd


def odd_between(odd: Iterable[Odd], a: Result, b: Result) -> Odd | None:
    """The comparison of `a` and `b` among `odd`, either way round."""
    return next(
        (o for o in odd if o.other is not None
         and {o.expected.workload, o.other.workload} == {a.workload, b.workload}),
        None,
    )  # fmt: skip
