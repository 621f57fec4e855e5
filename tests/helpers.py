"""Builders for small synthetic ncu exports, written exactly as ncu quotes them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# Real exports from public repositories, verbatim; tests/data/ncu/PROVENANCE.md names each origin.
REAL_NCU = REPO / "tests" / "data" / "ncu"

LONG_HEADER = (
    "ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
    "Block Size", "Grid Size", "Device", "CC", "Section Name", "Metric Name", "Metric Unit",
    "Metric Value",
)  # fmt: skip

SECTION = "Command line profiler metrics"


def quoted(fields: Iterable[str]) -> str:
    return ",".join('"' + f.replace('"', '""') + '"' for f in fields)


def metric_row(
    kernel_id: int,
    metric: str,
    unit: str,
    value: str,
    *,
    name: str = "kernel_a",
    pid: int = 100,
    device: str = "0",
    cc: str = "8.9",
) -> list[str]:
    return [
        str(kernel_id), str(pid), "python3", "127.0.0.1", name, "1", "7", "(128, 1, 1)",
        "(64, 1, 1)", device, cc, SECTION, metric, unit, value,
    ]  # fmt: skip


def write_long(
    path: Path,
    rows: Sequence[Sequence[str]],
    header: Sequence[str] = LONG_HEADER,
    preamble: str = "",
) -> Path:
    lines = [quoted(header), *(quoted(r) for r in rows)]
    path.write_text(preamble + "\n".join(lines) + "\n", encoding="utf-8")
    return path


def fp32_kernel(
    kernel_id: int,
    *,
    fadd: str = "0",
    fmul: str = "0",
    ffma: str = "0",
    dram_read: tuple[str, str] = ("byte", "0"),
    dram_write: tuple[str, str] = ("byte", "0"),
    time: tuple[str, str] = ("nsecond", "1000"),
    **kwargs: str | int,
) -> list[list[str]]:
    """The eight metrics of the seed's metric set for one kernel."""
    prefix = "smsp__sass_thread_inst_executed_op_"
    return [
        metric_row(kernel_id, f"{prefix}fadd_pred_on.sum", "inst", fadd, **kwargs),  # type: ignore[arg-type]
        metric_row(kernel_id, f"{prefix}fmul_pred_on.sum", "inst", fmul, **kwargs),  # type: ignore[arg-type]
        metric_row(kernel_id, f"{prefix}ffma_pred_on.sum", "inst", ffma, **kwargs),  # type: ignore[arg-type]
        metric_row(kernel_id, "dram__bytes_read.sum", *dram_read, **kwargs),  # type: ignore[arg-type]
        metric_row(kernel_id, "dram__bytes_write.sum", *dram_write, **kwargs),  # type: ignore[arg-type]
        metric_row(kernel_id, "gpu__time_duration.sum", *time, **kwargs),  # type: ignore[arg-type]
    ]


def chart_specs(docs: Path, page: str) -> dict[str, Any]:
    """The specs of a generated page's charts, by chart id: each read from the script its
    div names (`data-src`), resolved against the folder the page is served from."""
    import json
    import posixpath
    import re

    from generator.pages.paths import downloads_root, is_download
    from generator.pages.render import SPEC_HEAD, built_folder

    markdown = (docs / page).read_text(encoding="utf-8")
    specs = {}
    pattern = r'<div class="ra-chart" id="([^"]+)" data-src="([^"]+)">'
    for chart_id, src in re.findall(pattern, markdown):
        relative = posixpath.normpath(posixpath.join(built_folder(page), src))
        root = downloads_root(docs) if is_download(relative) else docs  # where the build wrote it
        script = (root / relative).read_text(encoding="utf-8")
        specs[chart_id] = json.loads(script.removeprefix(SPEC_HEAD).removesuffix(";\n"))
    return specs


def repository_files() -> list[str]:
    """What a clone holds: the tracked files and the untracked ones git does not ignore, as
    paths relative to REPO; the test is skipped outside a git checkout."""
    import subprocess

    import pytest

    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=REPO,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [name for name in listed.decode().split("\0") if name]


