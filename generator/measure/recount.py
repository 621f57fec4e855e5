"""Analytic counts derived again from each run's configuration by today's counting
conventions, without measuring again. A run measured before a convention changed keeps the
counts of its day, and the same configuration then showed two counts, one per device. The
H100 runs of 2026-11-23 counted BatchNorm's forward at 8 FLOP an element in training and 4
in inference (6 and 2 since), LayerNorm's and GroupNorm's at 8 (7 since), attention's MACs
over every query-key pair (the causal mask's left out since), and an embedding's forward
bytes as its whole table (the rows it looks up since). Where today's counts differ, the
run's complexity.csv is written again, layers.csv with today's counts beside the layer
times it holds (not read again from the trace: the times stay byte for byte), and last
run.json's `complexity`, `modelled_point` (the same median step over the new counts) and
the analytic footprint beside a measured memory (a run stopped half-way is made whole by
the next call); everything else in run.json stays as it is on disk, and `rederive` derives
the findings again. Needs torch (the model is built on the meta device), no GPU."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from generator.analysis.layer_join import LAYERS_SCHEMA
from generator.complexity.footprint import footprint
from generator.config import RunConfig
from generator.measure.resources import with_footprint
from generator.measure.run_files import analytic_counts, modelled_point, write_layer_files
from generator.records.run import LAYERS_FILE, read_runs, write_counts

if TYPE_CHECKING:
    from generator.complexity.analyze import Complexity


@dataclass(frozen=True)
class Recounted:
    run_id: str
    changed: tuple[str, ...]  # the totals whose count changed


def measured_times(folder: Path) -> pl.DataFrame | None:
    """The layer times a run's layers.csv holds (layer, phase, time_s), or None."""
    path = folder / LAYERS_FILE
    if not path.is_file():
        return None
    layers = pl.read_csv(path, schema=LAYERS_SCHEMA)
    return layers.filter(pl.col("time_s").is_not_null()).select("layer", "phase", "time_s")


def recount(measurements: Path) -> list[Recounted]:
    """Every ok run folder under measurements/runs/ with analytic counts, in name order;
    each configuration counted once."""
    done = []
    counted: dict[tuple[object, ...], Complexity] = {}
    for folder, record in read_runs(measurements):
        if record.status != "ok" or record.complexity is None:
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
            write_layer_files(folder, complexity, measured_times(folder))
            assert record.modelled_point is not None  # an ok run has one
            point = modelled_point(totals, record.modelled_point.time_s)
            analytic = footprint(complexity, token_inputs=config.vocab is not None)
            write_counts(folder, totals, point, partial(with_footprint, analytic=analytic))
        done.append(Recounted(record.run_id, changed))
    return done
