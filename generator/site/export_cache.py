"""Each ncu export checked once per content. `check_export` (analysis and findings) costs
~20 ms an export, and a report has one per import and per profiled run: 2 s of every
rebuild at 1,000 runs, though one more run changes none of them. The result is kept in the
cache under the export's content key (file digest, parser and metric-map versions), its
path, the other arguments and the code digest; an export parsed outside the parse cache
(no content key) is checked afresh."""

from __future__ import annotations

import hashlib
import json
import pickle
from pathlib import Path

from generator.atomic import write_bytes
from generator.ingest.cache import ParsedExport
from generator.ingest.schema import NcuExport
from generator.site.content_cache import entry_path, read_pickled
from generator.summaries.export import CheckedExport, check_export


def cached_check(
    export: NcuExport | ParsedExport,
    device: str | None,
    phase: str | None,
    cache: tuple[Path, str],
    analytic_training_flops: float | None = None,
    analytic_forward_flops: float | None = None,
    analytic_backward_flops: float | None = None,
) -> CheckedExport:
    """`check_export`, from the cache when this export was checked with these arguments.
    `cache`: the cache folder and the code digest (`content_cache.code_digest`); `export`'s
    frames are read only on a miss (`ParsedExport`)."""
    analytic = {
        "analytic_training_flops": analytic_training_flops,
        "analytic_forward_flops": analytic_forward_flops,
        "analytic_backward_flops": analytic_backward_flops,
    }
    if isinstance(export, NcuExport) and not export.content_key:
        return check_export(export, device, phase, **analytic)
    cache_dir, code = cache
    arguments = [code, export.content_key, str(export.path), device, phase, analytic]
    key = hashlib.sha256(json.dumps(arguments, sort_keys=True).encode()).hexdigest()[:32]
    path = entry_path(cache_dir, "checked", key)
    if isinstance(found := read_pickled(path), CheckedExport):
        return found
    parsed = export.export if isinstance(export, ParsedExport) else export
    checked = check_export(parsed, device, phase, **analytic)
    write_bytes(path, pickle.dumps(checked, protocol=5))
    return checked
