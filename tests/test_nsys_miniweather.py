"""The SQLite path's GPU numbers on a real export with CUPTI tables (NCAR's miniWeather on a
Quadro GP100, nsys 2022.2, old schema with EXPORT_META_DATA), each pinned against SQL written
here against the export's own tables: kernels, busy time, bytes copied, idle gaps."""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path

import pytest

from generator.analysis.nsys_analysis import GAP_MIN_S
from generator.summaries.nsys import summarize_nsys

EXPORT = Path(__file__).parent / "data" / "nsys" / "NCAR__GPU_workshop__miniweather_baseline.sqlite"
NS = 1e-9
GPU_WORK = """
    SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL
    UNION ALL SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY
    UNION ALL SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMSET
"""
# Busy intervals: the union of every kernel, copy and set, as islands of overlapping spans.
ISLANDS = f"""
    WITH spans AS ({GPU_WORK}),
    ordered AS (
        SELECT start, end, MAX(end) OVER (
            ORDER BY start, end ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS reach FROM spans
    ),
    numbered AS (
        SELECT start, end, SUM(CASE WHEN reach IS NULL OR start > reach THEN 1 ELSE 0 END)
            OVER (ORDER BY start, end ROWS UNBOUNDED PRECEDING) AS island
        FROM ordered
    )
    SELECT MIN(start), MAX(end) FROM numbered GROUP BY island ORDER BY MIN(start)
"""


@pytest.fixture(scope="module")
def db() -> sqlite3.Connection:
    return sqlite3.connect(f"file:{EXPORT}?mode=ro", uri=True)


@pytest.fixture(scope="module")
def summary() -> dict[str, object]:
    return summarize_nsys([EXPORT])


def test_kernels_by_name_match_sql(db: sqlite3.Connection, summary: dict[str, object]) -> None:
    rows = db.execute(
        """SELECT s.value, COUNT(*), SUM(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k
           JOIN StringIds s ON s.id = k.demangledName GROUP BY s.value"""
    ).fetchall()
    expected = {name: (count, total * NS) for name, count, total in rows}
    total_ns = db.execute("SELECT SUM(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    assert summary["kernel_time_s"] == pytest.approx(total_ns * NS, rel=1e-12)
    assert sum(count for count, _ in expected.values()) == 2596
    kernels = summary["kernels"]
    assert isinstance(kernels, list) and kernels
    for kernel in kernels:
        count, time_s = expected[kernel["name"]]
        assert kernel["count"] == count
        assert kernel["time_s"] == pytest.approx(time_s, rel=1e-12)


def test_bytes_copied_by_direction_match_sql(
    db: sqlite3.Connection, summary: dict[str, object]
) -> None:
    kinds = {1: "Host-to-Device", 2: "Device-to-Host"}  # CUpti_ActivityMemcpyKind
    rows = db.execute(
        """SELECT copyKind, COUNT(*), SUM(bytes), SUM(end - start)
           FROM CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY copyKind"""
    ).fetchall()
    expected = {kinds[kind]: (count, size, ns * NS) for kind, count, size, ns in rows}
    sets = db.execute(
        "SELECT COUNT(*), SUM(bytes), SUM(end - start) FROM CUPTI_ACTIVITY_KIND_MEMSET"
    ).fetchone()
    expected["memset"] = (sets[0], sets[1], sets[2] * NS)
    copies = summary["copies"]
    assert isinstance(copies, list)
    got = {c["operation"]: (c["count"], c["bytes"], c["time_s"]) for c in copies}
    assert got.keys() == expected.keys()
    for operation, (count, size, time_s) in expected.items():
        assert got[operation][0] == count
        assert got[operation][1] == size
        assert got[operation][2] == pytest.approx(time_s, rel=1e-12)


def test_busy_time_and_idle_gaps_match_sql(
    db: sqlite3.Connection, summary: dict[str, object]
) -> None:
    islands = db.execute(ISLANDS).fetchall()
    busy_s = sum(end - start for start, end in islands) * NS
    gaps = [(b[0] - a[1]) * NS for a, b in itertools.pairwise(islands)]
    stalls = [g for g in gaps if g >= GAP_MIN_S]
    # the capture's span: every traced activity, the host's runtime calls included
    first, last = db.execute(
        f"""SELECT MIN(start), MAX(end) FROM ({GPU_WORK}
            UNION ALL SELECT start, end FROM CUPTI_ACTIVITY_KIND_RUNTIME)"""
    ).fetchone()
    (gpu,) = summary["gpus"]  # type: ignore[misc]
    assert gpu["name"] == "Quadro GP100"
    assert gpu["busy_s"] == pytest.approx(busy_s, rel=1e-12)
    assert gpu["wall_s"] == pytest.approx((last - first) * NS, rel=1e-12)
    assert gpu["utilization"] == pytest.approx(busy_s / ((last - first) * NS), rel=1e-12)
    assert gpu["idle_gaps"] == len(stalls) == 13
    assert gpu["idle_in_gaps_s"] == pytest.approx(sum(stalls), rel=1e-9)
    assert gpu["longest_gap_s"] == pytest.approx(max(stalls), rel=1e-12)
