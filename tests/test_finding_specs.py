"""Findings as data (findings/specs.py): every finding is one FindingSpec, every check builds
its findings from its spec, and the Findings page, `rederive --help`, rederive and the
printer are made from the specs; measure and rederive derive a run's findings by one
function, so a real run's own files give back what measure wrote."""

from __future__ import annotations

import ast
import csv
import inspect
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from generator.cli.parser import build_parser
from generator.config import RunConfig
from generator.findings import specs
from generator.findings.finding_spec import FindingSpec, Stage
from generator.findings.run_checks import RunEvidence, run_findings, stored_evidence
from generator.findings.specs import FINDING_IDS, SPECS, specs_of
from generator.measure.run_files import measure_one
from generator.measure.step import StepResult
from generator.pages.findings import findings_page
from generator.records.finding import Finding, finding_lines, findings_json
from generator.records.run import TRACE_FILE, read_run
from generator.summaries.run_findings import rederive

REPO = Path(__file__).resolve().parents[1]
GENERATOR = REPO / "generator"
TEMPLATES = GENERATOR / "pages" / "templates"
RUNS = REPO / "measurements" / "runs"
# profiler-overhead and memory-mismatch, both as measure wrote them
MLP_B64 = "C-mnist-simple_mlp-mnist-b64-inference-fp32-cpu-8b225d5b"
ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def _constants() -> dict[str, FindingSpec]:
    """The specs module's FindingSpec constants by name."""
    return {name: v for name, v in vars(specs).items() if isinstance(v, FindingSpec)}


def _sources() -> dict[Path, ast.Module]:
    return {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(GENERATOR.rglob("*.py"))}


def test_each_finding_is_one_spec() -> None:
    assert len(set(FINDING_IDS)) == len(SPECS) == 31
    assert set(_constants().values()) == set(SPECS)  # none declared and left out of SPECS
    for spec in SPECS:
        assert ID.fullmatch(spec.id) and spec.catches and spec.fix and spec.checks, spec.id
        assert spec.severity in ("error", "warning", "info") and spec.milder != spec.severity


def test_no_finding_is_built_but_from_its_spec() -> None:
    """Finding(...) is called by FindingSpec.found (and where stored findings are read back) only: a
    check never writes an id or a severity of its own."""
    allowed = {GENERATOR / "findings" / "finding_spec.py", GENERATOR / "records" / "finding.py"}
    built = [
        f"{path.relative_to(REPO)}:{node.lineno}"
        for path, tree in _sources().items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (getattr(node.func, "id", None) or getattr(node.func, "attr", None)) == "Finding"
        and path not in allowed
    ]
    assert built == []


def _id_access(node: ast.AST) -> bool:
    """`x.id`, `x["id"]` or `x.get("id")`: where a finding's id is read."""
    if isinstance(node, ast.Attribute):
        return node.attr == "id"
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == "id"
    return (
        isinstance(node, ast.Call)
        and getattr(node.func, "attr", None) == "get"
        and bool(node.args)
        and isinstance(node.args[0], ast.Constant)
        and node.args[0].value == "id"
    )


