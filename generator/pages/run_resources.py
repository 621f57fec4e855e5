"""A run page's lines on how the model ran (eager or a torch.compile mode, the compile
time and what was cached), its measured memory beside the analytic footprint, and its
energy, from run.json's `compile`, `memory` and `energy` (measure.resources)."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from generator.formatting import number, seconds, si
from generator.records.run import RunRecord
from generator.records.run_modes import mode_of
from generator.records.run_parts import FootprintPart

PARTS: tuple[tuple[FootprintPart, str], ...] = (
    ("parameters_bytes", "parameters"),
    ("gradients_bytes", "gradients"),
    ("optimizer_state_bytes", "optimizer state"),
    ("activations_bytes", "activations"),
    ("input_bytes", "input"),
)


def _cache(counts: dict[str, Any] | None) -> str:
    if not counts:
        return "nothing counted"
    return ", ".join(f"{name.replace('_', ' ')} {count}" for name, count in counts.items())


def compile_facts(record: RunRecord) -> list[tuple[str, str]]:
    mode = mode_of(record.config.model_dump())
    facts = [("runs as", "eager (PyTorch as written)" if mode == "eager" else
              f"torch.compile, mode {mode}")]  # fmt: skip
    compiled = record.compile
    if not compiled:
        return facts
    warm = compiled.get("warm_compile_s")
    return [
        *facts,
        ("compile time, first block (cold)",
         f"{seconds(compiled['cold_compile_s'])} ({_cache(compiled.get('cold_cache'))})"),
        ("compile time, later blocks (median, from the cache)",
         f"{seconds(warm)} ({_cache(compiled.get('warm_cache'))})" if warm is not None else "n/a"),
        ("graphs, graph breaks", f"{compiled['graphs']}, {compiled['graph_breaks']}"),
        ("recompiles: in warm-up, during timed steps",
         f"{compiled['recompiles_in_warmup']}, {compiled['recompiles_during_timing']}"),
        ("phases of the compiled step", str(compiled.get("phases", "n/a"))),
    ]  # fmt: skip


def memory_facts(record: RunRecord) -> list[tuple[str, str]]:
    memory = record.memory or {}
    measured = memory.get("measured")
    analytic = memory.get("analytic") or {}
    facts = []
    if measured:
        facts.append(("measured memory of the step (median of blocks)",
                      f"{si(measured['step_bytes'], 'B', 3)}: {measured.get('method', '')}, "
                      f"over {measured.get('peak_window', 'n/a')}"))  # fmt: skip
    else:
        facts.append(("measured memory of the step", memory.get("why") or "not measured"))
    if analytic:
        parts = ", ".join(
            f"{label} {si(analytic[key], 'B', 3)}" for key, label in PARTS if analytic.get(key)
        )
        facts.append(("analytic footprint", f"{si(analytic['total_bytes'], 'B', 3)} ({parts})"))
    if memory.get("ratio") is not None:
        facts.append(("measured / analytic", f"{number(memory['ratio'], 3)}×"))
    energy = record.energy
    if energy is not None:
        per_step = energy.get("joules_per_step")
        facts.append(("energy per step", f"{number(per_step, 3)} J ({energy['source']}), "
                      f"{number(energy.get('samples_per_joule'), 3)} samples/J"
                      if per_step is not None else
                      f"{energy.get('why', 'not readable')} ({energy.get('source')})"))  # fmt: skip
    return facts


def memory_rows(runs: Any) -> tuple[list[list[Any]], dict[str, int]]:
    """The Complexity page's table: each ok run with a measured peak, its analytic footprint
    and the ratio (runs table rows, linked); and how many ok runs were not measured, per
    device (measuring them again needs that device)."""
    from generator.pages.run_text import run_label

    ok = [r for r in runs.to_dicts() if r["status"] == "ok"] if runs.height else []
    rows = [
        [Markup('<a href="../runs/{}/">{}</a>').format(r["run_id"], run_label(r)),
         si(r["memory_analytic_bytes"], "B", 3), si(r["memory_bytes"], "B", 3),
         f"{number(r['memory_bytes'] / r['memory_analytic_bytes'], 3)}×"
         if r.get("memory_analytic_bytes") else "n/a"]
        for r in ok if r.get("memory_bytes") is not None
    ]  # fmt: skip
    unmeasured: dict[str, int] = {}
    for r in ok:
        if r.get("memory_bytes") is None:
            device = r.get("device_label") or r["device"]
            unmeasured[device] = unmeasured.get(device, 0) + 1
    return rows, dict(sorted(unmeasured.items()))
