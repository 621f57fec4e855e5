"""The names a published report version and its aliases may take (`publish`, the landing
and Cite pages): a repository tag such as 2026.11, `dev` for main's moving head, and an
alias such as `latest` that follows the newest version."""

from __future__ import annotations

import re

from generator.errors import UserError

LATEST = "latest"  # the alias that follows the newest version
DEVELOPMENT = "dev"  # main's head: rebuilt on every push, so never the one to cite

# A tag such as 2026.11 or 2026.11.1: digits and dots, so it is a safe folder name on
# gh-pages and never an alias's name.
_VERSION = re.compile(r"[0-9]+(\.[0-9]+)+")


def check_version(version: str) -> str:
    if version == DEVELOPMENT or _VERSION.fullmatch(version):
        return version
    raise UserError(
        f"'{version}' is not a report version",
        key="VERSION",
        fix="give the repository tag it is published as, numbers and dots (e.g. 2026.11), "
        f"or '{DEVELOPMENT}' for main's moving head",
    )


def check_alias(alias: str, version: str) -> str:
    if re.fullmatch(r"[a-z][a-z0-9-]*", alias) and alias not in (version, DEVELOPMENT):
        return alias
    raise UserError(
        f"'{alias}' cannot be an alias",
        key="--alias",
        fix=f"a lowercase name that is not a version, e.g. {LATEST}",
    )