def _strings(node: ast.AST) -> list[str]:
    return [
        n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def ids_used_in_code() -> dict[str, list[str]]:
    """Every id compared with a finding's id, or asked of stored findings, in generator/: id
    -> where."""
    used: dict[str, list[str]] = {}
    for path, tree in _sources().items():
        for node in ast.walk(tree):
            found: list[str] = []
            if isinstance(node, ast.Compare) and _id_access(node.left):
                found = [s for c in node.comparators for s in _strings(c)]
            elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "stored_findings":
                found = [s for a in node.args[1:] for s in _strings(a)]
            for finding_id in found:
                used.setdefault(finding_id, []).append(f"{path.relative_to(REPO)}:{node.lineno}")
    return used


def test_every_id_the_code_uses_has_its_spec() -> None:
    used = ids_used_in_code()
    assert {i: w for i, w in used.items() if i not in FINDING_IDS} == {}
    assert "uncounted-ops" in used  # analysis/device_choice.py, below findings/, names two


def test_the_code_use_scan_catches_an_unknown_id(tmp_path: Path) -> None:
    tree = ast.parse('if f.id in ("above-roof", "no-such"):\n    pass\n')
    compare = next(n for n in ast.walk(tree) if isinstance(n, ast.Compare))
    assert _id_access(compare.left) and _strings(compare.comparators[0]) == [
        "above-roof",
        "no-such",
    ]


def _named_in_prose(text: str) -> set[str]:
    """Backticked ids in a sentence that speaks of a finding (a table row is a sentence of
    its own)."""
    named = set()
    for sentence in re.split(r"(?<=\.)\s+|\n\n|\n(?=\|)", text):
        if "finding" in sentence:
            named |= {m for m in re.findall(r"`([a-z0-9][a-z0-9-]*)`", sentence) if "-" in m or m in (
                "recompiled", "throttled")}  # fmt: skip
    return named


def test_every_id_the_docs_and_templates_name_has_its_spec() -> None:
    pages = [
        *sorted((REPO / "docs").glob("*.md")),
        *sorted(TEMPLATES.glob("*.j2")),
        REPO / "README.md",
    ]
    named = {p.name: _named_in_prose(p.read_text(encoding="utf-8")) for p in pages}
    assert {n: ids - set(FINDING_IDS) for n, ids in named.items() if ids - set(FINDING_IDS)} == {}
    assert {"memory-mismatch", "profiler-overhead", "ncu-failed"} <= named["usage.md"]


def test_each_check_exists_and_raises_its_spec() -> None:
    """A spec's checks name functions of findings/ that build it (`CONST.found(`), and a RUN
    check takes the run's evidence."""
    by_spec = {spec: name for name, spec in _constants().items()}
    for spec in SPECS:
        for check in spec.checks:
            function = check.resolve()
            assert callable(function), check
            module = inspect.getsource(inspect.getmodule(function))  # type: ignore[arg-type]
            assert f"{by_spec[spec]}.found(" in module, (spec.id, check)
            if check.stage is Stage.RUN:
                assert list(inspect.signature(function).parameters) == ["run"], check


def test_the_run_checks_are_one_per_finding_in_measure_order() -> None:
    run = [spec.id for spec in specs_of(Stage.RUN)]
    assert run == [
        "profiler-overhead",
        "recompiled",
        "memory-mismatch",
        "ncu-failed",
        "nsys-failed",
    ]
    functions = [c.function for s in specs_of(Stage.RUN) for c in s.checks if c.stage is Stage.RUN]
    assert len(set(functions)) == len(functions) == len(run)
    evidence = RunEvidence(
        layer_s={"forward": 3.0},
        phase_median_s={"forward": 1.0},
        compiled={"recompiles_during_timing": 2},
        memory={
            "ratio": 10.0,
            "measured": {"step_bytes": 2**24},
            "analytic": {"total_bytes": 2**20},
        },
        ncu={"failed": "ncu did not finish in 60 s"},
        nsys={"failed": "nsys did not finish in 60 s"},
        group="B",
    )
    assert [f.id for f in run_findings(evidence)] == run
    assert run_findings(RunEvidence()) == []


def test_the_findings_page_lists_every_spec_in_order() -> None:
    page = findings_page([], {}, 0)
    rows = re.findall(r"^\| `([a-z0-9-]+)` \| \*(\w+)\*", page.markdown, re.M)
    assert [r[0] for r in rows] == list(FINDING_IDS)
    assert [r[1] for r in rows] == [s.severity for s in SPECS]
    assert "*warning* or *info*: a trace's ops with time but no model" in page.markdown
    template = (TEMPLATES / "findings.md.j2").read_text(encoding="utf-8")
    assert not set(re.findall(r"`([a-z0-9-]+)`", template)) & set(FINDING_IDS)  # none by hand


def test_rederive_help_lists_the_run_findings() -> None:
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command")
    # argparse wraps lines, at hyphens too: compare without whitespace
    text = re.sub(r"\s", "", commands.choices["rederive"].format_help())
    for spec in specs_of(Stage.RUN):
        assert re.sub(r"\s", "", f"{spec.id},{spec.severity}:{spec.catches}") in text
    others = set(FINDING_IDS) - {s.id for s in specs_of(Stage.RUN)}
    assert not {i for i in others if f"{i},warning:" in text or f"{i},info:" in text}


def test_the_printer_is_written_once() -> None:
    found = Finding(
        "above-roof", "error", "The step is above its roof", "efficiency 140 %", "check"
    )
    assert finding_lines(findings_json([found])) == [
        "  error    [above-roof] The step is above its roof",
        "           evidence: efficiency 140 %",
        "           fix: check",
    ]
    printers = [
        p.relative_to(REPO)
        for p in GENERATOR.rglob("*.py")
        if "evidence: {" in p.read_text(encoding="utf-8")
    ]
    assert printers == [Path("generator/records/finding.py")]


def test_a_spec_fills_in_its_severity_and_fix() -> None:
    found = specs.UNCOUNTED_OPS.found("title", "evidence")
    assert (found.id, found.severity, found.fix) == (
        "uncounted-ops",
        "warning",
        specs.UNCOUNTED_OPS.fix,
    )
    assert specs.UNCOUNTED_OPS.found("t", "e", "mine", milder=True).severity == "info"
    assert specs.UNCOUNTED_OPS.found("t", "e", "mine").fix == "mine"
    with pytest.raises(ValueError, match="memory-mismatch has no milder severity"):
        specs.MEMORY_MISMATCH.found("t", "e", milder=True)


def _value(text: str) -> Any:
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        return float(text)


def test_measure_on_a_real_runs_inputs_writes_what_rederive_derives(tmp_path: Path) -> None:
    """A committed run's own inputs (its timed steps, its profiled step's trace and ops, its
    measured memory) through measure's writer give the findings run.json holds, and rederive
    derives the same from the files."""
    run = RUNS / MLP_B64
    record = read_run(run)
    assert record is not None and record.memory is not None
    with (run / "steps.csv").open(newline="", encoding="utf-8") as handle:
        rows = [{k: _value(v) for k, v in row.items()} for row in csv.DictReader(handle)]
    with (run / "ops.csv").open(newline="", encoding="utf-8") as handle:
        ops = list(csv.DictReader(handle))
    stage = tmp_path / "stage"
    stage.mkdir()
    shutil.copy(run / TRACE_FILE, stage / TRACE_FILE)
    measured = record.memory["measured"]
    blocks = [{"memory": {k: measured[k] for k in ("method", "peak_window", "step_bytes")}}]
    config = RunConfig.from_dict(record.config.model_dump())
    written = measure_one(config, stage, None, StepResult(rows, record.settings or {}, ops), {}, {},
                          None, blocks)  # fmt: skip
    assert [f["id"] for f in written.findings or []] == ["profiler-overhead", "memory-mismatch"]
    assert written.findings == record.findings
    assert findings_json(run_findings(stored_evidence(run, record))) == record.findings
    copy = tmp_path / "measurements" / "runs" / MLP_B64
    shutil.copytree(run, copy)
    assert [r.changed for r in rederive(tmp_path / "measurements")] == [False]
