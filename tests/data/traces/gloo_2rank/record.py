"""Record a real two-rank torch.profiler capture on CPU (gloo): DDP training of a small
MLP, rank 1 given extra work each step so that it is the straggler."""

from __future__ import annotations

import gzip
import os
import shutil
import sys
from pathlib import Path

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.profiler import ProfilerActivity, profile, schedule

STEPS = 6  # wait 1, warm up 1, record 3 (and one after)
EXTRA_ON_RANK_1 = 40  # extra 256x256 matmuls per step on rank 1: the straggler


def _worker(rank: int, world: int, out: str) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29533")
    torch.set_num_threads(1)
    torch.manual_seed(0)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    model = DistributedDataParallel(
        nn.Sequential(
            nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)
        )
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    data, target = torch.randn(64, 256), torch.randint(0, 10, (64,))
    extra = torch.randn(256, 256)
    with profile(
        activities=[ProfilerActivity.CPU],
        schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
        record_shapes=True,
    ) as prof:
        for _ in range(STEPS):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(data), target)
            loss.backward()
            optimizer.step()
            if rank == 1:
                with torch.profiler.record_function("extra_work"):
                    for _ in range(EXTRA_ON_RANK_1):
                        extra = torch.tanh(extra @ extra)
            prof.step()
    plain = Path(out) / f"rank-{rank}.json"
    prof.export_chrome_trace(str(plain))
    with plain.open("rb") as source, gzip.open(f"{plain}.gz", "wb", compresslevel=9) as target_file:
        shutil.copyfileobj(source, target_file)
    plain.unlink()
    dist.destroy_process_group()


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    Path(out).mkdir(parents=True, exist_ok=True)
    mp.spawn(_worker, args=(2, out), nprocs=2, join=True)
