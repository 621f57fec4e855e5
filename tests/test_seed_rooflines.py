"""The Seed rooflines page: each roofline figure of the seeds redrawn under the right roof with
the seed's own points, checked against numbers worked by hand from the seeds and datasheets.

Hand arithmetic (FLOP/byte): T4 FP32 8.1 TFLOP/s ÷ 320 GB/s = 25.3125 (seed 000 printed
300 GB/s: 27); L4 30.3 TFLOP/s ÷ 300 GB/s = 101; V100 15.7 ÷ 0.9 = 17.44; the T4's FP16
tensor-core 65 TFLOP/s ÷ 320 GB/s = 203.125; the Colab Xeon 70.4 GFLOP/s ÷ 76.8 GB/s = 0.9167
(seed 003's 102.4 GFLOP/s: 1.333); H100 SXM BF16 dense 989.5 TFLOP/s ÷ 3.35 TB/s = 295.4 (the
seed's sparse 1979: 590.7); A100 80GB 312 ÷ 2.039 = 153.0 (624: 306.0)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from generator.analysis.points import all_points
from generator.analysis.replication import Replication
from generator.analysis.seed_003_rooflines import (
    AT_ROOF,
    batch_one_workloads,
    seed_003_devices,
    seed_003_measured,
    seed_003_models,
)
from generator.analysis.seed_prediction import Counts
from generator.analysis.seed_rooflines import SEED_ROOF, seed_000_appendix, seed_001_figure
from generator.catalog import load_catalog
from generator.ingest.runs import load_runs
from generator.records.ceilings import load_ceilings
from generator.records.literature import read_literature
from tests.helpers import REPO, measured_results

CATALOG = load_catalog()
MEASUREMENTS = REPO / "measurements"
ROWS = read_literature(MEASUREMENTS, {d.id for d in CATALOG})
TEN = {"alexnet", "vgg16", "resnet18", "resnet50", "mobilenet_v2", "densenet121",
       "convnext_tiny", "vit_b_32", "fcn_resnet50", "wav2vec2_base"}  # fmt: skip


def checked(ratios: dict[str, float] | None = None) -> list[Replication]:
    """Every seed row as the Replication page checks it, with the given ratios."""
    return [Replication(r, None, "", (ratios or {}).get(r.id), "", "") for r in ROWS]


def ridge(figure: object, device: str, source: str = "datasheet") -> float:
    return next(
        d.roof.ridge_ai
        for d in figure.roofs  # type: ignore[attr-defined]
        if d.roof.device == device and d.source == source
    )


def test_seed_000s_five_steps_are_its_own_points_under_the_datasheet_roofs() -> None:
    ratios = {"000-a1-vs-analytic": 0.4587, "000-c2-vs-analytic": 0.3612}
    figure = seed_000_appendix(checked(ratios), CATALOG)
    assert figure is not None
    by_label = {p.label: p for p in figure.points}
    assert list(by_label) == [f"000-{s}" for s in ("a1", "a2", "b1", "b2", "c2")]
    a2 = by_label["000-a2"]
    assert a2.rows == ("000-a2-ai", "000-a2-attained")
    assert (a2.ai, a2.attained) == (pytest.approx(20.672312), pytest.approx(1806.408e9))
    assert a2.what == "A-2: ResNet-18, L4, batch 256" and a2.side == "memory"
    assert by_label["000-b2"].what.startswith("B-2/C-1: ")
    # A-1's configuration does not name its step; its citation does ("row A-1")
    assert by_label["000-a1"].what == "A-1: ResNet-18, L4, batch 64"
    assert by_label["000-b1"].device == "NVIDIA T4"
    # A-1's intensity divides by 2^20-byte megabytes (the Replication page's cause)
    assert by_label["000-a1"].note == "2^20 bytes in the denominator"
    assert ridge(figure, "NVIDIA L4") == pytest.approx(30.3e12 / 300e9)
    assert ridge(figure, "NVIDIA T4") == pytest.approx(8.1e12 / 320e9)
    t4 = next(d for d in figure.roofs if d.roof.device == "NVIDIA T4")
    assert t4.seed_ridge == pytest.approx(8.1e12 / 300e9)
    assert "T4's ridge is 25.3 FLOP/byte, not the seed's 27 (its bandwidth 300 GB/s, row " \
        "000-t4-bw, against the datasheet's 320 GB/s)" in figure.sentence  # fmt: skip
    assert (
        "all 5 points stay on the memory side of their ridges, as the seed says" in figure.sentence
    )
    assert "these profiles lack the backward pass" in figure.sentence
    assert "holding 0.361–0.459 of the step's analytic FLOPs" in figure.sentence


def test_seed_001s_nine_points_and_the_vit_on_the_l4() -> None:
    figure = seed_001_figure(checked(), CATALOG)
    assert figure is not None and len(figure.points) == 9
    assert [d.roof.device for d in figure.roofs] == [
        "NVIDIA T4", "NVIDIA L4", "NVIDIA Tesla V100 SXM2 16GB"
    ]  # fmt: skip
    assert ridge(figure, "NVIDIA Tesla V100 SXM2 16GB") == pytest.approx(15.7e12 / 900e9)
    vit_l4 = next(p for p in figure.points if p.label == "001-vit-l4")
    assert (vit_l4.ai, vit_l4.attained, vit_l4.side) == (75.21, pytest.approx(5992e9), "memory")
    # 33.15 > 25.3 on the T4 and 48.72 > 17.4 on the V100: the compute side
    assert {p.label: p.side for p in figure.points if p.label.startswith("001-vit")} == {
        "001-vit-t4": "compute", "001-vit-l4": "memory",
        "001-vit-v100": "compute",
    }  # fmt: skip
    sentence = figure.sentence
    assert "the roofs are the seed's own" in sentence  # 8.1/320, 30.3/300, 15.7/900 agree
    assert "ViT, L4, batch 64 (75.21 FLOP/byte) sits on the memory side of its ridge at 101 " \
        "FLOP/byte, where the seed's §VI.C calls ViT compute-bound" in sentence  # fmt: skip
    assert "MobileNet stays on the memory side on all 3 GPUs, as the seed says" in sentence
    assert "ResNet-50, L4, batch 64's point (0.9235 FLOP/byte, 204.8 GFLOP/s) lacks the TF32" \
        in sentence  # fmt: skip


def test_seed_003s_devices_at_their_dense_peaks() -> None:
    figure = seed_003_devices(checked(), CATALOG)
    assert figure is not None and not figure.points
    peaks = {d.roof.device: (d.roof.precision, d.roof.peak_flops_per_s) for d in figure.roofs}
    assert peaks == {
        "NVIDIA H100 SXM": ("bf16_tensor", 989.5e12),
        "NVIDIA A100 80GB SXM": ("bf16_tensor", 312e12),
        "Google Cloud TPU7x (Ironwood)": ("bf16_tensor", 2307e12),
        "Google Cloud TPU v4": ("bf16_tensor", 275e12),
        "NVIDIA Grace CPU Superchip": ("fp64", 7.1e12),
    }
    h100 = next(d for d in figure.roofs if d.roof.device == "NVIDIA H100 SXM")
    assert h100.seed_peak == pytest.approx(1979e12) and h100.rows == (
        "003-h100-bf16",
        "003-h100-bw",
    )
    assert h100.roof.ridge_ai == pytest.approx(989.5 / 3.35)
    assert h100.seed_ridge == pytest.approx(1979 / 3.35)
    sentence = figure.sentence
    assert "with-sparsity peaks (1.979 PFLOP/s and 624 TFLOP/s, rows 003-h100-bf16, " \
        "003-a100-bf16)" in sentence  # fmt: skip
    assert "ridges fall from 591 to 295 and from 306 to 153 FLOP/byte" in sentence
    # 275 / 312 = 0.881 (the seed's 275 / 624 = 0.441); 2307 / 989.5 = 2.33 (2307 / 1979 = 1.17)
    assert "Google Cloud TPU v4 at 0.881× the NVIDIA A100 80GB SXM's peak (the seed's 0.441×)" \
        in sentence  # fmt: skip
    assert "at 2.33× the NVIDIA H100 SXM's peak (the seed's 1.17×)" in sentence
    assert "Grace CPU Superchip keeps its FP64 peak" in sentence


def test_seed_003s_models_under_both_t4_roofs() -> None:
    """Two models by hand: intensity 10 (memory side of the T4's FP32 ridge 25.3) and 40
    (compute side); both left of the seed's 203 and right of the Xeon's 0.917."""
    keys = [
        ("low", "imagenet", 1, "inference", "fp32"),
        ("high", "imagenet", 1, "inference", "fp32"),
    ]
    counts = {keys[0]: Counts(10e9, 1e9, "hand"), keys[1]: Counts(40e9, 1e9, "hand")}
    figure = seed_003_models(checked(), CATALOG, counts, keys)
    assert figure is not None
    seeds = next(d for d in figure.roofs if d.source == SEED_ROOF)
    assert (seeds.roof.peak_flops_per_s, seeds.roof.bandwidth_bytes_per_s) == (65e12, 320e9)
    assert seeds.roof.ridge_ai == pytest.approx(203.125) and seeds.rows == (
        "003-t4-fp16",
        "003-t4-bw",
    )
    xeon = "Intel Xeon @ 2.20GHz (Colab, 2 vCPUs)"
    assert ridge(figure, xeon) == pytest.approx(70.4 / 76.8)
    on = {(p.label, p.device): p for p in figure.points}
    assert on["low", "NVIDIA T4"].attained == pytest.approx(10 * 320e9)  # on the slope
    assert on["high", "NVIDIA T4"].attained == pytest.approx(8.1e12)  # at the FP32 peak
    assert on["low", xeon].attained == pytest.approx(70.4e9)
    assert {p.kind for p in figure.points} == {AT_ROOF}
    assert [on["low", "NVIDIA T4"].side, on["high", "NVIDIA T4"].side] == ["memory", "compute"]
    sentence = figure.sentence
    assert "the seed's T4 roof is its FP16 tensor-core peak, 65 TFLOP/s (row 003-t4-fp16), " \
        "whose ridge at 203 FLOP/byte puts all 2 models (10–40 FLOP/byte at batch 1) on the " \
        "memory side" in sentence  # fmt: skip
    assert "ridge 25.3 FLOP/byte, where high sit on the compute side (1 of 2)" in sentence
    assert f"on the {xeon} all 2 sit on the compute side, as the seed says" in sentence
    assert "ridge is 0.917 FLOP/byte, not the seed's 1.33 (its FP32 peak 102.4 GFLOP/s" in sentence


def test_the_ten_models_at_batch_one_are_the_committed_runs() -> None:
    keys = batch_one_workloads(load_runs(MEASUREMENTS))
    assert {k[0] for k in keys} == TEN and len(keys) == 10
    assert all(k[2:] == (1, "inference", "fp32") for k in keys)


def test_seed_003s_measured_points_are_the_reports_modelled_points() -> None:
    _, results = measured_results(MEASUREMENTS)
    points = all_points(results, [], [], load_ceilings(MEASUREMENTS), CATALOG)
    figure = seed_003_measured(results, points)
    assert figure is not None
    groups = {"H", "H-cpu", "H-cpu-batch"}
    mine = {w: r for w, r in results.items() if groups & set(r.groups) and r.phase == "inference"}
    assert len(figure.points) == len(mine) >= 40  # H: 10 models × 3 batches; H-cpu: 10
    for point in figure.points:
        result = next(
            r for r in mine.values()
            if point.label == f"{r.model} b{r.batch}" and r.device_label == point.device
        )  # fmt: skip
        assert result.modelled_flops and result.modelled_bytes and result.attained
        assert point.ai == pytest.approx(result.modelled_flops / result.modelled_bytes)
        assert point.attained == pytest.approx(result.attained.value)
    # the H100's measured roof: its FP32 GEMM over the best of its STREAM copy and triad
    ceilings = json.loads((MEASUREMENTS / "ceilings/nvidia-h100-80gb-hbm3.json").read_text())
    stream = max(s["best_bytes_per_s"] for s in ceilings["stream"].values())
    h100 = ceilings["gemm"]["fp32"]["best_flops_per_s"] / stream
    assert ridge(figure, "NVIDIA H100 SXM", "measured") == pytest.approx(h100)
    on_h100 = [p for p in figure.points if p.device == "NVIDIA H100 SXM"]
    compute = sum(p.ai >= h100 for p in on_h100)
    assert f"on the NVIDIA H100 SXM {compute} of {len(on_h100)} points sit on the compute side" \
        in figure.sentence  # fmt: skip
    assert figure.sentence.startswith("Where the seed finds every CPU configuration compute-bound")


def test_a_figure_is_left_out_when_its_rows_are_missing() -> None:
    assert seed_000_appendix([], CATALOG) is None
    other = [replace(r, row=replace(r.row, seed="009")) for r in checked()]
    assert seed_001_figure(other, CATALOG) is None
    assert seed_003_models(checked(), CATALOG, {}, []) is None


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> object:
    from generator.pages.seed_rooflines import seed_rooflines_page
    from generator.site.analyse import analyse
    from generator.site.check import check
    from generator.site.context import build_context
    from generator.site.draw import draw
    from generator.site.load import load_measurements

    cache = tmp_path_factory.mktemp("cache")
    report = draw(check(analyse(load_measurements(build_context(MEASUREMENTS, cache)))))
    return seed_rooflines_page(report)


def test_the_page_draws_each_figure_with_its_sentence_and_table(page: object) -> None:
    from generator.pages.registry import REGISTRY
    from generator.pages.seed_rooflines import PAGE, PATH

    assert page is not None
    assert page.path == PATH == "measurements/seed-rooflines.md"  # type: ignore[attr-defined]
    keys = ["seed-000-appendix-ii", "seed-001-fig-1", "seed-003-fig-1", "seed-003-fig-3",
            "seed-003-fig-7"]  # fmt: skip
    assert list(page.tables) == keys  # type: ignore[attr-defined]
    assert list(page.charts) == [f"{k}-roofline" for k in keys]  # type: ignore[attr-defined]
    markdown = page.markdown  # type: ignore[attr-defined]
    assert (
        markdown.count("<strong>What changes.</strong>") + markdown.count("**What changes.**") == 5
    )
    assert "Tai Wan Kim. *Performance Profiling of Neural Network Training*" in markdown
    assert "these profiles lack the backward pass" in markdown
    table = page.tables["seed-000-appendix-ii"]  # type: ignore[attr-defined]
    a1 = table.filter(table["label"] == "000-a1").to_dicts()[0]
    assert (
        a1["seed_rows"] == "000-a1-ai, 000-a1-attained" and a1["attained_flop_per_s"] == 668.144e9
    )
    assert a1["ridge_flop_per_byte"] == pytest.approx(101.0)
    roofs = page.tables["seed-003-fig-1"]  # type: ignore[attr-defined]
    assert roofs.filter(roofs["device"] == "NVIDIA H100 SXM")["seed_peak_flop_per_s"].to_list() == [
        pytest.approx(1979e12)
    ]
    # the seed's FP16 roof is dotted beside the T4's FP32 roof, and named as the seed's
    spec = json.dumps(page.charts["seed-003-fig-3-roofline"], ensure_ascii=False)  # type: ignore[attr-defined]
    assert "T4 · FP16 tensor (the seed's roof)" in spec and "T4 · FP32 (datasheet)" in spec
    # placed right after the Seed times page in the Results section
    modules = [getattr(e, "render", None) for e in REGISTRY]
    at = modules.index(PAGE.render)
    assert REGISTRY[at - 1].render.__module__ == "generator.pages.seed_prediction"  # type: ignore[union-attr]


def test_the_page_paths_have_no_local_seed_paths(page: object) -> None:
    markdown = page.markdown  # type: ignore[attr-defined]
    assert ".txt" not in markdown  # cited by title, never by the seed's file
