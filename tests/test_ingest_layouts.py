"""The layouts real users export, each read right: the classes issue 13 names.

Real files (tests/data/ncu, PROVENANCE.md) where a public one exists; otherwise a file built
the way ncu writes that layout, derived from a real one where possible. Expected numbers were
worked out with Python's csv module from the files, not by the code under test.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from generator.analysis.roofline import kernel_metrics, totals
from generator.analysis.tensor_work import tensor_evidence
from generator.errors import UserError
from generator.ingest import read_ncu_csv
from generator.summaries.export import summarize_file
from tests.helpers import REAL_NCU, fp32_kernel, metric_row, write_long

B200 = REAL_NCU / "meinie0826__Roofline-Analysis__torch_sdpa_flash__mha_bf16_b16_ctx4k_p64.ncu.csv"
SGEMM = REAL_NCU / "Gardenia-Tian__LearningNote4Dev__sgemm.csv"
GTX1080 = REAL_NCU / "romnn__microgpusim__nsight_vectoradd_100_32_metrics_all.csv"
NO_PERMISSION = REAL_NCU / "ncu-errors" / "Gardenia-Tian__LearningNote4Dev__profile.csv"
GEMV_DETAILS = REAL_NCU / "CodeGandee__llm-perf-opt__kernel_0001_ncu.details.csv"


def finding_ids(summary: dict[str, object]) -> list[str]:
    found = summary["findings"]
    assert isinstance(found, list)
    return [f["id"] for f in found]


def by_id(summary: dict[str, object]) -> dict[str, dict[str, str]]:
    found = summary["findings"]
    assert isinstance(found, list)
    return {f["id"]: f for f in found}


# -- 1. a unit the parser does not know, on a metric the analysis does not read ---------------


def test_b200_raw_page_with_pass_units_is_read_and_says_what_it_kept() -> None:
    export = read_ncu_csv(B200)
    assert export.layout == "raw"
    assert export.notes == (
        "kept in their own unit, unconverted (the analysis does not read them): "
        "profiler__replayer_passes (pass), profiler__replayer_passes_type_warmup (pass)",
    )
    passes = export.metrics.filter(export.metrics["metric"] == "profiler__replayer_passes")
    assert passes["unit"].to_list() == ["pass"] * 16
    assert passes["value"].to_list() == [11.0] * 16  # kept, unconverted
    total = totals(kernel_metrics(export.kernels))
    assert total.kernels == 16
    assert total.time_s == pytest.approx(10_995_072e-9, rel=1e-12)  # unit "ns"


def test_b200_flash_attention_tensor_work_is_an_error_without_an_invented_number() -> None:
    summary = summarize_file(B200, None)
    assert summary["device_name"] == "NVIDIA B200"  # from device__attribute_display_name
    assert finding_ids(summary)[0] == "tensor-work-uncounted"
    tensor = next(f for f in summary["findings"] if f["id"] == "tensor-work-uncounted")
    assert tensor["evidence"].startswith(
        "16 kernel(s) doing matrix work (GEMM, convolution, attention), kept the tensor pipe "
        "busy up to 69.6 % ('void flash_fwd_kernel"
    )
    # the file has tensor-pipe activity but no instruction count: no estimate is made up
    assert summary["tensor_flops_estimate"] is None
    assert "sm__inst_executed_pipe_tensor.sum" in tensor["fix"]


def test_unknown_unit_on_an_unused_metric_is_kept_with_one_note(tmp_path: Path) -> None:
    rows = [
        *fp32_kernel(0, ffma="10"),
        metric_row(0, "smsp__warp_issue_stalled_foo", "warp/issue", "1.5"),
        metric_row(1, "smsp__warp_issue_stalled_foo", "warp/issue", "2"),
    ]
    rows += fp32_kernel(1, ffma="10")
    export = read_ncu_csv(write_long(tmp_path / "k.csv", rows))
    assert export.notes == (
        "kept in their own unit, unconverted (the analysis does not read them): "
        "smsp__warp_issue_stalled_foo (warp/issue)",
    )
    assert totals(kernel_metrics(export.kernels)).flops == 40


def test_unknown_unit_on_a_used_metric_names_the_units_row(tmp_path: Path) -> None:
    path = tmp_path / "raw.csv"
    path.write_text(
        '"ID","Kernel Name","gpu__time_duration.sum"\n"","","fortnight"\n"0","k","3"\n',
        encoding="utf-8",
    )
    with pytest.raises(UserError) as caught:
        read_ncu_csv(path)
    assert caught.value.line == 2
    assert caught.value.what == (
        "the units row gives metric gpu__time_duration.sum the unknown unit 'fortnight'"
    )


# -- 2. smsp__ spellings, time from smsp cycles / clock --------------------------------------


def test_a100_sgemm_smsp_names_cycles_time_and_simt_gemm() -> None:
    export = read_ncu_csv(SGEMM)
    metrics = kernel_metrics(export.kernels)
    total = totals(metrics)
    assert total.kernels == 3
    # smsp__cycles_elapsed.avg / smsp__cycles_elapsed.avg.per_second, kernel by kernel
    assert metrics["time_s"].to_list() == pytest.approx(
        [6.725598879996538, 6.711477279994403, 33.47774150399953], rel=1e-9
    )
    assert set(metrics["time_source"].to_list()) == {"cycles/clock"}
    assert total.flops_by_precision == {
        "fp64": 0.0,
        "fp32": 2 * 1_677_721_600 + 68_719_476_736_000,
        "fp16": 4_298_322_739_200,
    }
    assert total.dram_bytes == 5_323_503_232 + 5_420_639_360 + 807_658_682_624
    assert total.tensor_pipe_inst == 67_161_292_800
    # gemm_v1 counts 6.9e13 CUDA-core FLOPs, more than 512 x its tensor-pipe instructions:
    # a SIMT GEMM, counted. No tensor error.
    assert tensor_evidence(metrics) is None
    assert "tensor-work-uncounted" not in finding_ids(summarize_file(SGEMM, None))
    assert export.kernels["cc"].unique().to_list() == ["8.0"]


# -- 7. old ncu, old GPU, legacy metric names ------------------------------------------------


def test_gtx1080_ncu_2019_legacy_names() -> None:
    export = read_ncu_csv(GTX1080)
    assert export.layout == "raw"
    total = totals(kernel_metrics(export.kernels))
    assert total.kernels == 3
    assert total.time_s == pytest.approx(3 * 2_720e-9)  # gpu__time_duration, "nsecond"
    assert total.dram_bytes == 7_552 + 3_264 + 2_176 + 384 + 256 + 256  # dram__read/write_bytes
    assert total.sm_pct == pytest.approx(0.09)  # sm__sol_pct
    assert total.flops is None  # no FLOP counter in the file: n/a, never 0
    (note,) = export.notes
    assert note.startswith("kept in their own unit, unconverted (the analysis does not read")
    assert note.endswith("and 13 more")
    summary = summarize_file(GTX1080, None)
    assert summary["device_name"] is None  # CC 6.1 alone names no device
    assert "missing-metric" in finding_ids(summary)


# -- 3. --page details: the Speed Of Light section's display names ---------------------------


def details_without_raw_metrics(tmp_path: Path) -> Path:
    """The real details export minus its "Command line profiler metrics" rows: what
    `ncu --set detailed --page details --csv` writes when no extra --metrics were asked for."""
    lines = GEMV_DETAILS.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if '"Command line profiler metrics"' not in line]
    assert len(kept) == len(lines) - 9
    path = tmp_path / "details.csv"
    path.write_text("".join(kept), encoding="utf-8")
    return path


def test_details_page_reads_time_sm_and_dram_from_speed_of_light(tmp_path: Path) -> None:
    path = details_without_raw_metrics(tmp_path)
    export = read_ncu_csv(path)
    metrics = kernel_metrics(export.kernels)
    total = totals(metrics)
    assert total.time_s == pytest.approx(6.75e-6)  # "Duration", us
    assert metrics["time_source"].to_list() == ["gpu__time_duration"]
    assert total.sm_pct == pytest.approx(9.15)  # "Compute (SM) Throughput"
    assert total.dram_pct == pytest.approx(19.66)  # "DRAM Throughput"
    assert metrics["sm_clock_hz"][0] == pytest.approx(1.99e9)  # "SM Frequency", Ghz
    # "Memory Throughput" is % in Speed Of Light but Gbyte/s in Memory Workload Analysis:
    # only the Speed Of Light one is the memory_pct
    assert metrics["memory_pct"][0] == pytest.approx(19.66)
    summary = summarize_file(path, None)
    missing = [f["title"] for f in summary["findings"] if f["id"] == "missing-metric"]
    assert "No kernel time in the export" not in missing
    assert summary["time_s"] == pytest.approx(6.75e-6)


# -- 4. --print-summary per-kernel ------------------------------------------------------------

SUMMARY_HEADER = (
    "Process ID", "Process Name", "Host Name", "Kernel Name", "Block Size", "Grid Size",
    "Device", "CC", "Invocations", "Section Name", "Metric Name", "Metric Unit", "Minimum",
    "Maximum", "Average",
)  # fmt: skip


def summary_row(name: str, invocations: str, metric: str, unit: str, avg: str) -> list[str]:
    return [
        "4242", "python3", "127.0.0.1", name, "(256, 1, 1)", "(80, 1, 1)", "0", "8.9",
        invocations, "Command line profiler metrics", metric, unit, avg, avg, avg,
    ]  # fmt: skip


def test_per_kernel_summary_sums_averages_times_invocations(tmp_path: Path) -> None:
    op = "smsp__sass_thread_inst_executed_op_{}_pred_on.sum"
    ffma, fadd, fmul = (op.format(o) for o in ("ffma", "fadd", "fmul"))
    rows = [
        summary_row("gemm", "12", ffma, "inst", "1,000"),
        summary_row("gemm", "12", fadd, "inst", "10"),
        summary_row("gemm", "12", fmul, "inst", "0"),
        summary_row("gemm", "12", "dram__bytes_read.sum", "Kbyte", "2"),
        summary_row("gemm", "12", "dram__bytes_write.sum", "byte", "0"),
        summary_row("gemm", "12", "gpu__time_duration.sum", "usecond", "3"),
        summary_row("relu", "3", ffma, "inst", "0"),
        summary_row("relu", "3", fadd, "inst", "0"),
        summary_row("relu", "3", fmul, "inst", "256"),
        summary_row("relu", "3", "dram__bytes_read.sum", "byte", "500"),
        summary_row("relu", "3", "dram__bytes_write.sum", "byte", "500"),
        summary_row("relu", "3", "gpu__time_duration.sum", "nsecond", "700"),
    ]
    export = read_ncu_csv(write_long(tmp_path / "s.csv", rows, header=SUMMARY_HEADER))
    assert export.layout == "summary"
    assert export.kernels["invocations"].to_list() == [12, 3]
    total = totals(kernel_metrics(export.kernels))
    assert total.kernels == 15  # launches, not summary rows
    assert total.flops == 12 * (2 * 1000 + 10) + 3 * 256
    assert total.dram_bytes == 12 * 2000 + 3 * 1000
    assert total.time_s == pytest.approx(12 * 3e-6 + 3 * 700e-9)


def test_summary_without_invocations_is_refused_with_the_fix(tmp_path: Path) -> None:
    header = tuple(c for c in SUMMARY_HEADER if c != "Invocations")
    row = summary_row("gemm", "", "gpu__time_duration.sum", "usecond", "3")
    del row[8]
    with pytest.raises(UserError) as caught:
        read_ncu_csv(write_long(tmp_path / "s.csv", [row], header=header))
    assert caught.value.line == 1
    assert caught.value.what == (
        "this is a `--print-summary` export without an Invocations column: without the "
        "launch count, per-launch averages cannot be summed into a step"
    )
    assert caught.value.fix is not None and "without --print-summary" in caught.value.fix


# -- 6. two profiling passes joined into one file --------------------------------------------


def pass_rows(pid: int, metrics: list[tuple[str, str, str]]) -> list[list[str]]:
    return [
        metric_row(kernel, metric, unit, value, name=f"k{kernel}", pid=pid)
        for kernel in (0, 1)
        for metric, unit, value in metrics
    ]


TIME_PASS = [("gpu__time_duration.sum", "usecond", "2"), ("launch__grid_size", "", "64")]
COUNTER_PASS = [
    ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", "50"),
    ("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "inst", "0"),
    ("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", "inst", "0"),
    ("dram__bytes_read.sum", "byte", "60"),
    ("dram__bytes_write.sum", "byte", "40"),
    ("launch__grid_size", "", "64"),
]


def test_two_passes_of_the_same_launches_are_one_set(tmp_path: Path) -> None:
    rows = pass_rows(100, TIME_PASS) + pass_rows(200, COUNTER_PASS)
    export = read_ncu_csv(write_long(tmp_path / "p.csv", rows))
    assert export.kernels.height == 2
    assert export.notes == (
        "profiling passes joined into one set of launches: processes 100, 200 launched the "
        "same kernels and measured different metrics",
    )
    total = totals(kernel_metrics(export.kernels))
    assert (total.kernels, total.flops, total.dram_bytes) == (2, 200, 200)
    assert total.time_s == pytest.approx(4e-6)
    assert total.incomplete == {}


def test_two_processes_measuring_the_same_metrics_stay_apart(tmp_path: Path) -> None:
    rows = pass_rows(100, TIME_PASS + COUNTER_PASS) + pass_rows(200, TIME_PASS + COUNTER_PASS)
    export = read_ncu_csv(write_long(tmp_path / "p.csv", rows))
    assert export.kernels.height == 4
    assert export.notes == ()
    assert totals(kernel_metrics(export.kernels)).flops == 400


# -- 5. a file of ncu's messages, no table ---------------------------------------------------


def test_counter_permission_error_file_quotes_ncu_and_gives_the_fix() -> None:
    with pytest.raises(UserError) as caught:
        read_ncu_csv(NO_PERMISSION)
    error = caught.value
    assert error.line == 2
    assert error.what.startswith(
        "the file holds ncu's error output, not a CSV export: '==ERROR== Error: "
        "ERR_NVGPUCTRPERM - The user does not have permission"
    )
    assert error.fix is not None
    assert "NVreg_RestrictProfilingOnAdminUsers=0" in error.fix


def test_a_file_of_warnings_only_says_no_kernel_was_profiled(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    path.write_text(
        "==PROF== Connected to process 7 (/usr/bin/python3)\n"
        "hello from the program\n"
        "==PROF== Disconnected from process 7\n"
        "==WARNING== No kernels were profiled.\n",
        encoding="utf-8",
    )
    with pytest.raises(UserError) as caught:
        read_ncu_csv(path)
    assert caught.value.line == 4
    assert caught.value.what == (
        "the file holds ncu's messages but no CSV table: '==WARNING== No kernels were profiled.'"
    )
    assert caught.value.fix is not None and "--target-processes all" in caught.value.fix


def test_unsupported_gpu_error_says_which_gpus_ncu_supports(tmp_path: Path) -> None:
    path = tmp_path / "e.csv"
    path.write_text(
        "==PROF== Connected to process 9 (/tmp/a.out)\n"
        "==ERROR== The application returned an error code (1).\n"
        "==ERROR== Profiling is not supported on device 0.\n",
        encoding="utf-8",
    )
    with pytest.raises(UserError) as caught:
        read_ncu_csv(path)
    assert caught.value.line == 2  # the first error, quoted
    assert caught.value.fix is not None


# -- tensor findings: an error only where matrix work is plausible ---------------------------


def tensor_rows(kernel: int, name: str, metrics: list[tuple[str, str, str]]) -> list[list[str]]:
    base = fp32_kernel(kernel, ffma="0", name=name)
    return base + [metric_row(kernel, m, u, v, name=name) for m, u, v in metrics]


def evidence_of(tmp_path: Path, rows: list[list[str]]):  # type: ignore[no-untyped-def]
    export = read_ncu_csv(write_long(tmp_path / "t.csv", rows))
    return tensor_evidence(kernel_metrics(export.kernels))


def test_gemm_with_tensor_instructions_gets_a_labelled_estimate(tmp_path: Path) -> None:
    # a tensor-core GEMM by its family's name (TF32 s16816), instructions but no direct counter
    name = "ampere_s16816gemm_128x64_nn"
    rows = tensor_rows(0, name, [("sm__inst_executed_pipe_tensor.sum", "inst", "1,000")])
    evidence = evidence_of(tmp_path, rows)
    assert evidence is not None
    assert (evidence.kernels, evidence.instructions) == (1, 1000)
    assert (evidence.names, evidence.instruction_share) == ((name,), 1.0)
    assert evidence.estimate_flops == 512_000
    assert "512 FLOP per tensor-pipe instruction" in evidence.estimate_label
    summary = summarize_file(tmp_path / "t.csv", None)
    assert summary["tensor_flops_estimate"] == 512_000
    assert summary["flops"] == 0  # the estimate never enters the counted total


def test_the_finding_names_the_matrix_kernels_and_their_instruction_share(
    tmp_path: Path,
) -> None:
    conv = "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw"
    rng = "void at::native::distribution_elementwise_grid_stride_kernel<float, 4>"
    tensor = "sm__inst_executed_pipe_tensor.sum"
    rows = [
        *tensor_rows(0, conv, [(tensor, "inst", "3,000")]),
        *tensor_rows(1, conv, [(tensor, "inst", "3,000")]),
        *tensor_rows(2, rng, [(tensor, "inst", "2,000")]),
    ]
    evidence = evidence_of(tmp_path, rows)
    assert evidence is not None
    assert (evidence.kernels, evidence.names) == (2, (conv,))
    assert evidence.instruction_share == pytest.approx(0.75)  # 6,000 of 8,000
    finding = by_id(summarize_file(tmp_path / "t.csv", None))["tensor-work-uncounted"]
    assert finding["severity"] == "error"
    assert finding["evidence"].startswith(
        "2 kernel(s) doing matrix work (GEMM, convolution, attention), issued 6,000 "
        f"tensor-pipe instructions (75 % of the export's) ('{conv[:60]}'), but no"
    )


def test_tensor_instructions_in_rng_kernels_are_no_evidence(tmp_path: Path) -> None:
    rows = tensor_rows(
        0,
        "void at::native::distribution_elementwise_grid_stride_kernel<float, 4>",
        [("sm__inst_executed_pipe_tensor.sum", "inst", "2048")],
    )
    assert evidence_of(tmp_path, rows) is None


def test_a_gemm_name_alone_is_no_matrix_work_evidence(tmp_path: Path) -> None:
    # cuBLAS's SIMT sgemm with tensor-pipe instructions and nothing else: the pipe GA100,
    # Volta and Turing share with FP16 arithmetic, not an MMA
    rows = tensor_rows(
        0, "ampere_sgemm_128x64_nn", [("sm__inst_executed_pipe_tensor.sum", "inst", "1,000")]
    )
    assert evidence_of(tmp_path, rows) is None
    # with an MMA sub-metric it is matrix work
    hmma = [*rows, metric_row(0, "sm__inst_executed_pipe_tensor_op_hmma.sum", "inst", "1,000",
                              name="ampere_sgemm_128x64_nn")]  # fmt: skip
    assert evidence_of(tmp_path, hmma) is not None


def test_tensor_pipe_activity_in_a_matrix_kernel_is_an_error_without_estimate(
    tmp_path: Path,
) -> None:
    active = [("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "%", "40")]
    evidence = evidence_of(tmp_path, tensor_rows(0, "my_fused_gemm_kernel", active))
    assert evidence is not None
    assert (evidence.max_active_pct, evidence.estimate_flops) == (40, None)
    # activity in a kernel that is no GEMM, convolution or attention is no evidence
    assert evidence_of(tmp_path, tensor_rows(0, "my_fused_kernel", active)) is None


def test_simt_gemm_with_a_few_tensor_instructions_is_counted_work(tmp_path: Path) -> None:
    # a naive fp32 GEMM on A100: one tensor-pipe instruction per 16 FFMA warp instructions
    rows = [
        *fp32_kernel(0, ffma="32,000", name="gemm_v1<float>"),
        metric_row(0, "sm__inst_executed_pipe_tensor.sum", "inst", "62", name="gemm_v1<float>"),
    ]
    assert evidence_of(tmp_path, rows) is None


def test_tensor_kernel_name_counts_only_where_no_counter_was_collected(tmp_path: Path) -> None:
    name = "sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize128x128x32"
    assert evidence_of(tmp_path, fp32_kernel(0, name=name)) is not None
    collected_zero = tensor_rows(0, name, [("sm__inst_executed_pipe_tensor.sum", "inst", "0")])
    assert evidence_of(tmp_path, collected_zero) is None


def test_every_real_file_row_count_matches_csv_module() -> None:
    """The raw files' kernel rows against Python's csv reader (units row excluded)."""
    for path, expected in ((B200, 16), (GTX1080, 3)):
        with path.open(encoding="utf-8") as handle:
            rows = [r for r in csv.reader(handle) if r and not r[0].startswith("==")]
        assert len(rows) - 2 == expected
        assert read_ncu_csv(path).kernels.height == expected
