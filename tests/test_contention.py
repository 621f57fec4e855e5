"""The contended-blocks finding: blocks timed while other processes used the CPU."""

from __future__ import annotations

import polars as pl
import pytest

from generator.findings.contention import contention_findings


def _steps(medians: dict[int, float]) -> pl.DataFrame:
    rows = [
        {"invocation": 0, "block": block, "iteration": i, "step_s": median * factor}
        for block, median in medians.items()
        for i, factor in enumerate((0.9, 1.0, 1.1))
    ]
    return pl.DataFrame(rows)


def _block(block: int, *busy: float) -> dict[str, object]:
    return {
        "invocation": 0,
        "block": block,
        "busy_processes": [
            {"pid": 100 + i, "name": f"p{i}", "cpu_percent": share} for i, share in enumerate(busy)
        ],
    }


def test_contended_blocks_are_named_with_their_slowdown() -> None:
    # seen on this VM: a compiled SimpleMLP step of 0.25 ms took 48 ms in two contended blocks
    conditions = {"blocks": [_block(0, 31.5), _block(1, 98.7), _block(2), _block(3, 12.0)]}
    one = {"blocks": [_block(0, 40.0), _block(1)]}
    assert "used 40 % of a core" in contention_findings(one, None)[0].evidence
    steps = _steps({0: 0.0478, 1: 0.0479, 2: 0.00025, 3: 0.00025})
    [finding] = contention_findings(conditions, steps)
    assert (finding.id, finding.severity) == ("contended-blocks", "warning")
    assert finding.evidence.startswith("2 of 4 blocks ran while other processes (p0)")
    assert "31.5 % to 98.7 % of a core" in finding.evidence
    assert "191.4× the quiet blocks'" in finding.evidence  # 0.04785 / 0.00025
    assert "not judged" not in finding.evidence  # every block's conditions are there
    # blocks measured without their conditions recorded: the finding says how many it judged
    more = _steps({0: 0.0478, 1: 0.0479, 2: 0.00025, 3: 0.00025, 4: 0.00025, 5: 0.00025})
    [partial] = contention_findings(conditions, more)
    assert "(other processes were sampled in 4 of its 6 blocks; the others were not judged)" in (
        partial.evidence
    )


@pytest.mark.parametrize(
    "conditions",
    [
        None,
        {"rounds": [{"round": 0}]},  # timed in rounds: no busy samples per block
        {"blocks": [_block(0, 12.0, 10.5), _block(1)]},  # 22.5 % of a core: under a quarter
        {"blocks": [{"invocation": 0, "block": 0}]},  # psutil missing: nothing sampled
    ],
)
def test_quiet_or_unsampled_runs_say_nothing(conditions: dict[str, object] | None) -> None:
    assert contention_findings(conditions, _steps({0: 0.01, 1: 0.01})) == []


def test_contention_the_step_did_not_feel_says_nothing() -> None:
    # seen here: a kworker burst over a 0.5 s block of a step that ran no slower for it
    conditions = {"blocks": [_block(0, 41.7), _block(1), _block(2)]}
    assert contention_findings(conditions, _steps({0: 0.012, 1: 0.01, 2: 0.011})) == []
    assert contention_findings(conditions, _steps({0: 0.0138, 1: 0.01, 2: 0.011}))  # 1.25x


def test_every_block_contended_gives_no_ratio() -> None:
    conditions = {"blocks": [_block(0, 40.0, 20.0), _block(1, 50.0)]}
    [finding] = contention_findings(conditions, _steps({0: 0.02, 1: 0.03}))
    assert "2 of 2 blocks" in finding.evidence and "50 % to 60 % of a core" in finding.evidence
    assert "quiet blocks" not in finding.evidence
