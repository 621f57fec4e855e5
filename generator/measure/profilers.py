"""The profilers on a measured run's step: its ncu passes (range replay, then a kernel
sample: ncu-range.csv, ncu.csv) and its nsys capture (nsys.sqlite), each run in a child
process on the run's folder, and run.json's `ncu` / `nsys` block saying what was run.

A profiler that fails (a non-zero exit, a timeout, no executable) never costs the run its
timing: its block records the attempt with `failed` (the tool's own message), its files are
removed, and the run carries the finding ncu-failed / nsys-failed (findings/profiler_checks)
until `measure --ncu` / `--nsys` profiles it again (measure/reprofile.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from generator.config import RunConfig
from generator.measure import ncu as ncu_mode
from generator.measure import nsys as nsys_mode
from generator.records.run import NCU_LOG
from generator.records.run_parts import NcuPass, NcuRecord, NsysRecord

NCU_RANGE_FILE = "ncu-range.csv"  # range replay: counters per phase range of the whole step
NCU_FILE = "ncu.csv"  # the kernel sample (kernel replay): what the kernel pages read
NCU_FILES = (NCU_RANGE_FILE, NCU_FILE, NCU_LOG)  # every file an ncu profile may leave
NSYS_FILE = "nsys.sqlite"
NSYS_LOG = "nsys.log"
NSYS_FILES = (NSYS_FILE, NSYS_LOG)


@dataclass(frozen=True)
class NcuSettings:
    executable: str
    metrics: list[str]  # cut to what this GPU has (ncu_mode.metrics_for_this_gpu)
    timeout_s: float
    replay: ncu_mode.ReplayPlan = field(default_factory=ncu_mode.ReplayPlan)
    clock_control: str = ncu_mode.CLOCK_CONTROL  # base, or none where clocks may not be set

    def __post_init__(self) -> None:
        ncu_mode.check_clock_control(self.clock_control)


@dataclass(frozen=True)
class NsysSettings:
    executable: str
    timeout_s: float


Record = TypeVar("Record", NcuRecord, NsysRecord)


@dataclass(frozen=True)
class Profiled(Generic[Record]):
    """One profiler's block of run.json and the files it left in the run's folder."""

    record: Record
    files: list[str]


def ncu_passes(ncu: NcuSettings, folder: Path, config_path: Path) -> list[NcuPass]:
    """The ncu passes of one run, in order: each one's profile and export commands and the
    file its export goes to (range replay first, then the kernel sample; kernel mode: one
    pass over every kernel)."""
    plan = ncu.replay
    passes = []
    if plan.mode != "kernel":
        passes.append(("range", ncu_mode.replay_arguments(plan.mode), NCU_RANGE_FILE))
    if plan.mode == "kernel" or plan.kernel_count:
        count = plan.kernel_count if plan.mode != "kernel" else 0
        sample = ncu_mode.replay_arguments("kernel", plan.kernel_skip, count)
        passes.append(("kernel", sample, NCU_FILE))
    out: list[NcuPass] = []
    for name, replay, csv in passes:
        report = folder / f"profile-{name}.ncu-rep"
        profile = ncu_mode.profile_command(ncu.executable, report, config_path,
                                           metrics=ncu.metrics, replay=replay,
                                           clock_control=ncu.clock_control)  # fmt: skip
        export = ncu_mode.export_command(ncu.executable, report)
        out.append({"pass": name, "profile_command": profile, "export_command": export,
                    "report": str(report), "csv": csv})  # fmt: skip
    return out


def _ncu_record(ncu: NcuSettings, passes: list[NcuPass]) -> NcuRecord:
    unreported: list[NcuPass] = [
        {"pass": one["pass"], "profile_command": one["profile_command"],
         "export_command": one["export_command"], "csv": one["csv"]}
        for one in passes
    ]  # fmt: skip
    return {
        **ncu.replay.record(),
        "passes": unreported,
        "clock_control": ncu.clock_control,
        "cache_control": ncu_mode.CACHE_CONTROL,
    }


def _run_ncu(config: RunConfig, folder: Path, ncu: NcuSettings) -> NcuRecord:
    """Every pass, its export written to its CSV; raises NcuFailed or OSError."""
    config_path = folder / "ncu-config.json"
    config_path.write_text(json.dumps(config.as_dict()))
    passes = ncu_passes(ncu, folder, config_path)
    for one in passes:
        ncu_mode.run_ncu(one["profile_command"], ncu.timeout_s, log=folder / NCU_LOG)
        if not Path(one["report"]).is_file():  # ncu exits 0 when it profiled nothing
            log = ncu_mode.said((folder / NCU_LOG).read_text())
            raise ncu_mode.NcuFailed(f"ncu wrote no report in its {one['pass']} pass: {log}")
        (folder / one["csv"]).write_text(ncu_mode.run_ncu(one["export_command"], ncu.timeout_s))
        Path(one["report"]).unlink(missing_ok=True)
    config_path.unlink(missing_ok=True)
    return _ncu_record(ncu, passes)


def _ncu_files(ncu: NcuSettings) -> list[str]:
    return [one["csv"] for one in ncu_passes(ncu, Path("."), Path("."))]


def profile_ncu(config: RunConfig, folder: Path, ncu: NcuSettings) -> Profiled[NcuRecord]:
    """The run's ncu passes in `folder`; a failure is recorded, not raised."""
    try:
        return Profiled(_run_ncu(config, folder, ncu), [*_ncu_files(ncu), NCU_LOG])
    except (ncu_mode.NcuFailed, OSError) as error:
        message = str(error) if isinstance(error, ncu_mode.NcuFailed) else f"ncu: {error}"
        _remove(folder, [*NCU_FILES, "ncu-config.json", "profile-*.ncu-rep"])
        passes = ncu_passes(ncu, folder, folder / "ncu-config.json")
        return Profiled({**_ncu_record(ncu, passes), "failed": message}, [])


