"""The report at scale (`nox -s bench -- --scaling-only`): synthetic measurement sets of
100, 1,000, 3,000 and 10,000 runs plus 30 imports, made by replicating the real records under new
ids (benchmarks/synthetic.py), each built by `python -m generator site` as a user runs it:
once from nothing (empty docs, site and caches: `full_s`), then again after one more
replicated run is added, REBUILDS times in a row, each adding its own run
(`one_more_runs_s`; `one_more_run_s` is their median: one rebuild on this VM varied by
6 to 10 s from one try to the next, which a single sample cannot show). Each stage's
seconds come from the build itself (RA_STAGE_TIMES); a rebuild's are the median over the
rebuilds. Results ride in every entry of benchmarks/results.json as
`site_scaling`, a list of one object per size.

Then (`publish`, issue 68) the set is published as two versions into a git repository of
its own, as `nox -s publish` does (`python -m generator publish`): version A as built, then
version B after one more run. The entry records what each added to gh-pages (the sizes of
the branch's files before and after, from git, and what publish said), what B's folder and
its new shared files were, and what B would have added as a full copy (its site/).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

from benchmarks.synthetic import add_run, make_measurements
from generator.pages.scaling import CORE

REPO = Path(__file__).resolve().parents[1]
SIZES = (100, 1_000, 3_000, 10_000)
IMPORTS = 30
REBUILDS = 3  # successive rebuilds after one more run each, per size
# The issues' targets, on this 2-core machine: issue 68 restated the rebuild's (6 % before).
TARGETS = {
    "full_s_at_1000_runs": 120.0,
    "one_more_over_full": 0.15,
    "why": "issue 68's target: the docs core builds its ~140 aggregate and hand-written pages "
    "in full at every build, which alone took 6.1 to 7.1 % of the full build with MkDocs; "
    "the target was 6 % before",
    # issue 68: what publishing a second version with one more run adds to gh-pages
    "second_version_bytes_at_1000_runs": 60e6,
}
PUBLISHED = ("2026.1", "2026.2")  # the two versions published (bench only)
METHOD = (
    "Replicas of the real records: each synthetic run is a copy of a committed run folder "
    "under a new id (run.json's run_id rewritten), each import a copy of a committed import "
    "under a new name, cycling through the real ones. Replicas' trace and ncu files differ "
    "in a byte that no reader uses, so content-keyed caches do not collapse them; their "
    "analyses are equal, so a chart drawn from one replica's numbers is drawn once per "
    "real run (the chart cache is keyed by the spec). A run's stored trace work "
    "(trace-analysis.parquet, which measure writes) is copied with the replica's trace "
    "digest, as measure would have written it."
)
GENERATED_DOCS = ("measurements", "hardware.md", "index.md", "vega", "mathjax")


def _progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Build:
    seconds: float
    memory: dict[str, int]  # the build's own peak and its largest child's (site/build.py)
    failed: str | None  # why the build did not finish, or None


def _build(folder: Path, stages: Path) -> Build:
    """One `python -m generator site` on the folder's set: its wall time, its peak memory,
    and, when it failed or was killed (out of memory), the end of what it said."""
    command = [
        sys.executable, "-m", "generator", "site",
        "--measurements", str(folder / "measurements"), "--docs", str(folder / "docs"),
        "--site-dir", str(folder / "site"), "--cache-dir", str(folder / "cache"),
    ]  # fmt: skip
    memory = stages.with_suffix(".memory.json")
    env = {**os.environ, "RA_STAGE_TIMES": str(stages), "RA_PEAK_MEMORY": str(memory)}
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as errors:
        child = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=errors, text=True, cwd=REPO, env=env
        )
        child.wait()
        seconds = time.perf_counter() - start
        errors.seek(0)
        said = errors.read().strip()
    failed = None
    if child.returncode != 0:
        failed = f"exit {child.returncode}: {said[-2000:] or 'nothing on stderr'}"
    peaks = json.loads(memory.read_text()) if memory.is_file() else {}
    return Build(seconds, peaks, failed)


def _bytes_under(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _prepare(folder: Path, runs: int, imports: int) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    make_measurements(REPO / "measurements", folder / "measurements", runs, imports)
    shutil.copytree(REPO / "docs", folder / "docs", ignore=shutil.ignore_patterns(*GENERATED_DOCS))
    shutil.copy(REPO / "CITATION.cff", folder / "CITATION.cff")


def _counts(site: Path) -> dict[str, int]:
    pages = sum(1 for _ in site.rglob("index.html"))
    charts = sum(1 for _ in (site / "measurements" / "data").rglob("*.svg"))
    return {"html_pages": pages, "chart_files": charts}


def _median_stages(stages: list[dict[str, float]]) -> dict[str, float]:
    """Each stage's median over the builds, in the stages' order."""
    return {name: statistics.median(s[name] for s in stages if name in s) for name in stages[0]}


def measure_size(
    folder: Path, runs: int, imports: int, rebuilds: int = REBUILDS, publish: bool = True
) -> dict[str, Any]:
    _progress(f"{runs:,} runs + {imports} imports: replicating the records …")
    _prepare(folder, runs, imports)
    load_before = os.getloadavg()
    _progress(f"{runs:,} runs: full build from nothing …")
    full = _build(folder, folder / "stages-full.json")
    entry: dict[str, Any] = {
        "runs": runs,
        "imports": imports,
        "docs_core": "ProperDocs",
        "docs_core_version": version("properdocs"),
        "full_s": full.seconds,
        "full_peak_bytes": full.memory,
        "load_average_before": list(load_before),
    }
    if full.failed is not None:  # recorded as failed; the other sizes go on
        _progress(f"{runs:,} runs: the full build failed ({full.failed[:200]})")
        shutil.rmtree(folder, ignore_errors=True)
        return {**entry, "failed": full.failed, "load_average_after": list(os.getloadavg())}
    entry.update(
        stages_full_s=json.loads((folder / "stages-full.json").read_text()),
        **_counts(folder / "site"),
        site_bytes=_bytes_under(folder / "site"),
    )
    seconds: list[float] = []
    stages: list[dict[str, float]] = []
    peaks: dict[str, int] = {}
    for index in range(rebuilds):
        add_run(REPO / "measurements", folder / "measurements", runs + index)
        _progress(
            f"{runs:,} runs: rebuild {index + 1} of {rebuilds} after one more run "
            f"({full.seconds:.0f} s for the full build) …"
        )
        times = folder / f"stages-one-more-{index}.json"
        one_more = _build(folder, times)
        if one_more.failed is not None:
            entry["failed"] = f"the rebuild after one more run: {one_more.failed}"
            break
        seconds.append(one_more.seconds)
        stages.append(json.loads(times.read_text()))
        peaks = {k: max(v, peaks.get(k, 0)) for k, v in one_more.memory.items()}
    if seconds:
        median = statistics.median(seconds)
        entry.update(
            one_more_run_s=median,
            one_more_runs_s=seconds,
            one_more_over_full=median / full.seconds,
            one_more_peak_bytes=peaks,
            stages_one_more_s=_median_stages(stages),
            # the docs core's own seconds in each rebuild: the floor a rebuild cannot go below
            core_one_more_runs_s=[s[CORE] for s in stages if CORE in s],
        )
        if publish:
            _progress(f"{runs:,} runs: publishing two versions into a test repository …")
            entry["publish"] = measure_publish(folder, runs + len(seconds))
    entry["load_average_after"] = list(os.getloadavg())
    shutil.rmtree(folder, ignore_errors=True)
    return entry


def _git(folder: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(folder), *args], capture_output=True, text=True, check=True
    ).stdout


def _branch_bytes(repository: Path) -> dict[str, int]:
    """Each file of gh-pages and its size (what GitHub Pages serves), from git itself."""
    listed = subprocess.run(
        ["git", "-C", str(repository), "ls-tree", "-r", "-l", "-z", "--full-tree", "gh-pages"],
        capture_output=True,
        text=True,
        check=False,
    )
    sizes = {}
    for line in filter(None, listed.stdout.split("\0") if listed.returncode == 0 else []):
        meta, path = line.split("\t", 1)
        sizes[path] = int(meta.split()[3])
    return sizes


def _publish(folder: Path, repository: Path, published: str) -> tuple[float, str]:
    """`python -m generator publish VERSION` on the folder's set, as a user runs it."""
    command = [
        sys.executable, "-m", "generator", "publish", published,
        "--repository", str(repository), "--measurements", str(folder / "measurements"),
        "--docs", str(folder / "docs"), "--site-dir", str(folder / "site-published"),
        "--cache-dir", str(folder / "cache"),
    ]  # fmt: skip
    identity = {"GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@localhost"}
    start = time.perf_counter()
    done = subprocess.run(
        command, capture_output=True, text=True, cwd=REPO, env={**os.environ, **identity}
    )
    if done.returncode != 0:
        raise RuntimeError(f"publish {published} failed: {(done.stdout + done.stderr)[-2000:]}")
    return time.perf_counter() - start, done.stdout.strip().splitlines()[-1]


