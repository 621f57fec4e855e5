"""Sessions: measure, gpu-bundle, site, publish, serve, tests, tests-no-torch, lint, fuzz, bench.

Run `nox -l` to list them. Virtualenvs are reused; no session downloads an interpreter.

Which Python: the sessions that need no torch (site, publish, serve, tests-no-torch, lint,
fuzz, bench) run on the interpreter nox runs under when it is 3.11, 3.12 or 3.13 (else on a
python3.11 from PATH). torch 2.14.1 is pinned for Python 3.11 only, so `measure` and `tests`
run on 3.11: the interpreter nox runs under if it is 3.11, else python3.11 from PATH; with
neither they stop and say so (`nox -s measure -- --help` needs no torch and runs anywhere).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import nox

nox.options.reuse_venv = "yes"
nox.options.download_python = "never"
nox.options.sessions = ["lint", "tests"]

SUPPORTED = ("3.11", "3.12", "3.13")
TORCH_SUPPORTED = "3.11"
RUNNING = f"{sys.version_info.major}.{sys.version_info.minor}"

# None: a virtualenv of the interpreter nox runs under (found even where it is not on PATH).
PYTHON: str | None = None if RUNNING in SUPPORTED else "3.11"
TORCH_PYTHON: str | None = (
    None if RUNNING == TORCH_SUPPORTED or not shutil.which("python3.11") else TORCH_SUPPORTED
)
HELP = ("-h", "--help")
# What `tests-no-torch` runs: every test of site, summarize, import, ingest and findings that
# imports no torch, and the README's examples (which build the site from a fresh copy).
NO_TORCH_TESTS = [
    f"tests/test_{name}.py"
    for name in (
        "cli", "import", "ingest_errors", "ingest_layouts", "ingest_real", "ingest_variants",
        "bad_corpus", "findings", "layer_findings", "trace_ingest", "trace_reader", "nsys",
        "multirank", "multirank_capture", "readme", "readme_examples", "standalone",
        "ncu_rep", "nsys_binary", "nsys_miniweather", "nsys_real_sqlite", "rocprof", "tbe",
    )
]  # fmt: skip


def _only_help(session: nox.Session) -> bool:
    return any(arg in HELP for arg in session.posargs)


def _require_torch_python(session: nox.Session, name: str) -> None:
    """Stop before pip resolves torch for an interpreter it is not pinned for (gigabytes)."""
    version = session.run(
        "python", "-c", "import sys; print('%d.%d' % sys.version_info[:2])", silent=True
    )
    if str(version).strip() != TORCH_SUPPORTED:
        session.error(
            f"`nox -s {name}` needs Python {TORCH_SUPPORTED} (torch 2.14.1 is pinned for it), "
            f"and nox runs under {RUNNING} with no python3.11 on PATH: install Python 3.11, "
            f"or run nox under it (`pipx install --python python3.11 nox`)"
        )


@nox.session(python=PYTHON)
def site(session: nox.Session) -> None:
    """Build the report from measurements/ into site/ (no torch, no network)."""
    session.install("-e", ".[site]")
    session.run("python", "-m", "generator", "site", *session.posargs)


@nox.session(python=PYTHON)
def publish(session: nox.Session) -> None:
    """Build the report as a version and commit it into the gh-pages branch with mike:
    `nox -s publish -- VERSION [--alias latest] [--push]` (no torch; `-- --help` for every
    option).

    The build is `nox -s site`'s (`python -m generator publish` calls the same build); only
    with --push does anything leave this repository."""
    if _only_help(session):
        session.install("-e", ".")  # the options need no site extra
    elif not session.posargs or session.posargs[0].startswith("-"):
        session.error("usage: nox -s publish -- VERSION [--alias latest] [--push]")
    else:
        session.install("-e", ".[site]")
    session.run("python", "-m", "generator", "publish", *session.posargs)


@nox.session(python=TORCH_PYTHON)
def measure(session: nox.Session) -> None:
    """Run measurements/experiments.toml on this machine (or a Slurm cluster: `-- --executor
    slurm --partition P`) into measurements/runs/.

    Arguments after `--` go to `python -m generator measure` (e.g. `-- --group A --force`).
    torch and torchvision are pinned exactly in the measure extra; `-- --help` installs
    neither and runs on any supported Python."""
    if _only_help(session):
        session.install("-e", ".")
        session.run("python", "-m", "generator", "measure", *session.posargs)
        return
    _require_torch_python(session, "measure")
    session.install("-e", ".[measure]")
    session.run("python", "-m", "generator", "measure", *session.posargs)
    if "--list" not in session.posargs:
        session.run("python", "-m", "generator", "complexity-tables")


@nox.session(python=PYTHON, name="gpu-bundle")
def gpu_bundle(session: nox.Session) -> None:
    """Build an xz tarball for a GPU machine without network: the source, the wheels `measure`
    needs for the target's Python and platform, less torch and torchvision (the machine's own
    are used; pip never resolves them here), and its installer (`-- --python-version 3.12
    --platform manylinux_2_28_x86_64`, the defaults; `-- --help` for every option).

    Nothing is installed into this session's virtualenv: its pip only downloads. See "Measuring
    on a GPU machine without network" in docs/usage.md."""
    session.run("bash", "scripts/gpu-session.sh", "bundle", *session.posargs, external=True)


@nox.session(python=PYTHON)
def serve(session: nox.Session) -> None:
    """Build the report, then serve it on http://127.0.0.1:8000 with live reload (ProperDocs,
    the docs core, on mkdocs.yml)."""
    session.install("-e", ".[site]")
    session.run("python", "-m", "generator", "site", "--no-build")
    serve = ("serve", "--dev-addr", "127.0.0.1:8000", *session.posargs)
    session.run("properdocs", *serve)


@nox.session(python=TORCH_PYTHON)
def tests(session: nox.Session) -> None:
    """Run the test suite (no GPU, no network; torch from the pinned measure extra)."""
    _require_torch_python(session, "tests")
    session.install("-e", ".[site,test,measure,ncu-rep]")
    session.run("pytest", *session.posargs)


@nox.session(python=PYTHON, name="tests-no-torch")
def tests_no_torch(session: nox.Session) -> None:
    """The tests of what needs no torch (site, summarize, import, ingest, findings, the
    README's examples) on the interpreter nox runs under: CI runs it on Python 3.13."""
    session.install("-e", ".[site,test,ncu-rep]")  # ncu-report's wheel is abi3: any Python
    session.run("pytest", *(session.posargs or NO_TORCH_TESTS))


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Time the ingest against a pandas baseline and a bare polars.read_csv at 100k, 1M and
    5M rows, and the torch.profiler trace ingest against HolisticTraceAnalysis' loader on
    ~10 and ~100 MB traces; write benchmarks/results.json (`-- --sizes 100000 --repeats 1`
    for a quick run, `-- --site-only` to re-time only the report build, `-- --traces-only`
    only the trace ingest, `-- --scaling-only` only the report at 100, 1,000, 3,000 and 10,000
    replicated runs, `-- --reports-only` only the binary .ncu-rep read against a bare
    ncu-report iteration, `-- --peer-only --tracelens PATH` only AMD's TraceLens against ours
    on the real traces; TraceLens is not on the package index, so PATH is a checkout of
    AMD-AGI/TraceLens; `-- --zensical-only --zensical PATH` the committed report's pages
    built by ProperDocs and by Zensical, PATH the zensical command of a separate virtualenv).
    torch is never installed here: HTA does not need it."""
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