def _nsys_commands(nsys: NsysSettings, folder: Path) -> tuple[list[str], list[str]]:
    report = folder / "profile"
    return (
        nsys_mode.profile_command(nsys.executable, report, folder / "nsys-config.json"),
        nsys_mode.export_command(nsys.executable, report, folder / NSYS_FILE),
    )


def _run_nsys(config: RunConfig, folder: Path, nsys: NsysSettings) -> NsysRecord:
    """One step under Nsight Systems; its SQLite export kept as nsys.sqlite. Raises
    NsysFailed or OSError."""
    config_path = folder / "nsys-config.json"
    config_path.write_text(json.dumps(config.as_dict()))
    profile, export = _nsys_commands(nsys, folder)
    nsys_mode.run_nsys(profile, nsys.timeout_s, log=folder / NSYS_LOG)
    nsys_mode.run_nsys(export, nsys.timeout_s, log=folder / NSYS_LOG)
    Path(f"{folder / 'profile'}.nsys-rep").unlink(missing_ok=True)
    config_path.unlink(missing_ok=True)
    return {"profile_command": profile, "export_command": export}


def profile_nsys(config: RunConfig, folder: Path, nsys: NsysSettings) -> Profiled[NsysRecord]:
    """The run's nsys capture in `folder`; a failure is recorded, not raised."""
    try:
        return Profiled(_run_nsys(config, folder, nsys), list(NSYS_FILES))
    except (nsys_mode.NsysFailed, OSError) as error:
        message = str(error) if isinstance(error, nsys_mode.NsysFailed) else f"nsys: {error}"
        _remove(folder, [*NSYS_FILES, "nsys-config.json", "profile.nsys-rep"])
        profile, export = _nsys_commands(nsys, folder)
        return Profiled({"profile_command": profile, "export_command": export,
                         "failed": message}, [])  # fmt: skip


def _remove(folder: Path, patterns: list[str]) -> None:
    """What a failed profiler left (a half-written export is no evidence)."""
    for pattern in patterns:
        for path in folder.glob(pattern):
            path.unlink(missing_ok=True)
