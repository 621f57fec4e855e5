"""One pool of processes per build (pages/workers.py), and the chart files drawn while
MkDocs runs written into the built site (site/write.py's LaterFiles)."""

from __future__ import annotations

import math
import os
import pickle
from pathlib import Path

import pytest

from generator.pages import workers
from generator.pages.paths import downloads_root
from generator.pages.workers import PARALLEL_FROM, Workers, map_on_cores


def test_stages_share_the_build_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "cores", lambda: 2)
    started = []
    real = workers.new_pool
    monkeypatch.setattr(workers, "new_pool", lambda n: started.append(n) or real(n))
    items = [float(i) for i in range(PARALLEL_FROM)]
    with Workers() as build:
        first = map_on_cores(math.sqrt, items, build)
        second = map_on_cores(math.sqrt, items, build)
        assert build.pool() is build.pool()
        pickled = pickle.loads(pickle.dumps(build))  # as a worker gets it: no pool of its own
        assert pickled._pool is None
    assert first == second == [math.sqrt(x) for x in items]
    assert started == [2]  # one pool for both stages
    assert build._pool is None  # shut down on the way out
    assert map_on_cores(math.sqrt, items) == first  # outside a build: a pool of its own
    assert started == [2, 2]


def test_workers_run_below_the_build() -> None:
    with workers.new_pool(1) as pool:
        niceness = pool.submit(os.nice, 0).result()
    assert niceness == min(os.nice(0) + workers.NICE, 19)


def test_chart_files_in_the_built_site_are_drawn(repo_site: Path) -> None:
    """Chart files still being drawn when MkDocs started stand among the downloads as
    empty files; what the reader downloads, from the site and from the downloads beside
    docs/, is the drawn file."""
    data = repo_site / "measurements" / "data"
    svgs, pdfs = sorted(data.rglob("*.svg")), sorted(data.rglob("*.pdf"))
    assert svgs and len(svgs) == len(pdfs)
    assert all(p.read_bytes().startswith(b"<svg") for p in svgs)
    assert all(p.read_bytes().startswith(b"%PDF") for p in pdfs)
    docs = downloads_root(repo_site.parent / "docs") / "measurements" / "data"
    for path in svgs[:20]:
        assert (docs / path.relative_to(data)).read_bytes() == path.read_bytes()
