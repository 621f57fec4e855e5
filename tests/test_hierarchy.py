"""The hierarchical roofline: AI per level, the binding level, the chart, the catalog's
cache ceilings, on a hand-made frame and on real exports."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from generator.analysis.export_analysis import analyze_export
from generator.analysis.hierarchy import (
    HierarchyTable,
    binding_level,
    binding_shares,
    hierarchy,
    levels,
    step_rows,
    summary,
)
from generator.analysis.roofline import Totals, kernel_metrics, range_totals, totals
from generator.analysis.views import MeasurementView
from generator.catalog import Device, find_device, load_catalog
from generator.charts.hierarchical import LEVEL_COLOURS, hierarchical_chart
from generator.errors import UserError
from generator.ingest import read_ncu_csv
from tests.helpers import REPO

H100_RUN = REPO / "measurements/runs/E-resnet18-cifar10-b128-train_step-tf32-cuda-f78720da/ncu.csv"
BERT = REPO / "measurements/imported/a100-bert-attention/ncu.csv"  # A100, NERSC metric set
L4 = REPO / "measurements/imported/l4-resnet18-train-step-b64/ncu.csv"  # DRAM bytes only

# Round numbers: FP32 peak 10 TFLOP/s; L1 16, L2 4, DRAM 1 TB/s.
DEVICE = replace(
    find_device("a100-40gb-sxm"),
    id="test-gpu",
    name="Test GPU",
    peaks_flops_per_s={"fp32": 10e12},
    bandwidth_bytes_per_s=1e12,
    l1_bandwidth_bytes_per_s=16e12,
    l2_bandwidth_bytes_per_s=4e12,
)

# name: (FLOPs, L1, L2, DRAM bytes, time in s)
HAND: dict[str, tuple[float, float, float, float, float]] = {
    "dram_bound": (8e9, 4e9, 2e9, 1e9, 2e-3),  # times: compute .8, L1 .25, L2 .5, DRAM 1 ms
    "l1_bound": (1e9, 8e9, 1e9, 0.1e9, 1e-3),  # compute .1, L1 .5, L2 .25, DRAM .1 ms
    "compute_bound": (100e9, 1e9, 1e9, 1e9, 20e-3),  # compute 10 ms
    "copy": (0.0, 1e9, 1e9, 1e9, 1e-3),  # no FLOPs: DRAM still binds it
}


def hand_metrics() -> pl.DataFrame:
    rows = [
        {
            "kernel_id": i,
            "kernel_name": name,
            "nvtx_range": "forward" if i < 2 else "backward",
            "flops_fp32": flops,
            "flops": flops,
            "l1_bytes": l1,
            "l2_bytes": l2,
            "dram_total_bytes": dram,
            "time_s": time_s,
        }
        for i, (name, (flops, l1, l2, dram, time_s)) in enumerate(HAND.items())
    ]
    return pl.DataFrame(rows)


def hand_totals(frame: pl.DataFrame) -> Totals:
    return Totals(
        kernels=frame.height,
        flops=float(frame["flops"].sum()),
        flops_by_precision={"fp32": float(frame["flops"].sum())},
        dram_bytes=float(frame["dram_total_bytes"].sum()),
        l2_bytes=float(frame["l2_bytes"].sum()),
        l1_bytes=float(frame["l1_bytes"].sum()),
        time_s=float(frame["time_s"].sum()),
        sm_pct=None,
        dram_pct=None,
        tensor_pipe_inst=None,
    )


def hand_table(device: Device | None = DEVICE) -> HierarchyTable:
    frame = hand_metrics()
    ranges = {
        name: hand_totals(frame.filter(pl.col("nvtx_range") == name))
        for name in ("forward", "backward")
    }
    table = hierarchy(frame, hand_totals(frame), ranges, device)
    assert table is not None
    return table


def by_name(table: HierarchyTable) -> dict[str, dict[str, Any]]:
    return {row["kernel_name"]: row for row in table.kernels.to_dicts()}


def test_arithmetic_intensity_per_level_on_a_hand_frame() -> None:
    table = hand_table()
    assert table.levels == ("L1", "L2", "DRAM")
    kernel = by_name(table)["dram_bound"]
    assert (kernel["l1_ai"], kernel["l2_ai"], kernel["dram_ai"]) == pytest.approx((2, 4, 8))
    assert kernel["attained_flops_per_s"] == pytest.approx(4e12)  # the same at every level
    assert by_name(table)["copy"]["dram_ai"] == 0.0
    step = table.steps.row(0, named=True)
    assert step["scope"] == "step"
    assert step["l1_ai"] == pytest.approx(109e9 / 14e9)
    assert step["l2_ai"] == pytest.approx(109e9 / 5e9)
    assert step["dram_ai"] == pytest.approx(109e9 / 3.1e9)
    assert table.steps["scope"].to_list() == ["step", "forward", "backward"]
    shown = step_rows(table)[0]
    assert (shown["L1 AI (FLOP/byte)"], shown["DRAM AI (FLOP/byte)"]) == ("7.786", "35.16")
    assert shown["lowest roof"] == "compute"


def test_the_level_with_the_lowest_roof_binds() -> None:
    kernels = by_name(hand_table())
    assert {name: row["binding"] for name, row in kernels.items()} == {
        "dram_bound": "DRAM",
        "l1_bound": "L1",
        "compute_bound": "compute",
        "copy": "DRAM",
    }
    # roof = min(peak, AI x bandwidth) over the levels: DRAM's 8 x 1 TB/s
    assert kernels["dram_bound"]["roof_flops_per_s"] == pytest.approx(8e12)
    assert kernels["dram_bound"]["efficiency"] == pytest.approx(0.5)
    assert kernels["l1_bound"]["roof_flops_per_s"] == pytest.approx(2e12)  # AI 0.125 x 16 TB/s
    assert kernels["compute_bound"]["roof_flops_per_s"] == pytest.approx(10e12)
    assert kernels["copy"]["roof_flops_per_s"] is None  # binds, but has no FLOP/s
    # the step: 109 GFLOP take 10.9 ms at the peak, more than DRAM's 3.1 ms
    assert hand_table().steps.row(0, named=True)["binding"] == "compute"


def test_a_level_without_a_ceiling_is_never_judged() -> None:
    table = hand_table(replace(DEVICE, l1_bandwidth_bytes_per_s=None))
    assert table.unjudged == ("L1",)
    assert by_name(table)["l1_bound"]["binding"] == "L2"  # .25 ms: the next-lowest roof
    assert "no L1 ceiling in the catalog for Test GPU" in summary(table)


def test_binding_level_refuses_to_guess() -> None:
    ceilings = {"L1": 16e12, "L2": 4e12, "DRAM": 1e12}
    moved = {"L1": 1e9, "L2": None, "DRAM": 1e9}
    assert binding_level(1e9, moved, ceilings, 10e12) == (None, None)  # L2 bytes missing
    assert binding_level(None, {"DRAM": 1e9}, {"DRAM": 1e12}, 10e12) == (None, None)
    assert binding_level(1e9, {"DRAM": 1e9}, {"DRAM": 1e12}, None) == (None, None)
    assert binding_level(1e9, {"L1": 1e9}, {"L1": None}, 10e12) == (None, None)
    assert binding_level(1e9, {"DRAM": 1e9}, {"DRAM": 1e12}, 10e12) == ("DRAM", 1e12)


def test_summary_names_the_level_that_binds_most_time() -> None:
    table = hand_table()
    shares = binding_shares(table)
    assert list(shares) == ["compute", "DRAM", "L1"]  # 20, 3, 1 ms of 24
    assert shares["compute"] == pytest.approx(20 / 24)
    text = summary(table)
    assert text.startswith("Most kernel time is bound by compute (FP32 peak): 83.3 %")
    assert "(DRAM bandwidth 12.5 %, L1 bandwidth 4.17 %)" in text
    assert text.endswith(".") and "reach" in text  # how close to that roof


def test_no_table_without_l1_or_l2_bytes() -> None:
    metrics = kernel_metrics(read_ncu_csv(L4).kernels)
    step = totals(metrics)
    assert step.dram_bytes and step.l1_bytes is None and step.l2_bytes is None
    assert hierarchy(metrics, step, range_totals(metrics), find_device("l4")) is None
    bare = hand_metrics().drop("l1_bytes", "l2_bytes")
    assert hierarchy(bare, hand_totals(hand_metrics()), {}, DEVICE) is None


def datasets(layer: dict[str, Any], spec: dict[str, Any]) -> list[dict[str, Any]]:
    data = layer.get("data", {})
    if "values" in data:
        return list(data["values"])
    return list(spec.get("datasets", {}).get(data.get("name"), []))


def test_chart_has_one_roof_per_level_si_ticks_and_ridges() -> None:
    spec = hierarchical_chart(hand_table(), "hand")
    layers = spec["layer"]
    roofs = [layer for layer in layers if layer["mark"]["type"] == "line"]
    assert len(roofs) == 1
    rows = datasets(roofs[0], spec)
    assert sorted({r["level"] for r in rows}) == ["DRAM", "L1", "L2"]
    for level, bandwidth in (("L1", 16e12), ("L2", 4e12), ("DRAM", 1e12)):
        line = sorted((r for r in rows if r["level"] == level), key=lambda r: r["order"])
        assert line[0]["flops_per_s"] == pytest.approx(line[0]["ai"] * bandwidth)  # slope
        assert line[-1]["flops_per_s"] == pytest.approx(10e12)  # then the compute peak
    ridges = [
        datasets(layer, spec)
        for layer in layers
        if layer["mark"]["type"] == "rule" and "y2" in layer["encoding"]
    ]
    assert [sorted(r["ai"] for r in rows) for rows in ridges] == [
        pytest.approx([10 / 16, 10 / 4, 10 / 1])
    ]
    assert roofs[0]["encoding"]["y"]["axis"]["format"] == "~s"
    points = next(layer for layer in layers if layer["mark"]["type"] == "point")
    assert points["encoding"]["y"]["axis"]["format"] == "~s"
    assert points["encoding"]["color"]["legend"]["orient"] == "bottom"
    assert points["encoding"]["shape"]["field"] == "level"
    assert len(set(LEVEL_COLOURS.values())) == 3
    assert sorted({p["level"] for p in datasets(points, spec)}) == ["DRAM", "L1", "L2"]


def test_chart_draws_no_roof_for_a_level_the_catalog_lacks() -> None:
    table = hand_table(replace(DEVICE, l1_bandwidth_bytes_per_s=None))
    spec = hierarchical_chart(table, "hand")
    roof = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "line")
    assert sorted({r["level"] for r in datasets(roof, spec)}) == ["DRAM", "L2"]
    assert any("No L1 ceiling in the catalog" in line for line in spec["title"]["subtitle"])


def view_of(path: Path, device: str) -> MeasurementView:
    analysis = analyze_export(read_ncu_csv(path), device)
    return MeasurementView(
        slug="test", title="test", origin="", citation="", model="", workload="", batch=None,
        phase="train_step", precision="", notes="", license="", csv_path=str(path),
        kernels=analysis.metrics, step=analysis.step, ranges=analysis.ranges,
        match=analysis.match, bound=analysis.bound, chart={},
    )  # fmt: skip


def test_a_recorded_h100_run_has_three_levels_and_says_which_it_cannot_judge() -> None:
    table = levels(view_of(H100_RUN, "h100-sxm"))
    assert table is not None
    assert table.levels == ("L1", "L2", "DRAM") and table.missing == {}
    assert table.unjudged == ("L1", "L2")  # no citable H100 cache bandwidth in the catalog
    step = table.steps.row(0, named=True)
    analysis = analyze_export(read_ncu_csv(H100_RUN), "h100-sxm")
    assert step["l2_ai"] == pytest.approx(analysis.step.flops / analysis.step.l2_bytes)
    assert step["dram_ai"] == pytest.approx(analysis.step.arithmetic_intensity)
    assert table.steps["scope"].to_list() == [
        "step", "forward", "loss", "backward", "optimizer_step",
    ]  # fmt: skip
    assert set(table.kernels["binding"].drop_nulls()) <= {"DRAM", "compute"}
    assert "no L1 or L2 ceiling in the catalog for NVIDIA H100 SXM" in summary(table)
    spec = hierarchical_chart(table, "H100")
    assert spec and spec["title"]["subtitle"][0].startswith("Roofs: DRAM 3.35 TB/s;")


def test_the_a100_export_is_judged_against_its_whitepaper_l2_ceiling() -> None:
    table = levels(view_of(BERT, "a100-40gb-sxm"))
    assert table is not None and table.levels == ("L1", "L2", "DRAM")
    assert table.ceilings == {"L1": None, "L2": pytest.approx(7219.2e9), "DRAM": 1555e9}
    step = table.steps.row(0, named=True)
    assert (step["l1_ai"], step["l2_ai"], step["dram_ai"]) == pytest.approx(
        (69441296 / 7185472, 69441296 / 18238784, 69441296 / 2406400)
    )
    assert "L2" in binding_shares(table)
    assert summary(table).startswith("The largest share of kernel time is bound by L2 bandwidth")


def test_cache_ceilings_in_the_catalog_cite_their_source(tmp_path: Path) -> None:
    with_cache = [d for d in load_catalog() if d.l2_bandwidth_bytes_per_s]
    assert {d.id for d in with_cache} >= {"a100-40gb-sxm", "v100-sxm2-16gb"}
    assert all(d.cache_source.startswith("https://") and d.cache_notes for d in with_cache)
    assert find_device("h100-sxm").l2_bandwidth_bytes_per_s is None  # none published
    text = (REPO / "generator/catalog/hardware.toml").read_text(encoding="utf-8")
    bad = tmp_path / "hardware.toml"
    bad.write_text(
        text.replace("l2_bandwidth_gbs = 3133.44", "l2_bandwidth_gbs = -1", 1), encoding="utf-8"
    )
    with pytest.raises(UserError) as caught:
        load_catalog(bad)
    assert caught.value.key == "device[2].l2_bandwidth_gbs"
    uncited = text.replace("tdp_w = 70\n", "tdp_w = 70\nl1_bandwidth_gbs = 10000\n", 1)
    bad.write_text(uncited, encoding="utf-8")
    with pytest.raises(UserError) as caught:
        load_catalog(bad)
    assert caught.value.key == "device[0].cache_source"
