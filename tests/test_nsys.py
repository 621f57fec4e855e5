"""Nsight Systems ingest (issue 33), pinned on real `nsys stats` CSV reports from two nsys
versions (tests/data/nsys/, with PROVENANCE.md): the expected totals are summed here from
the files with the csv module, independently of the reader. The SQLite reader is tested on
exports built to NVIDIA's documented schema (tests/nsys_sqlite.py: no real export could be
obtained), with the expected utilization worked out from the events it writes."""

from __future__ import annotations

import csv
import json
import shutil
from collections import defaultdict
from pathlib import Path

import pytest

from generator.analysis.nsys_analysis import analyse_nsys
from generator.cli import main
from generator.errors import UserError
from generator.findings.nsys_checks import nsys_findings
from generator.ingest.nsys.capture import read_nsys
from generator.ingest.nsys.stats_csv import read_stats_csv
from generator.records.import_source import discover_nsys
from generator.summaries.importer import ImportRequest
from generator.summaries.nsys import summarize_nsys
from generator.summaries.nsys_import import import_nsys
from tests import fuzz_nsys
from tests.helpers import REPO
from tests.nsys_sqlite import Export, phased_steps, training_steps

NSYS = REPO / "tests" / "data" / "nsys"
OLD = NSYS / "cudalm-agent-2022.4.2"  # nsys 2022.4.2: gpukernsum, cudaapisum, gpumemtimesum
PRODUCER = NSYS / "cuda-link-producer"  # newer names: nvtx_sum, cuda_api_sum, cuda_gpu_mem_*
CONSUMER = NSYS / "cuda-link-consumer"


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as file:
        return list(csv.DictReader(file))


def _one(folder: Path, part: str) -> Path:
    (path,) = [p for p in folder.glob("*.csv") if part in p.name]
    return path


def test_the_older_reports_are_read_with_their_totals() -> None:
    kernels = _rows(_one(OLD, "gpukernsum"))
    api = {r["Name"]: r for r in _rows(_one(OLD, "cudaapisum"))}
    memory = {r["Operation"]: r for r in _rows(_one(OLD, "gpumemtimesum"))}
    analysis = analyse_nsys(read_nsys([OLD]))
    assert analysis.capture.reports == ("kernels", "api", "memtime")
    # gpukernsum splits a kernel by grid and block: one row per name here
    names = {r["Name"] for r in kernels}
    assert analysis.kernels.height == len(names) < len(kernels)
    assert int(analysis.kernels["count"].sum()) == sum(int(r["Instances"]) for r in kernels)
    assert int(analysis.kernels["count"].sum()) == int(api["cudaLaunchKernel"]["Num Calls"])
    assert analysis.kernel_time_s == pytest.approx(
        sum(int(r["Total Time (ns)"]) for r in kernels) * 1e-9
    )
    copies = {r["operation"]: r for r in analysis.copies.iter_rows(named=True)}
    assert copies["Host-to-Device"]["time_s"] == pytest.approx(
        int(memory["[CUDA memcpy HtoD]"]["Total Time (ns)"]) * 1e-9
    )
    assert copies["memset"]["count"] == int(api["cudaMemsetAsync"]["Num Calls"]) == 2148
    assert analysis.launch_time_s == pytest.approx(
        int(api["cudaLaunchKernel"]["Total Time (ns)"]) * 1e-9
    )
    assert analysis.gpus is None  # sums: no timeline, no utilization


def test_the_newer_reports_are_read_with_sizes_in_decimal_megabytes() -> None:
    sizes = {r["Operation"]: r for r in _rows(_one(PRODUCER, "mem_size"))}
    times = {r["Operation"]: r for r in _rows(_one(PRODUCER, "mem_time"))}
    analysis = analyse_nsys(read_nsys([PRODUCER]))
    assert analysis.capture.reports == ("api", "memtime", "memsize", "nvtx")
    (h2d,) = analysis.copies.iter_rows(named=True)
    op = "[CUDA memcpy Host-to-Device]"
    assert h2d["operation"] == "Host-to-Device" and h2d["count"] == int(sizes[op]["Count"])
    assert h2d["bytes"] == pytest.approx(float(sizes[op]["Total (MB)"]) * 1e6)  # not 2**20
    time_s = int(times[op]["Total Time (ns)"]) * 1e-9
    assert h2d["bandwidth_bytes_per_s"] == pytest.approx(h2d["bytes"] / time_s)
    nvtx = _rows(_one(PRODUCER, "nvtx"))
    assert analysis.ranges.height == len(nvtx)
    assert int(analysis.ranges["count"].sum()) == sum(int(r["Instances"]) for r in nvtx)
    assert not analysis.kernels.height  # the capture has no kernel report


