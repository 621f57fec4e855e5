"""Which version of the report a build is, and where it will be read: the site's and the
repository's URLs (from CITATION.cff, overridable for a fork) and the version's own URL, so
that a citation names an address whose numbers never change.

A build for a version (`publish`) puts the version into every page's canonical URL and
BibTeX entry; a plain `site` build says that it is an unversioned local build.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from generator.records.versions import LATEST, check_version

SITE_URL_ENV = "RA_SITE_URL"  # a fork's own site, instead of CITATION.cff's `url`
REPO_URL_ENV = "RA_REPO_URL"  # a fork's own repository, instead of `repository-code`
RELEASE_FILE = ".roofline-atlas-release.json"  # in site/: the release it was built as
THEME_DIR = Path(__file__).resolve().with_name("theme")  # Material overrides


def release_inputs(version: str | None) -> str:
    """What a build's pages take from outside the repository: the version and the URL
    overrides (standard library only: the up-to-date check reads it)."""
    return "\0".join(
        [version or "", os.environ.get(SITE_URL_ENV, ""), os.environ.get(REPO_URL_ENV, "")]
    )


@dataclass(frozen=True)
class Release:
    version: str | None  # None: an unversioned local build
    site_url: str | None  # the published site's root, ending in "/"
    repo_url: str | None
    date: str  # the day it was built, YYYY-MM-DD
    commit: str | None  # the repository's commit, "+changes" when its tree differed

    @property
    def url(self) -> str | None:
        """This version's own address: the one a citation names."""
        if self.version is None or self.site_url is None:
            return None
        return f"{self.site_url}{self.version}/"

    def citation_fields(self) -> dict[str, Any]:
        """What the Cite, landing and run pages read, beside CITATION.cff's own keys."""
        return {
            "report-version": self.version,
            "report-url": self.url,
            "report-site": self.site_url,
            "report-date": self.date,
        }

    def mkdocs_config(self) -> str:
        """Lines for the build's MkDocs config (site_url: the version's own URL, none for an
        unversioned build). The version selector reads versions.json,
        which only a published tree has: an unversioned build leaves it out, so that it
        requests nothing that is not there."""
        # An unversioned build is served where it is opened (`python -m http.server` in
        # site/): no site_url, so that its 404 page finds its assets at the root; a version
        # has its own address, which the 404 page, canonical links and sitemap name.
        config = {
            "site_url": self.url or "",
            "repo_url": self.repo_url or "",
            "theme": {"custom_dir": str(THEME_DIR)},
        }
        if self.version is not None:
            config["extra"] = {"version": {"provider": "mike", "default": LATEST}}
        return "".join(f"{key}: {json.dumps(value)}\n" for key, value in config.items())

    def to_json(self) -> str:
        return json.dumps(asdict(self))


def _root(url: str) -> str:
    return url if url.endswith("/") else url + "/"


def make_release(citation: dict[str, Any], version: str | None, commit: str | None) -> Release:
    """The release of a build from CITATION.cff's `url` and `repository-code`, each
    overridden by its environment variable when set."""
    site = os.environ.get(SITE_URL_ENV) or citation.get("url")
    repo = os.environ.get(REPO_URL_ENV) or citation.get("repository-code")
    # SOURCE_DATE_EPOCH: a reproducible build states the date it is given
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = datetime.fromtimestamp(int(epoch), UTC) if epoch else datetime.now(UTC)
    return Release(
        version=check_version(version) if version is not None else None,
        site_url=_root(str(site)) if site else None,
        repo_url=str(repo) if repo else None,
        date=when.date().isoformat(),
        commit=commit,
    )


def built_release(site_dir: Path) -> Release | None:
    """The release site_dir was built as; None when it holds no finished build."""
    path = site_dir / RELEASE_FILE
    try:
        return Release(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None
