"""Imports point down the layers (README, "Architecture"), no two modules import each other, and no module is
longer than one sitting.

Read from the source with `ast`, so an import inside a function counts as much as one at the top: a lazy import
hides a cycle or an upward arrow, it does not remove it. Tests, benchmarks and scripts may import anything but
the tests: nothing outside `tests/` imports from it (its doubles are for the tests only).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

BACKEND = Path(__file__).resolve().parent.parent

# The web layers, top first. A package may import itself and any package below it.
WEB = ["parley", "runs", "workspace", "accounts", "common", "engine"]
# The command line stands beside the web layers: it calls the engine, and `parley serve` starts the platform.
COMMAND_LINE = {"cli", "commands"}
COMMAND_LINE_MAY_IMPORT = {"engine", "cli", "commands", "parley.localrun"}
# `runs/` in two halves: the HTTP side (views, serializers, streams, exports) starts work only by queueing a task
# and cancels it only through the state machine; the worker side never reads a request. Both read `runs.models`,
# `runs.selectors` and `runs.services`.
HTTP_MAY_IMPORT_FROM_WORKER = {"runs.worker.tasks", "runs.worker.bookkeeping"}

# Inside the engine, by rank: a part may import its own modules and any part of a lower rank.
ENGINE = {
    "errors": 0,
    "redact": 0,
    "personal_data": 0,  # the personal-data detectors: the security oracle, the transcript import (README D35)
    "json_value": 0,  # any JSON value, typed for the API schema
    "intervals": 0,  # Wilson and Newcombe intervals, for every rate any engine prints
    "context": 1,  # the run context every engine takes: reporter, cancel token, usage sink
    "yamlguard": 1,
    "yamldata": 1,
    "egress": 1,
    "spreadsheet": 1,
    "transcripts": 1,  # imported production conversations, masked; TRACER and SENSEI read them
    "llm": 2,
    "connectors": 2,
    "conversation": 3,
    "bots": 3,
    "sensei": 4,
    "check": 4,
    "tracer": 5,
    "regression": 5,
    "evaluation": 6,
    "security": 6,  # its comparison reads the regression statistics
}


@cache
def modules() -> dict[str, Path]:
    found = {}
    for path in BACKEND.rglob("*.py"):
        parts = path.relative_to(BACKEND).parts
        if parts[0] in {".venv", "tests", "benchmarks", "scripts", "node_modules"} or "migrations" in parts:
            continue
        found[".".join(parts).removesuffix(".py").removesuffix(".__init__")] = path
    return found


def _resolve(name: str) -> str | None:
    """The project module an import names (its nearest enclosing module), or None for a third-party one."""
    while name and name not in modules():
        name = name.rpartition(".")[0]
    return name or None


@cache
def imports() -> dict[str, set[str]]:
    """module -> the project modules it imports (`from package import name` counts as `package.name` when that
    is a module, else as `package`)."""
    graph: dict[str, set[str]] = {}
    for name, path in modules().items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(filter(None, (_resolve(alias.name) for alias in node.names)))
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join([*package[: len(package) - node.level + 1], *filter(None, [node.module])])
                for alias in node.names:
                    target = _resolve(f"{base}.{alias.name}") or _resolve(base)
                    if target:
                        targets.add(target)
        targets.discard(name)
        graph[name] = targets
    return graph


def _web_layer(module: str) -> str:
    top = module.split(".")[0]
    return "parley" if top == "manage" else top  # manage.py is the Django project's own entry point


def _engine_part(module: str) -> str:
    return module.split(".")[1]


def test_the_graph_sees_every_layer():
    # A guard against a test that passes because it read nothing.
    layers = {_web_layer(m) for m in modules()}
    assert set(WEB) | COMMAND_LINE <= layers
    assert {_engine_part(m) for m in modules() if m.startswith("engine.")} == set(ENGINE)
    assert sum(len(targets) for targets in imports().values()) > 500
    assert {m.split(".")[1] for m in modules() if m.startswith("runs.") and m.count(".") == 2} >= {
        "http",
        "worker",
    }


def test_web_layers_import_only_downwards():
    upward = []
    for module, targets in imports().items():
        layer = _web_layer(module)
        if layer in COMMAND_LINE:
            allowed = COMMAND_LINE_MAY_IMPORT
            upward += [
                f"{module} -> {t}"
                for t in targets
                if not any(t == a or t.startswith(f"{a}.") for a in allowed)
            ]
            continue
        rank = WEB.index(layer)
        upward += [
            f"{module} -> {t}"
            for t in targets
            if _web_layer(t) in COMMAND_LINE or WEB.index(_web_layer(t)) < rank
        ]
    assert upward == []


def test_the_two_halves_of_runs_stay_apart():
    crossing = []
    for module, targets in imports().items():
        if module.startswith("runs.worker"):
            crossing += [f"{module} -> {t}" for t in targets if t.startswith("runs.http")]
        elif module.startswith("runs.http"):
            crossing += [
                f"{module} -> {t}"
                for t in targets
                if t.startswith("runs.worker") and t not in HTTP_MAY_IMPORT_FROM_WORKER
            ]
    assert crossing == []


def test_engine_parts_import_only_downwards():
    upward = []
    for module, targets in imports().items():
        if not module.startswith("engine."):
            continue
        part = _engine_part(module)
        for target in targets:
            if target == "engine":
                upward.append(f"{module} -> engine")
                continue
            other = _engine_part(target)
            if other != part and ENGINE[other] >= ENGINE[part]:
                upward.append(f"{module} -> {target}")
    assert upward == []


def test_no_import_cycles():
    graph = imports()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    assert cycles == []


def test_the_layering_check_catches_an_upward_import(tmp_path, monkeypatch):
    """The check is only worth having if it fails: plant `accounts -> runs` and an engine cycle and see both."""
    planted = {
        "accounts.planted": "from runs.models import Run\n",
        "engine.connectors.planted": "from engine.bots import registry\n",
        "runs.worker.planted": "from runs.http import exports\n",
    }
    real = dict(modules())
    fake = dict(real)
    for name, source in planted.items():
        path = tmp_path / f"{name}.py"
        path.write_text(source)
        fake[name] = path
    monkeypatch.setattr("tests.test_layers.modules", lambda: fake)
    imports.cache_clear()
    try:
        graph = imports()
        assert "runs.models" in graph["accounts.planted"]
        assert "engine.bots.registry" in graph["engine.connectors.planted"]
        assert "runs.http.exports" in graph["runs.worker.planted"]
        for check in (
            test_web_layers_import_only_downwards,
            test_engine_parts_import_only_downwards,
            test_the_two_halves_of_runs_stay_apart,
        ):
            try:
                check()
            except AssertionError:
                continue
            raise AssertionError(f"{check.__name__} accepted a planted upward import")
    finally:
        imports.cache_clear()


def _imports_tests(source: str) -> list[str]:
    """The imports of `tests` (or a module under it) in `source`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        found += [name for name in names if name == "tests" or name.startswith("tests.")]
    return found


