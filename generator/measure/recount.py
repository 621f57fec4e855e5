"""Analytic counts derived again from each run's configuration by today's counting
conventions, without measuring again: a run measured before a convention changed (on
2026-11-26 BatchNorm's training forward went from 8 to 6 FLOP an element) keeps the counts
of its day, and the same configuration then showed two FLOP counts, one per device. Where
today's counts differ, the run's complexity.csv and layers.csv are written again and
run.json's `complexity`, `modelled_point` (the same median step over the new FLOPs) and
the analytic footprint beside the measured memory; everything measured stays as it was, and
`rederive` then derives the findings again. Needs torch (the model is built on the meta device),
no GPU."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from generator.atomic import write_json
from generator.complexity.footprint import footprint
from generator.config import RunConfig
from generator.measure.resources import with_footprint
from generator.measure.run_files import analytic_counts, modelled_point, write_layer_files
from generator.records.run import LAYERS_FILE, RUN_FILE, TRACE_FILE, read_run

if TYPE_CHECKING:
    from generator.complexity.analyze import Complexity


@dataclass(frozen=True)
class Recounted:
    run_id: str
    changed: tuple[str, ...]  # the totals whose count changed


def recount(measurements: Path) -> list[Recounted]:
    """Every ok run folder under measurements/runs/ with analytic counts, in name order;
    each configuration counted once."""
    done = []
    counted: dict[tuple[object, ...], Complexity] = {}
    runs = measurements / "runs"
    for folder in sorted(p for p in runs.iterdir() if p.is_dir()) if runs.is_dir() else []:
        record = read_run(folder)
        if record is None or record.status != "ok" or record.complexity is None:
            continue
        config = RunConfig.from_dict(record.config.model_dump())
        key = (config.model, config.input_shape, config.batch, config.classes, config.phase,
               config.optimizer, config.precision, config.vocab)  # fmt: skip
        if key not in counted:
            counted[key] = analytic_counts(config)
        complexity = counted[key]
        totals = complexity.totals()
        changed = tuple(k for k, v in totals.items() if record.complexity.get(k) != v)
        if changed:
            profiled = (folder / LAYERS_FILE).is_file() and (folder / TRACE_FILE).is_file()
            write_layer_files(folder, complexity, profiled)
            assert record.modelled_point is not None  # an ok run has one
            point = modelled_point(totals, record.modelled_point.time_s)
            # run.json as it is on disk (its version, its keys), these three changed alone
            data = json.loads((folder / RUN_FILE).read_text(encoding="utf-8"))
            data["complexity"] = totals
            data["modelled_point"] = point.model_dump(mode="json")
            if data.get("memory"):  # the footprint beside the measured peak
                analytic = footprint(complexity, token_inputs=config.vocab is not None)
                data["memory"] = with_footprint(data["memory"], analytic)
            write_json(folder / RUN_FILE, data)
        done.append(Recounted(record.run_id, changed))
    return done
