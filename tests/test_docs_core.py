"""The docs core is ProperDocs (issue 68): the site extra depends on it and not on MkDocs,
the build and `serve` run it, and no step imports the mkdocs distribution that Material,
mkdocs-jupyter and mike still declare as their dependency (pip installs it beside)."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.helpers import REPO

# Every module of a process that builds, serves or publishes: ours (the hooks, the pages per
# run's converter, publish with mike) and the theme's and plugins' that ProperDocs loads.
IMPORTS = """
import json, sys
import properdocs.__main__  # the `properdocs` command: its alias of mkdocs.* comes first
import generator.site.deploy, generator.site.markdown_html, generator.site.mkdocs_hooks
import generator.site.notebook_hook
import material.plugins.search.plugin, material.templates
import mkdocs_jupyter.plugin, mike.mkdocs_plugin
from importlib.metadata import distribution
mkdocs = str(distribution("mkdocs").locate_file("mkdocs")) + "/"
print(json.dumps({
    "from_mkdocs": sorted(n for n, m in list(sys.modules.items())
                          if str(getattr(m, "__file__", "") or "").startswith(mkdocs)),
    "alias": sys.modules["mkdocs"] is sys.modules["properdocs"],
    "config": sys.modules["mkdocs.config"].__name__,
}))
"""


def test_the_site_extra_depends_on_properdocs_not_mkdocs() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    site = project["project"]["optional-dependencies"]["site"]
    assert "properdocs==1.6.7" in site
    assert not [d for d in site if d.split("=")[0].split("<")[0].split(">")[0] == "mkdocs"]


def test_no_step_imports_the_mkdocs_distribution() -> None:
    """Run in a process of its own: what a build, `serve` or `publish` imports, with the
    mkdocs distribution installed (as pip leaves it), serves mkdocs.* from ProperDocs."""
    done = subprocess.run(
        [sys.executable, "-c", IMPORTS], capture_output=True, text=True, check=True, cwd=REPO
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {"from_mkdocs": [], "alias": True, "config": "properdocs.config"}


def test_the_build_and_serve_run_properdocs() -> None:
    publish = (REPO / "generator" / "site" / "publish.py").read_text(encoding="utf-8")
    assert '"-m", "properdocs", "build", "--strict"' in publish
    noxfile = (REPO / "noxfile.py").read_text(encoding="utf-8")
    assert 'session.run("properdocs", *serve)' in noxfile


def test_a_built_page_names_properdocs_as_its_generator(repo_site: Path) -> None:
    page = (repo_site / "index.html").read_text(encoding="utf-8")
    assert '<meta name="generator" content="mkdocs-ProperDocs 1.6.7, mkdocs-material-9.8.1">' in (
        page
    )
