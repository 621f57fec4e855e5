"""`python -m generator.measure.ncu_child CONFIG.json [MARKERS]`: the step ncu profiles.

Warm up, then one training step with an NVTX range per phase, synchronized. MARKERS says
what marks that step for the profiler (measure/ncu.py says why): `profiler-api` (the
default: kernel replay and nsys's capture range) brackets it with cudaProfilerStart/Stop;
`nvtx` (ncu's range modes) leaves it to the NVTX ranges, with no start/stop call."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

from generator.config import RunConfig
from generator.measure.ncu import CHILD_MARKERS, MARKERS_PROFILER_API
from generator.measure.step import apply_precision, build_workload, run_iterations


def main(path: str, markers: str = MARKERS_PROFILER_API) -> int:
    if markers not in CHILD_MARKERS:
        print(f"ncu_child: markers {markers!r} is not one of {CHILD_MARKERS}", file=sys.stderr)
        return 2
    bracket = markers == MARKERS_PROFILER_API
    data = json.loads(Path(path).read_text())
    data["input_shape"] = tuple(data["input_shape"])
    config = RunConfig(**data)
    apply_precision(config.precision, config.device)
    workload = build_workload(config)
    run_iterations(workload, max(config.warmup, 1))
    torch.cuda.synchronize()
    if bracket:
        torch.cuda.profiler.start()
    for name, action in workload.phases():
        torch.cuda.nvtx.range_push(name)
        action()
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    if bracket:
        torch.cuda.profiler.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