def test_the_consumer_capture_counts_agree_across_its_reports() -> None:
    analysis = analyse_nsys(read_nsys(sorted(CONSUMER.glob("*.csv"))))
    copies = {r["operation"]: r["count"] for r in analysis.copies.iter_rows(named=True)}
    api = {r["name"]: r["count"] for r in analysis.api.iter_rows(named=True)}
    assert copies["Array-to-Device"] == api["cudaMemcpy2DFromArrayAsync"] == 7844
    assert copies["Device-to-Array"] == api["cudaStreamWaitEvent"] == 7868


def test_findings_of_the_real_captures() -> None:
    old = {f.id: f for f in nsys_findings(analyse_nsys(read_nsys([OLD])))}
    # stats reports: sums over the whole capture, no step: no host-bound claim, the launch
    # overhead said as what it is
    assert set(old) == {"launch-overhead", "h2d-copies"}
    assert "sums with no timeline and no step" in old["launch-overhead"].evidence
    assert old["launch-overhead"].severity == "info"
    assert nsys_findings(analyse_nsys(read_nsys([CONSUMER]))) == []


def test_an_sqlite_export_gives_utilization_gaps_and_ranges(tmp_path: Path) -> None:
    path = training_steps(steps=3).write(tmp_path / "capture.sqlite")
    analysis = analyse_nsys(read_nsys([path]))
    (gpu,) = analysis.gpus.iter_rows(named=True)  # type: ignore[union-attr]
    # each 10 ms step: a copy 0.1-0.6 ms, kernels 0.6-4.6 and 3.6-5.1 (overlapping), a
    # memset 5.1-5.6: busy 5.5 ms a step; the capture spans 0 (the setup range) to 31 ms
    assert gpu["name"] == "NVIDIA H100 80GB HBM3"
    assert gpu["busy_s"] == pytest.approx(3 * 5.5e-3)
    assert gpu["wall_s"] == pytest.approx(31e-3)
    assert gpu["idle_gaps"] == 2 and gpu["longest_gap_s"] == pytest.approx(4.5e-3)
    steps = analysis.ranges.filter(analysis.ranges["range"] == "train_step").row(0, named=True)
    assert steps["count"] == 3 and steps["utilization"] == pytest.approx(0.55)
    assert steps["h2d_copies"] == 3 and steps["h2d_bytes"] == 12e6
    assert analysis.kernel_time_s == pytest.approx(3 * (4e-3 + 1.5e-3))
    ids = [f.id for f in nsys_findings(analysis)]
    assert ids == ["host-bound", "dominant-kernel"]
    busy = analysis.timeline
    assert (
        busy is not None
        and busy.height == 200
        and 0 <= busy["busy"].min() <= busy["busy"].max() <= 1
    )


def test_a_busy_gpu_is_not_host_bound(tmp_path: Path) -> None:
    path = training_steps(steps=2, busy_ns=9_000_000).write(tmp_path / "busy.sqlite")
    assert "host-bound" not in [f.id for f in nsys_findings(analyse_nsys(read_nsys([path])))]


