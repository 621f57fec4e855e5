"""What `summarize` and `import` do with a user's files: an ncu export, a torch.profiler
trace, a multi-rank capture or a timeline capture (Nsight Systems, rocprofv3), each told
apart by content through the input formats registry (`ingest/formats.py`): each format's
family says which of the pipelines below runs."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator.cli.commands import complexity_input, require_torch
from generator.errors import UserError
from generator.records.import_source import NCU_REPORT_FILE

if TYPE_CHECKING:
    from generator.analysis.nsys_phases import ModelWork
    from generator.ingest.formats import InputFormat
    from generator.records.ceilings import MeasuredCeilings
    from generator.summaries.importer import ImportRequest


def cmd_summarize(args: argparse.Namespace) -> int:
    from generator.ingest.formats import sniff
    from generator.ingest.nsys.capture import nsys_files
    from generator.records.ceilings import read_ceilings

    ceilings = read_ceilings(Path(args.ceilings)) if args.ceilings else None
    paths = [Path(name) for name in args.files]
    folders = [p for p in paths if p.is_dir()]
    if args.ranks or any(not nsys_files([p]) for p in folders):
        return _summarize_ranks(args, paths, ceilings)
    with ExitStack() as converted:
        # a format its tool must convert first (a binary nsys report: its SQLite export)
        paths = [
            converted.enter_context(found.convert(p, args.nsys))
            if (found := sniff(p)) is not None and found.convert is not None
            else p
            for p in paths
        ]
        return _summarize_files(args, paths, ceilings)


def _summarize_files(
    args: argparse.Namespace, paths: list[Path], ceilings: MeasuredCeilings | None
) -> int:
    from generator.ingest.formats import CAPTURE, NCU, TRACE, Family, sniff

    # by content, through the formats registry: any file may be called anything
    families: dict[Path, Family] = {
        p: CAPTURE if p.is_dir() else (found.family if (found := sniff(p)) else NCU) for p in paths
    }  # a file no format claims goes to the ncu CSV reader, whose errors say what it lacks
    shown = 0
    for path in paths:
        if families[path] is TRACE:
            from generator.summaries.trace import format_trace_summary, summarize_trace

            summary = summarize_trace(path, args.device, args.phase, ceilings)
            shown = _print_summary(args, summary, format_trace_summary, shown)
        elif families[path] is NCU:
            from generator.ingest.ncu_csv import parse_size
            from generator.summaries.export import format_summary, summarize_file

            budget = parse_size(args.memory_budget) if args.memory_budget else None
            summary = summarize_file(path, args.device, args.phase, budget)
            shown = _print_summary(args, summary, format_summary, shown)
    capture = [p for p in paths if families[p] is CAPTURE]
    if capture:  # the files of one capture, summarized together
        from generator.summaries.nsys import format_nsys_summary, summarize_nsys

        work = _model_work(args) if args.model else None
        _print_summary(args, summarize_nsys(capture, work), format_nsys_summary, shown)
    elif args.model:
        raise UserError(
            "--model places a model's FLOPs on an Nsight Systems capture's phases",
            key="--model",
            fix="pass an nsys SQLite export or stats reports, or leave --model out",
        )
    return 0


def _model_work(args: argparse.Namespace) -> ModelWork:
    """The model's analytic FLOPs per phase for `summarize --model` (needs torch)."""
    from generator.analysis.nsys_phases import ModelWork

    if not args.batch or args.batch <= 0:
        raise UserError(
            "--model needs the batch size that ran", key="--batch", fix="pass --batch N"
        )
    # summarize has no --input, --seq-len, --vocab or --classes: each model's own defaults
    defaults = dict.fromkeys(("input", "seq_len", "vocab", "classes"))
    shape, classes, vocab = complexity_input(argparse.Namespace(**(vars(args) | defaults)))
    require_torch("summarize --model")
    from generator.complexity import analyze

    training = args.phase != "inference"
    result = analyze(args.model, shape, args.batch, classes, training=training, vocab=vocab)
    flops = {
        "forward": result.forward_flops,
        "loss": result.loss_flops,
        "backward": result.backward_flops,
        "optimizer": result.optimizer_flops,
    }
    return ModelWork(args.model, args.batch, flops, float(result.min_traffic_bytes))


def _print_summary(
    args: argparse.Namespace,
    summary: dict[str, Any],
    text: Callable[[dict[str, Any]], str],
    shown: int,
) -> int:
    if args.json:
        print(json.dumps(summary, allow_nan=False))
    else:
        if shown:
            print()
        print(text(summary))
    return shown + 1


