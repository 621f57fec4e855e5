"""Sessions: measure, site, publish, serve, tests, lint, fuzz, bench.

Run `nox -l` to list them. Virtualenvs are reused; no session downloads an interpreter.
"""

from __future__ import annotations

from pathlib import Path

import nox

nox.options.reuse_venv = "yes"
nox.options.download_python = "never"
nox.options.sessions = ["lint", "tests"]

PYTHON = "3.11"


@nox.session(python=PYTHON)
def site(session: nox.Session) -> None:
    """Build the report from measurements/ into site/ (no torch, no network)."""
    session.install("-e", ".[site]")
    session.run("python", "-m", "generator", "site", *session.posargs)


@nox.session(python=PYTHON)
def publish(session: nox.Session) -> None:
    """Build the report as a version and commit it into the gh-pages branch with mike:
    `nox -s publish -- VERSION [--alias latest] [--push]` (no torch).

    The build is `nox -s site`'s (`python -m generator publish` calls the same build); only
    with --push does anything leave this repository."""
    if not session.posargs or session.posargs[0].startswith("-"):
        session.error("usage: nox -s publish -- VERSION [--alias latest] [--push]")
    session.install("-e", ".[site]")
    session.run("python", "-m", "generator", "publish", *session.posargs)


@nox.session(python=PYTHON)
def measure(session: nox.Session) -> None:
    """Run measurements/experiments.toml on this machine (or a Slurm cluster: `-- --executor
    slurm --partition P`) into measurements/runs/.

    Arguments after `--` go to `python -m generator measure` (e.g. `-- --group A --force`).
    torch and torchvision are pinned exactly in the measure extra."""
    session.install("-e", ".[measure]")
    session.run("python", "-m", "generator", "measure", *session.posargs)
    if not any(arg in session.posargs for arg in ("--list", "-h", "--help")):
        session.run("python", "-m", "generator", "complexity-tables")


@nox.session(python=PYTHON)
def serve(session: nox.Session) -> None:
    """Build the report, then serve it on http://127.0.0.1:8000 with live reload."""
    session.install("-e", ".[site]")
    session.run("python", "-m", "generator", "site", "--no-build")
    serve = ("serve", "--dev-addr", "127.0.0.1:8000", *session.posargs)
    session.run("python", "-m", "generator.site.lean_imports", *serve)  # mkdocs serve


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """Run the test suite (no GPU, no network; torch from the pinned measure extra)."""
    session.install("-e", ".[site,test,measure,ncu-rep]")
    session.run("pytest", *session.posargs)


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Time the ingest against a pandas baseline and a bare polars.read_csv at 100k, 1M and
    5M rows, and the torch.profiler trace ingest against HolisticTraceAnalysis' loader on
    ~10 and ~100 MB traces; write benchmarks/results.json (`-- --sizes 100000 --repeats 1`
    for a quick run, `-- --site-only` to re-time only the report build, `-- --traces-only`
    only the trace ingest, `-- --scaling-only` only the report at 100, 1,000, 3,000 and 10,000
    replicated runs, `-- --reports-only` only the binary .ncu-rep read against a bare
    ncu-report iteration). torch is never installed here: HTA does not need it."""
    # the site extra: the rebuild is timed too; ncu-rep: the binary report's read and its floor
    session.install("-e", ".[site,bench,ncu-rep]")
    session.run("python", "-m", "benchmarks.run", *session.posargs)


@nox.session(python=PYTHON)
def fuzz(session: nox.Session) -> None:
    """Mutation-fuzz the ncu CSV ingest for 60 s, the torch.profiler trace ingest (single
    traces and multi-rank captures) for 120 s, then the Nsight Systems ingest (stats CSV
    reports and SQLite exports) for 60 s, then the binary reports (.ncu-rep, .nsys-rep) for
    60 s (`-- --seconds N --seed S` sets all four).

    Crashing inputs land in tests/data/fuzz-corpus/crashes/ and fail the session (after
    both fuzzers have run)."""
    session.install("-e", ".[test,ncu-rep]")
    failed = []
    modules = ("tests.fuzz_ingest", "tests.fuzz_trace", "tests.fuzz_nsys", "tests.fuzz_reports")
    for module in modules:
        try:
            session.run("python", "-m", module, *session.posargs)
        except nox.command.CommandFailed:
            failed.append(module)
    if failed:
        session.error(f"{', '.join(failed)} found crashes: see tests/data/fuzz-corpus/crashes/")


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff (lint + format check), mypy --strict on generator/, actionlint on the workflows."""
    # mypy must see the same libraries the code runs with, not just the linters.
    session.install("-e", ".[site,test,lint]")
    session.run("ruff", "check", "generator", "tests", "benchmarks", "noxfile.py")
    session.run("ruff", "format", "--check", "generator", "tests", "benchmarks", "noxfile.py")
    session.run("mypy")
    workflows = sorted(str(p) for p in Path(".github/workflows").glob("*.yml"))
    if not workflows:
        session.error("no workflow in .github/workflows/ for actionlint to check")
    session.run("actionlint", *workflows)
