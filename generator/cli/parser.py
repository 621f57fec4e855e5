"""The command line: every command, its arguments and their help."""

from __future__ import annotations

import argparse

from generator.cli.build_args import add_build_folders
from generator.cli.commands import (
    cmd_complexity,
    cmd_complexity_tables,
    cmd_rederive,
    cmd_site,
    cmd_trace_work,
)
from generator.cli.file_commands import cmd_import, cmd_summarize
from generator.cli.measure_parser import add_check_gpu, add_measure, add_remeasure
from generator.cli.publish import add_publish
from generator.findings.finding_spec import Stage
from generator.findings.specs import specs_of


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m generator",
        description="Roofline Atlas: place training steps and kernels on a roofline.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_summarize(commands)
    _add_import(commands)
    _add_complexity(commands)
    _add_complexity_tables(commands)
    add_measure(commands)
    add_remeasure(commands)
    add_check_gpu(commands)
    _add_rederive(commands)
    _add_trace_work(commands)
    _add_site(commands)
    add_publish(commands)
    return parser


def _add_summarize(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    summarize = commands.add_parser(
        "summarize",
        help="totals, roofline point and bound of ncu CSV exports and torch.profiler traces; "
        "multi-rank captures and Nsight Systems captures",
        description="Print, per ncu CSV export or binary .ncu-rep report (read with NVIDIA's "
        "ncu-report: pip install 'roofline-atlas[ncu-rep]'; counts stored as rates are rebuilt "
        "by ncu's rule and said so): kernel count, FLOPs by precision, DRAM/L2/L1 "
        "bytes, time, attained FLOP/s, arithmetic intensity, time-weighted SM% and DRAM%, "
        "kernels per innermost NVTX range, the matched device, the bound and efficiency "
        "against it, and the findings (suspicious data, with evidence and fix). Per "
        "torch.profiler trace (Chrome-trace JSON, plain or .gz, told apart by content): kernel "
        "time, FLOPs and minimal bytes derived from the recorded shapes (analytic FLOPs / "
        "measured time), per op and per ProfilerStep, the share of time in ops with no FLOP "
        "formula, and the findings. A folder of per-rank traces (or several traces with "
        "--ranks) is one multi-rank capture: per rank and step, compute, communication, their "
        "overlap and idle time; per step, the straggler; exit status 1 when a rank could not "
        "be used (the others are still shown). An Nsight Systems capture (its SQLite export, "
        "or the CSV or JSON reports of `nsys stats` of one capture, or a folder of them): kernel time "
        "by name and family, copies by direction, CUDA API calls, NVTX ranges and, from the "
        "SQLite export, each GPU's utilization and idle gaps. A binary nsys report (.nsys-rep, "
        ".qdrep) is exported to SQLite by the nsys on PATH (or --nsys), else the error gives the "
        "command. AMD's rocprofv3 output (its JSON, plain or .gz, or a kernel trace CSV) is read "
        "as such a capture: kernel time by family per GPU, utilization, idle gaps, copies, HIP "
        "calls, roctx ranges and --pmc counters where recorded. Units are SI (1 GB = 1e9 bytes).",
    )
    summarize.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="ncu --csv export(s) or binary .ncu-rep report(s), torch.profiler trace(s) (.json "
        "or .json.gz), a folder of one capture's per-rank traces, an nsys SQLite export, "
        "stats CSV reports or binary .nsys-rep report, or rocprofv3 output (JSON or kernel "
        "trace CSV)",
    )
    summarize.add_argument(
        "--model",
        metavar="MODEL",
        help="for an Nsight Systems capture: the model that ran (registry name or "
        "module:callable), whose analytic FLOPs are placed on its NVTX phase ranges "
        "(forward, backward, optimizer); needs torch, --batch, and --dataset for your own model",
    )
    summarize.add_argument("--batch", type=int, help="with --model: the batch size that ran")
    summarize.add_argument(
        "--dataset", help="with --model: the input shape (default: the model's own dataset)"
    )
    summarize.add_argument(
        "--ranks",
        action="store_true",
        help="the FILEs are the ranks of one distributed capture (a folder always is); the "
        "rank comes from each trace's distributedInfo, else from its name (rank-3...)",
    )
    summarize.add_argument(
        "--ceilings",
        metavar="FILE.json",
        help="measured ceilings (measurements/ceilings/<device>.json) to place a CPU trace "
        "(one without GPU kernels) on its roofline",
    )
    summarize.add_argument(
        "--device",
        metavar="NAME",
        help="catalog device id or name (e.g. l4, a100-80gb-sxm, 'H100 SXM'); "
        "default: a trace's deviceProperties name, else the export's (or the kernel names') "
        "compute capability when unambiguous",
    )
    summarize.add_argument(
        "--memory-budget",
        metavar="SIZE",
        help="exports whose in-memory parse would need more (up to 2x the file) are "
        "streamed through Parquet instead, in less memory (default 2G, or RA_MEMORY_BUDGET)",
    )
    summarize.add_argument(
        "--phase",
        choices=["train_step", "inference", "kernel"],
        help="what the export profiled; train_step makes a missing backward range a finding",
    )
    summarize.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per file, per line, in base units (FLOP, byte, second), with a "
        "`findings` list (id, severity, title, evidence, fix)",
    )
    _add_nsys_option(summarize)
    summarize.set_defaults(handler=cmd_summarize)


