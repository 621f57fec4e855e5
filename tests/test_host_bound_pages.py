"""Host-bound (launch) named wherever a step's bound is given, on real GPU output: the six
H200 runs of 2026-11-27 (tests/data/h200, block-timed, their torch.profiler traces with the
CPU-side launches) built into a report as they are.

They predate the timed steps' host time, so the verdict rests on the profiled step (host
span against GPU busy time) confirmed by the unprofiled step: the GPU idle at least 30 % of
the timed median. For ResNet-18 b128 fp32 the trace gives 22.47 ms of host against 3.459 ms
of GPU busy time (tests/test_trace_launch.py checks it by hand), and the timed median is
6.59 ms: the GPU is idle 48 % of it."""

from __future__ import annotations

import shutil

import pytest

from generator.analysis.launch import HOST_BOUND, PROFILED
from generator.formatting import percent
from generator.site.analyse import Analysed, analyse
from generator.site.context import build_context
from generator.site.load import load_measurements
from tests.helpers import REPO

H200 = REPO / "tests" / "data" / "h200"


@pytest.fixture(scope="module")
def analysed(tmp_path_factory: pytest.TempPathFactory) -> Analysed:
    measurements = tmp_path_factory.mktemp("h200") / "measurements"
    (measurements / "runs").mkdir(parents=True)
    for run in (H200 / "runs").iterdir():
        if (run / "steps.csv").exists():  # the failed ncu run has only its run.json
            shutil.copytree(run, measurements / "runs" / run.name)
    shutil.copytree(H200 / "ceilings", measurements / "ceilings")
    shutil.copy(REPO / "measurements" / "experiments.toml", measurements / "experiments.toml")
    return analyse(load_measurements(build_context(measurements, tmp_path_factory.mktemp("c"))))


def test_each_h200_step_is_judged_from_its_profiled_step_and_its_timed_step(
    analysed: Analysed,
) -> None:
    """Five are host-bound; BERT b8 fp32 is not: its profiled host (64.56 ms) took 3.3x the
    GPU's busy time (19.29 ms), but the GPU is busy 82 % of the unprofiled step (23.4 ms)."""
    assert len(analysed.results) == 6
    bound = {}
    for result in analysed.results.values():
        launch = result.launch
        assert launch is not None and launch.source == PROFILED
        assert launch.timed_step_s == result.step.value  # checked against the timed step
        bound[(result.model, result.precision)] = launch.host_bound
    assert bound == {
        ("resnet18", "fp32"): True, ("resnet18", "tf32"): True, ("resnet18", "bf16-amp"): True,
        ("resnet18", "fp16-amp"): True, ("bert_base", "bf16-amp"): True,
        ("bert_base", "fp32"): False,
    }  # fmt: skip
    fp32 = next(
        r for r in analysed.results.values() if r.model == "resnet18" and r.precision == "fp32"
    )
    assert fp32.launch is not None
    assert fp32.launch.host_s == pytest.approx(22.468035e-3, rel=1e-6)
    assert fp32.launch.gpu_s == pytest.approx(3.458543e-3, rel=1e-6)
    assert fp32.launch.gpu_idle_share == pytest.approx(1 - 3.458543e-3 / fp32.step.value)


def test_the_headline_verdict_leads_with_host_bound(analysed: Analysed) -> None:
    assert len(analysed.step_verdicts) == 6
    for run_id, verdict in analysed.step_verdicts.items():
        words = verdict.words()
        assert verdict.launch is not None
        launch_row = ("host launch", verdict.launch.words())
        if "bert_base" in run_id and "fp32" in run_id:
            assert launch_row in verdict.facts()  # not host-bound: its times in their own row
            assert not words.startswith(HOST_BOUND) and verdict.bound_class != HOST_BOUND
            assert verdict.launch.words().startswith("not host-bound")
            assert "the GPU's work sets the unprofiled step" in verdict.launch.words()
            continue
        assert launch_row not in verdict.facts()  # the bound row says it, once
        assert words.startswith(f"{HOST_BOUND}: the host took "), (run_id, words)
        assert "and the GPU was busy " in words  # the profiled step's busy time
        assert "; on the roofline, " in words
        assert verdict.bound_class == HOST_BOUND


def test_the_precision_hypotheses_say_what_the_host_decided(analysed: Analysed) -> None:
    """E on the H200, calibrated: bf16 autocast over fp32 is 0.761x [0.504, 1.15], every
    step host-bound; J-gpu's bf16 step is host-bound, its fp32 step is not."""
    precision = analysed.verdicts["E"]
    assert precision.outcome == "not supported"
    assert precision.reason.endswith(
        "(expected at least 2). Every GPU step compared is host-bound (launch) (host/GPU 6.5 "
        "to 18.3, profiled step): the host, not the GPU, decided this comparison."
    )
    bert = analysed.verdicts["J-gpu"].reason
    assert bert.endswith(
        "1 of the 2 GPU steps compared are host-bound (launch) (host/GPU 16.3, profiled "
        "step): the host set their time, not the GPU."
    )


def test_a_step_the_gpu_keeps_busy_is_not_host_bound_however_slow_the_profiled_host() -> None:
    """The H100's ResNet-50 ImageNet b64 training step: its profiled host took 65.98 ms and
    the GPU was busy 70.49 ms of a 72.19 ms timed step (idle 2 %): GPU-bound."""
    from generator.analysis.launch import LaunchTime

    gpu_bound = LaunchTime(0.06598, 0.070488, PROFILED, timed_step_s=0.072188)
    assert not gpu_bound.host_bound and gpu_bound.words().startswith("not host-bound")
    profiled_only = LaunchTime(0.06598, 0.06, PROFILED)
    assert profiled_only.host_bound  # without a timed step the profiled rule stands alone


def test_a_trace_page_judges_host_bound_as_its_run_page_does(analysed: Analysed) -> None:
    """One rule, one threshold, the same times: the trace page's `host-bound` finding is
    there exactly where the run page calls the step host-bound. BERT b8 fp32's profiled host
    took 3.3x the GPU's busy time, but the GPU is busy 82 % of the unprofiled step: neither
    page calls it host-bound (the trace page did, on the profiled ratio alone)."""
    by_run = {run_id: r for r in analysed.results.values() for run_id in r.run_ids}
    views = [view for view in analysed.traces if view.kind == "run"]
    assert len(views) == 6
    for view in views:
        launch = by_run[view.slug.removeprefix("run-")].launch
        assert launch is not None
        found = [f for f in view.findings if f.id == "host-bound"]
        assert bool(found) == launch.host_bound, view.slug
        if found:
            idle = percent(100 * (launch.gpu_idle_share or 0))
            assert f"the GPU is idle {idle} of the run's timed median step" in found[0].evidence
    bert = next(v for v in views if "bert_base" in v.slug and "-fp32-" in v.slug)
    assert not [f for f in bert.findings if f.id == "host-bound"]
