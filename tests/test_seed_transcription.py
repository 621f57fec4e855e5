"""The seeds' measured tables transcribed in full, their errors caught by the report's own
checks, and each contradiction with a seed printed on the page that shows our number."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from generator.analysis.replication import IMPOSSIBLE, Replication, replicate
from generator.catalog import load_catalog
from generator.errors import UserError
from generator.pages.contradictions import with_contradictions
from generator.pages.page import Page
from generator.records.complexity_tables import read_tables
from generator.records.contradictions import read_contradictions
from generator.records.literature import read_literature
from generator.records.literature_workload import is_time
from generator.site.analyse import _rows_by
from tests.helpers import REPO

CATALOG = {d.id: d for d in load_catalog()}
MEASUREMENTS = REPO / "measurements"

# Values per seed table, counted from the seed texts. A value printed in two tables is
# transcribed once, under the first; a column computed from others (a speedup, an efficiency)
# is transcribed as printed, to check the seed's own arithmetic.
SEED_TABLES: dict[tuple[str, str], int] = {
    ("000", "§II GPU table"): 4,  # T4, L4 × peak, bandwidth
    ("000", "§III.ii"): 2,  # forward GFLOP per image, RN18 and RN34 (text)
    ("000", "§III.ii table"): 6,  # 2 per-image + 4 per-step GFLOP
    ("000", "§IV.ii results table 1"): 15,  # 5 runs (B-2 = C-1) × GFLOP, DRAM, time
    ("000", "§IV.ii results table 2"): 20,  # 5 runs × SM %, DRAM %, GFLOP/s, AI
    ("000", "§IV.ii profiled vs theoretical"): 5,  # profiled column (theoretical = §III.ii)
    ("001", "§III.A"): 3,  # MobileNet, ResNet-50, ViT GFLOP per step
    ("001", "§III.B table"): 6,  # 3 GPUs × peak, bandwidth
    ("001", "§III.C eq. 6"): 12,  # 3 models × 3 GPUs at peak, + RN50's 3 against the floor
    ("001", "§V table"): 36,  # 9 rows × DRAM, time, GLOP/s, CI
    ("002", "§1.4 table"): 6,  # 3 environments × peak, bandwidth
    ("002", "§2.1 table"): 9,  # 3 models × parameters, forward, training FLOPs
    ("002", "§2.3"): 2,  # T4 and RTX 4080 ridge points (text)
    ("002", "§2.3 table"): 3,  # ResNet-50 AI at batch 32, 64, 128
    ("002", "§4.2 table"): 9,  # ResNet-18's AI (ResNet-50's in §2.3) + 4 × achieved, efficiency
    ("002", "§4.3 table"): 8,  # 4 × achieved, efficiency (AIs as in §4.2)
    ("002", "§5.1 table"): 15,  # 5 rows × RTX 4080 img/s, T4 img/s, speedup
    ("002", "§5.1"): 5,  # CPU img/s, two GPU/CPU speedups, two mean efficiencies (text)
    ("002", "§5.2 table"): 1,  # MobileNetV2's AI (the ResNets' are above)
    ("002", "§5.3 table"): 2,  # the two gains (its img/s and AIs are §5.1's and §2.3's)
    ("002", "§5.4"): 3,  # fastest, slowest iteration and their spread, RN50 b128 on the 4080
    ("002", "Executive summary"): 2,  # its '1.4-2.7×' speedup range (§6.1 prints the table's)
    ("003", "Table 1"): 10,  # 5 devices × peak, bandwidth
    ("003", "Table 2"): 4,  # CPU and T4 × peak, bandwidth
    ("003", "Table 3"): 12,  # 2 models × 2 latencies, 2 FLOP counts, 2 ratios
    ("003", "Fig. 5"): 2,  # the two correlations the text states
    ("004", "Table 1"): 1,  # bandwidth
    ("004", "Table 2"): 10,  # 10 precisions
    ("004", "Table 4"): 24,  # 6 rows × CPU/GPU train/inference
    ("004", "§2.2.1 table"): 3,  # GPU utilisation, DRAM read, write (training)
    ("004", "§2.2.3 table"): 3,  # the same for 1000 inferences
    ("004", "§2.4.2"): 6,  # clock, time, rate, FLOPs, bytes, AI of the worked example
    ("004", "§2.4.3"): 1,  # its AI against the ridge ('memory-bound')
    ("004", "Table 11"): 3,  # training time per batch (inference as Table 12)
    ("004", "Table 12"): 6,  # 3 batches × CPU, GPU inference
    ("004", "§3.2.1"): 3,  # GPU/CPU speedups
    ("004", "§3.3.1"): 1,
    ("004", "§3.3.2"): 2,
    ("004", "§3.4.1"): 1,
    ("004", "§3.4.2"): 2,
    ("004", "Table 13"): 8,  # 4 batches × CPU, GPU inference
    ("004", "§4.1.1"): 4,  # GPU/CPU speedups
}


@pytest.fixture(scope="module")
def found() -> dict[str, Replication]:
    rows = read_literature(MEASUREMENTS, set(CATALOG))
    tables = read_tables(MEASUREMENTS / "complexity")
    analytic = _rows_by(tables.frames.get("literature.csv"), ("model", "dataset", "batch"))
    return {r.row.id: r for r in replicate(rows, CATALOG, analytic, {})}


def test_every_seed_table_is_transcribed_in_full() -> None:
    rows = read_literature(MEASUREMENTS, set(CATALOG))
    assert Counter((r.seed, r.where) for r in rows) == SEED_TABLES
    assert all(r.read_from in ("table", "text") for r in rows)  # no chart values in the texts


def test_forward_macs_at_batch_64_called_a_training_step(found: dict[str, Replication]) -> None:
    """001's 270 'GFLOPs per training step' of ResNet-50 are forward MACs at batch 64: about
    6× below the exact step, and its at-peak times inherit it (33.3 ms against 193.6 ms)."""
    flops = found["001-rn50-step-flops"]
    assert flops.status == "consistent"
    assert flops.ratio == pytest.approx(0.172, abs=0.002)
    assert 1 / flops.ratio == pytest.approx(5.8, abs=0.1)
    floor = found["001-rn50-t4-floor"]
    assert floor.derived == pytest.approx(0.1936, abs=5e-4)  # s: the report's own floor
    assert floor.status == "consistent"  # ×1000 (seconds for ms) × forward MACs ÷ step
    assert floor.ratio / 1000 == pytest.approx(33.33e-3 / 0.1936, rel=1e-3)
    # the unit slip alone no longer explains the time once it is set against the floor
    alone = found["001-rn50-t4-time"]
    assert alone.derived == pytest.approx(270e9 / 8.1e12) and alone.status == "consistent"


def test_l4_resnet50_tensor_core_work_is_uncounted(found: dict[str, Replication]) -> None:
    l4, t4, v100 = (found[f"001-rn50-{g}-glops"] for g in ("l4", "t4", "v100"))
    step = 1568.3e9
    assert l4.ratio * step == pytest.approx(195e9, rel=0.01)  # counted FLOPs per step
    assert t4.ratio * step == pytest.approx(1226e9, rel=0.01)
    assert v100.ratio * step == pytest.approx(1226e9, rel=0.01)
    assert l4.status == "consistent"
    assert "uncounted" in l4.explanation and "1.031 TFLOP" in l4.explanation


def test_a_tensor_core_cause_needs_a_real_gap(tmp_path: Path) -> None:
    """The cause fails when the L4 counts as much as the T4: then nothing is uncounted."""
    rows = _rows(
        tmp_path,
        "t,001,V,GFLOP/s,c,1615,GFLOP/s,rate_from:resnet50:imagenet:64:tt,agrees,c,t4,,,,",
        "tt,001,V,time,c,0.759,s,floor:resnet50:imagenet:64:step_flops:t4:fp32,below_peak,c,t4,,,,",
        "l,001,V,GFLOP/s,c,1500,GFLOP/s,rate_from:resnet50:imagenet:64:lt,tensor_core_uncounted:t,c,l4,,,,",
        "lt,001,V,time,c,0.759,s,floor:resnet50:imagenet:64:step_flops:l4:fp32,below_peak,c,l4,,,,",
    )
    analytic = {("resnet50", "imagenet", 64): {"step_flops": 1568.3e9}}
    got = {r.row.id: r for r in replicate(rows, CATALOG, analytic, {})}
    assert got["l"].status == "not consistent"


def test_a_clock_summed_over_eight_kernels(found: dict[str, Replication]) -> None:
    """004's 10.08 GHz 'clock' is eight kernels' 1.26 GHz summed: impossible as a clock, its
    time 8× short, its AI 13 right of the A100's FP32 ridge (10.1)."""
    clock, time, rate = (found[f"004-ex-{k}"] for k in ("clock", "time", "rate"))
    for row in (clock, time, rate):
        assert row.status == IMPOSSIBLE
        assert "implausible clock" in row.explanation
    assert "×0.894" in clock.explanation  # ÷ 8: 89 % of the 1.41 GHz boost
    assert time.derived == pytest.approx(51.48, rel=1e-3)  # µs at the boost clock
    ridge = found["004-ex-ai-ridge"]
    assert ridge.derived == pytest.approx(19.5e12 / 1935e9, rel=1e-3)
    assert ridge.ratio > 1.25  # the 'memory-bound' kernels sit right of the ridge


