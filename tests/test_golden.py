"""Golden tests: the generated Markdown of every page kind, built from a fixed small set of
measurements (tests/data/golden/measurements: one imported export, 38 real runs of groups
A to H (see tests/data/golden/PROVENANCE.md), the CPU and H100 ceilings, the complexity
tables and six literature rows).

Chart specs are read from the scripts each chart names (`data-src`, beside the page's
downloads) and compared as dicts, not as text or images.
After an intended change, regenerate the expected files and review their diff:

    RA_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from generator.site.build import build_site
from tests.helpers import REPO, chart_specs

GOLDEN = REPO / "tests" / "data" / "golden"
EXPECTED = GOLDEN / "expected"
PAGES = {  # page kind -> generated file (relative to docs/)
    "overview": "measurements/overview.md",
    "hardware": "hardware.md",
    "complexity": "measurements/complexity.md",
    "experiment": "measurements/experiments/A.md",
    "latency-correlation": "measurements/latency-correlation.md",
    "speedups": "measurements/speedups.md",
    "saturation": "measurements/saturation.md",
    "step-parts": "measurements/step-parts.md",
    "kernels": "measurements/l4-resnet18-train-step-b64.md",
    "device-choice": "measurements/device-choice.md",
    "device-choice-part": "measurements/device-choice/published.md",
    "replication": "measurements/replication.md",
    "runs": "measurements/runs.md",
    "findings": "measurements/findings.md",
    "cite": "measurements/cite.md",
    "index": "measurements/index.md",
    "run": "measurements/runs/A-resnet18-cifar10-b32-train_step-fp32-cpu-182cb488.md",
    "trace": "measurements/traces/run-A-resnet18-cifar10-b32-train_step-fp32-cpu-182cb488.md",
}


def split_charts(docs: Path, page: str) -> tuple[str, dict[str, Any]]:
    """The page's Markdown, and the specs of its charts by chart id."""
    return (docs / page).read_text(encoding="utf-8"), chart_specs(docs, page)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, dict[str, Any]]]:
    root = tmp_path_factory.mktemp("golden")
    shutil.copytree(GOLDEN / "measurements", root / "measurements")
    shutil.copy(REPO / "CITATION.cff", root / "CITATION.cff")
    cwd = Path.cwd()
    os.chdir(root)  # relative paths, as `nox -s site` uses them, so pages name no tmp folder
    try:
        build_site(
            Path("measurements"), Path("docs"), Path("site"), run_mkdocs=False,
            cache_dir=Path(".cache"),
        )  # fmt: skip
    finally:
        os.chdir(cwd)
    return {kind: split_charts(root / "docs", page) for kind, page in PAGES.items()}


@pytest.mark.parametrize("kind", sorted(PAGES))
def test_page_matches_golden(kind: str, generated: dict[str, tuple[str, dict[str, Any]]]) -> None:
    text, specs = generated[kind]
    expected_md, expected_charts = EXPECTED / f"{kind}.md", EXPECTED / f"{kind}.charts.json"
    if os.environ.get("RA_UPDATE_GOLDEN") == "1":
        EXPECTED.mkdir(parents=True, exist_ok=True)
        expected_md.write_text(text, encoding="utf-8")
        expected_charts.write_text(json.dumps(specs, indent=1, sort_keys=True) + "\n")
    assert text == expected_md.read_text(encoding="utf-8"), (
        f"{PAGES[kind]} changed; if intended: RA_UPDATE_GOLDEN=1 pytest tests/test_golden.py"
    )
    assert specs == json.loads(expected_charts.read_text(encoding="utf-8"))


def test_golden_pages_have_charts_and_data_links(
    generated: dict[str, tuple[str, dict[str, Any]]],
) -> None:
    """A guard that the golden set exercises what it pins: charts and downloads."""
    for kind in (
        "overview", "hardware", "complexity", "experiment", "kernels", "device-choice-part",
        "saturation", "step-parts", "latency-correlation", "speedups",
    ):  # fmt: skip
        text, specs = generated[kind]
        assert specs, f"{kind}: no chart"
        assert "Chart files: [SVG]" in text and ".pdf)" in text
    assert "[CSV](" in generated["runs"][0] and ".parquet)" in generated["runs"][0]
