"""The CPU's compute ceiling as the best of a sweep: the library kernels torch runs a model's
layers with (`torch.mm`, `torch.addmm` as `linear`, `torch.bmm`, `conv2d`), each over a
growing series of shapes like the models' layers, at every thread count from 1 to torch's.
One size of one GEMM is not a ceiling: committed CPU steps ran faster than a lone 2048³
`torch.mm`. Each series stops growing at a plateau (`plateaued`), and every point is kept
so the ceilings file shows where the best one came from."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F

PLATEAU = 0.03  # a size that gains less than 3 % on the one before ends its series
BUDGET_S = 100.0  # the whole sweep, every precision; a series past it stops growing
POINT_S = 0.5  # timed seconds aimed at per point: a fast point repeats more than `runs` times
MAX_REPEATS = 200

Action = Callable[[], Any]


@dataclass(frozen=True)
class Series:
    """One kernel over shapes that grow along one axis (the first is the smallest)."""

    kernel: str  # mm, linear, bmm, conv2d
    shapes: tuple[tuple[int, ...], ...]
    what: str  # the shapes in words: "square", "MLP layer (batch grows)", ...


@dataclass(frozen=True)
class SweepPlan:
    series: tuple[Series, ...]
    threads: tuple[int, ...]
    runs: int = 3  # timed runs per point at least (one where a single run outlasts point_s)
    budget_s: float = BUDGET_S
    plateau: float = PLATEAU
    point_s: float = POINT_S


@dataclass
class Sweep:
    points: list[dict[str, Any]] = field(default_factory=list)
    stopped_by_budget: bool = False


def thread_counts(available: int) -> tuple[int, ...]:
    """1, 2, 4, ... up to and including `available`."""
    counts = {available}
    count = 1
    while count < available:
        counts.add(count)
        count *= 2
    return tuple(sorted(counts))


def default_plan(threads: int) -> SweepPlan:
    """Square GEMMs, the layers of the seed models (an MLP's 784 -> 4096 linear, BERT-base's
    768 -> 3072 feed-forward and per-sequence 768² projections, a ResNet 3×3 convolution),
    each growing until it plateaus."""
    return SweepPlan(
        series=(
            Series("mm", tuple((n, n, n) for n in (256, 512, 1024, 2048, 3072, 4096)), "square"),
            Series(
                "mm",
                tuple((m, 784, 4096) for m in (128, 256, 512, 1024, 2048)),
                "MLP layer (M×784)·(784×4096), batch grows",
            ),
            Series(
                "linear",
                tuple((m, 768, 3072) for m in (128, 256, 512, 1024, 2048)),
                "BERT feed-forward linear (M×768)·(768×3072) + bias, tokens grow",
            ),
            Series(
                "bmm",
                tuple((b, 128, 768, 768) for b in (1, 2, 4, 8, 16)),
                "batched (B×128×768)·(B×768×768), sequences grow",
            ),
            Series(
                "conv2d",
                tuple((n, 128, 28, 28, 128, 3, 3) for n in (1, 2, 4, 8, 16)),
                "3×3 convolution, 128→128 channels on 28×28, batch grows",
            ),
        ),
        threads=thread_counts(threads),
    )


def kernel_flops(kernel: str, shape: Sequence[int]) -> int:
    """Multiply-accumulates × 2 (a bias add is not counted: a ceiling is never inflated).
    mm/linear (M, K, N); bmm (B, M, K, N); conv2d (N, Cin, H, W, Cout, kh, kw), stride 1
    with 'same' padding, so Hout × Wout = H × W."""
    if kernel in ("mm", "linear"):
        m, k, n = shape
        return 2 * m * k * n
    if kernel == "bmm":
        b, m, k, n = shape
        return 2 * b * m * k * n
    if kernel == "conv2d":
        batch, cin, height, width, cout, kh, kw = shape
        return 2 * batch * cout * height * width * cin * kh * kw
    raise ValueError(f"unknown kernel {kernel!r}")


def _action(kernel: str, shape: Sequence[int], dtype: torch.dtype) -> Action:
    def rand(*size: int) -> torch.Tensor:
        return torch.randn(*size).to(dtype)

    if kernel == "mm":
        m, k, n = shape
        a, b = rand(m, k), rand(k, n)
        return lambda: torch.mm(a, b)
    if kernel == "linear":
        m, k, n = shape
        x, weight, bias = rand(m, k), rand(n, k), rand(n)
        return lambda: F.linear(x, weight, bias)
    if kernel == "bmm":
        batch, m, k, n = shape
        a, b = rand(batch, m, k), rand(batch, k, n)
        return lambda: torch.bmm(a, b)
    if kernel == "conv2d":
        batch, cin, height, width, cout, kh, kw = shape
        x, weight = rand(batch, cin, height, width), rand(cout, cin, kh, kw)
        return lambda: F.conv2d(x, weight, padding=(kh // 2, kw // 2))
    raise ValueError(f"unknown kernel {kernel!r}")


def plateaued(best_rates: Sequence[float], tolerance: float = PLATEAU) -> bool:
    """Whether a series should stop growing: its last size's best rate gains less than
    `tolerance` on the size before (or falls)."""
    return len(best_rates) >= 2 and best_rates[-1] < best_rates[-2] * (1 + tolerance)


def time_point(action: Action, runs: int, point_s: float) -> list[float]:
    """Wall times of the calls after one warm-up: as many as fill `point_s` (at least `runs`,
    at most MAX_REPEATS), or one where the warm-up alone took longer than `point_s`."""
    start = time.perf_counter()
    action()  # warm up: allocation, library initialisation, packing
    warm = time.perf_counter() - start
    fill = math.ceil(point_s / max(warm, 1e-9))
    repeats = 1 if warm > point_s else max(runs, min(MAX_REPEATS, fill))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return times


def sweep_precision(
    precision: str,
    dtype: torch.dtype,
    plan: SweepPlan,
    deadline: float,
    sweep: Sweep,
    timer: Callable[[Action, int, float], list[float]] = time_point,
) -> None:
    """Append every point of `plan` at `dtype` to `sweep`; torch's thread count is put
    back afterwards."""
    previous = torch.get_num_threads()
    try:
        for threads in plan.threads:
            torch.set_num_threads(threads)
            for series in plan.series:
                rates: list[float] = []
                for shape in series.shapes:
                    if time.perf_counter() > deadline:
                        sweep.stopped_by_budget = True
                        break
                    flops = kernel_flops(series.kernel, shape)
                    times = timer(_action(series.kernel, shape, dtype), plan.runs, plan.point_s)
                    rates.append(flops / min(times))
                    sweep.points.append(
                        {
                            "precision": precision,
                            "kernel": series.kernel,
                            "series": series.what,
                            "shape": list(shape),
                            "threads": threads,
                            "flops": flops,
                            "times_s": times,
                            "flops_per_s": rates[-1],
                        }
                    )
                    if plateaued(rates, plan.plateau):
                        break
    finally:
        torch.set_num_threads(previous)


def best_point(points: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The point with the highest rate (the first of equals)."""
    return max(points, key=lambda point: point["flops_per_s"])


