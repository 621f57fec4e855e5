"""Synthetic exports for every layout, header and unit variant real files show."""

from __future__ import annotations

import polars as pl
import pytest

from generator.analysis.roofline import kernel_metrics, range_totals, totals
from generator.ingest import read_ncu_csv
from generator.ingest.nvtx import push_pop_ranges, start_stop_ranges
from tests.helpers import LONG_HEADER, fp32_kernel, metric_row, quoted, write_long


def summary(path):  # type: ignore[no-untyped-def]
    metrics = kernel_metrics(read_ncu_csv(path).kernels)
    return metrics, totals(metrics)


def test_long_sums_flops_as_add_mul_two_fma(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rows = fp32_kernel(0, fadd="10", fmul="20", ffma="30") + fp32_kernel(1, ffma="5")
    _, total = summary(write_long(tmp_path / "a.csv", rows))
    assert total.flops == 10 + 20 + 2 * 30 + 2 * 5


def test_units_are_converted_per_row(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rows = (
        fp32_kernel(0, dram_read=("Kbyte", "1.5"), time=("usecond", "2"))
        + fp32_kernel(
            1, dram_read=("Mbyte", "2"), dram_write=("Gbyte", "0.001"), time=("msecond", "1")
        )
        + fp32_kernel(2, dram_read=("Tbyte", "0.000001"), time=("second", "0.5"))
    )
    _, total = summary(write_long(tmp_path / "u.csv", rows))
    assert total.dram_bytes == pytest.approx(1_500 + 2_000_000 + 1_000_000 + 1_000_000)
    assert total.time_s == pytest.approx(2e-6 + 1e-3 + 0.5)


def test_thousands_separators(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rows = fp32_kernel(0, ffma="1,093,771,644.12", dram_read=("byte", "53,261,312"))
    _, total = summary(write_long(tmp_path / "t.csv", rows))
    assert total.flops == pytest.approx(2 * 1_093_771_644.12)
    assert total.dram_bytes == 53_261_312


@pytest.mark.parametrize("missing", ["n/a", ""])
def test_missing_values_are_null_never_zero(tmp_path, missing: str) -> None:  # type: ignore[no-untyped-def]
    rows = fp32_kernel(0, ffma="100") + fp32_kernel(1, ffma=missing)
    metrics, total = summary(write_long(tmp_path / "n.csv", rows))
    assert metrics["fp32_fma_inst"].to_list() == [100.0, None]
    assert total.flops is None  # one kernel's FLOPs are unknown: so is the step's
    assert total.incomplete == {"flops_fp32": 1}
    assert total.dram_bytes == 0  # the other totals stand


def test_bom_and_preamble_lines(tmp_path) -> None:  # type: ignore[no-untyped-def]
    preamble = '\ufeff==PROF== Connected to process 1 (/usr/bin/python3)\nloss, 0.5, "x"\n==PROF== Disconnected\n'
    path = write_long(tmp_path / "p.csv", fp32_kernel(0, ffma="4"), preamble=preamble)
    export = read_ncu_csv(path)
    assert export.preamble_lines == 3
    assert export.metrics["line"].min() == 5  # header on line 4


def test_bom_directly_on_the_header(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = write_long(tmp_path / "b.csv", fp32_kernel(0, ffma="4"), preamble="\ufeff")
    assert totals(kernel_metrics(read_ncu_csv(path).kernels)).flops == 8


def test_raw_layout_with_units_row_equals_long_layout(tmp_path) -> None:  # type: ignore[no-untyped-def]
    identity = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
                "Stream", "Block Size", "Grid Size", "Device", "CC"]  # fmt: skip
    metrics = ["dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum",
               "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
               "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
               "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
               "sm__throughput.avg.pct_of_peak_sustained_elapsed"]  # fmt: skip
    units = [""] * len(identity) + ["Mbyte", "Kbyte", "usecond", "inst", "inst", "inst", "%"]
    kernel = [
        "0",
        "7",
        "python3",
        "localhost",
        "k<float>",
        "1",
        "7",
        "(1, 1, 1)",
        "(1, 1, 1)",
        "0",
        "9.0",
    ]
    rows = [
        [*kernel, "1.5", "2", "10", "1,000", "2,000", "0", "50"],
        ["1", *kernel[1:], "0.5", "n/a", "30", "0", "10", "0", "10"],
    ]
    text = "\n".join([quoted(identity + metrics), quoted(units), *(quoted(r) for r in rows)])
    path = tmp_path / "raw.csv"
    path.write_text(text + "\n", encoding="utf-8")
    export = read_ncu_csv(path)
    assert export.layout == "raw"
    assert export.kernels["dram_read_bytes"].to_list() == [1_500_000, 500_000]
    assert export.kernels["dram_write_bytes"].to_list() == [2_000, None]
    total = totals(kernel_metrics(export.kernels))
    assert total.flops == 1_000 + 2 * 2_000 + 2 * 10
    assert total.time_s == pytest.approx(40e-6)
    assert total.sm_pct == pytest.approx((50 * 10 + 10 * 30) / 40)
    assert export.metrics.filter(pl.col("kernel_id") == 0)["line"].to_list() == [3] * 7


def test_old_header_rule_columns_and_body_item_label(tmp_path) -> None:  # type: ignore[no-untyped-def]
    header = ("ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Kernel Time",
              "Context", "Stream", "Section Name", "Body Item Label", "Metric Name",
              "Metric Unit", "Metric Value", "Rule Name", "Rule Type", "Rule Description",
              "Estimated Speedup Type", "Estimated Speedup")  # fmt: skip
    base = ["0", "1", "py", "h", "gemm", "2023-May-09 15:12:33", "1", "7"]
    lines = [
        quoted(header),
        quoted(
            [*base, "Command line profiler metrics", "", "gpu__time_duration.sum", "ns", "1,500"]
        )
        + ",",
        quoted(
            [
                *base,
                "SOL",
                "",
                "",
                "",
                "",
                "SOLBottleneck",
                "WRN",
                "Memory is more heavily utilized",
                "global",
                "12.5",
            ]
        ),
        quoted([*base, "Roofline", "Single", "SM Frequency", "Ghz", "1.41"]) + ",",
        quoted([*base, "Roofline", "Double", "SM Frequency", "Ghz", "1.41"]) + ",",
    ]
    path = tmp_path / "old.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    export = read_ncu_csv(path)
    assert export.kernels["gpu_time_s"].to_list() == [pytest.approx(1.5e-6)]
    assert export.kernels["kernel_time"].to_list() == ["2023-May-09 15:12:33"]
    freq = export.metrics.filter(pl.col("metric") == "SM Frequency")
    assert freq["label"].to_list() == ["Single", "Double"]
    assert freq["value"].to_list() == [pytest.approx(1.41e9)] * 2
    assert "" not in export.metrics["metric"].to_list()  # the rule-only row carries no metric


def test_sm_and_smsp_spellings_are_one_counter(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rows = [
        metric_row(0, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", "7"),
        metric_row(0, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", "7"),
        metric_row(0, "sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "inst", "1"),
        metric_row(0, "sm__sass_thread_inst_executed_op_fmul_pred_on.sum", "inst", "1"),
    ]
    _, total = summary(write_long(tmp_path / "s.csv", rows))
    assert total.flops == 1 + 1 + 2 * 7


def test_dram_alternatives_and_time_fallback(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rows = [
        metric_row(0, "dram__bytes.sum", "Kbyte", "3"),
        metric_row(1, "dram__bytes_op_read.sum", "byte", "100"),
        metric_row(1, "dram__bytes_op_write.sum", "byte", "50"),
        metric_row(0, "sm__cycles_elapsed.avg", "cycle", "2,000"),
        metric_row(0, "sm__cycles_elapsed.avg.per_second", "cycle/nsecond", "1"),
        metric_row(1, "gpu__time_duration.sum", "usecond", "4"),
        metric_row(1, "sm__cycles_elapsed.avg", "cycle", "1"),
        metric_row(1, "sm__cycles_elapsed.avg.per_second", "Ghz", "1"),
    ]
    metrics, total = summary(write_long(tmp_path / "d.csv", rows))
    assert total.dram_bytes == 3_000 + 150
    assert metrics["time_s"].to_list() == [pytest.approx(2e-6), pytest.approx(4e-6)]
    assert metrics["time_source"].to_list() == ["cycles/clock", "gpu__time_duration"]


def test_tensor_ops_counted_directly(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rows = [
        metric_row(0, "sm__ops_path_tensor_src_bf16_dst_fp32.sum", "", "1,000,000"),
        metric_row(0, "sm__ops_path_tensor_src_bf16_dst_bf16.sum", "", "n/a"),
        metric_row(0, "sm__inst_executed_pipe_tensor.sum", "inst", "99"),
        metric_row(0, "dram__bytes.sum", "byte", "1,000"),
        metric_row(0, "gpu__time_duration.sum", "usecond", "1"),
    ]
    _, total = summary(write_long(tmp_path / "tc.csv", rows))
    assert total.flops_by_precision == {"tensor_bf16": 1_000_000}
    assert total.dominant_precision == "tensor_bf16"
    assert total.tensor_pipe_inst == 99  # an instruction count, not FLOPs


def test_multiple_processes_and_devices(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rows = (
        fp32_kernel(0, ffma="1", pid=1, device="0")
        + fp32_kernel(0, ffma="2", pid=2, device="1")  # same ID in another process
        + fp32_kernel(1, ffma="3", pid=2, device="1")
    )
    export = read_ncu_csv(write_long(tmp_path / "m.csv", rows))
    assert export.kernels.select("process_id", "kernel_id", "device").rows() == [
        (1, 0, "0"),
        (2, 0, "1"),
        (2, 1, "1"),
    ]
    assert totals(kernel_metrics(export.kernels)).flops == 2 * (1 + 2 + 3)


def test_nvtx_columns_group_kernels_by_innermost_range(tmp_path) -> None:  # type: ignore[no-untyped-def]
    header = (*LONG_HEADER[:4], "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg",
              "Id:Domain:Start/Stop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg", *LONG_HEADER[4:])  # fmt: skip
    fwd = '42  "<default domain>:train_step:none:none:none:none:none:none"  "<default domain>:forward:none:none:none:none:none:none" '
    bwd = '43  "<default domain>:backward:none:none:none:none:none:none" '
    rows = []
    for kernel_id, cell in ((0, fwd), (1, fwd), (2, bwd), (3, "")):
        for row in fp32_kernel(kernel_id, ffma="1"):
            rows.append([*row[:4], cell, "", *row[4:]])
    metrics = kernel_metrics(read_ncu_csv(write_long(tmp_path / "r.csv", rows, header)).kernels)
    assert {n: t.kernels for n, t in range_totals(metrics).items()} == {
        "forward": 2,
        "backward": 1,
        "(no range)": 1,
    }


def test_nvtx_parsing_of_names_with_colons_and_start_stop() -> None:
    cell = '7  "<default domain>:step:3:none:none:none:none:none:none"  "d2:a:b:none:none:none:none:none:none"'
    assert push_pop_ranges(cell) == ["step:3", "a:b"]
    assert start_stop_ranges('"5:<default domain>:epoch 1:none:none:none:none:none:none"') == [
        "epoch 1"
    ]
    assert push_pop_ranges("") == []


def test_kernel_without_dram_traffic_has_no_infinite_intensity(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rows = fp32_kernel(0, ffma="10", dram_read=("byte", "0"), time=("nsecond", "0"))
    metrics, total = summary(write_long(tmp_path / "z.csv", rows))
    assert metrics["arithmetic_intensity"].to_list() == [None]
    assert metrics["attained_flops_per_s"].to_list() == [None]
    assert total.arithmetic_intensity is None and total.attained_flops_per_s is None


def test_device_name_metric_matches_the_catalog(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from generator.catalog.matching import match_device

    rows = [
        *fp32_kernel(0, ffma="1"),
        metric_row(0, "device__attribute_display_name", "", "NVIDIA L4"),
    ]
    export = read_ncu_csv(write_long(tmp_path / "name.csv", rows))
    assert export.kernels["device_name"].to_list() == ["NVIDIA L4"]
    match = match_device(export.kernels, None)  # CC 8.9 alone would be ambiguous
    assert match.device is not None and match.device.id == "l4"
    assert match.how == "device name in the export"
