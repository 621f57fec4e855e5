"""Record a real CPU trace of embedding bags, forward only:
`python tests/data/traces/embedding_bag_cpu/record.py tests/data/traces/embedding_bag_cpu`.

Three calls of `F.embedding_bag` on one table (1000 rows of 16 floats): a sum over 40
int64 indices in 8 bags (8 offsets), a sum with 40 per-sample float weights, and a mean with
`include_last_offset` (9 offsets for 8 bags). torch records each as `aten::embedding_bag`
over `aten::_embedding_bag_forward_only` (no grad) with their shapes and scalars."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile


def main(folder: Path) -> None:
    torch.manual_seed(0)
    table = torch.randn(1000, 16)
    indices = torch.randint(0, 1000, (40,))
    offsets = torch.arange(0, 40, 5)  # 8 bags of 5
    weights = torch.rand(40)
    last = torch.arange(0, 41, 5)  # the same bags, with the end offset
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof, torch.no_grad():
        F.embedding_bag(indices, table, offsets, mode="sum")
        F.embedding_bag(indices, table, offsets, mode="sum", per_sample_weights=weights)
        F.embedding_bag(indices, table, last, mode="mean", include_last_offset=True)
    plain = folder / "trace.json"
    prof.export_chrome_trace(str(plain))
    (folder / "trace.json.gz").write_bytes(gzip.compress(plain.read_bytes(), mtime=0))
    plain.unlink()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
