"""What the benchmark times, each returning what it found (to cross-check the others).

The ncu CSV ingest, each returning the step's totals:
- ours: generator's ingest to the step summary (FLOPs, DRAM bytes, time, per-range counts);
- pandas: the same summary the way the seed scripts compute it (read_csv, a unit map,
  a pivot/groupby per kernel), the baseline to beat;
- floor: a bare polars.read_csv of the file, the least any CSV-based tool must spend.

The torch.profiler trace ingest:
- trace_parse: generator's read_trace alone (the JSON parse into typed event tables);
- trace_summarize: `summarize` of the trace (read, attribute kernels to ops, FLOPs from
  shapes, per-op/step tables, findings), as the command runs it;
- hta_parse: HolisticTraceAnalysis' per-file parser, hta.common.trace.parse_trace_file, with
  its default ParserConfig (the JSON backend), into its event DataFrame;
- hta_load: HTA's loader as its documentation uses it, TraceAnalysis(trace_dir=...): the
  folder's rank detection, the parse above, then the alignment and step filtering.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

UNIT_SCALE = {
    "": 1.0, "inst": 1.0, "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9,
    "nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1.0, "cycle": 1.0,
    "%": 1.0, "cycle/nsecond": 1e9, "cycle/usecond": 1e6, "cycle/second": 1.0,
}  # fmt: skip
FLOP_WEIGHTS = {
    "fadd": 1,
    "fmul": 1,
    "ffma": 2,
    "dadd": 1,
    "dmul": 1,
    "dfma": 2,
    "hadd": 1,
    "hmul": 1,
    "hfma": 2,
}


def ours(path: Path, memory_budget: int | None = None) -> dict[str, Any]:
    """With the default memory budget (2 GB): files over ~600 MB take the streaming path."""
    from generator.analysis.roofline import kernel_metrics, range_totals, totals
    from generator.ingest import read_ncu_csv

    metrics = kernel_metrics(read_ncu_csv(path, memory_budget).kernels)
    step = totals(metrics)
    return {
        "kernels": step.kernels,
        "flops": step.flops,
        "dram_bytes": step.dram_bytes,
        "time_s": step.time_s,
        "ranges": {name: t.kernels for name, t in range_totals(metrics).items()},
    }


def pandas(path: Path) -> dict[str, Any]:
    """As the public ncu scripts do it: read_csv, groupby kernel, then a Python loop over
    each kernel's rows converting every value through a unit map."""
    import pandas as pd

    frame = pd.read_csv(path, usecols=["ID", "Metric Name", "Metric Unit", "Metric Value"])
    flops = dram = time = 0.0
    kernels = 0
    for _, group in frame.groupby("ID"):
        kernels += 1
        values: dict[str, float] = {}
        for name, unit, raw in zip(
            group["Metric Name"].values,
            group["Metric Unit"].values,
            group["Metric Value"].values,
            strict=True,
        ):
            try:
                value = float(str(raw).replace(",", ""))
            except ValueError:
                continue
            values[name] = value * UNIT_SCALE.get(unit if isinstance(unit, str) else "", 1.0)
        for op, weight in FLOP_WEIGHTS.items():
            for prefix in ("smsp__", "sm__"):
                key = f"{prefix}sass_thread_inst_executed_op_{op}_pred_on.sum"
                if key in values:
                    flops += weight * values[key]
                    break
        dram += values.get("dram__bytes_read.sum", 0.0) + values.get("dram__bytes_write.sum", 0.0)
        time += values.get("gpu__time_duration.sum", 0.0)
    return {"kernels": kernels, "flops": flops, "dram_bytes": dram, "time_s": time}


def pandas_vectorized(path: Path) -> dict[str, Any]:
    """The same summary written the fast pandas way (for honesty about the baseline)."""
    import pandas as pd

    frame = pd.read_csv(path, dtype=str)
    values = pd.to_numeric(frame["Metric Value"].str.replace(",", "", regex=False), errors="coerce")
    frame["value"] = values * frame["Metric Unit"].fillna("").map(UNIT_SCALE)
    wide = frame.pivot_table(index="ID", columns="Metric Name", values="value", aggfunc="first")
    flops = 0.0
    for name, weight in FLOP_WEIGHTS.items():
        for prefix in ("smsp__", "sm__"):
            column = f"{prefix}sass_thread_inst_executed_op_{name}_pred_on.sum"
            if column in wide.columns:
                flops += weight * wide[column].sum()
                break
    dram = wide["dram__bytes_read.sum"].sum() + wide["dram__bytes_write.sum"].sum()
    time = wide["gpu__time_duration.sum"].sum()
    return {
        "kernels": int(wide.shape[0]),
        "flops": float(flops),
        "dram_bytes": float(dram),
        "time_s": float(time),
    }


def floor(path: Path) -> dict[str, Any]:
    import polars as pl

    frame = pl.read_csv(path, infer_schema=False)
    return {"rows": frame.height}


def ours_streaming(path: Path) -> dict[str, Any]:
    """Forced through the streaming path (memory budget 0), for its memory at every size."""
    return ours(path, memory_budget=0)


def trace_parse(path: Path) -> dict[str, Any]:
    from generator.ingest.trace.read import read_trace

    trace = read_trace(path)
    return {
        "ops": len(trace.ops),
        "kernels": len(trace.kernels),
        "launches": len(trace.launches),
        "ranges": len(trace.ranges),
    }


def trace_summarize(path: Path) -> dict[str, Any]:
    from generator.summaries.trace import summarize_trace

    summary = summarize_trace(path, None)
    return {
        "ops": summary["ops"],
        "kernels": summary["kernels"],
        "flops": summary["flops"],
        "steps": len(summary["steps"]),
        "device": summary["device"]["catalog"],
    }


def ranks_summarize(path: Path) -> dict[str, Any]:
    """A folder of per-rank traces as one capture (read one rank at a time)."""
    from generator.summaries.multirank import summarize_ranks

    summary = summarize_ranks([path], None)
    return {"ranks": len(summary["ranks"]), "steps": len(summary["steps"]),
            "problems": len(summary["problems"])}  # fmt: skip


def hta_parse(path: Path) -> dict[str, Any]:
    from hta.common.trace import parse_trace_file

    _, frame, symbols = parse_trace_file(str(path))
    kernel = symbols.get_sym_id_map().get("kernel")
    return {"events": len(frame), "kernels": int((frame["cat"] == kernel).sum())}


def hta_load(path: Path) -> dict[str, Any]:
    """The trace's folder must hold only it: HTA loads every .json/.gz there, one per rank."""
    from hta.trace_analysis import TraceAnalysis

    analysis = TraceAnalysis(trace_dir=str(path.parent))
    [rank] = analysis.t.get_ranks()
    frame = analysis.t.get_trace(rank)
    kernel = analysis.t.symbol_table.get_sym_id_map().get("kernel")
    return {"events": len(frame), "kernels": int((frame["cat"] == kernel).sum())}


IMPLEMENTATIONS = {
    "ours": ours,
    "ours_streaming": ours_streaming,
    "pandas": pandas,
    "pandas_vectorized": pandas_vectorized,
    "floor": floor,
    "trace_parse": trace_parse,
    "trace_summarize": trace_summarize,
    "ranks_summarize": ranks_summarize,
    "hta_parse": hta_parse,
    "hta_load": hta_load,
}