def _add_nsys_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--nsys",
        metavar="PATH",
        help="the nsys that exports a binary Nsight Systems report (.nsys-rep, .qdrep) to "
        "SQLite, which is then read (default: nsys on PATH; it must be as new as the nsys "
        "that wrote the report)",
    )


def _add_import(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    imports = commands.add_parser(
        "import",
        help="add your own ncu CSV export or torch.profiler trace to the report "
        "(measurements/imported/NAME/)",
        description="Parse and analyse FILE (an ncu CSV export in any layout ncu writes, or a "
        "torch.profiler trace, told apart by content), then copy it to "
        "MEASUREMENTS/imported/NAME/ (ncu.csv verbatim, or trace.json.gz) with a validated "
        "source.toml saying what it measured, and print its summary. A trace gets its own "
        "page under Traces. Nothing is written when the file cannot be "
        "read, the device is unknown or NAME is taken. Options left out come from the export "
        "(device, precision) or are marked 'not stated'; edit source.toml to complete them. "
        "A folder of per-rank traces, or several traces, is one multi-rank capture: stored as "
        "ranks/rank-N.json.gz with its analysis, shown on one page with a rank x step "
        "heatmap; it is refused, with every problem listed, when any rank cannot be used. An "
        "nsys SQLite export or a capture's nsys stats reports (CSV or JSON) are kept verbatim in nsys/ "
        "(--device names the GPU when the files do not); a binary .nsys-rep is kept there "
        "beside the SQLite export nsys makes of it, and rocprofv3 output is kept there too. A "
        "binary .ncu-rep is kept as "
        "report.ncu-rep beside ncu.csv, the metrics read from it (the report build needs "
        "neither ncu-report nor the binary).",
    )
    imports.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="an ncu --csv export or binary .ncu-rep report, a torch.profiler trace "
        "(.json[.gz]), a folder (or several files) of one capture's per-rank traces, or an "
        "nsys capture's files (SQLite export, stats CSVs, or a binary .nsys-rep), or rocprofv3 "
        "output (JSON or kernel trace CSV)",
    )
    imports.add_argument(
        "--ceilings",
        metavar="FILE.json",
        help="for a multi-rank capture on CPUs: the machine's measured ceilings "
        "(measurements/ceilings/<id>.json), its roof and its device id",
    )
    imports.add_argument(
        "--name", required=True, help="folder and page name: lowercase, digits, '.', '_', '-'"
    )
    imports.add_argument(
        "--device",
        metavar="NAME",
        help="catalog device id or name; default: the GPU name the export records "
        "(a compute capability alone never picks one)",
    )
    imports.add_argument("--title", help="page title (default: NAME and the kernel count)")
    imports.add_argument("--model", help="what ran, in words (default: --registry-model)")
    imports.add_argument("--workload", help="the work profiled, in words")
    imports.add_argument(
        "--phase",
        default="kernel",
        choices=["train_step", "inference", "kernel"],
        help="train_step checks that the backward pass is in the profile (default: kernel)",
    )
    imports.add_argument(
        "--precision", help="in words (default: the precision with the most counted FLOPs)"
    )
    imports.add_argument("--batch", type=int, help="batch size, if one applies")
    imports.add_argument(
        "--registry-model",
        metavar="MODEL",
        help="registry model that ran (e.g. resnet18), with --dataset and --batch: the report "
        "sets its analytic FLOP count beside the counted one",
    )
    imports.add_argument("--dataset", help="cifar10, cifar100, mnist or imagenet")
    imports.add_argument(
        "--origin", help="where the file is published, a URL ideally (default: its file name)"
    )
    imports.add_argument("--citation", help="how to cite it (default: --origin)")
    imports.add_argument("--license", default="", help="the data's license, if published")
    imports.add_argument("--notes", default="", help="anything a reader should know")
    imports.add_argument("--measurements", default="measurements", help="default: %(default)s")
    _add_nsys_option(imports)
    imports.set_defaults(handler=cmd_import)


