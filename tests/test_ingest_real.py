"""Every real export in tests/data/ncu/, pinned to values checked by hand.

The expected numbers were computed independently with Python's csv module and a hand-written
sum (see the issue's closing note), not by the code under test.
"""

from __future__ import annotations

import hashlib

import pytest

from generator.analysis.roofline import kernel_metrics, range_totals, totals
from generator.ingest import KERNEL_SCHEMA, METRIC_SCHEMA, read_ncu_csv
from tests.helpers import REAL_NCU

L4 = REAL_NCU / "taytwkim__nn-perf__a1-rep.csv"
BERT = (
    REAL_NCU
    / "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__bert_torch_nsight.csv"
)
GEMM = REAL_NCU / "Olajide-Badejo__GPU-Roofline-Profiler__gemm_tiled.csv"
GEMV_METRICS = REAL_NCU / "CodeGandee__llm-perf-opt__kernel_0001_ncu.metrics.csv"
GEMV_DETAILS = REAL_NCU / "CodeGandee__llm-perf-opt__kernel_0001_ncu.details.csv"
GEMV_ROOFLINE = (
    REAL_NCU / "CodeGandee__llm-perf-opt__kernel_0001_ncu.section_SpeedOfLight_RooflineChart.csv"
)


def step(path):  # type: ignore[no-untyped-def]
    export = read_ncu_csv(path)
    metrics = kernel_metrics(export.kernels)
    return export, metrics, totals(metrics)


def test_l4_resnet18_step_matches_the_issue_numbers() -> None:
    export, metrics, total = step(L4)
    assert export.layout == "long"
    assert total.kernels == 98
    assert total.flops == 4_928_393_620  # 4.928 GFLOP, fp32 only
    assert set(total.flops_by_precision) == {"fp32"}
    assert total.dram_bytes == pytest.approx(709_948_840, rel=1e-12)  # 0.710 GB, SI
    assert total.time_s == pytest.approx(7.37625e-3, rel=1e-12)
    assert total.arithmetic_intensity == pytest.approx(6.9419, rel=1e-4)
    assert total.sm_pct == pytest.approx(13.70497, rel=1e-5)
    assert total.dram_pct == pytest.approx(32.14027, rel=1e-5)
    assert {name: t.kernels for name, t in range_totals(metrics).items()} == {
        "forward": 89,
        "loss": 2,
        "backward": 1,
        "optimizer_step": 6,
    }


def test_l4_mbyte_is_si_not_binary() -> None:
    # The seed report's script read Mbyte as 2**20 and got 0.744 GB.
    _, metrics, total = step(L4)
    assert total.dram_bytes is not None
    assert total.dram_bytes / 1e9 == pytest.approx(0.70995, abs=1e-5)
    binary_reading = 0.744e9
    assert binary_reading / total.dram_bytes == pytest.approx(1.048, abs=1e-3)
    first = metrics.filter(metrics["kernel_id"] == 0)
    assert first["dram_read_bytes"][0] == 1_080_000  # "1.08" Mbyte


def test_l4_nvtx_stack_is_parsed() -> None:
    export, _, _ = step(L4)
    first = export.kernels.row(0, named=True)
    assert first["nvtx_push_pop"] == ["train_step", "forward"]
    assert first["nvtx_range"] == "forward"
    assert first["cc"] == "8.9"
    assert first["process_id"] == 3984


def test_bert_a100_old_header_cycles_time_and_all_precisions() -> None:
    export, metrics, total = step(BERT)
    assert total.kernels == 26
    assert total.flops_by_precision == {"fp64": 0.0, "fp32": 68_457_856.0, "fp16": 983_440.0}
    assert total.flops == 69_441_296
    assert total.dram_bytes == 2_406_400  # dram__bytes.sum
    assert total.l2_bytes == 18_238_784
    assert total.l1_bytes == 7_185_472
    assert total.tensor_pipe_inst == 15_427  # reported, never turned into FLOPs
    # no gpu__time_duration: time is cycles / cycles-per-second per kernel
    assert total.time_s == pytest.approx(1.78431991595378e-4, rel=1e-12)
    assert set(metrics["time_source"].to_list()) == {"cycles/clock"}
    # "Kernel Time" in this old header is a timestamp, kept as text
    assert export.kernels["kernel_time"][0] == "2023-May-09 15:12:33"
    assert export.kernels["cc"].null_count() == 26  # no CC column in this export
    # Occupancy and Launch Statistics sections are kept in the long table
    sections = set(export.metrics["section"].to_list())
    assert {"Occupancy", "Launch Statistics", "Command line profiler metrics"} <= sections


def test_rtx5070_gemm_preamble_bom_thousands_and_op_read_names() -> None:
    export, _metrics, total = step(GEMM)
    assert export.preamble_lines == 8  # ==PROF== lines and the program's own output
    assert total.kernels == 1
    assert total.dram_bytes == 53_261_312 + 3_377_920  # dram__bytes_op_{read,write}.sum
    assert total.time_s == pytest.approx(10_195_552e-9, rel=1e-12)  # "10,195,552" ns
    assert total.sm_pct == pytest.approx(88.90)
    assert total.flops is None  # no FLOP counters in this export: n/a, not 0
    assert total.arithmetic_intensity is None
    unknown = export.metrics.filter(
        export.metrics["metric"] == "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
    )
    assert unknown["value"][0] == 67_108_864  # unknown metrics are kept, with their unit


