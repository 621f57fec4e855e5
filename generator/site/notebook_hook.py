"""MkDocs hook: the Explore page rendered from the copy the build executed.

The build executes docs/explore.ipynb beside its stages (site/notebook.py) and names the
executed copy in `RA_EXECUTED_NOTEBOOK`. This hook puts that copy in place of the source
(MkDocs' public `File.generated`, before mkdocs-jupyter wraps the file), and mkdocs.yml's
`execute_ignore` tells mkdocs-jupyter not to execute it again. Without the variable (a
plain `mkdocs serve` or `mkdocs build`) mkdocs-jupyter executes the source, as configured.
"""

from __future__ import annotations

import os

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

from generator.site.notebook import EXECUTED_ENV, NOTEBOOK


@event_priority(100)  # before mkdocs-jupyter's on_files wraps the notebook's file
def on_files(files: Files, config: MkDocsConfig) -> Files:
    executed = os.environ.get(EXECUTED_ENV)
    source = files.get_file_from_path(NOTEBOOK)
    if executed and source is not None:
        files.remove(source)
        copy = File.generated(config, NOTEBOOK, abs_src_path=executed, inclusion=source.inclusion)
        files.append(copy)
    return files
