"""The command line's measuring commands: `measure` (with its Slurm executor options),
`remeasure` (the calibration check) and `check-gpu`."""

from __future__ import annotations

import argparse

from generator.cli.commands import cmd_check_gpu, cmd_measure, cmd_remeasure


def add_remeasure(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    remeasure = commands.add_parser(
        "remeasure",
        help="measure N committed results again and count how many fall inside their "
        "stated 95 %% intervals (the calibration check)",
        description="Pick --sample N committed results at random (timed in blocks, on this "
        "machine's device, finished at least --min-age minutes ago), measure them again in "
        "a new invocation with the same design (fresh worker processes, its own shuffled "
        "order, no profiling), and count how many re-measured estimates fall inside the "
        "committed 95 % re-measurement intervals. Writes "
        "measurements/calibration/<when>.json; measurements/runs/ is not touched. The "
        "report states the coverage and raises not-reproduced on each miss.",
    )
    remeasure.add_argument("--sample", type=int, default=12, metavar="N",
                           help="how many configurations (default: %(default)s)")  # fmt: skip
    remeasure.add_argument(
        "--group", action="append", metavar="ID",
        help="draw only from results that serve this group (repeatable; default: all)",
    )  # fmt: skip
    remeasure.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                           help="default: %(default)s")  # fmt: skip
    remeasure.add_argument(
        "--compile", default=None, metavar="MODE",
        help="draw only from results run in this compile mode (eager, compile, ...; "
        "default: any)",
    )  # fmt: skip
    remeasure.add_argument(
        "--min-age", type=float, default=30.0, metavar="MINUTES",
        help="only results finished at least this long ago (default: %(default)s)",
    )  # fmt: skip
    remeasure.add_argument("--seed", type=int, default=None,
                           help="which results and their order (default: from the clock)")  # fmt: skip
    remeasure.add_argument(
        "--config", default="measurements/experiments.toml", help="default: %(default)s"
    )
    remeasure.add_argument("--measurements", default="measurements", help="default: %(default)s")
    remeasure.set_defaults(handler=cmd_remeasure)


