"""Empirical ceilings of this device: the best of several runs of a large GEMM per
precision and of STREAM-style copy and triad, so rooflines can show what the machine
really reaches beside its datasheet."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

import torch

from generator.formatting import utc_now
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


def measure_ceilings(
    device: str,
    runs: int = 5,
    gemm_size: int | None = None,
    stream_elements: int | None = None,
) -> dict[str, Any]:
    """GEMM FLOP/s per precision and copy/triad bytes/s; default sizes far beyond the
    caches (1 GiB / 128 MiB of fp32 per stream array on GPU / CPU)."""
    cuda = device == "cuda"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    gemm_size = gemm_size or (8192 if cuda else 2048)
    stream_elements = stream_elements or ((1 << 28) if cuda else (1 << 25))
    result: dict[str, Any] = {"gemm": {}, "stream": {}}
    previous_tf32 = torch.backends.cuda.matmul.allow_tf32
    try:
        for precision, dtype in _gemm_precisions(device).items():
            torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
            a = torch.randn(gemm_size, gemm_size, device=device).to(dtype)
            b = torch.randn(gemm_size, gemm_size, device=device).to(dtype)
            flops = 2 * gemm_size**3
            times = _best_time(functools.partial(torch.mm, a, b), sync, runs)
            result["gemm"][precision] = {
                "size": gemm_size,
                "flops": flops,
                "times_s": times,
                "best_flops_per_s": flops / min(times),
            }
            del a, b
    finally:
        torch.backends.cuda.matmul.allow_tf32 = previous_tf32
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