def _summarize_ranks(
    args: argparse.Namespace, paths: list[Path], ceilings: MeasuredCeilings | None
) -> int:
    """One multi-rank capture: printed with its problems; exit status 1 when a rank could
    not be used (the good ranks are still shown)."""
    from generator.summaries.multirank import format_multirank_summary, summarize_ranks

    summary = summarize_ranks(paths, args.device, ceilings)
    print(json.dumps(summary, allow_nan=False) if args.json else format_multirank_summary(summary))
    for problem in summary["problems"]:
        print(f"error: {problem}", file=sys.stderr)
    return 1 if summary["problems"] else 0


def cmd_import(args: argparse.Namespace) -> int:
    from generator.ingest.trace.ranks import is_multirank
    from generator.summaries.export import format_summary
    from generator.summaries.importer import ImportRequest, import_export

    paths = [Path(name) for name in args.files]
    request = ImportRequest(
        file=paths[0],
        name=args.name,
        measurements=Path(args.measurements),
        device=args.device,
        title=args.title,
        model=args.model,
        workload=args.workload,
        phase=args.phase,
        precision=args.precision,
        batch=args.batch,
        registry_model=args.registry_model,
        dataset=args.dataset,
        origin=args.origin,
        citation=args.citation,
        license=args.license,
        notes=args.notes,
    )
    from generator.ingest.formats import is_capture, sniff
    from generator.ingest.nsys.capture import nsys_files

    # through the formats registry: a format its tool must convert first is imported as
    # the conversion (kept verbatim beside it), a timeline capture's files together
    converts = [(p, found) for p in paths if (found := sniff(p)) and found.convert]
    if converts:
        return _import_converted(request, paths, converts, args.nsys)
    if all(is_capture(p) or (p.is_dir() and nsys_files([p])) for p in paths):
        return _import_nsys(request, paths)
    if is_multirank(paths):
        return _import_capture(request, paths, args.ceilings)
    if args.ceilings:
        raise UserError(
            "--ceilings places a multi-rank CPU capture; a single trace's device is --device",
            fix="leave --ceilings out, or pass the capture's folder",
        )
    result = import_export(request)
    from generator.summaries.trace import format_trace_summary

    trace = "layout" not in result.summary
    print((format_trace_summary if trace else format_summary)(result.summary))
    stored = "trace.json.gz" if trace else "ncu.csv verbatim"
    if (result.folder / NCU_REPORT_FILE).is_file():
        stored = f"{NCU_REPORT_FILE} verbatim, and ncu.csv: what was read from it"
    print(f"\nimported into {result.folder}/ ({stored}, source.toml)")
    print(f"  edit {result.folder / 'source.toml'} to complete title, model and citation")
    if result.source.registry_model:
        print(
            "  run `python -m generator complexity-tables` (needs torch: pip install "
            "'.[measure]') to set the analytic FLOP count beside the counted one"
        )
    print("  then `nox -s site` builds the report with it")
    return 0


def _import_converted(
    request: ImportRequest,
    paths: list[Path],
    converts: list[tuple[Path, InputFormat]],
    tool: str | None,
) -> int:
    """A binary nsys report is imported as the SQLite export nsys makes of it, and kept
    verbatim beside it."""
    report, found = converts[0]
    assert found.convert is not None
    if len(paths) > 1:
        raise UserError(
            f"a {found.name} holds the whole capture: pass it alone",
            file=report,
            fix=f"import the {report.suffix or found.name} file by itself",
        )
    with found.convert(report, tool) as export:
        return _import_nsys(request, [export], kept=[report])


def _import_nsys(request: ImportRequest, paths: list[Path], kept: list[Path] | None = None) -> int:
    from generator.summaries.nsys import format_nsys_summary
    from generator.summaries.nsys_import import import_nsys

    result = import_nsys(request, paths, kept or [])
    print(format_nsys_summary(result.summary))
    print(f"\nimported into {result.folder}/ (nsys/: the files verbatim, source.toml)")
    print(f"  edit {result.folder / 'source.toml'} to complete title, model and citation")
    print("  then `nox -s site` builds the report with it")
    return 0


def _import_capture(request: ImportRequest, paths: list[Path], ceilings: str | None) -> int:
    from generator.records.ceilings import read_ceilings
    from generator.summaries.capture_import import import_capture
    from generator.summaries.multirank import format_multirank_summary

    measured = read_ceilings(Path(ceilings)) if ceilings else None
    result = import_capture(request, paths, measured)
    print(format_multirank_summary(result.summary))
    print(
        f"\nimported into {result.folder}/ (ranks/rank-N.json.gz, ranks-analysis.parquet, "
        "source.toml)"
    )
    print(f"  edit {result.folder / 'source.toml'} to complete title, model and citation")
    print("  then `nox -s site` builds the report with it")
    return 0
