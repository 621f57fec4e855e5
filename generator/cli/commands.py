"""What each command does. Each imports what it needs when it runs: `site` on an unchanged
report answers before Polars, Altair or MkDocs are even imported."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from generator.errors import UserError


def cmd_site(args: argparse.Namespace) -> int:
    from generator.ingest.digests import recall_digests
    from generator.site.release import release_inputs
    from generator.site.stamp import input_fingerprint, report_up_to_date, up_to_date
    from generator.store import Store

    measurements, docs_dir, site_dir = Path(args.measurements), Path(args.docs), Path(args.site_dir)
    store = Store(Path(args.cache_dir))  # the digests and the executed notebook, here
    recall_digests(store)  # unchanged inputs are not read again
    fingerprint = (
        None if args.no_build else input_fingerprint(measurements, docs_dir, release_inputs(None))
    )
    if fingerprint and not args.force and up_to_date(docs_dir, site_dir, fingerprint):
        report_up_to_date(site_dir)  # answered before the heavy imports below
        return 0
    from generator.site.notebook import start

    # The Explore notebook (~4 s of a kernel) starts before the imports below (~0.8 s): at
    # 1,000 runs the stages otherwise waited for it.
    notebook = start(docs_dir, measurements, store, fingerprint) if fingerprint else None
    try:
        from generator.site.build import build_site  # deferred: needs the site extra

        build_site(
            measurements=measurements,
            docs_dir=docs_dir,
            site_dir=site_dir,
            run_mkdocs=not args.no_build,
            force=args.force,
            cache_dir=Path(args.cache_dir),
            fingerprint=fingerprint,
            notebook=notebook,
        )
    except BaseException:
        if notebook is not None:
            notebook.cancel()
        raise
    return 0


def require_torch(command: str) -> None:
    try:
        import torch  # noqa: F401
        import torchvision  # noqa: F401
    except ImportError:
        raise UserError(
            f"`{command}` needs torch and torchvision, which are not installed here",
            fix="run it through nox (`nox -s measure`), or pip install torch==2.14.1 "
            "torchvision==0.29.1 (exactly these versions)",
        ) from None


def cmd_check_gpu(args: argparse.Namespace) -> int:
    require_torch("check-gpu")
    from generator.measure.gpu_check import check_gpu

    report = check_gpu()
    print(json.dumps(report, indent=2))
    return 0 if report["paths"]["ncu_counters"] else 1


def complexity_input(args: argparse.Namespace) -> tuple[tuple[int, ...], int, int | None]:
    """Sample shape, classes and vocabulary from MODEL, --dataset, --input, --seq-len, --vocab."""
    from generator.models import check_input, dataset, model_spec, parse_shape

    spec = model_spec(args.model, key="MODEL")
    if not (args.dataset or spec.default_dataset or args.input):
        raise UserError(
            f"{args.model} is your own model: it has no default dataset",
            key="--dataset",
            fix="pass --dataset (e.g. --dataset mnist) or --input CxHxW",
        )
    data = dataset(args.dataset or spec.default_dataset or "imagenet", key="--dataset")
    shape: tuple[int, ...] = data.shape
    if args.input:
        shape = parse_shape(args.input)
    if data.kind == "tokens" and args.seq_len is not None:
        if args.seq_len <= 0:
            raise UserError(f"--seq-len must be positive, not {args.seq_len}", key="--seq-len")
        shape = (args.seq_len,)
    check_input(spec, data, shape, "--dataset")
    vocab = args.vocab if args.vocab is not None else spec.vocab
    if data.kind == "tokens" and vocab is None:
        raise UserError(
            f"{args.model} reads token ids: give the number of ids it embeds",
            key="--vocab",
            fix="pass --vocab N",
        )
    classes = args.classes if args.classes is not None else data.classes
    if classes <= 0:
        raise UserError(f"--classes must be positive, not {classes}", key="--classes")
    return shape, classes, vocab if data.kind == "tokens" else None


def cmd_complexity(args: argparse.Namespace) -> int:
    from generator.models import LM_PHASES, check_phase, model_spec

    phase = args.phase or ("inference" if args.inference else "train_step")
    check_phase(model_spec(args.model, key="MODEL"), phase, "--phase")
    shape, classes, vocab = complexity_input(args)
    require_torch("complexity")
    from generator.complexity import analyze
    from generator.complexity.flop_counter import flop_counter_summary
    from generator.complexity.report import complexity_dict, format_complexity

    training = phase == "train_step"
    result = analyze(
        args.model,
        shape,
        args.batch,
        classes,
        optimizer=args.optimizer,
        precision=args.precision,
        training=training,
        vocab=vocab,
        lm_phase=phase if phase in LM_PHASES else None,
    )
    counter = None
    if not args.no_flop_counter and training:
        counter = flop_counter_summary(args.model, shape, args.batch, classes, vocab)
    data_out = complexity_dict(result, counter)
    if args.json:
        print(json.dumps(data_out, allow_nan=False))
    else:
        print(format_complexity(data_out))
    return 0


def cmd_complexity_tables(args: argparse.Namespace) -> int:
    require_torch("complexity-tables")
    from generator.complexity.tables import up_to_date, write_tables
    from generator.measure.provenance import command_line

    out = Path(args.out)
    if not args.force and up_to_date(out):
        print(f"{out}: up to date (same counter code, torch and torchvision); --force rewrites")
        return 0
    for path in write_tables(out, command_line(args.argv)):
        print(path)
    return 0


def cmd_rederive(args: argparse.Namespace) -> int:
    from generator.summaries.run_findings import rederive

    if args.counts:
        require_torch("rederive --counts")
        from generator.measure.recount import recount

        recounted = recount(Path(args.measurements))
        for counted in recounted:
            if counted.changed:
                print(f"{counted.run_id}: counted again ({', '.join(counted.changed)})")
        changed = sum(bool(counted.changed) for counted in recounted)
        print(f"{len(recounted)} runs counted, {changed} with other counts today")
    done = rederive(Path(args.measurements))
    for run in done:
        if run.changed:
            print(f"{run.run_id}: {', '.join(run.findings) or 'no findings'}")
    changed = sum(run.changed for run in done)
    print(f"{len(done)} runs read, {changed} run.json rewritten")
    return 0


def cmd_trace_work(args: argparse.Namespace) -> int:
    from generator.summaries.stored_work import store_work

    done = store_work(Path(args.measurements), check=args.check)
    stale = [d for d in done if d.was != "current"]
    failed = [d for d in done if d.error]
    if args.check:
        for item in stale:
            print(f"{item.trace}: {item.was}")
        print(f"{len(done)} traces, {len(stale)} without current stored work")
        return 1 if stale else 0
    print(f"{len(done)} traces: {len(stale) - len(failed)} stored, {len(failed)} failed")
    return 1 if failed else 0


def cmd_measure(args: argparse.Namespace) -> int:
    from generator.config import load_experiments, resolve_runs

    config_path = Path(args.config)
    if args.list:
        for run in resolve_runs(load_experiments(config_path), args.group):
            if args.device not in (None, run.device):
                continue
            print(
                f"{run.group:<4} {run.model:<14} {run.dataset:<9} b{run.batch:<5} "
                f"{run.phase:<11} {run.precision:<9} {run.device}"
            )
        return 0
    _check_executor_flags(args)
    require_torch("measure")
    if args.executor == "slurm":
        return _measure_on_slurm(args, config_path)
    from generator.measure.runner import execute

    outcomes = execute(
        config_path,
        Path(args.measurements),
        args.group,
        force=args.force,
        use_ncu=args.ncu,
        argv=args.argv,
        device=args.device,
        keep_ceilings=args.keep_ceilings,
        ncu_timeout_s=args.ncu_timeout,
        ncu_replay=(args.ncu_replay, args.ncu_kernels),
        ncu_clock_control=args.ncu_clock_control,
        seed=args.seed if args.seed is not None else time.time_ns() % 2**31,
        use_nsys=args.nsys,
        nsys_timeout_s=args.nsys_timeout,
        budget_s=args.budget,
    )
    return 1 if any(o.status == "failed" for o in outcomes) else 0


def cmd_remeasure(args: argparse.Namespace) -> int:
    from rich.console import Console

    from generator.measure.block import ForkedBlocks
    from generator.measure.provenance import command_line
    from generator.measure.remeasure import remeasure

    if args.sample < 1:
        raise UserError(f"--sample {args.sample}: nothing to re-measure", key="--sample",
                        fix="ask for at least one configuration")  # fmt: skip
    remeasure(
        Path(args.config), Path(args.measurements), args.sample, args.device, args.group,
        args.seed if args.seed is not None else time.time_ns() % 2**31, args.min_age,
        command_line(args.argv), ForkedBlocks(), Console(stderr=True), args.compile,
    )  # fmt: skip
    return 0


SLURM_ONLY_FLAGS = ("partition", "gpus_per_task", "cpus_per_task", "array_parallelism",
                    "account", "time")  # fmt: skip


def _check_executor_flags(args: argparse.Namespace) -> None:
    """A Slurm option given to a local measure would be silently ignored: say so."""
    given = [name for name in SLURM_ONLY_FLAGS if getattr(args, name) is not None]
    if args.executor == "local" and given:
        flag = "--" + given[0].replace("_", "-")
        raise UserError(
            f"{flag} only applies to --executor slurm",
            key=flag,
            fix=f"add --executor slurm, or drop {flag} to measure on this machine",
        )
    if args.executor == "slurm" and getattr(args, "nsys", False):
        raise UserError(
            "--nsys records on this machine only; Slurm tasks do not run nsys yet",
            key="--nsys",
            fix="drop --nsys for the Slurm campaign, or run `measure --nsys` on the GPU node",
        )


def _measure_on_slurm(args: argparse.Namespace, config_path: Path) -> int:
    from generator.measure.slurm.execute import Detached, SlurmRequest, execute_slurm
    from generator.measure.slurm.options import CommandLineSlurm

    flags = CommandLineSlurm(
        partitions=tuple(p.strip() for p in args.partition.split(",") if p.strip())
        if args.partition
        else None,
        gpus_per_task=args.gpus_per_task,
        cpus_per_task=args.cpus_per_task,
        array_parallelism=args.array_parallelism,
        account=args.account,
        time_min=args.time,
    )
    request = SlurmRequest(
        config_path=config_path,
        measurements=Path(args.measurements),
        groups=args.group,
        device=args.device,
        force=args.force,
        use_ncu=args.ncu,
        ncu_timeout_s=args.ncu_timeout,
        ncu_clock_control=args.ncu_clock_control,
        ncu_replay=(args.ncu_replay, args.ncu_kernels),
        argv=args.argv,
        flags=flags,
        slurm_folder=Path(args.slurm_folder),
        poll_s=args.poll,
        keep_ceilings=args.keep_ceilings,
    )
    try:
        outcomes = execute_slurm(request)
    except Detached as detached:
        waiting = sum(o.status == "detached" for o in detached.outcomes)
        print(
            f"\nstopped following: {waiting} Slurm task(s) keep running. Run the same command "
            "again to re-attach (finished runs are kept, nothing is submitted twice).",
            file=sys.stderr,
        )
        return 130
    return 1 if any(o.status == "failed" for o in outcomes) else 0
