"""Which ncu metrics become which kernel-table columns: data, not `if`s.

Each column lists its ncu names in priority order (`sm__` and `smsp__` spellings of a counter,
or the names different GPUs and ncu versions use); the first one present in a file wins.
`dimension` is the base unit the value must convert to; any other unit is an error, which
catches a metric exported with a unit that would silently change its meaning.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl


@dataclass(frozen=True)
class MetricColumn:
    column: str
    aliases: tuple[str, ...]
    dimension: str  # one of DIMENSIONS' keys
    description: str


# dimension -> base units (from units.parse_unit) accepted for it. Counters are often
# exported without a unit, so "" is accepted for counts.
DIMENSIONS: dict[str, frozenset[str]] = {
    "inst": frozenset({"inst", ""}),
    "ops": frozenset({"", "op", "ops", "flop", "inst"}),
    "byte": frozenset({"byte"}),
    "second": frozenset({"second"}),
    "cycle": frozenset({"cycle"}),
    "hz": frozenset({"cycle/second", "hz"}),
    "%": frozenset({"%"}),
    "inst/cycle": frozenset({"inst/cycle"}),
    "byte/second": frozenset({"byte/second"}),
}


# `--page details` exports show the Speed Of Light section by display name ("Duration",
# "DRAM Throughput"); other sections reuse some names for other quantities ("Memory
# Throughput" is a bandwidth in Memory Workload Analysis), so display names count only inside
# these sections. Older ncu called the section "GPU Speed Of Light".
SPEED_OF_LIGHT_SECTIONS: frozenset[str] = frozenset(
    {"GPU Speed Of Light Throughput", "GPU Speed Of Light"}
)
DISPLAY_PREFIX = "sol:"


def display(name: str) -> str:
    """The metric-map key of a Speed Of Light display name (ranked after the raw names)."""
    return f"{DISPLAY_PREFIX}{name}"


def _sass(op: str) -> tuple[str, ...]:
    name = f"sass_thread_inst_executed_op_{op}_pred_on.sum"
    return (f"sm__{name}", f"smsp__{name}")


def _tensor_ops(path: str) -> tuple[str, ...]:
    return (f"sm__ops_path_tensor_{path}.sum",)


_PRECISION_LETTER = {"fp64": "d", "fp32": "f", "fp16": "h"}

METRIC_COLUMNS: tuple[MetricColumn, ...] = (
    *(
        MetricColumn(
            f"{precision}_{op}_inst",
            _sass(f"{letter}{op}"),
            "inst",
            f"{precision} {op} thread instructions (predicated on)",
        )
        for precision, letter in _PRECISION_LETTER.items()
        for op in ("add", "mul", "fma")
    ),
    # Direct tensor-core counters: "# of math ops executed in Tensor path" (ncu --query-metrics).
    MetricColumn(
        "tensor_fp16_fp16_ops", _tensor_ops("src_fp16_dst_fp16"), "ops", "tensor ops fp16->fp16"
    ),
    MetricColumn(
        "tensor_fp16_fp32_ops", _tensor_ops("src_fp16_dst_fp32"), "ops", "tensor ops fp16->fp32"
    ),
    MetricColumn(
        "tensor_fp16_any_ops",
        _tensor_ops("src_fp16"),
        "ops",
        "tensor ops fp16->fp16 or fp32 (Hopper's generic fp16 counter)",
    ),
    MetricColumn(
        "tensor_bf16_bf16_ops", _tensor_ops("src_bf16_dst_bf16"), "ops", "tensor ops bf16->bf16"
    ),
    MetricColumn(
        "tensor_bf16_fp32_ops", _tensor_ops("src_bf16_dst_fp32"), "ops", "tensor ops bf16->fp32"
    ),
    MetricColumn(
        "tensor_tf32_fp32_ops", _tensor_ops("src_tf32_dst_fp32"), "ops", "tensor ops tf32->fp32"
    ),
    MetricColumn("tensor_fp64_ops", _tensor_ops("src_fp64"), "ops", "tensor ops fp64"),
    MetricColumn(
        "tensor_fp8_fp16_ops", _tensor_ops("src_fp8_dst_fp16"), "ops", "tensor ops fp8->fp16"
    ),
    MetricColumn(
        "tensor_fp8_fp32_ops", _tensor_ops("src_fp8_dst_fp32"), "ops", "tensor ops fp8->fp32"
    ),
    # Instruction counts only: FLOPs per instruction depend on the architecture and kernel.
    MetricColumn(
        "tensor_pipe_inst",
        ("sm__inst_executed_pipe_tensor.sum", "smsp__inst_executed_pipe_tensor.sum"),
        "inst",
        "warp instructions issued to the tensor pipe",
    ),
    MetricColumn(
        "tensor_hmma_inst",
        (
            "sm__inst_executed_pipe_tensor_op_hmma.sum",
            "smsp__inst_executed_pipe_tensor_op_hmma.sum",
        ),
        "inst",
        "HMMA warp instructions",
    ),
    # Tensor-pipe activity: the share of cycles the tensor pipe was busy. Kernels that run no
    # matrix work can still issue a few tensor-pipe instructions (A100's RNG and reduction
    # kernels do), so an instruction count alone does not mean uncounted matrix FLOPs.
    MetricColumn(
        "tensor_active_pct",
        tuple(
            f"{unit}__pipe_tensor{pipe}_cycles_active.avg.pct_of_peak_sustained_{basis}"
            for pipe in ("", "_op_hmma", "_subpipe_hmma", "_op_gmma")
            for basis in ("active", "elapsed")
            for unit in ("sm", "smsp")
        ),
        "%",
        "tensor pipe active, % of peak cycles",
    ),
    MetricColumn("dram_bytes", ("dram__bytes.sum",), "byte", "DRAM bytes read + written"),
    MetricColumn(
        "dram_read_bytes",
        # dram__read_bytes: ncu before 2020.1 (its SOL FB figure, fbpa__sol_pct, is a
        # frame-buffer utilisation, not DRAM throughput, so it is not read as dram_pct)
        ("dram__bytes_read.sum", "dram__bytes_op_read.sum", "dram__read_bytes"),
        "byte",
        "DRAM bytes read",
    ),
    MetricColumn(
        "dram_write_bytes",
        ("dram__bytes_write.sum", "dram__bytes_op_write.sum", "dram__write_bytes"),
        "byte",
        "DRAM bytes written",
    ),
    MetricColumn("l2_bytes", ("lts__t_bytes.sum",), "byte", "L2 (LTS) bytes"),
    MetricColumn("l1_bytes", ("l1tex__t_bytes.sum",), "byte", "L1/TEX bytes"),
    MetricColumn(
        "gpu_time_s",
        # ncu before 2020.1 wrote counters without their .sum/.avg suffix.
        ("gpu__time_duration.sum", "gpu__time_duration", display("Duration")),
        "second",
        "kernel duration",
    ),
    MetricColumn(
        "sm_cycles",
        ("sm__cycles_elapsed.avg", "smsp__cycles_elapsed.avg"),
        "cycle",
        "SM cycles elapsed (avg)",
    ),
    MetricColumn(
        "sm_clock_hz",
        (
            "sm__cycles_elapsed.avg.per_second",
            "smsp__cycles_elapsed.avg.per_second",
            display("SM Frequency"),
        ),
        "hz",
        "SM clock during the kernel",
    ),
    MetricColumn(
        "sm_pct",
        (
            "sm__throughput.avg.pct_of_peak_sustained_elapsed",
            "sm__sol_pct",  # before ncu 2020.1
            display("Compute (SM) Throughput"),
            display("Compute (SM) [%]"),
            display("SM [%]"),
        ),
        "%",
        "SM throughput, % of peak",
    ),
    MetricColumn(
        "dram_pct",
        (
            "dram__throughput.avg.pct_of_peak_sustained_elapsed",
            "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
            display("DRAM Throughput"),
        ),
        "%",
        "DRAM throughput, % of peak",
    ),
    MetricColumn(
        "memory_pct",
        (
            "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
            "gpu__compute_memory_sol_pct",  # before ncu 2020.1
            display("Memory Throughput"),
            display("Memory [%]"),
        ),
        "%",
        "memory throughput (max of units), % of peak",
    ),
)

METRIC_COLUMN_NAMES: tuple[str, ...] = tuple(m.column for m in METRIC_COLUMNS)


@dataclass(frozen=True)
class RateOfCount:
    """A rate ncu stores in place of a count, from which the count is rebuilt.

    Full-set and roofline-set reports keep the FP thread-instruction counters only as
    `<counter>.sum.per_cycle_elapsed`, and the roofline set its DRAM and cache bytes only as
    `<counter>.sum.per_second`: the count is the rate times the SM cycles elapsed
    (`smsp__cycles_elapsed.avg`, or its clock times the duration where older reports lack it),
    or times the duration. It is used only where the kernel has no count of its own."""

    column: str  # the kernel-table column it rebuilds
    rate: str  # the ncu name of the rate
    per: str  # "cycle" (× SM cycles elapsed) or "second" (× gpu__time_duration)
    # columns that hold the same quantity between them: with all of them, nothing is rebuilt
    # (DRAM bytes read and written are DRAM bytes)
    counted_by: tuple[str, ...] = ()

    @property
    def dimension(self) -> str:
        return "inst/cycle" if self.per == "cycle" else "byte/second"


RATES_OF_COUNTS: tuple[RateOfCount, ...] = (
    *(
        RateOfCount(
            f"{precision}_{op}_inst",
            f"smsp__sass_thread_inst_executed_op_{letter}{op}_pred_on.sum.per_cycle_elapsed",
            "cycle",
        )
        for precision, letter in _PRECISION_LETTER.items()
        for op in ("add", "mul", "fma")
    ),
    RateOfCount(
        "dram_bytes",
        "dram__bytes.sum.per_second",
        "second",
        counted_by=("dram_read_bytes", "dram_write_bytes"),
    ),
    RateOfCount("l2_bytes", "lts__t_bytes.sum.per_second", "second"),
    RateOfCount("l1_bytes", "l1tex__t_bytes.sum.per_second", "second"),
)


def alias_rows() -> list[dict[str, object]]:
    """One row per metric-map key (ncu name or `sol:` display name): metric, column,
    priority, dimension."""
    return [
        {"metric": alias, "column": m.column, "priority": rank, "dimension": m.dimension}
        for m in METRIC_COLUMNS
        for rank, alias in enumerate(m.aliases)
    ] + [
        {"metric": r.rate, "column": r.column, "priority": 0, "dimension": r.dimension}
        for r in RATES_OF_COUNTS
    ]


# Every ncu name the analysis reads, and every Speed Of Light display name.
RAW_NAMES: frozenset[str] = frozenset(
    a for m in METRIC_COLUMNS for a in m.aliases if not a.startswith(DISPLAY_PREFIX)
) | frozenset(r.rate for r in RATES_OF_COUNTS)
DISPLAY_NAMES: frozenset[str] = frozenset(
    a.removeprefix(DISPLAY_PREFIX)
    for m in METRIC_COLUMNS
    for a in m.aliases
    if a.startswith(DISPLAY_PREFIX)
)


# Keys as an Enum: grouping and pivoting on a small integer code is several times cheaper
# than on strings over a million rows.
KEY_DTYPE = pl.Enum(sorted(RAW_NAMES) + sorted(DISPLAY_PREFIX + name for name in DISPLAY_NAMES))


def metric_key() -> pl.Expr:
    """A long-table row's key in the metric map: its ncu name, or `sol:<display name>` inside
    a Speed Of Light section; null for a row the analysis does not read."""
    # Lookups rather than string building: the metric column may be categorical, and a
    # lookup costs one probe per row either way.
    raw = sorted(RAW_NAMES)
    display = sorted(DISPLAY_NAMES)
    as_raw = pl.col("metric").replace_strict(raw, raw, default=None, return_dtype=KEY_DTYPE)
    as_display = pl.col("metric").replace_strict(
        display, [DISPLAY_PREFIX + n for n in display], default=None, return_dtype=KEY_DTYPE
    )
    in_speed_of_light = pl.col("section").is_in(list(SPEED_OF_LIGHT_SECTIONS))
    return (
        pl.when(as_raw.is_not_null())
        .then(as_raw)
        .when(in_speed_of_light)
        .then(as_display)
        .otherwise(None)
        .alias("key")
    )


# Dimensions whose values add over launches; the others (%, clock) are averages.
ADDITIVE_DIMENSIONS: frozenset[str] = frozenset({"inst", "ops", "byte", "second", "cycle"})
ADDITIVE_COLUMNS: tuple[str, ...] = tuple(
    m.column for m in METRIC_COLUMNS if m.dimension in ADDITIVE_DIMENSIONS
)
