"""Stage 6, publish: `mkdocs build --strict` into a staging folder, moved over site/ only
when it succeeded, so a failed build never leaves a partial site."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from generator.errors import UserError
from generator.site.files import swap_dir
from generator.site.write import Written


def publish(written: Written, measurements: Path, site_dir: Path) -> Path:
    config = Path("mkdocs.yml")
    if not config.is_file():
        raise UserError("mkdocs.yml not found", fix="run from the repository root")
    parent = site_dir.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".site-", dir=parent))
    # A child config inherits mkdocs.yml and points at this build's docs folder.
    child = staging / "mkdocs.yml"
    child.write_text(
        f"INHERIT: {json.dumps(str(config.resolve()))}\n"
        f"docs_dir: {json.dumps(str(written.docs_dir.resolve()))}\n"
        f"nav: {json.dumps(written.nav, ensure_ascii=False)}\n",
        encoding="utf-8",
    )
    output = staging / "site"
    command = [
        sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
        "--config-file", str(child), "--site-dir", str(output),
    ]  # fmt: skip
    # The Explore notebook, executed during the build, reads this build's measurements.
    env = {**os.environ, "RA_MEASUREMENTS": str(measurements.resolve())}
    result = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    if result.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise UserError(
            "mkdocs build --strict failed; site/ was left as it was:\n"
            + (result.stderr or result.stdout).strip(),
            fix="fix the warnings above (a broken link or a page missing from the nav)",
        )
    try:
        swap_dir(output, site_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return site_dir
