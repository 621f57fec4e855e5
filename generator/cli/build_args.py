"""The folders a report build reads and writes, as `site` and `publish` both take them."""

from __future__ import annotations

import argparse


def add_build_folders(parser: argparse.ArgumentParser, site_dir_help: str) -> None:
    parser.add_argument("--measurements", default="measurements", help="default: %(default)s")
    parser.add_argument("--docs", default="docs", help="MkDocs docs_dir (default: %(default)s)")
    parser.add_argument("--site-dir", default="site", help=f"{site_dir_help} (default: site)")
    parser.add_argument(
        "--cache-dir",
        default=".cache/roofline-atlas",
        help="the build's store: parsed exports (Parquet), drawn pages, rendered chart files "
        "and the executed Explore notebook, keyed by content hash; delete it to clear it "
        "(default: %(default)s)",
    )