def test_product_code_never_imports_the_tests():
    """The tests' doubles (`tests/doubles/`) stay out of the product: no module outside `tests/` — the engine, the
    platform, the command line, the benchmarks and the scripts — imports one. What the product runs offline is in
    `engine.llm.offline` and `engine.bots`."""
    leaks = {
        str(path.relative_to(BACKEND)): found
        for path in BACKEND.rglob("*.py")
        if not {".venv", "tests", "node_modules"} & set(path.relative_to(BACKEND).parts)
        and (found := _imports_tests(path.read_text(encoding="utf-8")))
    }
    assert leaks == {}
    # The check reads what it should: it sees the import a test module makes, and one planted in product code.
    assert _imports_tests((BACKEND / "tests" / "engine" / "connectors" / "conftest.py").read_text()) != []
    assert _imports_tests("import os\nfrom tests.doubles.connectors import fake_for\n") == [
        "tests.doubles.connectors"
    ]


def test_no_module_is_longer_than_one_sitting():
    """A newcomer reads a module in one sitting: none past 700 lines (tests and benchmarks included)."""
    long = {
        str(path.relative_to(BACKEND)): lines
        for path in BACKEND.rglob("*.py")
        if not {".venv", "migrations", "node_modules"} & set(path.relative_to(BACKEND).parts)
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > 700
    }
    assert long == {}


def test_the_engines_share_one_run_context():
    """One reporter, one cancel token and one "cancelled" exception for every engine (`engine/context.py`): no
    other engine module defines its own, and every engine entry point takes a job and the context."""
    own = []
    for name, path in modules().items():
        if not name.startswith("engine.") or name == "engine.context":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.name.endswith(
                ("Reporter", "Cancelled", "CancelToken")
            ):
                own.append(f"{name}.{node.name}")
    assert own == []
    entry_points = {
        "engine.tracer.run": "run_tracer",
        "engine.sensei.executor": "run_profiles",
        "engine.evaluation.run": "run_bench",
        "engine.evaluation.qualify": "qualify",
        "engine.security.runner": "run_campaign",
        "engine.regression.shrink": "shrink_record",
    }
    for module, function in entry_points.items():
        tree = ast.parse(modules()[module].read_text(encoding="utf-8"))
        found = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function)
        assert [a.arg for a in found.args.args] == ["job", "context"], f"{module}.{function}"
