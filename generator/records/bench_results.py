"""The sections of benchmarks/results.json that the Tool performance page reads, as types:
what the bench scripts write (benchmarks/site_scaling.py, run.py, peer.py, coverage.py) and
the pages read back. Keys a section may lack (an older bench run, a failed size) are
NotRequired; keys the pages never read are left out."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class ScalingTargets(TypedDict):
    """The targets a report-at-scale size was judged by (issue 68 restated the rebuild's)."""

    full_s_at_1000_runs: float
    one_more_over_full: float
    why: NotRequired[str]
    second_version_bytes_at_1000_runs: NotRequired[float]


class PeakBytes(TypedDict):
    build_bytes: int
    largest_child_bytes: NotRequired[int]


class PublishSizes(TypedDict):
    """What publishing one version, then a second with one more run, put on gh-pages."""

    first_added_bytes: int
    second_added_bytes: int
    second_folder_bytes: int
    second_new_shared_bytes: int
    second_site_bytes: int
    second_folder_html_bytes: NotRequired[int]


class ScalingEntry(TypedDict):
    """One size of `site_scaling`: a synthetic set of runs built in full, then rebuilt after
    one more run. A size whose build failed has `failed` and lacks the rebuild's keys."""

    runs: int
    imports: int
    full_s: float
    targets: ScalingTargets
    full_peak_bytes: NotRequired[PeakBytes]
    load_average_before: NotRequired[list[float]]
    stages_full_s: NotRequired[dict[str, float]]
    stages_one_more_s: NotRequired[dict[str, float]]
    html_pages: NotRequired[int]
    site_bytes: NotRequired[int]
    one_more_run_s: NotRequired[float]
    one_more_runs_s: NotRequired[list[float]]
    core_one_more_runs_s: NotRequired[list[float]]
    measured_at: NotRequired[str]
    method: NotRequired[str]
    note: NotRequired[str]
    docs_core: NotRequired[str]
    publish: NotRequired[PublishSizes]
    failed: NotRequired[str]


class TraceTargets(TypedDict, total=False):
    hta_load_over_summarize_at_100MB: float
    parse_rss_to_file_at_100MB: float


class TraceSize(TypedDict):
    """One trace size of `traces`: the best of the repeats (`*_s`), all of them (`*_all_s`)
    and peak memory over the file's size, for our reader, our summary and HTA's loader."""

    bytes: int
    events: NotRequired[int]
    parse_s: float
    parse_all_s: NotRequired[list[float]]
    parse_rss_to_file: float
    summarize_s: float
    summarize_all_s: NotRequired[list[float]]
    summarize_rss_to_file: float
    hta_load_s: float
    hta_load_all_s: NotRequired[list[float]]
    hta_load_rss_to_file: float


class TraceBench(TypedDict, total=False):
    """The `traces` section (`nox -s bench -- --traces-only`)."""

    sizes: list[TraceSize]
    targets: TraceTargets
    versions: dict[str, str]
    measured_at: str
    source: str
    repeats: int


class PeerOp(TypedDict):
    """One op both tools cost, with each one's FLOPs and bytes."""

    op: str
    ours_flops: float | None
    tracelens_flops: float | None
    ours_bytes: float | None
    tracelens_bytes: float | None


class PeerTrace(TypedDict):
    file: str
    kernel_time_s: float
    ours_modelled_share: NotRequired[float | None]
    tracelens_modelled_share: NotRequired[float | None]
    ops: NotRequired[list[PeerOp]]
    tracelens_error: NotRequired[str]


class PeerBench(TypedDict, total=False):
    """The `peer` section (`python -m benchmarks.peer`)."""

    traces: list[PeerTrace]
    measured_at: str
    tracelens: str
    roofline_atlas: str


class CoverageTrace(TypedDict):
    """One public trace of `coverage`: shares of its GPU busy time, or the error that
    refused it (then only `source`, `trace` and `error`)."""

    source: str
    trace: str
    error: NotRequired[str]
    with_shapes: NotRequired[bool]
    whole_s: NotRequired[float]
    exact: NotRequired[float]
    bounded: NotRequired[float]
    communication: NotRequired[float]
    copies: NotRequired[float]
    overhead: NotRequired[float]
    covered_of_computation: NotRequired[float | None]
    largest_uncounted: NotRequired[list[tuple[str, str, float]]]
    tracelens_rows: NotRequired[int]
    tracelens_covered_of_computation: NotRequired[float | None]
    tracelens_error: NotRequired[str]


class CoverageBench(TypedDict, total=False):
    """The `coverage` section (`python -m benchmarks.coverage`)."""

    traces: list[CoverageTrace]
    measured_at: str
    roofline_atlas: str
    sources: dict[str, str]
    tracelens_run: bool