def add_measure(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    measure = commands.add_parser(
        "measure",
        help="run the experiments of measurements/experiments.toml on this machine "
        "(or a Slurm cluster: --executor slurm)",
        description="Run every configured experiment (or --group) on this machine (or, with "
        "--executor slurm, as Slurm job arrays; see the executor options). A configuration "
        "that several groups list is measured once and every group reads that one result. "
        "It is timed in blocks: each block is a fresh worker process (build, warm-up, then "
        "timed steps with forward, loss, backward and optimizer step apart), and the blocks "
        "of the whole matrix run in a shuffled order (--seed), wave after wave, until each "
        "configuration's 95 % re-measurement interval (the one the report states, from at "
        "least 5 blocks) is within ±ci_target (default 2 %) or "
        "max_blocks, max_iterations or max_seconds stops it; each block records the "
        "machine's load, CPU frequency and, on a GPU, its clocks and throttle reasons. "
        '(A group with method = "rounds", and every Slurm task, is timed in one process '
        "instead, its configurations taking turns in rounds.) Then one profiled step, the "
        "analytic complexity and full provenance go into measurements/runs/<run-id>/. Runs "
        "already measured with the same configuration on the same device are skipped "
        "(resume), and every block is kept in MEASUREMENTS/pending/ the moment it is timed, "
        "so a call that is stopped (SIGTERM, Ctrl-C, a time limit, SIGKILL) resumes from its "
        "blocks; --force measures them again, adding blocks to a result timed in blocks. "
        "Failures are recorded and the rest go on; exit status 1 if any failed.",
    )
    measure.add_argument(
        "--config", default="measurements/experiments.toml", help="default: %(default)s"
    )
    measure.add_argument("--measurements", default="measurements", help="default: %(default)s")
    measure.add_argument(
        "--group",
        action="append",
        metavar="ID",
        help="only this experiment group (repeatable; default: all)",
    )
    measure.add_argument(
        "--device",
        choices=("cpu", "cuda"),
        help="only the runs on this device (default: every device the matrix names; on a "
        "GPU machine, --device cuda leaves the CPU runs measured elsewhere alone)",
    )
    measure.add_argument(
        "--force",
        action="store_true",
        help="measure runs (and ceilings) already recorded again: a result timed in blocks "
        "gains this call's blocks (its history grows), any other is replaced",
    )
    measure.add_argument(
        "--keep-ceilings",
        action="store_true",
        help="with --force: keep the device's recorded ceilings (the roofs every page "
        "reads) and measure only the runs again",
    )
    measure.add_argument(
        "--seed",
        type=int,
        default=None,
        help="the shuffled order of the blocks (default: from the clock, and printed)",
    )
    measure.add_argument(
        "--budget",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="the time this call has (a GPU lease, a Slurm time limit): it estimates each "
        "configuration's minimum blocks and close, says up front which fit, and times only "
        "those, whole, shuffled among themselves; the rest are left for a later call "
        "(default: experiments.toml's budget_seconds, else no budget). Every block is kept "
        "in MEASUREMENTS/pending/ as it is timed, budget or not: a call that is stopped "
        "(SIGTERM, Ctrl-C, SIGKILL) resumes from them the next time",
    )
    measure.add_argument(
        "--ncu",
        action="store_true",
        help="also profile one step (training or inference) per CUDA run under Nsight Compute "
        "(needs a GPU and ncu on PATH), collecting the metrics this GPU has: range replay over "
        "the phases' NVTX ranges (every kernel of the step, per phase: ncu-range.csv), then "
        "kernel replay of a sample of its launches (per kernel: ncu.csv); ncu's messages go "
        "to ncu.log and the replay mode into run.json. A run already measured is not timed "
        "again: where it has no ncu profile (or its profile failed: the finding ncu-failed) "
        "only its profile is made, and its folder rewritten in one rename; an ncu that fails "
        "never costs a run its timing",
    )
    measure.add_argument(
        "--ncu-replay",
        choices=["range", "app-range", "kernel"],
        default="range",
        help="how the step's ranges are replayed: range (in memory), app-range (the child "
        "runs again per pass), or kernel (every kernel one by one, no range pass; the slowest) "
        "(default: %(default)s)",
    )
    measure.add_argument(
        "--ncu-kernels",
        type=int,
        default=200,
        metavar="N",
        help="the kernel-replay sample: the step's first N kernel launches (0: no kernel "
        "pass after a range pass) (default: %(default)s)",
    )
    measure.add_argument(
        "--ncu-clock-control",
        choices=["base", "none"],
        default="base",
        help="the GPU's clocks while ncu profiles: base (ncu locks them to the base clock, "
        "so kernel times are comparable across runs and machines) or none (left as found: "
        "use it on shared or cloud machines, which forbid changing clocks; ncu then measures "
        "at the clocks the card runs at). run.json and the run page say which (default: "
        "%(default)s)",
    )
    measure.add_argument(
        "--ncu-timeout",
        type=float,
        default=1800.0,
        metavar="SECONDS",
        help="an ncu profile that takes longer is stopped: the run keeps its timing, with the "
        "finding ncu-failed (default: %(default)s)",
    )
    measure.add_argument(
        "--nsys",
        action="store_true",
        help="also record one step per CUDA run under Nsight Systems (needs a GPU and nsys on "
        "PATH, no counter access): its SQLite export is stored as nsys.sqlite and nsys's "
        "messages as nsys.log; `python -m generator summarize RUN/nsys.sqlite` reads it. A "
        "run already measured without a capture (or whose capture failed: nsys-failed) is "
        "recorded without timing it again",
    )
    measure.add_argument(
        "--nsys-timeout",
        type=float,
        default=1800.0,
        metavar="SECONDS",
        help="an nsys capture that takes longer is stopped: the run keeps its timing, with "
        "the finding nsys-failed (default: %(default)s)",
    )
    measure.add_argument(
        "--list", action="store_true", help="print the resolved runs and exit (no torch needed)"
    )
    _add_slurm_options(measure)
    measure.set_defaults(handler=cmd_measure)


def _add_slurm_options(measure: argparse.ArgumentParser) -> None:
    slurm = measure.add_argument_group(
        "executor",
        "Where the runs execute. local (the default): here, one block (a fresh worker "
        "process) at a time, shuffled across the matrix. slurm: one submitit job array per "
        "partition, each task "
        "one configuration with the same runner, writing its run folder into MEASUREMENTS/runs/ "
        "on the shared filesystem; a live bar follows the jobs' states. Ctrl-C leaves the jobs "
        "running, and the same command re-attaches: measured runs are skipped by config hash "
        "and queued or running ones are not submitted twice (the job manifest in "
        "--slurm-folder). A task that dies is recorded as a failed run with the tail of its "
        "stderr. Each option also has a per-device key in experiments.toml ([slurm.cpu], "
        "[slurm.cuda]); the flags override it.",
    )
    slurm.add_argument(
        "--executor", choices=("local", "slurm"), default="local", help="default: %(default)s"
    )
    slurm.add_argument(
        "--partition",
        metavar="P[,P2…]",
        help="Slurm partition(s); several (one GPU type each) run every selected run on each "
        "(default: [slurm.<device>].partition, else the cluster's default partition)",
    )
    slurm.add_argument(
        "--gpus-per-task", type=int, metavar="N", help="default: 1 for CUDA runs, 0 for CPU runs"
    )
    slurm.add_argument(
        "--cpus-per-task", type=int, metavar="N", help="default: the partition's own"
    )
    slurm.add_argument(
        "--array-parallelism",
        type=int,
        metavar="N",
        help="at most N tasks of an array run at once (default: Slurm's limit)",
    )
    slurm.add_argument("--account", metavar="A", help="Slurm account to charge")
    slurm.add_argument(
        "--time", type=int, metavar="MIN", help="time limit per task in minutes (default: 60)"
    )
    slurm.add_argument(
        "--slurm-folder",
        default=".slurm",
        metavar="DIR",
        help="job scripts, logs, receipts and the job manifest, on the shared filesystem "
        "(default: %(default)s)",
    )
    slurm.add_argument(
        "--poll",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="how often squeue is asked while following the jobs (default: %(default)s)",
    )


def _seconds(text: str) -> float:
    """A positive number of seconds, else a usage error that says so."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return value


def add_check_gpu(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = commands.add_parser(
        "check-gpu",
        help="say what this machine has for `measure` (torch, CUDA, GPU, ncu, counter access)",
        description="Print, as JSON, the torch/CUDA/cuDNN versions, the GPU and its driver, "
        "where ncu is and whether it may read hardware counters (it profiles one small "
        "kernel to find out), and which measure paths are open: timing and traces always, "
        "CUDA timing with a GPU, `measure --ncu` only with counter access. Exit status 1 "
        "when there is no GPU or ncu cannot read counters.",
    )
    check.set_defaults(handler=cmd_check_gpu)