def test_rtx5090_gemv_rule_columns_and_na_values() -> None:
    export, _, total = step(GEMV_METRICS)
    assert total.kernels == 1
    assert total.dram_bytes == 2_330_000  # 2.33 Mbyte + 0 byte
    assert total.time_s == pytest.approx(6.75e-6)  # "us"
    kernel = export.kernels.row(0, named=True)
    assert kernel["tensor_bf16_fp32_ops"] == 0
    assert kernel["tensor_bf16_bf16_ops"] is None  # n/a stays missing
    na = export.metrics.filter(export.metrics["metric"] == "flop_count_sp.sum")
    assert na["value_text"][0] == "n/a" and na["value"][0] is None
    assert export.metrics.height == 11  # rule-only rows (no metric name) dropped


def test_rtx5090_details_page_keeps_display_named_metrics() -> None:
    export, _, total = step(GEMV_DETAILS)
    assert total.dram_bytes == 2_330_000
    freq = export.metrics.filter(export.metrics["metric"] == "SM Frequency")
    assert freq["base_unit"][0] == "hz" and freq["value"][0] > 1e9  # "Ghz" -> hz
    throughput = export.metrics.filter(
        (export.metrics["metric"] == "Memory Throughput")
        & (export.metrics["section"] == "Memory Workload Analysis")
    )
    assert throughput["base_unit"][0] == "byte/second"  # "Gbyte/s"


def test_rtx5090_roofline_section_body_item_label_instances() -> None:
    export, _, total = step(GEMV_ROOFLINE)
    assert total.kernels == 1
    freq = export.metrics.filter(export.metrics["metric"] == "SM Frequency")
    assert freq.height == 4  # four instances, told apart by their label
    assert freq["label"].null_count() == 0
    assert total.time_s is None  # this section export has no duration metric


@pytest.mark.parametrize("path", sorted(REAL_NCU.glob("*.csv")), ids=lambda p: p.name[:40])
def test_every_real_file_matches_the_declared_schemas(path) -> None:  # type: ignore[no-untyped-def]
    export = read_ncu_csv(path)
    assert export.kernels.schema == KERNEL_SCHEMA
    assert export.metrics.schema == METRIC_SCHEMA


# Every real file, byte for byte as its origin committed it (tests/data/ncu/PROVENANCE.md).
SHA256 = {
    "CodeGandee__llm-perf-opt__kernel_0001_ncu.details.csv": "9d77da8d2775dd150624421d3cff9742a6f37e22d33077f772ad974aabb43d46",
    "CodeGandee__llm-perf-opt__kernel_0001_ncu.metrics.csv": "2fb0da58ecbf02dabe049f6a5f5761c716323667061d2f3f5a2cdfc0efb1ce77",
    "CodeGandee__llm-perf-opt__kernel_0001_ncu.section_SpeedOfLight_RooflineChart.csv": "5bcaa3acf3c56408ebc7f8d85b8e109635c9c1c3c3dbc27bede1b5b273e6cd65",
    "Gardenia-Tian__LearningNote4Dev__sgemm.csv": "38510952d2527508a72c9b9b3412c9b3b9cd3a56adb7569cc5102a59f9d72083",
    "Olajide-Badejo__GPU-Roofline-Profiler__gemm_tiled.csv": "2af2e09ed0211bcedd8a7c0321f331bf4fb9c111ec394bf0fe99bff4758c0072",
    "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__bert_torch_nsight.csv": "f839c07c083f3a049490e37b32758fff784559d4b292c64291baa15646b8d2aa",
    "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__sam_torch_nsight.csv": "08b211df2cc235f3ba6e3cce102d8c7ae0a197b891b72a6e369c21956cda0a9f",
    "meinie0826__Roofline-Analysis__torch_sdpa_flash__mha_bf16_b16_ctx4k_p64.ncu.csv": "6154c534aec17d2110a5e1bdbe49c78cafc253ade67909c0654478ce8b498de1",
    "ncu-errors/Gardenia-Tian__LearningNote4Dev__profile.csv": "f6591482be0cdca9f3f99006e11188b2bd1fd18232fc76ad9227bd6c917076ed",
    "romnn__microgpusim__nsight_vectoradd_100_32_metrics_all.csv": "d782b0f7b2d20748789b6a57ebf29b5b205619e58a4353dbcb29d78c6feb9a7e",
    "taytwkim__nn-perf__a1-rep.csv": "8f21d4b660acb4053fd5ee702afbdd06797b7bf181973bad05da78c021fab988",
}  # fmt: skip


def test_real_files_are_the_pinned_bytes() -> None:
    found = {
        p.relative_to(REAL_NCU).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in REAL_NCU.rglob("*.csv")
    }
    assert found == SHA256
