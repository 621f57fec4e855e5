"""The README is a front door: short, every link alive, and its commands the ones CI runs."""

from __future__ import annotations

import re

from tests.helpers import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
WORKFLOW = (REPO / ".github" / "workflows" / "report.yml").read_text(encoding="utf-8")
SITE = "https://roofline-atlas.github.io/roofline-atlas/latest/"


def links(text: str) -> list[str]:
    return re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r"<(https?://[^>]+)>", text)


def _anchor(heading: str) -> str:
    return re.sub(r"[^a-z0-9 -]", "", heading.lower()).replace(" ", "-")


def test_the_readme_is_at_most_150_lines() -> None:
    assert len(README.splitlines()) <= 150


def test_relative_links_resolve() -> None:
    anchors = {_anchor(h) for h in re.findall(r"^#+ (.+)$", README, re.MULTILINE)}
    relative = [link for link in links(README) if not link.startswith(("http", "mailto:"))]
    assert relative
    for link in relative:
        path, _, anchor = link.partition("#")
        if path:
            assert (REPO / path).exists(), link
        else:
            assert anchor in anchors, link


def site_links() -> list[str]:
    """The report pages the README links, as paths inside one version's folder."""
    return [link.removeprefix(SITE) for link in links(README) if link.startswith(SITE)]


def test_the_readme_links_the_site_pages_the_issue_names() -> None:
    paths = site_links()
    for page in ("methodology/", "measurements/performance/", "architecture/"):
        assert page in paths


def test_the_workflow_runs_the_readmes_commands() -> None:
    blocks = "\n".join(re.findall(r"```bash\n(.*?)```", README, re.DOTALL))
    commands = [line.split("#")[0].strip() for line in blocks.splitlines()]
    for session in ("lint", "tests"):
        assert f"nox -s {session}" in commands
        assert re.search(rf"^\s+nox -s {session}$", WORKFLOW, re.MULTILINE), session
    publish = next(c for c in commands if c.startswith("nox -s publish") and "--push" in c)
    # the README's version is an example; the workflow publishes the tag it runs for
    expected = publish.replace("2026.11", '"$REF_NAME"')
    assert expected in WORKFLOW