def test_bad_input_is_a_user_error_naming_the_file(tmp_path: Path) -> None:
    export = training_steps().write(tmp_path / "capture.sqlite")
    cut = tmp_path / "cut.sqlite"
    cut.write_bytes(export.read_bytes()[:3000])
    with pytest.raises(UserError, match="cut short or damaged") as raised:
        read_nsys([cut])
    assert raised.value.file == str(cut)
    other = Export(ranges=[], gpus={})
    other_path = tmp_path / "other.sqlite"
    import sqlite3

    db = sqlite3.connect(other_path)
    db.execute("CREATE TABLE notes (text TEXT)")
    db.commit()
    db.close()
    with pytest.raises(UserError, match="not an Nsight Systems export"):
        read_nsys([other_path])
    assert other.kernels == []
    # a CSV report of a kind not read: osrt_sum has cuda_api_sum's columns, other calls
    osrt = tmp_path / "report_osrt_sum.csv"
    osrt.write_text(
        "Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
        "73.8,655012069,40,16375301.7,10057635.0,132660,178010000,30337160.8,poll\n",
        encoding="utf-8",
    )
    with pytest.raises(UserError, match="not a report read here") as raised:
        read_nsys([osrt])
    assert raised.value.file == str(osrt) and "cuda_gpu_kern_sum" in (raised.value.fix or "")
    trace = tmp_path / "gpu_trace.csv"  # cuda_gpu_trace: a timeline, not a summary
    trace.write_text("Start (ns),Duration (ns),CorrId,Name\n1,2,3,k\n", encoding="utf-8")
    with pytest.raises(UserError, match="not an nsys stats report"):
        read_nsys([trace, _one(OLD, "gpukernsum")])
    # a number that is not one, on its line
    broken = tmp_path / "kern.csv"
    lines = _one(OLD, "gpukernsum").read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3].replace(lines[3].split(",")[1], "12x", 1)
    broken.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(UserError, match="not a number") as raised:
        read_stats_csv(broken)
    assert raised.value.line == 4
    # two kernel reports are two captures
    second = tmp_path / "again.csv"
    shutil.copy(_one(OLD, "gpukernsum"), second)
    with pytest.raises(UserError, match="a second cuda_gpu_kern_sum"):
        read_nsys([_one(OLD, "gpukernsum"), second])
    with pytest.raises(UserError, match="pass it alone"):
        read_nsys([export, _one(OLD, "gpukernsum")])


