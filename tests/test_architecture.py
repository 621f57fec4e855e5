"""The package's stages, read from the code's own imports: each stage imports only the
stages below it, the module graph has no cycle, and the Architecture page states the same
order."""

from __future__ import annotations

import ast
import graphlib
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GENERATOR = REPO / "generator"

# Bottom to top. A stage is a top-level module or package of `generator`.
STAGES = (
    "errors",
    "atomic",
    "formatting",
    "stats",
    "hierarchical",
    "store",
    "memo",
    "models",
    "records",
    "catalog",
    "config",
    "complexity",
    "ingest",
    "analysis",
    "findings",
    "summaries",
    "measure",
    "charts",
    "pages",
    "site",
    "cli",
    "__main__",
)


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every `generator.*` module the file imports, deferred imports inside functions too."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            # `from generator.x import y` may name a submodule y
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m.split(".")[0] == "generator"}


def _modules() -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in GENERATOR.rglob("*.py")}
    paths.pop("generator")  # the package's own __init__, which imports nothing
    return {
        name: {m for m in _imports(path) if m in paths and m != name}
        for name, path in paths.items()
    }


def _stage(module: str) -> str:
    return module.split(".")[1] if "." in module else module


def upward_imports(graph: dict[str, set[str]], stages: tuple[str, ...]) -> list[str]:
    rank = {stage: i for i, stage in enumerate(stages)}
    return sorted(
        f"{module} ({_stage(module)}) imports {target} ({_stage(target)})"
        for module, targets in graph.items()
        for target in targets
        if _stage(module) != _stage(target) and rank[_stage(target)] > rank[_stage(module)]
    )


def test_every_stage_is_listed() -> None:
    stages = {_stage(m) for m in _modules()}
    assert stages == set(STAGES), stages ^ set(STAGES)


def test_every_import_points_to_a_lower_stage() -> None:
    assert upward_imports(_modules(), STAGES) == []


def test_the_check_catches_an_upward_import() -> None:
    graph = {"generator.ingest.x": {"generator.analysis.y"}, "generator.analysis.y": set()}
    assert upward_imports(graph, STAGES) == [
        "generator.ingest.x (ingest) imports generator.analysis.y (analysis)"
    ]
    assert upward_imports({"generator.analysis.y": {"generator.ingest.x"}}, STAGES) == []


def test_the_module_graph_has_no_cycle() -> None:
    graph = _modules()
    # A package's __init__ re-exporting its own modules is not a dependency between stages.
    for module, targets in graph.items():
        graph[module] = {t for t in targets if not module.startswith(t + ".")}
    graphlib.TopologicalSorter(graph).prepare()  # raises CycleError naming the cycle


def test_the_architecture_page_states_this_order() -> None:
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    line = re.search(r"^Stages, bottom to top: (.+)$", text, re.M)
    assert line, "docs/architecture.md lost its 'Stages, bottom to top:' line"
    assert tuple(re.findall(r"`([\w_]+)`", line.group(1))) == STAGES
