"""`publish`: the report built as a version and committed into gh-pages (nox -s publish)."""

from __future__ import annotations

import argparse
from pathlib import Path

from generator.cli.build_args import add_build_folders


def cmd_publish(args: argparse.Namespace) -> int:
    """Check, build as the version (the `site` command's pipeline), commit into gh-pages."""
    from generator.records.versions import check_alias, check_version

    version = check_version(args.version)
    aliases = [check_alias(alias, version) for alias in args.alias]
    from generator.site.deploy import check_pages_branch, deploy  # deferred: needs mike

    repository = Path(args.repository)
    # before the build: a tree that cannot take the result is refused at once
    check_pages_branch(repository, args.branch, args.remote, args.push)
    site_dir = Path(args.site_dir)
    if not args.no_build:
        from generator.site.build import build_site

        build_site(
            measurements=Path(args.measurements),
            docs_dir=Path(args.docs),
            site_dir=site_dir,
            force=args.force,
            cache_dir=Path(args.cache_dir),
            version=version,
        )
    print(
        deploy(
            site_dir,
            repository,
            version,
            aliases,
            branch=args.branch,
            remote=args.remote,
            push=args.push,
        )
    )
    return 0


def add_publish(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    publish = commands.add_parser(
        "publish",
        help="build the report as VERSION and commit it into the gh-pages branch (mike)",
        description="Build the report as `site` does, with VERSION in every page's canonical "
        "URL and BibTeX entry, then commit it into the gh-pages branch as the folder VERSION/ "
        "with mike (versions.json, aliases as redirects), leaving every other version as it "
        "was. Its downloads, MathJax and Vega go once into _shared/ under their SHA-256, "
        "linked from every version that has them; it says how many bytes the version added "
        "to the branch. Without --push nothing leaves this repository. Nothing is built or written when "
        "VERSION is not a tag-like version, gh-pages is checked out somewhere, or the local "
        "gh-pages has diverged from the remote's.",
    )
    publish.add_argument(
        "version", metavar="VERSION", help="the repository tag, e.g. 2026.11 ('dev' for main)"
    )
    publish.add_argument(
        "--alias",
        action="append",
        default=[],
        metavar="ALIAS",
        help="also publish as ALIAS, moved from the version that had it (e.g. latest; "
        "repeatable); with latest, the site's root opens it",
    )
    publish.add_argument("--push", action="store_true", help="push gh-pages to --remote")
    publish.add_argument("--remote", default="origin", help="default: %(default)s")
    publish.add_argument("--branch", default="gh-pages", help="default: %(default)s")
    publish.add_argument(
        "--repository", default=".", help="the git checkout holding the branch (default: .)"
    )
    publish.add_argument(
        "--no-build",
        action="store_true",
        help="publish site/ as the last `publish` of this VERSION left it, without rebuilding",
    )
    add_build_folders(publish, "build folder")
    publish.add_argument(
        "--force", action="store_true", help="rebuild even when site/ is this build already"
    )
    publish.set_defaults(handler=cmd_publish)