def measure_publish(folder: Path, index: int) -> dict[str, Any]:
    """Publish the set as PUBLISHED[0], add one more run (replica `index`), publish it as
    PUBLISHED[1]; what each added to gh-pages, in bytes."""
    repository = folder / "pages-repository"
    repository.mkdir()
    _git(repository, "init", "--quiet", "--initial-branch", "main")
    try:
        first_s, first_said = _publish(folder, repository, PUBLISHED[0])
        before = _branch_bytes(repository)
        add_run(REPO / "measurements", folder / "measurements", index)
        second_s, second_said = _publish(folder, repository, PUBLISHED[1])
    except (RuntimeError, subprocess.CalledProcessError) as error:
        return {"failed": str(error)[-2000:]}
    after = _branch_bytes(repository)
    second = PUBLISHED[1]
    new = {p: s for p, s in after.items() if p not in before}
    return {
        "versions": list(PUBLISHED),
        "first_s": first_s,
        "second_s": second_s,
        "first_added_bytes": sum(before.values()),
        "second_added_bytes": sum(after.values()) - sum(before.values()),
        "second_folder_bytes": sum(s for p, s in after.items() if p.startswith(f"{second}/")),
        "second_folder_html_bytes": sum(
            s for p, s in after.items() if p.startswith(f"{second}/") and p.endswith(".html")
        ),
        "second_new_shared_bytes": sum(s for p, s in new.items() if p.startswith("_shared/")),
        "second_new_shared_files": sum(1 for p in new if p.startswith("_shared/")),
        "second_site_bytes": _bytes_under(folder / "site-published"),
        "branch_bytes": sum(after.values()),
        "first_said": first_said,
        "second_said": second_said,
    }


