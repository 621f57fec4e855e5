"""Record a real CPU trace of FP8 `torch._scaled_mm`:
`python tests/data/traces/scaled_mm_cpu/record.py tests/data/traces/scaled_mm_cpu`.

Two calls on float8_e4m3fn operands a [32, 64] and b [64, 48]: one with tensor-wise scales
and a bfloat16 output, one adding a bfloat16 bias [48]. torch records the operands, the
scales (0-d float tensors), the bias and `out_dtype` (15: bfloat16) with their types."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile


def main(folder: Path) -> None:
    torch.manual_seed(0)
    a = torch.randn(32, 64).to(torch.float8_e4m3fn)
    b = torch.randn(48, 64).to(torch.float8_e4m3fn).t()  # column-major, as _scaled_mm wants
    scale_a, scale_b = torch.tensor(0.5), torch.tensor(2.0)
    bias = torch.randn(48).to(torch.bfloat16)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        torch._scaled_mm(a, b, scale_a=scale_a, scale_b=scale_b, out_dtype=torch.bfloat16)
        torch._scaled_mm(
            a, b, scale_a=scale_a, scale_b=scale_b, bias=bias, out_dtype=torch.bfloat16
        )
    plain = folder / "trace.json"
    prof.export_chrome_trace(str(plain))
    (folder / "trace.json.gz").write_bytes(gzip.compress(plain.read_bytes(), mtime=0))
    plain.unlink()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
