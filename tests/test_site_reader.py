"""What a reader of the built report relies on, checked on every page (issue 38): numbers
in prose never in exponent notation, one display name per device, run pages whose data links
work, and the same verdict wherever a step's bound is named."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from generator.catalog import device_label
from tests.helpers import REPO

pytestmark = pytest.mark.site

EXPONENT = re.compile(r"\b\d(?:\.\d+)?e[+-]?\d+\b", re.I)
HIDDEN = {"script", "style", "code", "pre", "title"}  # not prose a reader reads as text


class VisibleText(HTMLParser):
    """The page's visible prose, leaving out scripts, code, and the machine's own device
    names (`.ra-recorded`, the one place a page may show them)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._stack: list[tuple[str, bool]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        # clipboard-copy-txt: the notebook's code again, for mkdocs-jupyter's copy button (never shown)
        hidden = tag in HIDDEN or bool({"ra-recorded", "clipboard-copy-txt"} & set(classes))
        if tag not in {"br", "img", "input", "meta", "link", "hr", "wbr"}:
            self._stack.append((tag, hidden))

    def handle_endtag(self, tag: str) -> None:
        while self._stack:
            if self._stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        if not any(hidden for _, hidden in self._stack):
            self.parts.append(data)


def visible_text(path: Path) -> str:
    parser = VisibleText()
    parser.feed(path.read_text(encoding="utf-8"))
    return " ".join(parser.parts)


def _pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_visible_text_parser_skips_code_and_recorded_names(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text(
        '<p>1.5e+04 <code>2e5</code> <span class="ra-recorded">“X”</span> Y<br>z</p>'
        "<script>3e4</script>",
        encoding="utf-8",
    )
    text = visible_text(page)
    assert "1.5e+04" in text and "2e5" not in text and "X" not in text and "3e4" not in text
    assert EXPONENT.search("at 6.497e+04 samples/s") and not EXPONENT.search("sm80_xmma e5")


def test_no_exponent_notation_in_visible_text(repo_site: Path) -> None:
    found = []
    for page in _pages(repo_site):
        for match in EXPONENT.finditer(visible_text(page)):
            found.append(f"{page.relative_to(repo_site)}: {match.group(0)}")
    assert found == [], found[:20]


def _recorded_names() -> dict[str, str]:
    """Every device name a run or a ceilings file recorded that differs from the catalog's
    display name for it."""
    names = set()
    for run in (REPO / "measurements" / "runs").glob("*/run.json"):
        names.add(json.loads(run.read_text())["device_name"].strip())
    for ceilings in (REPO / "measurements" / "ceilings").glob("*.json"):
        names.add(json.loads(ceilings.read_text())["device_name"].strip())
    return {name: device_label(name) for name in names if name and device_label(name) != name}


def test_no_device_has_two_display_names(repo_site: Path) -> None:
    recorded = _recorded_names()
    assert recorded  # the H100 reports itself as "NVIDIA H100 80GB HBM3"
    found = []
    for page in _pages(repo_site):
        text = visible_text(page)
        # a recorded name its label begins with ("NVIDIA H200" in "NVIDIA H200 SXM") is not
        # a second name: only where it stands outside its label
        found += [
            f"{page.relative_to(repo_site)}: {name}"
            for name, label in recorded.items()
            if name in text.replace(label, "")
        ]
    assert found == [], found[:20]


def test_every_run_page_links_its_data_trace_and_kernels(repo_site: Path) -> None:
    runs = REPO / "measurements" / "runs"
    for folder in sorted(p for p in runs.iterdir() if p.is_dir()):
        page = repo_site / "measurements" / "runs" / folder.name / "index.html"
        html = page.read_text(encoding="utf-8")
        links = re.findall(r'href="([^"#]+)"', html)
        local = [link for link in links if not link.startswith(("http", "mailto:"))]
        for link in local:
            target = (page.parent / link).resolve()
            assert target.exists() or (target / "index.html").exists(), f"{page}: {link}"
        data = [link for link in local if "/data/" in link]
        assert any(link.endswith("run.json") for link in data), folder.name
        assert any(link.endswith(".parquet") for link in data), folder.name
        if (folder / "trace.json.gz").is_file():
            assert any(f"traces/run-{folder.name}" in link for link in local), folder.name
        if (folder / "ncu.csv").is_file():
            assert any(f"run-{folder.name}" in link and "traces" not in link for link in local)


def test_a_run_page_says_what_its_title_says(repo_site: Path) -> None:
    """Titles use the short run label, not the run id, on run and trace pages alike."""
    run_id = "D-gpu-resnet18-cifar10-b1024-train_step-fp32-cuda-e9792695"
    for page in (
        repo_site / "measurements" / "runs" / run_id / "index.html",
        repo_site / "measurements" / "traces" / f"run-{run_id}" / "index.html",
    ):
        title = re.search(r"<h1[^>]*>(.*?)<", page.read_text(encoding="utf-8"), re.S)
        assert title is not None and title.group(1).strip() == (
            "resnet18 b1024 train_step fp32 H100 SXM"
        ), page