def measure_scaling(
    data: Path,
    sizes: tuple[int, ...] = SIZES,
    imports: int = IMPORTS,
    note: str = "",
    rebuilds: int = REBUILDS,
) -> list[Any]:
    """One entry per size, each with the method, targets, time of measurement and `note`
    (what else the machine was doing, say)."""
    measured_at = datetime.now(UTC).isoformat(timespec="seconds")
    entries = []
    for runs in sizes:
        entry = measure_size(data / f"scaling-{runs}", runs, imports, rebuilds)
        entries.append(
            {**entry, "measured_at": measured_at, "method": METHOD, "targets": TARGETS,
             "note": note}
        )  # fmt: skip
        if "one_more_run_s" in entry:
            _progress(
                f"{runs:,} runs: full {entry['full_s']:.1f} s, one more run "
                f"{entry['one_more_run_s']:.1f} s ({entry['one_more_over_full']:.1%}; "
                f"{_spread(entry)})"
            )
    return entries


def _spread(entry: dict[str, Any]) -> str:
    """'median of 3: 5.9 to 6.4 s', or 'one rebuild' for an entry measured before there
    were several."""
    times = entry.get("one_more_runs_s") or [entry["one_more_run_s"]]
    if len(times) < 2:
        return "one rebuild"
    return f"median of {len(times)}: {min(times):.1f} to {max(times):.1f} s"


def scaling_table(entries: list[dict[str, Any]]) -> str:
    lines = [
        f"{'runs':>6} {'imports':>7} {'full s':>8} {'one more s':>10} {'ratio':>6} {'pages':>6} "
        f"{'peak GB':>7} {'site GB':>7}"
    ]
    for e in entries:
        if "one_more_run_s" not in e:
            lines.append(f"{e['runs']:>6,} {e['imports']:>7} failed: {e.get('failed', '')[:120]}")
            continue
        lines.append(
            f"{e['runs']:>6,} {e['imports']:>7} {e['full_s']:>8.1f} {e['one_more_run_s']:>10.1f} "
            f"{e['one_more_over_full']:>6.1%} {e['html_pages']:>6,} "
            f"{e['full_peak_bytes'].get('build_bytes', 0) / 1e9:>7.2f} {e['site_bytes'] / 1e9:>7.2f}"
            f"  one more: {_spread(e)}"
        )
        published = e.get("publish") or {}
        if "second_added_bytes" in published:
            lines.append(
                f"{'':>6} publish: the first version put {published['first_added_bytes'] / 1e6:.1f} "
                f"MB on gh-pages; a second, with one more run, added "
                f"{published['second_added_bytes'] / 1e6:.1f} MB (a full copy: "
                f"{published['second_site_bytes'] / 1e6:.1f} MB)"
            )
        elif published:
            lines.append(f"{'':>6} publish failed: {str(published.get('failed'))[:200]}")
    return "\n".join(lines)


def scaling_only(
    out: Path, data: Path, sizes: tuple[int, ...], note: str = "", rebuilds: int = REBUILDS
) -> int:
    """Re-measure only the report at scale and put it in every entry of OUT, keeping the
    other results and the sizes not measured this time."""
    if not out.is_file():
        raise SystemExit(f"{out} does not exist: run the full benchmark first")
    document = json.loads(out.read_text(encoding="utf-8"))
    entries = measure_scaling(data, sizes, note=note, rebuilds=rebuilds)
    # the sizes not measured this time keep their rows, each with its own measured_at
    kept = [e for e in document[0].get("site_scaling") or [] if e["runs"] not in sizes]
    entries = sorted(kept + entries, key=lambda e: e["runs"])
    from generator.atomic import write_json

    write_json(out, [{**entry, "site_scaling": entries} for entry in document])
    print(scaling_table(entries))
    return 0


def parse_sizes(text: str) -> tuple[int, ...]:
    return tuple(int(s) for s in text.split(",") if s.strip())