def test_a_missing_profile_part_is_named_and_sized(found: dict[str, Replication]) -> None:
    a1 = found["000-a1-vs-analytic"]
    assert "Missing: the backward pass (9.204 GFLOP, 65.7 % of the step)" in a1.explanation
    conv = found["003-alexnet-bwd-flops"]
    assert conv.status == "consistent"
    assert "the convolutions' backward (158.9 GFLOP" in conv.explanation
    # 003's AlexNet backward count is exactly the linear layers' backward
    assert conv.ratio == pytest.approx(0.0863, abs=2e-4)


def test_every_open_or_unexplained_row_states_its_next_check(
    found: dict[str, Replication],
) -> None:
    waiting = [r for r in found.values() if r.status in ("unexplained", "open")]
    assert waiting
    for row in waiting:
        assert "next check" in row.explanation.lower(), row.row.id


def test_seed_003_draws_fp32_work_under_the_t4_fp16_peak(found: dict[str, Replication]) -> None:
    """003's T4 roof is the FP16 tensor-core 65 TFLOP/s, for FP32 inference: 8× the FP32
    peak, a ridge of 203 FLOP/byte instead of 25.3, and its GPU points look memory-bound."""
    roof = found["003-t4-fp16"]
    assert [u.name for u in roof.row.causes] == ["precision_peak"]
    assert roof.derived == pytest.approx(8100.0)  # GFLOP/s: the FP32 peak it should have used
    assert roof.status == "consistent"
    t4 = CATALOG["t4"]
    assert roof.ratio == pytest.approx(t4.peak("fp16_tensor") / t4.peak("fp32"), rel=1e-6)
    assert "Its ridge is 203.1 FLOP/byte with the FP16 tensor peak, 25.31" in roof.explanation
    rows = {r.id for r in read_literature(MEASUREMENTS, set(CATALOG))}
    (claim,) = [c for c in read_contradictions(MEASUREMENTS, rows) if c.id == "gpu-memory-bound"]
    assert claim.cause == "seed_error" and "003-t4-fp16" in claim.rows
    assert claim.sentence.startswith("The main cause is the roof")
    fp16, fp32 = (t4.peak(k) / t4.bandwidth_bytes_per_s for k in ("fp16_tensor", "fp32"))
    assert f"the ridge at {fp16:.3g} FLOP/byte instead of {fp32:.3g}" in claim.sentence


