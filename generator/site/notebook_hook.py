"""A hook of the docs core (ProperDocs): the Explore page from the copy the build executed.

The build executes docs/explore.ipynb beside its stages (site/notebook.py) and names the
executed copy in `RA_EXECUTED_NOTEBOOK`. This hook points the notebook's file at that copy
(`File.abs_src_path`, the settable source path ProperDocs' own `File.generated` sets), and
mkdocs.yml's `execute_ignore` matches the copy's path, so mkdocs-jupyter converts it without
executing it again. Without the variable (a plain `properdocs serve` or `properdocs build`)
mkdocs-jupyter executes the source, as configured.
"""

from __future__ import annotations

import os

from properdocs.config.defaults import ProperDocsConfig
from properdocs.plugins import event_priority
from properdocs.structure.files import Files

from generator.site.notebook import EXECUTED_ENV, NOTEBOOK


@event_priority(-40)  # after mkdocs-jupyter's on_files has wrapped the notebook's file
def on_files(files: Files, config: ProperDocsConfig) -> Files:
    executed = os.environ.get(EXECUTED_ENV)
    notebook = files.get_file_from_path(NOTEBOOK)
    if executed and notebook is not None:
        # on the plugin's wrapper itself, which computes its own path from the source's
        # folder otherwise
        notebook.abs_src_path = executed
    return files
