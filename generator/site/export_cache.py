"""Each ncu export checked once per content. `check_export` (analysis and findings) costs
~20 ms an export, and a report has one per import and per profiled run: 2 s of every
rebuild at 1,000 runs, though one more run changes none of them. The result is kept in the
store (kind `checked`) under the export's content key (its parse's key: file digest,
parser and metric-map versions), its path and the other arguments; an export parsed outside
the store (no content key) is checked afresh."""

from __future__ import annotations

import json

from generator.ingest.cache import ParsedExport
from generator.ingest.schema import NcuExport
from generator.store import Pickled, Store
from generator.summaries.export import CheckedExport, check_export

CHECKED = Pickled(CheckedExport)


def cached_check(
    export: NcuExport | ParsedExport,
    device: str | None,
    phase: str | None,
    store: Store,
    analytic_training_flops: float | None = None,
    analytic_forward_flops: float | None = None,
    analytic_backward_flops: float | None = None,
) -> CheckedExport:
    """`check_export`, from the store when this export was checked with these arguments;
    `export`'s frames are read only on a miss (`ParsedExport`)."""
    analytic = {
        "analytic_training_flops": analytic_training_flops,
        "analytic_forward_flops": analytic_forward_flops,
        "analytic_backward_flops": analytic_backward_flops,
    }
    if isinstance(export, NcuExport) and not export.content_key:
        return check_export(export, device, phase, **analytic)

    def make() -> CheckedExport:
        parsed = export.export if isinstance(export, ParsedExport) else export
        return check_export(parsed, device, phase, **analytic)

    arguments = json.dumps([str(export.path), device, phase, analytic], sort_keys=True)
    return store.get_or_make("checked", [export.content_key, arguments], make, CHECKED)
