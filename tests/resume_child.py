"""`python -m tests.resume_child EXPERIMENTS MEASUREMENTS LOG [BUDGET]`: `measure` with a fake
block runner, for the tests that stop it (tests/test_resume.py).

Each fake block sleeps a little (a block takes time), gives deterministic step times, and
carries a unique token in its conditions (run.json keeps each block's conditions, and the
pending store keeps the whole block), so the test can tell which blocks were timed and which
were kept. A block is logged as timed when the runner returns it."""

from __future__ import annotations

import functools
import sys
import time
import uuid
from pathlib import Path

from rich.console import Console

from generator.measure import runner
from generator.measure.block import BlockRequest, BlockResult
from generator.measure.ceilings import measure_ceilings

BLOCK_S = 0.15


def fake_runner(log: Path) -> runner.BlockRunner:
    def run(request: BlockRequest) -> BlockResult:
        time.sleep(BLOCK_S)
        token = uuid.uuid4().hex
        base = 0.010 if request.config["phase"] == "inference" else 0.030
        rows = [{"forward_s": base / 2, "step_s": base * (1 + 0.01 * i)} for i in range(3)]
        with log.open("a", encoding="utf-8") as out:
            out.write(f"timed {token}\n")
        return BlockResult(rows=rows, conditions={"token": token}, setup_s=0.05)

    return run


def main(argv: list[str]) -> int:
    config, measurements, log = Path(argv[0]), Path(argv[1]), Path(argv[2])
    budget = float(argv[3]) if len(argv) > 3 else None
    runner.measure_ceilings = functools.partial(  # type: ignore[assignment]
        measure_ceilings, runs=2, gemm_size=64, stream_elements=4096
    )
    with log.open("a", encoding="utf-8") as out:
        out.write("started\n")
    outcomes = runner.execute(
        config, measurements, None, False, False, ["measure"], console=Console(stderr=True),
        block_runner=fake_runner(log), seed=7, budget_s=budget,
    )  # fmt: skip
    return 1 if any(o.status == "failed" for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