def test_a_precision_peak_cause_needs_the_two_peaks_ratio(tmp_path: Path) -> None:
    """The cause holds only when published ÷ ours is the catalog's ratio of the two peaks."""
    rows = _rows(
        tmp_path,
        "a,003,T,p,T4,65,TFLOP/s,catalog:t4:fp32,precision_peak:fp16_tensor,c,,,,,",
        "b,003,T,p,T4,130,TFLOP/s,catalog:t4:fp32,precision_peak:fp16_tensor,c,,,,,",
        "r,003,T,ridge,T4,203,FLOP/byte,ridge:t4:fp32,precision_peak:fp16_tensor,c,,,,,",
    )
    got = {r.row.id: r for r in replicate(rows, CATALOG, {}, {})}
    assert got["a"].status == "consistent" and got["r"].status == "consistent"
    assert got["b"].status == "not consistent"  # 16×: the T4's INT8 rate, not its FP16 one
    with pytest.raises(UserError, match="not one of") as caught:
        _rows(tmp_path, "a,003,T,p,T4,65,TFLOP/s,catalog:t4:fp32,precision_peak:fp12,c,,,,,")
    assert caught.value.key == "cause"
    with pytest.raises(UserError, match="derive key of kind catalog or ridge"):
        _rows(tmp_path, "a,003,T,p,T4,65,GFLOP,analytic:resnet18:cifar10:64:step_flops,"
                        "precision_peak:fp16_tensor,c,,,,,")  # fmt: skip


