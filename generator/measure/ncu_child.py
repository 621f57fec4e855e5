"""`python -m generator.measure.ncu_child CONFIG.json`: the step ncu profiles.

Warm up, then cudaProfilerStart, one training step with an NVTX range per phase,
synchronize, cudaProfilerStop."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

from generator.config import RunConfig
from generator.measure.step import apply_precision, build_workload, run_iterations


def main(path: str) -> int:
    data = json.loads(Path(path).read_text())
    data["input_shape"] = tuple(data["input_shape"])
    config = RunConfig(**data)
    apply_precision(config.precision, config.device)
    workload = build_workload(config)
    run_iterations(workload, max(config.warmup, 1))
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    for name, action in workload.phases():
        torch.cuda.nvtx.range_push(name)
        action()
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
