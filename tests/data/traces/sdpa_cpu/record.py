"""Record a real CPU trace of scaled-dot-product attention, forward and backward:
`python tests/data/traces/sdpa_cpu/record.py tests/data/traces/sdpa_cpu`.

Two calls through torch's own dispatch: a causal one (q, k, v [2, 4, 64, 16]) and an
unmasked one with fewer queries than keys (q [2, 4, 48, 16], k, v [2, 4, 64, 16]). On the
CPU both run `_scaled_dot_product_flash_attention_for_cpu` and its backward, with shapes."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile


def main(folder: Path) -> None:
    torch.manual_seed(0)
    q = torch.randn(2, 4, 64, 16, requires_grad=True)
    k = torch.randn(2, 4, 64, 16, requires_grad=True)
    v = torch.randn(2, 4, 64, 16, requires_grad=True)
    short_q = torch.randn(2, 4, 48, 16, requires_grad=True)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        causal = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        rectangular = F.scaled_dot_product_attention(short_q, k, v)
        (causal.sum() + rectangular.sum()).backward()
    plain = folder / "trace.json"
    prof.export_chrome_trace(str(plain))
    (folder / "trace.json.gz").write_bytes(gzip.compress(plain.read_bytes(), mtime=0))
    plain.unlink()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
