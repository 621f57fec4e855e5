"""The Seed times page and the experiment pages' seed section, on the committed measurements."""

from __future__ import annotations

import pytest

from generator.pages.page import Report
from generator.site.analyse import analyse
from generator.site.check import check
from generator.site.context import build_context
from generator.site.draw import draw
from generator.site.load import load_measurements
from tests.helpers import REPO


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    cache = tmp_path_factory.mktemp("cache")
    return draw(check(analyse(load_measurements(build_context(REPO / "measurements", cache)))))


def test_the_page_sets_each_time_beside_its_prediction(report: Report) -> None:
    from generator.pages.seed_prediction import seed_prediction_page

    page = seed_prediction_page(report)
    assert page.path == "measurements/seed-prediction.md"
    table = page.tables["seed-prediction"]
    times = list(report.seed_predictions)
    assert table.height == len(times) > 0
    a1 = table.filter(table["id"] == "000-a1-time").to_dicts()[0]
    assert a1["device"] == "NVIDIA L4" and a1["bound"] == "memory"
    assert a1["published_over_predicted"] == pytest.approx(7.376e-3 / a1["predicted_s"])
    assert 'id="pred-000-a1-time"' in page.markdown
    # a row that does not say its batch states what it lacks, not a number
    assert "Not predicted.</strong> Missing: the input" in page.markdown
    assert "| Seed | Predicted | Lacking |" in page.markdown
    assert page.charts["seed-ratios"]["layer"][0]["mark"]["type"] == "rule"  # the floor at 1


def test_the_page_prints_every_claim_per_seed(report: Report) -> None:
    """Seed 000's two device claims, now in claims.toml: T4 320 GB/s, L4 300 GB/s, the same
    within 10 %; ResNet-18's step at batch 128 (34.22 FLOP/byte) is compute-bound on the T4
    and memory-bound on the L4: 3.74× the peak buys 1.27×, under half: overkill."""
    from generator.pages.seed_prediction import seed_prediction_page

    markdown = seed_prediction_page(report).markdown
    claims = {j.claim.id: j for j in report.seed_claims}
    assert len(claims) == len(report.seed_claims) > 10
    for seed in ("000", "001", "002", "003"):
        assert f"### Seed {seed}'s claims {{: #claims-{seed} }}" in markdown
    for judged in report.seed_claims:
        assert f'<span id="claim-{judged.claim.id}"></span>' in markdown
    assert "the NVIDIA T4 and the NVIDIA L4 have the same bandwidth" in markdown
    assert "the NVIDIA L4 is overkill for ResNet-18&#39;s training step at batch 128" in markdown
    assert claims["000-same-bandwidth"].outcome == "holds"
    overkill = claims["000-overkill"]
    assert overkill.outcome == "holds"
    assert "3.74× fp32 peak buys 1.27× on the floor" in overkill.checks[0].sentence
    assert "compute-bound on the NVIDIA T4 and memory-bound on the NVIDIA L4" in (
        overkill.checks[0].sentence
    )


def test_seed_002s_throughputs_are_predicted_as_batch_over_the_floor(report: Report) -> None:
    """Seed 002's §5.1 img/s rows: predicted img/s = batch ÷ the step's floor, and published ÷
    predicted of throughputs (at most 1 here: each ran below its floor's rate)."""
    from generator.pages.seed_prediction import seed_prediction_page

    page = seed_prediction_page(report)
    table = page.tables["seed-prediction"]
    rates = table.filter(table["id"].str.ends_with("-imgs")).to_dicts()
    assert len(rates) == 11  # ten GPU rows and the i9's
    t4 = next(r for r in rates if r["id"] == "002-rn50-64-t4-imgs")
    assert t4["device"] == "NVIDIA T4" and t4["published_img_s"] == 117
    assert t4["published_s"] is None
    assert t4["predicted_img_s"] == pytest.approx(64 / t4["predicted_s"])
    assert t4["published_over_predicted"] == pytest.approx(117 / t4["predicted_img_s"])
    predicted = [r for r in rates if r["published_over_predicted"] is not None]
    assert len(predicted) == 11
    assert all(r["published_over_predicted"] <= 1 for r in predicted)
    assert "Published ÷ predicted throughput = " in page.markdown
    assert 'id="pred-002-rn50-64-t4-imgs"' in page.markdown


def test_an_experiment_page_shows_the_seed_beside_ours(report: Report) -> None:
    from generator.pages.experiment import _render

    pages = {page.path.rsplit("/", 1)[-1]: page for page in _render(report)}
    section = "## The seeds' numbers beside ours"
    with_seed = [name for name, page in pages.items() if section in page.markdown]
    assert with_seed  # the groups that ran ResNet-18's CIFAR-10 step at batch 64 on a GPU
    # seed 000's A-1 export, on the pages of the groups that ran its configuration on a GPU:
    # its profile holds no backward pass, so it meets our step less the backward pass
    page = next(pages[n] for n in with_seed if "<code>000-a1-time</code>" in pages[n].markdown)
    assert "on the NVIDIA L4 times only its forward, loss and optimizer step" in page.markdown
    assert "NVIDIA H100 SXM" in page.markdown or "NVIDIA H200 SXM" in page.markdown
    # group A ran it on the CPU alone: the seed's L4 time is named, with why it is not beside
    assert "it ran on the NVIDIA L4, and this group ran it on no GPU here" in pages["A.md"].markdown
    # a group with no seed time of its configurations has no such section
    assert any("numbers beside ours" not in page.markdown for page in pages.values())


def test_the_complexity_page_splits_measured_latency_by_layer_family(report: Report) -> None:
    from generator.pages.complexity import complexity_page, measured_families

    families = measured_families(report.traces, report.runs)
    assert set(families) == {"alexnet", "resnet18"}
    labels = [run.label for run in families["alexnet"]]
    assert "NVIDIA H100 SXM, inference, batch 1" in labels
    assert len(labels) == len(set(labels))  # one per device, phase and batch
    page = complexity_page(report.complexity, report.runs, families)
    assert page is not None and "### alexnet: measured" in page.markdown
    assert "| conv |" in page.markdown


def test_seed_000s_partial_profiles_are_said_to_be_part_of_a_step(report: Report) -> None:
    """Seed 000's ncu profiles of A-2, B-1, B-2/C-1 and C-2 hold no backward pass (their
    GFLOP rows' `incomplete_profile:backward`): each time's sentence says its time is of
    part of the step, never "the step ran at", and beside ours it meets our forward, loss
    and optimizer step, not our whole step. Which rows is read from their causes."""
    from generator.pages.experiment import _render

    partial = {p.row.id: p for p in report.seed_predictions if p.gap and p.gap.phases}
    assert {"000-a2-time", "000-b1-time", "000-b2-time", "000-c2-time"} <= set(partial)
    for p in partial.values():
        assert "so its time is of part of the step" in p.sentence, p.row.id
        assert "the step ran at" not in p.sentence
    pages = [page.markdown for page in _render(report)]
    beside = [m for m in pages if "<code>000-b2-time</code>" in m]
    assert beside  # B and E ran ResNet-18 b128 fp32 on a GPU
    for markdown in beside:
        row = markdown.split("<code>000-b2-time</code>")[1].split("</tr>")[0]
        assert "times only its forward, loss and optimizer step" in row
        assert "(forward, loss and optimizer step; step " in row
