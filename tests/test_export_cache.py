"""An ncu export's check is kept by content (site/export_cache.py): the same export and
arguments read it back, anything else is checked afresh."""

from __future__ import annotations

import pickle
import shutil
from dataclasses import replace
from pathlib import Path

from generator.ingest.cache import ParsedExport, cached_read, parsed_export
from generator.ingest.schema import NcuExport
from generator.site.export_cache import cached_check
from generator.store import Store
from generator.summaries.export import check_export

EXPORT = (
    Path(__file__).parent / "data" / "ncu" / "Olajide-Badejo__GPU-Roofline-Profiler__gemm_tiled.csv"
)


def test_a_check_is_read_back_only_for_the_same_export_and_arguments(tmp_path: Path) -> None:
    export = cached_read(EXPORT, Store(tmp_path))
    assert export.content_key  # it came through the parse cache
    first = cached_check(export, None, "forward", Store(tmp_path, "code"))
    direct = check_export(export, None, "forward")
    assert first.findings == direct.findings
    assert first.analysis.step == direct.analysis.step
    assert first.analysis.metrics.equals(direct.analysis.metrics)
    (entry,) = (tmp_path / "checked").rglob("*.pickle")
    # marked, so a read-back is told from a check
    marked = replace(first, findings=())
    entry.write_bytes(pickle.dumps(marked))
    assert (
        cached_check(
            cached_read(EXPORT, Store(tmp_path)), None, "forward", Store(tmp_path, "code")
        ).findings
        == ()
    )
    # another phase, analytic count or export is another entry
    assert (
        cached_check(export, None, "train_step", Store(tmp_path, "code")).findings
        == check_export(export, None, "train_step").findings
    )
    cached_check(export, None, "forward", Store(tmp_path, "code"), analytic_forward_flops=1e9)
    assert len(list((tmp_path / "checked").rglob("*.pickle"))) == 3
    # other code: checked again
    assert (
        cached_check(export, None, "forward", Store(tmp_path, "other")).findings == direct.findings
    )
    assert len(list((tmp_path / "checked").rglob("*.pickle"))) == 4
    # an export parsed outside the cache has no content key: checked, nothing stored
    unkeyed = replace(export, content_key="")
    assert (
        cached_check(unkeyed, None, "forward", Store(tmp_path, "code")).findings == direct.findings
    )
    assert len(list((tmp_path / "checked").rglob("*.pickle"))) == 4
    # an unreadable entry is checked again
    entry.write_bytes(b"torn")
    assert (
        cached_check(export, None, "forward", Store(tmp_path, "code")).findings == direct.findings
    )


def test_a_cached_check_of_a_cached_parse_reads_no_frames(tmp_path: Path) -> None:
    """The load stage takes a cached parse's key alone (`parsed_export`); its frames are
    read only when the check is not cached, and a parse cache emptied in between is parsed
    again."""
    assert isinstance(parsed_export(EXPORT, Store(tmp_path)), NcuExport)  # not cached: parsed now
    parsed = parsed_export(EXPORT, Store(tmp_path))
    assert isinstance(parsed, ParsedExport)
    assert parsed.content_key == cached_read(EXPORT, Store(tmp_path)).content_key
    first = cached_check(parsed, None, "forward", Store(tmp_path, "code"))
    assert "export" in vars(parsed)  # a miss: the frames were read to check them
    assert (
        first.findings
        == check_export(cached_read(EXPORT, Store(tmp_path)), None, "forward").findings
    )
    (folder,) = (tmp_path / "ncu").iterdir()
    shutil.rmtree(folder)  # a cached check needs no parse at all
    again = parsed_export(EXPORT, Store(tmp_path))
    assert isinstance(again, NcuExport)  # gone from the cache: parsed again, and stored
    later = ParsedExport(EXPORT, Store(tmp_path), again.content_key)
    assert cached_check(later, None, "forward", Store(tmp_path, "code")).findings == first.findings
    assert "export" not in vars(later)
    shutil.rmtree(folder)
    fresh = ParsedExport(EXPORT, Store(tmp_path), again.content_key)
    checked = cached_check(fresh, None, "train_step", Store(tmp_path, "code"))  # a miss, no parse
    assert checked.findings == check_export(again, None, "train_step").findings


def test_a_torn_parse_is_parsed_again(tmp_path: Path) -> None:
    export = cached_read(EXPORT, Store(tmp_path))
    (folder,) = (tmp_path / "ncu").glob("*/*")
    (folder / "kernels.parquet").write_bytes(b"torn")
    again = cached_read(EXPORT, Store(tmp_path))
    assert again.kernels.equals(export.kernels)
    assert cached_read(EXPORT, Store(tmp_path)).kernels.equals(export.kernels)  # stored whole again
    assert (folder / "kernels.parquet").read_bytes() != b"torn"
