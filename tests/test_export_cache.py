"""An ncu export's check is kept by content (site/export_cache.py): the same export and
arguments read it back, anything else is checked afresh."""

from __future__ import annotations

import pickle
from dataclasses import replace
from pathlib import Path

from generator.ingest.cache import cached_read
from generator.site.export_cache import cached_check
from generator.summaries.export import check_export

EXPORT = (
    Path(__file__).parent / "data" / "ncu" / "Olajide-Badejo__GPU-Roofline-Profiler__gemm_tiled.csv"
)


def test_a_check_is_read_back_only_for_the_same_export_and_arguments(tmp_path: Path) -> None:
    export = cached_read(EXPORT, tmp_path)
    assert export.content_key  # it came through the parse cache
    first = cached_check(export, None, "forward", (tmp_path, "code"))
    direct = check_export(export, None, "forward")
    assert first.findings == direct.findings
    assert first.analysis.step == direct.analysis.step
    assert first.analysis.metrics.equals(direct.analysis.metrics)
    (entry,) = (tmp_path / "checked").rglob("*.pickle")
    # marked, so a read-back is told from a check
    marked = replace(first, findings=())
    entry.write_bytes(pickle.dumps(marked))
    assert (
        cached_check(cached_read(EXPORT, tmp_path), None, "forward", (tmp_path, "code")).findings
        == ()
    )
    # another phase, analytic count or export is another entry
    assert (
        cached_check(export, None, "train_step", (tmp_path, "code")).findings
        == check_export(export, None, "train_step").findings
    )
    cached_check(export, None, "forward", (tmp_path, "code"), analytic_forward_flops=1e9)
    assert len(list((tmp_path / "checked").rglob("*.pickle"))) == 3
    # other code: checked again
    assert cached_check(export, None, "forward", (tmp_path, "other")).findings == direct.findings
    assert len(list((tmp_path / "checked").rglob("*.pickle"))) == 4
    # an export parsed outside the cache has no content key: checked, nothing stored
    unkeyed = replace(export, content_key="")
    assert cached_check(unkeyed, None, "forward", (tmp_path, "code")).findings == direct.findings
    assert len(list((tmp_path / "checked").rglob("*.pickle"))) == 4
    # an unreadable entry is checked again
    entry.write_bytes(b"torn")
    assert cached_check(export, None, "forward", (tmp_path, "code")).findings == direct.findings
