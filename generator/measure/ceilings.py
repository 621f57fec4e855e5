"""Empirical ceilings of this device, so rooflines can show what the machine really reaches
beside its datasheet: per precision the best GEMM rate (on a GPU the best of several runs of
one large `torch.mm`; on a CPU the best point of a sweep of kernels, shapes and thread
counts, `cpu_sweep`), and the best of several runs of STREAM-style copy and triad."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

import torch

from generator.formatting import utc_now
from generator.measure.cpu_sweep import SweepPlan, default_plan, sweep_ceilings
from generator.measure.provenance import cpu_supports_bf16


def _best_time(action: Callable[[], Any], sync: Callable[[], None], runs: int) -> list[float]:
    action()  # warm up: allocation, library initialisation
    sync()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        sync()
        times.append(time.perf_counter() - start)
    return times


def _gemm_precisions(device: str) -> dict[str, torch.dtype]:
    if device == "cuda":
        return {
            "fp32": torch.float32,
            "tf32": torch.float32,
            "bf16": torch.bfloat16,
            "fp16": torch.float16,
        }
    precisions = {"fp32": torch.float32}
    if cpu_supports_bf16():
        precisions["bf16"] = torch.bfloat16
    return precisions


def _one_gemm(
    device: str, size: int, runs: int, sync: Callable[[], None]
) -> dict[str, dict[str, Any]]:
    """Per precision, the best of `runs` runs of one square `torch.mm` of `size`."""
    gemm: dict[str, dict[str, Any]] = {}
    previous_tf32 = torch.backends.cuda.matmul.allow_tf32
    try:
        for precision, dtype in _gemm_precisions(device).items():
            torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
            a = torch.randn(size, size, device=device).to(dtype)
            b = torch.randn(size, size, device=device).to(dtype)
            flops = 2 * size**3
            times = _best_time(functools.partial(torch.mm, a, b), sync, runs)
            gemm[precision] = {
                "size": size,
                "flops": flops,
                "times_s": times,
                "best_flops_per_s": flops / min(times),
            }
            del a, b
    finally:
        torch.backends.cuda.matmul.allow_tf32 = previous_tf32
    return gemm


def measure_ceilings(
    device: str,
    runs: int = 5,
    gemm_size: int | None = None,
    stream_elements: int | None = None,
    sweep: SweepPlan | None = None,
) -> dict[str, Any]:
    """GEMM FLOP/s per precision and copy/triad bytes/s; default sizes far beyond the
    caches (1 GiB / 128 MiB of fp32 per stream array on GPU / CPU). On a CPU without
    `gemm_size` the GEMM rate is the best of `sweep` (default: `cpu_sweep.default_plan`);
    a `gemm_size` times that one square `torch.mm` alone, as on a GPU."""
    cuda = device == "cuda"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    stream_elements = stream_elements or ((1 << 28) if cuda else (1 << 25))
    result: dict[str, Any] = {"gemm": {}, "stream": {}}
    if not cuda and gemm_size is None:
        plan = sweep or default_plan(torch.get_num_threads())
        result["gemm"] = sweep_ceilings(_gemm_precisions(device), plan)
    else:
        result["gemm"] = _one_gemm(device, gemm_size or (8192 if cuda else 2048), runs, sync)
    x = torch.rand(stream_elements, device=device)
    y = torch.rand(stream_elements, device=device)
    z = torch.empty(stream_elements, device=device)
    element = x.element_size()
    kernels: dict[str, tuple[Callable[[], Any], int]] = {
        # STREAM's byte counts: copy reads 1 and writes 1 array, triad reads 2 and writes 1.
        "copy": (lambda: z.copy_(x), 2 * element * stream_elements),
        "triad": (lambda: torch.add(x, y, alpha=3.0, out=z), 3 * element * stream_elements),
    }
    for name, (action, moved) in kernels.items():
        times = _best_time(action, sync, runs)
        result["stream"][name] = {
            "elements": stream_elements,
            "bytes": moved,
            "times_s": times,
            "best_bytes_per_s": moved / min(times),
        }
    result["measured_at"] = utc_now()
    result["runs"] = runs
    return result