def test_seed_002_batch_gains_are_its_own_throughputs(found: dict[str, Replication]) -> None:
    """§5.3's +5.7 % and +2.1 % compare §5.1's 111, 117 and 120 img/s: 5.4 % and 2.6 % as
    printed, and within what the throughputs' three printed digits allow."""
    low, high = found["002-rn50-t4-gain-64"], found["002-rn50-t4-gain-128"]
    assert low.derived == pytest.approx(100 * (117 / 111 - 1))
    assert high.derived == pytest.approx(100 * (120 / 117 - 1))
    assert low.status == high.status == "consistent"
    # a gain carries its quotient's rounding q / (q - 1) times over: ± 20 % and ± 38 %
    assert "within ± 20 %" in low.explanation and "within ± 38.1 %" in high.explanation
    spread = found["002-rn50-128-4080-std"]
    assert spread.status == "recorded" and spread.row.published_base == pytest.approx(1.731)
    assert not is_time(spread.row)  # a spread of times: the Seed times page predicts no floor
    assert is_time(found["002-rn50-128-4080-max"].row)


def test_a_gain_outside_its_printed_digits_is_caught(tmp_path: Path) -> None:
    rows = _rows(
        tmp_path,
        "a,002,T,img/s,c,111,img/s,recorded,recorded,c,,,,,n",
        "b,002,T,img/s,c,117,img/s,recorded,recorded,c,,,,,n",
        "g,002,T,gain,c,5.7,%,gain:b:a,agrees,c,,,,,",
        "h,002,T,gain,c,8.0,%,gain:b:a,agrees,c,,,,,",
    )
    got = {r.row.id: r for r in replicate(rows, CATALOG, {}, {})}
    assert got["g"].status == "consistent" and got["h"].status == "not consistent"


def test_seed_002_summary_contradicts_its_own_speedup_table(
    found: dict[str, Replication],
) -> None:
    """The summary's '1.4-2.7× faster' against the §5.1 table's 1.7× to 3.2× (and §6.1's)."""
    low, high = found["002-summary-speedup-low"], found["002-summary-speedup-high"]
    assert low.derived == pytest.approx(1107 / 650) and high.derived == pytest.approx(359 / 111)
    assert low.status == high.status == "consistent"  # the two disagree, as the cause says
    assert "The report's own rows give ×1.216 of the printed value" in low.explanation
    rows = {r.id for r in read_literature(MEASUREMENTS, set(CATALOG))}
    (claim,) = [
        c for c in read_contradictions(MEASUREMENTS, rows) if c.id == "speedup-range-summary"
    ]
    assert set(claim.rows) == {low.row.id, high.row.id}
    assert f"{low.derived:.4g}×" in claim.ours and f"{high.derived:.4g}×" in claim.ours


def test_a_summary_that_matches_its_table_is_no_contradiction(tmp_path: Path) -> None:
    rows = _rows(
        tmp_path,
        "a,002,T,img/s,c,1107,img/s,recorded,recorded,c,,,,,n",
        "b,002,T,img/s,c,650,img/s,recorded,recorded,c,,,,,n",
        "s,002,S,speedup,c,1.7,×,quotient:a:b,contradicts_own_rows,c,,,,,",
    )
    (_, _, summary) = replicate(rows, CATALOG, {}, {})
    assert summary.status == "not consistent"
    with pytest.raises(UserError, match="derive key of kind quotient or gain or mean"):
        _rows(tmp_path, "s,002,S,p,c,8.1,TFLOP/s,catalog:t4:fp32,contradicts_own_rows,c,,,,,")


@pytest.mark.parametrize(
    ("cells", "match", "key"),
    [
        ("unexplained,c,,,,,", "needs a note", "note"),
        ("incomplete_profile,c,,,,,", "needs the missing part", "cause"),
        ("incomplete_profile:forward,c,,,,,", "not one of backward", "cause"),
        ("agrees+below_peak,c,,,,,", "combine", "cause"),
        ("agrees,c,,,,chart?,", "read_from", "read_from"),
    ],
)
def test_bad_causes_name_the_key(tmp_path: Path, cells: str, match: str, key: str) -> None:
    with pytest.raises(UserError, match=match) as caught:
        _rows(tmp_path, f"a,000,x,q,c,8.1,TFLOP/s,catalog:t4:fp32,{cells}")
    assert caught.value.key == key


def test_each_contradiction_renders_on_its_page() -> None:
    rows = {r.id for r in read_literature(MEASUREMENTS, set(CATALOG))}
    items = read_contradictions(MEASUREMENTS, rows)
    assert len(items) >= 6
    assert {i.seed for i in items} == {"000", "001", "002", "003", "004"}
    pages = [Page(path, "t", "# t\n\nbody\n") for path in sorted({i.page for i in items})]
    out = {p.path: p.markdown for p in with_contradictions(pages, items, {})}
    for item in items:
        assert f'id="contradiction-{item.id}"' in out[item.page]
        assert item.sentence in out[item.page]
        assert f"({item.cause_words})" in out[item.page]
    other = with_contradictions([Page("measurements/other.md", "t", "x")], items, {})
    assert other[0].markdown == "x"