def _add_complexity(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    complexity = commands.add_parser(
        "complexity",
        help="analytic FLOPs, parameters, activations and bytes per layer of a model",
        description="Walk MODEL on the meta device with real input shapes and print, per "
        "layer, parameters, forward MACs and FLOPs, backward FLOPs (input and weight "
        "gradients) and bytes; then the step's totals (forward, loss, backward, optimizer), "
        "activation memory, minimal traffic and arithmetic intensity, and the "
        "FlopCounterMode cross-check (raw and groups-corrected). FLOPs = 2 x MACs for "
        "multiply-accumulate layers. Needs torch.",
    )
    complexity.add_argument(
        "model",
        metavar="MODEL",
        help="registry name (e.g. resnet18, gpt2), or your own as module:callable (e.g. "
        "mynet:TinyNet, imported from the working directory)",
    )
    complexity.add_argument(
        "--dataset",
        help="cifar10, cifar100, mnist, imagenet, voc, tokens or audio-16k: input shape and "
        "classes (default: the registry model's own, e.g. cifar10 for resnet18; your own "
        "model needs --dataset or --input)",
    )
    complexity.add_argument("--input", metavar="CxHxW", help="input shape, overrides --dataset's")
    complexity.add_argument(
        "--seq-len", type=int, help="token datasets: sequence length (default: 128)"
    )
    complexity.add_argument(
        "--vocab",
        type=int,
        help="token datasets: your model's vocabulary (registry models know theirs)",
    )
    complexity.add_argument(
        "--phase",
        choices=["train_step", "inference", "prefill", "decode"],
        help="what one step is (default: train_step; --inference means inference); prefill "
        "and decode are for causal language models (gpt2): decode is one token against a KV "
        "cache of --seq-len tokens",
    )
    complexity.add_argument("--batch", type=int, default=1, help="batch size (default: 1)")
    complexity.add_argument("--classes", type=int, help="output classes (default: the dataset's)")
    complexity.add_argument(
        "--optimizer",
        default="sgd-momentum",
        choices=["sgd", "sgd-momentum", "adam"],
        help="update rule costed per parameter (default: %(default)s)",
    )
    complexity.add_argument(
        "--precision",
        default="fp32",
        choices=["fp32", "tf32", "bf16-amp", "fp16-amp"],
        help="element size for bytes: 4 for fp32/tf32, 2 for the AMP modes (default: fp32)",
    )
    complexity.add_argument(
        "--inference", action="store_true", help="eval-mode forward only (no loss, no backward)"
    )
    complexity.add_argument(
        "--no-flop-counter", action="store_true", help="skip the FlopCounterMode cross-check"
    )
    complexity.add_argument("--json", action="store_true", help="one JSON object (base units)")
    complexity.set_defaults(handler=cmd_complexity)


def _add_rederive(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rederive = commands.add_parser(
        "rederive",
        help="recompute the findings run.json holds from each run's own files (no torch); "
        "--counts: the analytic counts too (torch)",
        description="For every run folder under MEASUREMENTS/runs/, derive again the findings "
        "its files support, which measure writes into run.json, and rewrite run.json "
        "atomically where they changed. With --counts, first count each run's analytic FLOPs "
        "and bytes again by today's conventions. Nothing is measured again. The findings: "
        + "; ".join(f"{spec.id}, {spec.row(mark='')}" for spec in specs_of(Stage.RUN)),
    )
    rederive.add_argument("--measurements", default="measurements", help="default: %(default)s")
    rederive.add_argument(
        "--counts",
        action="store_true",
        help="first count each run's analytic FLOPs and bytes again by today's conventions "
        "(needs torch, no GPU): where they differ, complexity.csv, layers.csv and run.json's "
        "complexity, modelled point and memory footprint are rewritten; the timings are kept",
    )
    rederive.set_defaults(handler=cmd_rederive)


def _add_trace_work(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    work = commands.add_parser(
        "trace-work",
        help="store each trace's analysed work beside it (trace-analysis.parquet; no torch)",
        description="For every run's profiled step and every imported trace under "
        "MEASUREMENTS, read and attribute the trace once and store its work table beside it "
        "as trace-analysis.parquet, which the report reads instead of the trace (measure and "
        "import write it themselves). Only files that are missing or out of date (another "
        "trace, another analysis version) are written; the report never reads one that is.",
    )
    work.add_argument("--measurements", default="measurements", help="default: %(default)s")
    work.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 when a trace has no current stored work",
    )
    work.set_defaults(handler=cmd_trace_work)


def _add_complexity_tables(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tables = commands.add_parser(
        "complexity-tables",
        help="write the complexity checks the report shows (needs torch)",
        description="Compute, for the torchvision models with published numbers, parameters "
        "and forward GMACs against torchvision's, FlopCounterMode's forward/backward (raw "
        "and groups-corrected), the shortcuts table (x3 rule, (H/224)^2 scaling, MACs as "
        "FLOPs at 224, 32 and 28 pixels), the FlopCounterMode defect probes and the "
        "analytic counts of imported exports that name their registry model, every registry "
        "model's totals at batch 1, 64 and 256, per-layer costs of alexnet and resnet18, and the "
        "analytic counts measurements/literature/*.csv asks for; write them "
        "as CSV with tables.json into OUT. Skipped when OUT was written by the same counter code, "
        "torch and torchvision.",
    )
    tables.add_argument("--out", default="measurements/complexity", help="default: %(default)s")
    tables.add_argument(
        "--force", action="store_true", help="rewrite even when the tables are up to date"
    )
    tables.set_defaults(handler=cmd_complexity_tables)


def _add_site(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    site = commands.add_parser(
        "site",
        help="generate the report pages and build the site (ProperDocs)",
        description="Read measurements/, write the generated pages into docs/measurements/ "
        "and docs/hardware.md (each page's data as CSV and Parquet and each report chart as "
        "SVG and PDF beside them in docs-downloads/, which the build copies into the site; a "
        "chart on a page per run or trace is saved from its menu in the browser), and build "
        "the static site with `properdocs build --strict`, executing "
        "the Explore notebook (docs/explore.ipynb) beside the build. Nothing is "
        "replaced unless the whole build succeeds. Skipped when site/ was built from the same "
        "inputs (measurements, docs, mkdocs.yml, the generator's code, library versions).",
    )
    add_build_folders(site, "output folder")
    site.add_argument(
        "--no-build", action="store_true", help="write the pages only (for `properdocs serve`)"
    )
    site.add_argument(
        "--force",
        action="store_true",
        help="rebuild even when site/ was built from the same inputs (parsed exports stay "
        "cached in .cache/roofline-atlas/ either way)",
    )
    site.set_defaults(handler=cmd_site)
