"""The shares of a trace's time partition one whole: the GPU's busy time (kernels + memcpy
+ memset), or a CPU trace's op self time. On every trace in tests/data the parts sum to 1,
and so do the per-op rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.analysis.trace_roofline import COPIES, PARTS, WHOLE_CPU, WHOLE_GPU
from generator.summaries.trace import summarize_trace
from tests.trace_helpers import REAL_TRACES

TRACES = sorted(p for p in REAL_TRACES.rglob("*.json*") if p.name.endswith((".json", ".json.gz")))


def test_every_real_trace_is_found() -> None:
    assert len(TRACES) >= 14


@pytest.mark.parametrize("path", TRACES, ids=lambda p: str(p.relative_to(REAL_TRACES)))
def test_shares_partition_the_whole(path: Path) -> None:
    summary = summarize_trace(path, None)
    shares = summary["shares"]
    assert tuple(shares) == PARTS
    assert all(share >= 0 for share in shares.values())
    assert sum(shares.values()) == pytest.approx(1.0, abs=1e-9)
    copies = summary["memcpy_time_s"] + summary["memset_time_s"]
    assert summary["whole"] == (WHOLE_GPU if summary["on_gpu"] else WHOLE_CPU)
    assert summary["whole_s"] == pytest.approx(summary["time_s"] + copies, rel=1e-12)
    assert shares[COPIES] * summary["whole_s"] == pytest.approx(copies, abs=1e-12)
    # the per-op rows partition the same whole
    assert sum(row["share"] for row in summary["by_op"]) == pytest.approx(1.0, abs=1e-9)
    # the named shares are parts of it, none of another denominator
    assert summary["modelled_share"] == shares["modelled"]
    assert summary["communication_time_share"] == shares["communication"]
    assert sum(summary["uncounted_by_cause"].values()) == pytest.approx(
        summary["uncounted_time_share"] + summary["communication_time_share"]
    )


def test_alexnet_without_shapes_has_its_shares() -> None:
    """HTA's AlexNet trace records no shapes: its ops' time is "no shapes recorded", not
    null, and its memcpy time is a part of the whole beside the kernels."""
    summary = summarize_trace(
        REAL_TRACES / "hta__critical_path_alexnet__a100_noshapes.json.gz", None
    )
    shares = summary["shares"]
    assert shares["modelled"] == 0.0 and shares["no usable shapes"] == 0.0
    assert shares["no shapes recorded"] > 0
    copies = summary["memcpy_time_s"] + summary["memset_time_s"]
    assert copies > summary["time_s"]  # memcpy time is larger than the kernel time here
    assert shares[COPIES] == pytest.approx(copies / (copies + summary["time_s"]))


def test_gloo_allreduce_on_a_cpu_trace_is_communication() -> None:
    """gloo's c10d::allreduce_ on a CPU trace is a collective, not an op with no formula."""
    summary = summarize_trace(REAL_TRACES / "gloo_2rank" / "rank-0.json.gz", None)
    rows = {r["op"]: r for r in summary["by_op"]}
    assert rows["c10d::allreduce_"]["cause"] == "communication"
    assert summary["communication_time_share"] > 0


def test_expert_parallel_dispatch_and_combine_are_communication(tmp_path: Path) -> None:
    """DeepEP's dispatch and combine kernels move tokens between ranks: communication, as
    NCCL's kernels are, not ops with no formula."""
    from tests.trace_helpers import A100_PROPERTIES, kernel, launch, op, write_trace

    events = [
        op("deep_ep::dispatch", 0, 50, [[64, 32]]),
        launch(1, 1),
        kernel("void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*)", 10, 30, 1),
        op("deep_ep::combine", 60, 50, [[64, 32]]),
        launch(61, 2),
        kernel("void deep_ep::internode_ll::combine<8>(void*)", 70, 10, 2),
        op("aten::relu", 120, 20, [[64, 32]]),
        launch(121, 3),
        kernel("elementwise_relu", 130, 10, 3),
    ]
    path = write_trace(tmp_path / "ep.json", events, deviceProperties=A100_PROPERTIES)
    summary = summarize_trace(path, None)
    assert summary["communication_time_share"] == pytest.approx(40 / 50)
    assert summary["modelled_share"] == pytest.approx(10 / 50)


def test_kernels_no_op_launched_are_named_by_family_and_each_cause_by_its_fix(
    tmp_path: Path,
) -> None:
    """A fused SGD's multi-tensor kernel with no launch in the trace is "(no op:
    optimizer)", and the cause says what would record its op. (A fused Adam's is costed
    from its grid: test_hand_counts.test_a_launch_less_fused_adam_is_bounded_by_its_grid.)"""
    from tests.trace_helpers import A100_PROPERTIES, kernel, launch, op, write_trace

    sgd = "void multi_tensor_apply_kernel<TensorListMetadata<3>, SGDFunctor<float>, float>"
    events = [
        op("aten::relu", 0, 20, [[64, 32]], **{"Input type": ["float"]}),
        launch(1, 1),
        kernel("elementwise_relu", 10, 10, 1),
        kernel(sgd, 30, 30, 2),  # correlation 2: no launch recorded
    ]
    path = write_trace(tmp_path / "sgd.json", events, deviceProperties=A100_PROPERTIES)
    summary = summarize_trace(path, None)
    rows = {r["op"]: r for r in summary["by_op"]}
    assert rows["(no op: optimizer)"]["cause"] == "no op"
    assert rows["(no op: optimizer)"]["share"] == pytest.approx(30 / 40)
    assert "(no op)" not in rows
    assert "profiler's window" in summary["uncounted_fix"]["no op"]
    assert "no shapes recorded" not in summary["uncounted_fix"]  # only the causes present


def test_a_compiled_region_names_its_cause_and_the_fix(tmp_path: Path) -> None:
    """A torch.compile region recorded as one op (before PyTorch 2.4: no op per Triton
    kernel) is "compiled region", not "no formula", and says what would cost it."""
    from tests.trace_helpers import A100_PROPERTIES, kernel, launch, op, write_trace

    events = [
        op("CompiledFunction", 0, 100, [[64, 32]]),
        launch(1, 1),
        kernel("triton_poi_fused_add_mul_0", 10, 30, 1),
        op("aten::relu", 120, 20, [[64, 32]]),
        launch(121, 2),
        kernel("elementwise_relu", 130, 10, 2),
    ]
    path = write_trace(tmp_path / "compiled.json", events, deviceProperties=A100_PROPERTIES)
    summary = summarize_trace(path, None)
    rows = {r["op"]: r for r in summary["by_op"]}
    assert rows["CompiledFunction"]["cause"] == "compiled region"
    assert summary["shares"]["compiled region"] == pytest.approx(30 / 40)
    assert "PyTorch >= 2.4" in summary["uncounted_fix"]["compiled region"]


def test_the_stored_work_gives_the_same_parts() -> None:
    """The report reads a trace's stored work (trace-analysis.parquet): its parts, copies
    included, are the trace's own."""
    from generator.analysis.trace_analysis import analysis_of_work, analyze_trace
    from generator.analysis.trace_work import read_work
    from tests.helpers import REPO

    folder = REPO / "measurements" / "imported" / "a100-alexnet-noshapes-trace"
    trace = next(folder.glob("*.json*"))
    stored = read_work(folder, trace)
    assert stored is not None and stored.copies_s > 0
    assert analysis_of_work(stored, trace).parts == analyze_trace(trace).parts