def test_contradiction_pages_exist() -> None:
    """Each names a page the build makes: an experiment group, an imported export or a page
    module's fixed path."""
    groups = (MEASUREMENTS / "experiments.toml").read_text(encoding="utf-8")
    rows = {r.id for r in read_literature(MEASUREMENTS, set(CATALOG))}
    for item in read_contradictions(MEASUREMENTS, rows):
        name = item.page.removeprefix("measurements/").removesuffix(".md")
        if name.startswith("experiments/"):
            assert f'id = "{name.split("/")[1]}"' in groups, item.id
        elif (MEASUREMENTS / "imported" / name).is_dir():
            continue
        else:
            assert name in ("replication", "speedups"), item.id


def test_a_contradiction_naming_an_unknown_row_is_refused(tmp_path: Path) -> None:
    (tmp_path / "literature").mkdir()
    (tmp_path / "literature" / "contradictions.toml").write_text(
        'schema_version = 1\n[[contradiction]]\nid = "x"\nseed = "000"\nwhere = "w"\n'
        'claim = "c"\nours = "o"\npage = "measurements/replication.md"\ncause = "seed_error"\n'
        'sentence = "s"\nrows = ["nope"]\n',
        encoding="utf-8",
    )
    with pytest.raises(UserError, match="nope"):
        read_contradictions(tmp_path, {"a"})


@pytest.mark.site
def test_contradictions_render_in_the_built_site(repo_site: Path) -> None:
    rows = {r.id for r in read_literature(MEASUREMENTS, set(CATALOG))}
    for item in read_contradictions(MEASUREMENTS, rows):
        html = (repo_site / item.page.removesuffix(".md") / "index.html").read_text("utf-8")
        assert f'id="contradiction-{item.id}"' in html, item.id


HEADER = (
    "id,seed,where,quantity,configuration,published,unit,derive,cause,citation,"
    "device,workload,precision,read_from,note\n"
)


def _rows(tmp_path: Path, *lines: str) -> list:  # type: ignore[type-arg]
    folder = tmp_path / "literature"
    folder.mkdir(exist_ok=True)
    (folder / "seeds.csv").write_text(HEADER + "\n".join(lines) + "\n", encoding="utf-8")
    return read_literature(tmp_path, set(CATALOG))


def test_the_models_above_resnet50_are_the_ones_the_contradiction_names() -> None:
    """Seed 003 says ResNet-50 has the most FLOPs of its ten models: the reconciliation
    names exactly the models whose committed forward FLOPs per sample (models.csv, batch 1,
    each on the input experiment H gives it) exceed ResNet-50's, each with its count."""
    import tomllib

    groups = tomllib.loads((MEASUREMENTS / "experiments.toml").read_text(encoding="utf-8"))
    (h,) = [g for g in groups["groups"] if g["id"] == "H"]
    names = {"alexnet": "AlexNet", "vgg16": "VGG16", "resnet18": "ResNet-18",
             "mobilenet_v2": "MobileNetV2", "densenet121": "DenseNet-121",
             "convnext_tiny": "ConvNeXt-T", "vit_b_32": "ViT-B/32",
             "fcn_resnet50": "FCN-ResNet50", "wav2vec2_base": "wav2vec2-base"}  # fmt: skip
    assert set(h["models"]) == {*names, "resnet50"}
    models = read_tables(MEASUREMENTS / "complexity").frames["models.csv"]
    ones = models.filter(
        (models["batch"] == 1)
        & models["model"].is_in(h["models"])
        & models["dataset"].is_in(h["datasets"])
    )
    flops = dict(zip(ones["model"], ones["forward_flops"], strict=True))
    assert len(ones) == len(flops) == len(h["models"])  # one row each
    rows = {r.id for r in read_literature(MEASUREMENTS, set(CATALOG))}
    (item,) = [i for i in read_contradictions(MEASUREMENTS, rows) if i.id == "resnet50-most-flops"]
    resnet50 = flops["resnet50"]
    assert f"ResNet-50 ({resnet50 / 1e9:.3g} GFLOP per 224×224 image)" in item.sentence
    above = {model for model in names if flops[model] > resnet50}
    assert above  # the seed's claim is contradicted at all
    for model, name in names.items():
        assert (name in item.sentence) == (model in above), name
        assert (name in item.ours) == (model in above), name
        if model in above:
            assert f"{name} ({flops[model] / 1e9:.3g} GFLOP" in item.sentence
