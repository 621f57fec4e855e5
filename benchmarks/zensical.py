"""Zensical beside the docs core, ProperDocs (issue 55, part 5; issue 68: measured, not
switched to; re-run at each bench run until Zensical runs hooks and notebooks).

`nox -s bench -- --zensical-only --zensical PATH` builds the committed report's pages (docs/
as `python -m generator site` writes them, every page per run included, the downloads put
inside docs/ since Zensical runs no hooks) from one config with both: ProperDocs
(`properdocs build`, MkDocs 1.x continued) and Zensical (`zensical build --clean`, then again with its cache), each
REPEATS times, and records the median, every time, the pages each wrote and the end of what
each said. Zensical is in none of the project's environments: PATH is the `zensical`
command of a separate virtualenv (`python -m venv V && V/bin/pip install zensical`). Where
it is missing or fails, the entry records why instead of a number.

The config both read is mkdocs.yml with this build's docs folder, site folder and nav,
without `hooks:` and without the mkdocs-jupyter plugin (the Explore notebook), which Zensical
does not run: both build the same Markdown pages. Zensical is also run once on the config
with them kept (`as_is`), and what it says recorded; docs/architecture.md lists what does
not carry over.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
REPEATS = 3
SAID = 3000  # characters of each tool's output kept


def prepare(folder: Path) -> Path:
    """The committed report's docs written into `folder` (downloads inside docs/), and the
    config both tools build; returns the config's path."""
    from generator.pages.paths import DATA_DIR, downloads_root
    from generator.site.build import build_site

    shutil.rmtree(folder, ignore_errors=True)
    docs = folder / "docs"
    shutil.copytree(REPO / "docs", docs, ignore=shutil.ignore_patterns("measurements", "assets"))
    shutil.copytree(
        REPO / "docs" / "assets", docs / "assets", ignore=shutil.ignore_patterns("vega", "mathjax")
    )
    written = build_site(
        REPO / "measurements", docs, folder / "unused", run_mkdocs=False, cache_dir=folder / "cache"
    )
    assert written is not None
    shutil.copytree(downloads_root(docs) / DATA_DIR, docs / DATA_DIR, dirs_exist_ok=True)
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    # relative to the config's folder: Zensical 0.0.73 panicked on absolute ones
    # ("invariant: Id(Format(Path(RootDir)))"); ProperDocs reads both
    config.update(docs_dir="docs", site_dir="site", nav=written.nav)
    as_is = folder / "as-is.yml"  # hooks and plugins kept: what Zensical makes of them
    as_is.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), "utf-8")
    config.pop("hooks", None)
    config["plugins"] = [p for p in config["plugins"] if not _named(p, "mkdocs-jupyter")]
    config["exclude_docs"] = "*.ipynb\n"
    path = folder / "mkdocs.yml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), "utf-8")
    return path


def _named(plugin: object, name: str) -> bool:
    return plugin == name or (isinstance(plugin, dict) and name in plugin)


def _pages(site: Path) -> int:
    return sum(1 for _ in site.rglob("index.html")) if site.is_dir() else 0


def _time(command: list[str], site: Path, clean_site: bool = True) -> dict[str, Any]:
    if clean_site:
        shutil.rmtree(site, ignore_errors=True)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=site.parent, check=False)
    seconds = time.perf_counter() - start
    said = (done.stdout + done.stderr).strip()
    return {"seconds": seconds, "returncode": done.returncode, "pages": _pages(site),
            "said": said[-SAID:]}  # fmt: skip


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in runs if r["returncode"] == 0]
    summary: dict[str, Any] = {"runs": runs}
    if ok:
        summary.update(
            median_s=statistics.median(r["seconds"] for r in ok),
            all_s=[r["seconds"] for r in ok],
            pages=ok[-1]["pages"],
        )
    else:
        summary["failed"] = runs[-1]["said"] if runs else "not run"
    return summary


def measure_zensical(zensical: str | None, folder: Path, repeats: int = REPEATS) -> dict[str, Any]:
    """The entry for benchmarks/results.json (`zensical`)."""
    config = prepare(folder)
    site = folder / "site"
    core = [sys.executable, "-m", "properdocs", "build", "--quiet", "-f", str(config)]
    entry: dict[str, Any] = {
        "input": "the committed report (measurements/), every page built by one tool",
        "core": {"name": f"ProperDocs {version('properdocs')}",
                 **_summary([_time(core, site) for _ in range(repeats)])},
        "core_pages": _pages(site),
    }  # fmt: skip
    found = shutil.which(zensical) if zensical else None
    if found is None:
        entry["zensical"] = {"failed": f"no zensical command at {zensical!r} (--zensical PATH)"}
        return entry
    said = subprocess.run([found, "--version"], capture_output=True, text=True, check=False)
    cold = [_time([found, "build", "--clean", "-f", str(config)], site) for _ in range(repeats)]
    warm = [_time([found, "build", "-f", str(config)], site, False) for _ in range(repeats)]
    as_is = _time([found, "build", "--clean", "-f", str(folder / "as-is.yml")], site)
    entry["zensical"] = {
        "version": (said.stdout or said.stderr).strip(),
        "clean": _summary(cold),
        "cached": _summary(warm),
        "as_is": as_is,
    }
    shutil.rmtree(folder / "cache", ignore_errors=True)
    return entry


def zensical_table(entry: dict[str, Any]) -> str:
    lines = []
    core = entry["core"]
    for name, result in ((core["name"], core), *_zensical_rows(entry["zensical"])):
        if "median_s" in result:
            lines.append(
                f"{name:<22} {result['median_s']:>7.1f} s  (median of "
                f"{', '.join(f'{s:.1f}' for s in result['all_s'])}), {result['pages']} pages"
            )
        else:
            lines.append(f"{name:<22} failed: {str(result.get('failed', ''))[-300:]}")
    return "\n".join(lines)


def _zensical_rows(result: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    if "clean" not in result:
        return [("Zensical", result)]
    return [("Zensical, clean", result["clean"]), ("Zensical, cached", result["cached"])]