def result_row(
    row: dict[str, Any], kind: str = "calibrated", processes: int = 10
) -> dict[str, Any]:
    """A runs row with its configuration's result under "result" (as `verdicts.group_rows`
    puts it), built from the row's median and interval; `kind` one of analysis.interval's.
    The columns `row` leaves out are filled as a real runs row has them: every one present,
    the timing None, compile "eager", group "A", status "ok"."""
    from generator.analysis.interval import Interval
    from generator.analysis.results import Result, RunTime
    from generator.ingest.runs import RUN_COLUMNS

    row = dict.fromkeys(RUN_COLUMNS) | {
        "compile": "eager", "group": "A", "groups": ["A"], "status": "ok",
        "workload": row.get("workload", row.get("run_id", "w")),
        "device_name": row.get("device_label"),
    } | row  # fmt: skip

    low, high = row.get("ci_low_s"), row.get("ci_high_s")
    step = Interval(row["median_s"], low, high, kind, processes)
    run = RunTime(str(row.get("run_id", "r")), str(row.get("group", "A")), step, True)
    result = Result(
        workload=str(row.get("workload", row.get("run_id", "w"))), model=row["model"],
        dataset=row["dataset"], batch=row["batch"], phase=row["phase"],
        precision=row["precision"], device=row["device"],
        device_name=str(row.get("device_name", row["device_label"])),
        device_label=row["device_label"], runs=(run,), groups=(str(row.get("group", "A")),),
        step=step, iterations=processes * 20, modelled_flops=row.get("modelled_flops"),
        modelled_bytes=row.get("modelled_bytes"),
    )  # fmt: skip
    return row | {"result": result}


def datasheet_bound(total: Any, device: Any) -> Any:
    """`bound_against` the datasheet roof (`roofs.roof_for`) of `device` for the precision
    that dominates `total` (an export analysed on its own)."""
    from generator.analysis.roofline import bound_against
    from generator.analysis.roofs import DATASHEET, roof_for

    precision = total.dominant_precision
    roof = roof_for(device.name, precision, DATASHEET, catalog=(device,)) if precision else None
    return bound_against(total, roof)


def datasheet_roofs(device: Any, precisions: Sequence[str] = ("fp32",)) -> tuple[Any, ...]:
    """The datasheet roofs (`roofs.roof_for`) of `device` a kernel chart draws."""
    from generator.analysis.roofs import DATASHEET, roof_for

    found = (roof_for(device.name, p, DATASHEET, catalog=(device,)) for p in precisions)
    return tuple(r for r in found if r is not None)


def measured_results(measurements: Path) -> tuple[Any, dict[str, Any]]:
    """The runs table and each workload's result, computed from steps.csv as the report
    computes them (run.json stores no statistics)."""
    from generator.analysis.results import results
    from generator.ingest.runs import load_runs
    from generator.ingest.steps import read_steps

    runs = load_runs(measurements)
    ok = runs.filter(runs["status"] == "ok")["run_id"].to_list()
    steps = {run: read_steps(measurements / "runs" / run) for run in ok}
    return runs, results(runs, steps)


def downloaded_runs(measurements: Path) -> Any:
    """The runs table as its download states it: each ok run's timing columns from its
    configuration's result."""
    from generator.analysis.result_columns import runs_download

    return runs_download(*measured_results(measurements))


def attaining(runs: Any) -> dict[str, Any]:
    """Workload -> a result for each ok row with a `modelled_attained`: timed at 1 s, with
    that many modelled FLOPs, so it attains that rate (`Result.attained`)."""
    found = {}
    for row in runs.to_dicts():
        rate = row.get("modelled_attained")
        if row.get("status") == "ok" and rate is not None:
            base = {"model": "m", "dataset": "d", "batch": 1, "phase": "inference",
                    "precision": "fp32", "device": "cpu", "device_label": "a device"}  # fmt: skip
            given = {k: v for k, v in row.items() if k in base and v is not None}
            made = result_row(base | given | {
                "run_id": row["run_id"], "workload": row.get("workload") or row["run_id"],
                "median_s": 1.0, "modelled_flops": rate,
            })  # fmt: skip
            found[made["workload"]] = made["result"]
    return found