def sweep_ceilings(
    precisions: dict[str, torch.dtype],
    plan: SweepPlan,
    timer: Callable[[Action, int, float], list[float]] = time_point,
) -> dict[str, dict[str, Any]]:
    """Per precision, the ceilings file's `gemm` entry: the best point's rate, kernel,
    shape, threads and times, and every point swept."""
    start = time.perf_counter()
    deadline = start + plan.budget_s
    result: dict[str, dict[str, Any]] = {}
    for precision, dtype in precisions.items():
        began = time.perf_counter()
        sweep = Sweep()
        sweep_precision(precision, dtype, plan, deadline, sweep, timer)
        if not sweep.points:
            continue
        best = best_point(sweep.points)
        result[precision] = {
            "best_flops_per_s": best["flops_per_s"],
            "kernel": best["kernel"],
            "shape": best["shape"],
            "threads": best["threads"],
            "flops": best["flops"],
            "times_s": best["times_s"],
            "sweep": {
                "plateau": plan.plateau,
                "threads": list(plan.threads),
                "budget_s": plan.budget_s,
                "stopped_by_budget": sweep.stopped_by_budget,
                "seconds": time.perf_counter() - began,
                "points": [{k: v for k, v in p.items() if k != "precision"} for p in sweep.points],
            },
        }
    return result
