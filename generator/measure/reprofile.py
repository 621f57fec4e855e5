"""Profiling a measured run again without timing it again: `measure --ncu` (or `--nsys`)
meeting a run measured with the same configuration that has no successful profile of that
tool (no block, or one whose profiler failed: the finding ncu-failed / nsys-failed).

The run folder is copied to a staging folder beside it (measure/store.py), the profiler
runs there, run.json's block, `files` and profiler findings are rewritten, and the staging
folder replaces the run folder in one rename: its steps.csv and timing are copied byte for
byte, and a profiler that fails again leaves the run as it was but for its new message."""

from __future__ import annotations

import shutil
from pathlib import Path

from generator.config import RunConfig
from generator.findings.profiler_checks import PROFILER_FAILED, profiler_findings
from generator.formatting import utc_now
from generator.measure.profilers import (
    NCU_FILES,
    NSYS_FILES,
    NcuSettings,
    NsysSettings,
    profile_ncu,
    profile_nsys,
)
from generator.measure.store import staged_run_folder
from generator.records.finding import findings_json
from generator.records.run import RunRecord, write_run
from generator.records.run_parts import NcuRecord, NsysRecord


def _lacks(record: RunRecord, block: NcuRecord | NsysRecord | None, finding: str) -> bool:
    failed = any(f.get("id") == finding for f in record.findings or [])
    return block is None or "failed" in block or failed


def lacks_ncu(record: RunRecord) -> bool:
    """No successful ncu profile: none was made, or it failed."""
    return _lacks(record, record.ncu, "ncu-failed")


def lacks_nsys(record: RunRecord) -> bool:
    return _lacks(record, record.nsys, "nsys-failed")


def reprofile(
    runs_dir: Path,
    record: RunRecord,
    config: RunConfig,
    ncu: NcuSettings | None,
    nsys: NsysSettings | None,
    command: str,
) -> RunRecord:
    """Profile run `record` again with `ncu` and/or `nsys` (None: that tool's block is kept)
    and return its new record; `command`: this call's command line, recorded in the block."""
    source = runs_dir / record.run_id
    files = list(record.files or [])
    update: dict[str, NcuRecord | NsysRecord] = {}
    with staged_run_folder(runs_dir, record.run_id) as staging:
        shutil.copytree(source, staging, dirs_exist_ok=True)
        if ncu is not None:
            files = _without(staging, files, NCU_FILES)
            by_ncu = profile_ncu(config, staging, ncu)
            update["ncu"] = {**by_ncu.record, "profiled_at": utc_now(), "command": command}
            files += by_ncu.files
        if nsys is not None:
            files = _without(staging, files, NSYS_FILES)
            by_nsys = profile_nsys(config, staging, nsys)
            update["nsys"] = {**by_nsys.record, "profiled_at": utc_now(), "command": command}
            files += by_nsys.files
        again = record.model_copy(update={**update, "files": files})
        kept = [f for f in record.findings or [] if f.get("id") not in PROFILER_FAILED]
        found = profiler_findings(again.ncu, again.nsys, again.config.group)
        again = again.model_copy(update={"findings": kept + findings_json(found)})
        write_run(staging, again)
    return again


def _without(folder: Path, files: list[str], old: tuple[str, ...]) -> list[str]:
    """`files` less an earlier attempt's (whatever its plan was), removed from `folder`."""
    for name in old:
        (folder / name).unlink(missing_ok=True)
    return [f for f in files if f not in old]