def test_a_report_with_lines_before_its_header(tmp_path: Path) -> None:
    """`nsys stats` printing to a file that a shell redirected: its progress lines first."""
    report = _one(OLD, "gpumemtimesum")
    noisy = tmp_path / "stdout.txt"
    noisy.write_text(
        "Generating SQLite file v07_batched_nsys.sqlite from v07_batched_nsys.nsys-rep\n"
        "Processing [v07_batched_nsys.sqlite] with [gpumemtimesum.py]... \n\n"
        + report.read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    assert read_stats_csv(noisy).rows == read_stats_csv(report).rows


def test_summarize_and_import(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summarize", str(OLD), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["format"] == "Nsight Systems capture" and summary["form"] == "nsys stats CSV"
    assert [f["id"] for f in summary["findings"]] == ["launch-overhead", "h2d-copies"]
    assert main(["summarize", *map(str, sorted(PRODUCER.glob("*.csv")))]) == 0
    text = capsys.readouterr().out
    assert "Host-to-Device     7165" in text and "not known          utilization" in text
    request = ImportRequest(file=OLD, name="old", measurements=tmp_path)
    with pytest.raises(UserError, match="pass --device"):
        import_nsys(request, [OLD])
    result = import_nsys(
        ImportRequest(file=OLD, name="old", measurements=tmp_path, device="RTX 2080 Ti"), [OLD]
    )
    assert result.source.device == "rtx-2080-ti"
    for original in OLD.glob("*.csv"):
        assert (tmp_path / "imported" / "old" / "nsys" / original.name).read_bytes() == (
            original.read_bytes()
        )
    (found,) = discover_nsys(tmp_path)
    assert found.name == "old"
    export = training_steps().write(tmp_path / "h100.sqlite")
    assert main(["import", str(export), "--name", "h100", "--measurements", str(tmp_path)]) == 0
    assert (tmp_path / "imported" / "h100" / "nsys" / "h100.sqlite").is_file()  # device named by it


def test_summary_of_every_real_capture_is_json() -> None:
    for folder in (OLD, PRODUCER, CONSUMER):
        json.dumps(summarize_nsys([folder]), allow_nan=False)


def test_short_nsys_fuzz_run_finds_no_crash() -> None:
    cases, crashes = fuzz_nsys.fuzz(seconds=60, seed=12345, max_cases=300, save=False)
    assert cases == 300 and crashes == {}


def test_per_name_sums_match_a_grouping_of_the_raw_rows() -> None:
    by_name: dict[str, float] = defaultdict(float)
    for row in _rows(_one(OLD, "gpukernsum")):
        by_name[row["Name"]] += int(row["Total Time (ns)"]) * 1e-9
    kernels = analyse_nsys(read_nsys([OLD])).kernels
    for name, time_s in kernels.select("name", "time_s").iter_rows():
        assert time_s == pytest.approx(by_name[name])


def test_phase_ranges_get_the_models_flops_over_their_kernels_time(tmp_path: Path) -> None:
    from generator.analysis.nsys_phases import ModelWork, phase_of

    assert [phase_of(n) for n in ("torch:forward", "bwd", "optimizer.step", "step")] == [
        "forward", "backward", "optimizer", None,
    ]  # fmt: skip
    path = phased_steps(steps=2).write(tmp_path / "phased.sqlite")
    work = ModelWork("m", 8, {"forward": 1e9, "loss": 0.0, "backward": 2e9, "optimizer": 1e7}, 1e8)
    summary = summarize_nsys([path], work)
    phases = {r["phase"]: r for r in summary["phases"]}
    # the kernels each range launched, though they ran after it ended on the host
    assert phases["forward"]["time_s"] == pytest.approx(2 * 2e-3)
    assert phases["backward"]["time_s"] == pytest.approx(2 * 3e-3)
    assert phases["forward"]["attained_flops_per_s"] == pytest.approx(2e9 / 4e-3)
    point = summary["step_point"]
    assert point["steps"] == 2 and point["arithmetic_intensity"] == pytest.approx(30.1)
    assert point["attained_flops_per_s"] == pytest.approx(2 * 3.01e9 / 11e-3)
    assert not [m for m in summary["missing"] if m.startswith("FLOPs")]


def test_summarize_with_a_registry_model(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pytest.importorskip("torch")  # --model counts the model's FLOPs with torch
    path = phased_steps(steps=1).write(tmp_path / "phased.sqlite")
    args = ["summarize", str(path), "--model", "resnet18", "--batch", "8", "--dataset", "cifar10"]
    assert main([*args, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["model"]["name"] == "resnet18" and summary["model"]["flops"]["forward"] > 0
    assert [r["phase"] for r in summary["phases"]] == ["forward", "backward", "optimizer"]
    assert main(["summarize", str(OLD), "--model", "resnet18", "--batch", "8"]) == 0
    assert "no NVTX range names a phase" in capsys.readouterr().out
    trace = REPO / "tests" / "data" / "traces" / "gloo_2rank" / "rank-0.json.gz"
    assert main(["summarize", str(trace), "--model", "resnet18"]) == 1
    assert "--model places a model's FLOPs" in capsys.readouterr().err


def test_host_bound_advice_fits_the_program(tmp_path: Path) -> None:
    """The same idle steps: PyTorch's advice where the kernels are ATen's, plain CUDA advice
    where nothing says PyTorch (an OpenACC or CUDA C++ program has no DataLoader)."""
    export = training_steps(steps=3)
    torch_fix = {
        f.id: f.fix
        for f in nsys_findings(analyse_nsys(read_nsys([export.write(tmp_path / "a.sqlite")])))
    }
    assert "DataLoader" in torch_fix["host-bound"]
    export.kernels = [
        (name.replace("at::native::", "acc_"), start, end, device)
        for name, start, end, device in export.kernels
    ]
    plain = {
        f.id: f.fix
        for f in nsys_findings(analyse_nsys(read_nsys([export.write(tmp_path / "b.sqlite")])))
    }
    assert "DataLoader" not in plain["host-bound"] and "torch" not in plain["host-bound"]
    assert "pinned memory" in plain["host-bound"]


def test_a_capture_without_step_ranges_is_not_called_host_bound(tmp_path: Path) -> None:
    """The idle steps again, with the NVTX step ranges removed: the capture alone (start-up
    included) is no step, so no host-bound claim."""
    export = training_steps(steps=3)
    export.ranges = [r for r in export.ranges if r[0] != "train_step"]
    ids = [
        f.id for f in nsys_findings(analyse_nsys(read_nsys([export.write(tmp_path / "c.sqlite")])))
    ]
    assert "host-bound" not in ids
