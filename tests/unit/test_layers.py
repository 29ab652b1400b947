"""Imports run one way: read every module's imports with `ast`, follow them transitively, and check them
against one table of layers.

The graph: every module of the product (services/, merger/, trainer/) parsed, every Import and
ImportFrom node of it counted, those inside functions included (an import deferred for speed still
makes the dependency). `from package import name` counts `package.name` where that is a module.
Reaching a module means importing it, its imports, theirs, and so on; importing `a.b.c` also runs the
packages `a` and `a.b`, so reachability follows parent packages too (the circle test does not: a
package whose `__init__` imports its own modules is no circle).

The table (LAYERS, one dict: the rules are per layer, not per file): each module belongs to the layer
with the longest prefix of its name. Tiers run one way, settings; the libraries (problems, the judge
core, the merger library); what the services share; the services; the trainer; the entry points (the
CLI): a module never reaches a module of a higher tier, and reaches a lower tier's or its own tier's
other layers only as its layer's `reaches` says. A layer's `exports` are the modules another layer may
import from it directly (its public surface: a service's client); entry points and test support
import anything. No import circles anywhere (strongly connected components of the graph).
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from tests.support import ROOT

PROJECT = ("services", "merger", "trainer")
# modules whose import means effects: processes, files beyond reading, network, queues
EFFECTFUL = ("os", "subprocess", "socket", "shutil", "redis", "rq", "httpx", "fastapi", "uvicorn", "torch")
# what the judge core, a library, never imports: the service's frameworks (issue 24)
SERVICE_FRAMEWORKS = ("fastapi", "starlette", "uvicorn", "rq", "redis")


@cache
def imports_of(path: Path) -> frozenset[str]:
    """Every module `path` imports, anywhere in it (absolute names; relative imports resolved against its
    package). For `from m import a` both `m` and `m.a` are given (`m.a` is dropped later unless it is a
    module)."""
    tree = ast.parse(path.read_text(), str(path))
    parts = path.relative_to(ROOT).with_suffix("").parts
    package = ".".join(parts[:-1])
    out: set[str] = set()
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            if module:
                out.add(module)
            out.update(f"{module}.{alias.name}" for alias in node.names if module and alias.name != "*")
    return frozenset(out)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_nodes(tree: ast.AST):
    """Every node of the tree except those under `if TYPE_CHECKING:` (annotations only, never run)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def project_modules() -> dict[str, Path]:
    """Every module of the product by its dotted name (a package by its own name, for its __init__)."""
    return {_module_name(p): p for top in PROJECT for p in sorted((ROOT / top).rglob("*.py"))}


def _top(name: str) -> str:
    return name.split(".")[0]


@cache
def graph() -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """(project edges, outside tops): each module's directly imported project modules, and the top-level
    names of what else it imports (third-party and standard library)."""
    mods = project_modules()
    edges, outside = {}, {}
    for name, path in mods.items():
        found, tops = set(), set()
        for imported in imports_of(path):
            if _top(imported) in PROJECT:
                if imported in mods:
                    found.add(imported)
                elif imported.rpartition(".")[0] in mods:
                    pass  # `from m import a` where `a` is a name in m: m itself is counted
                else:
                    raise AssertionError(f"{path.relative_to(ROOT)} imports {imported}: no such module")
            else:
                tops.add(_top(imported))
        found.discard(name)
        edges[name], outside[name] = frozenset(found), frozenset(tops)
    return edges, outside


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


@cache
def reach(name: str) -> frozenset[str]:
    """Every project module importing `name` runs, parent packages included (`name` itself excluded)."""
    edges, _ = graph()
    mods = project_modules()
    seen: set[str] = set()
    todo = [name]
    while todo:
        current = todo.pop()
        for nxt in [*edges[current], *(p for p in _parents(current) if p in mods)]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    seen.discard(name)
    return frozenset(seen)


def strongly_connected(edges: dict[str, frozenset[str]]) -> list[list[str]]:
    """The graph's strongly connected components of more than one module (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


# -- the layers --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Layer:
    tier: int  # a module never reaches a module of a higher tier
    prefixes: tuple[str, ...]  # its modules: these names and what lies below them (longest prefix wins)
    # the other layers its modules may reach (transitively): None, every layer of a lower tier; a layer
    # of its own tier only when named here
    reaches: tuple[str, ...] | None = None
    # what of its own tier it may reach: layer names (the whole layer) or module prefixes
    peers: tuple[str, ...] = ()
    # the modules another layer may import directly (its public surface); None: any
    exports: tuple[str, ...] | None = None
    frameworks: bool = True  # False: no module of it reaches fastapi, RQ or Redis (SERVICE_FRAMEWORKS)


# The judge as a library (issue 24): what runs and judges programs, importable without FastAPI, RQ or
# Redis (services/judge/core/); everything else of services.judge is the judge service.
JUDGE_CORE: tuple[str, ...] = ("services.judge.core",)
# the judge service's public surface: what the evaluator, the reward API and the trainer import of it
JUDGE_SERVICE_EXPORTS: tuple[str, ...] = ("services.judge.client",)

LAYERS: dict[str, Layer] = {
    # tier 0: configuration, its documentation page, the shapes of ids and the pass@k estimator (pure)
    "settings": Layer(0, ("services.settings", "services.settings_doc", "services.ids", "services.passk")),
    # tier 1: the libraries
    # the problem format sits below the judge and imports nothing of it (the judge imports problems)
    "problems": Layer(1, ("services.problems",)),
    # the sandbox: nothing of the project but itself and the pure session-path rule
    "judge sandbox": Layer(
        1,
        ("services.judge.core.sandbox",),
        reaches=(),
        peers=("services.judge.core.paths",),
        frameworks=False,
    ),
    "judge core": Layer(1, JUDGE_CORE, peers=("problems", "judge sandbox"), frameworks=False),
    "merger library": Layer(1, ("merger",), reaches=()),
    # tier 2: what the services share (no service's code): security, serving, Redis, the job runner, the
    # launcher, and the command lines' one way to print words they did not write (services.terminal)
    "service support": Layer(
        2,
        (
            "services.security",
            "services.serving",
            "services.redis_conn",
            "services.jobs",
            "services.stack",
            "services.terminal",
        ),
        reaches=("settings",),
    ),
    # tier 3: the services, each reaching another only through its exports
    # the judge service by process (issue 36): what the others import of it (its client), and its
    # folders, each reaching only those below it: api -> queue, worker -> queue, both -> compat
    "judge service": Layer(3, ("services.judge",), exports=JUDGE_SERVICE_EXPORTS),
    # every router (the compat wire formats' and the sessions' included); never the worker (it runs no program)
    "judge api": Layer(3, ("services.judge.api",), peers=("judge queue", "judge compat"), exports=()),
    # every Redis key and Lua script of the judge, shared by the API and the workers; a finished run's
    # Judge0 callback is sent in Judge0's words (compat), from the worker or the reaper
    "judge queue": Layer(3, ("services.judge.queue",), peers=("judge compat",)),
    # what runs programs: the judge, run and check jobs, the session manager, lease, warm, admission
    "judge worker": Layer(3, ("services.judge.worker",), peers=("judge queue", "judge compat"), exports=()),
    # only the two foreign wire formats (pure translation) and the run contract they translate to
    "judge compat": Layer(3, ("services.judge.compat",), peers=("services.judge.queue.run_models",)),
    "evaluator": Layer(
        3,
        ("services.evaluator",),
        peers=("judge service", "services.merger.client"),
        exports=(
            "services.evaluator.client",  # the service's client
            "services.evaluator.metrics",  # pure rules on records
            "services.evaluator.records",  # the run directory's files
            "services.evaluator.repair",  # the repair evaluation in process (the replication's repair arm)
        ),
    ),
    # the merger service: the merger library, run by the job runner, behind security and serving
    "merger service": Layer(
        3,
        ("services.merger",),
        reaches=("settings", "merger library", "service support"),
        exports=("services.merger.client",),  # the service's client
    ),
    "reward": Layer(3, ("services.reward",), peers=("judge service",), exports=()),
    # tier 4: the trainer library, on the services' public surfaces; the paper run on the trainer library
    # (never the reverse: the library reaches no module of trainer.replication)
    "trainer": Layer(4, ("trainer",)),
    "replication": Layer(4, ("trainer.replication",), peers=("trainer",)),
    # tier 5: the entry points (the `frontier` CLI, each service's commands, `make demo`) and test support
    "entry points": Layer(
        5,
        (
            "services.cli",
            "services.demo",
            "services.judge.cli",
            "services.evaluator.cli",
            "services.merger.cli",
            "services.reward.cli",
            "services.problems.cli",
            # `frontier judge BENCHMARK COMPLETIONS.jsonl`: the engine or the client, and pass@k (services.passk)
            "services.judge.judge_set",
        ),
        peers=("test support",),
    ),
    "test support": Layer(5, ("services.testing",)),
}
EXEMPT_FROM_EXPORTS = ("entry points", "test support")


def _neutral(module: str) -> bool:
    """A package whose __init__ imports nothing of the product (`services`, `services.judge`): in no layer."""
    return project_modules()[module].name == "__init__.py" and not graph()[0][module]


def layer_of(module: str) -> str:
    best, length = None, -1
    for name, layer in LAYERS.items():
        for prefix in layer.prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > length:
                best, length = name, len(prefix)
    assert best is not None, f"{module} is in no layer of LAYERS"
    return best


def _may_reach(source: str, target: str, module: str) -> bool:
    """May a module of layer `source` reach `module`, of layer `target`?"""
    if source == target:
        return True
    a, b = LAYERS[source], LAYERS[target]
    if b.tier > a.tier:
        return False
    if b.tier == a.tier:
        return target in a.peers or any(module == p or module.startswith(p + ".") for p in a.peers)
    return a.reaches is None or target in a.reaches


def _exported(module: str, layer: Layer) -> bool:
    return layer.exports is None or any(module == e or module.startswith(e + ".") for e in layer.exports)


def layering_violations() -> list[str]:
    """Every module's reach checked against its layer's rules, and its direct imports against the exports."""
    edges, _ = graph()
    wrong = []
    for module in sorted(m for m in project_modules() if not _neutral(m)):
        own = layer_of(module)
        for other in sorted(o for o in reach(module) if not _neutral(o)):
            theirs = layer_of(other)
            if not _may_reach(own, theirs, other):
                wrong.append(f"{module} ({own}) reaches {other} ({theirs})")
        if own in EXEMPT_FROM_EXPORTS:
            continue
        for other in sorted(o for o in edges[module] if not _neutral(o)):
            theirs = layer_of(other)
            if theirs != own and not _exported(other, LAYERS[theirs]):
                wrong.append(f"{module} ({own}) imports {other}, not among {theirs}'s exports")
    return wrong


def framework_violations() -> list[str]:
    """Modules of a layer without the service frameworks that reach one (through any module)."""
    _, outside = graph()
    wrong = []
    for module in sorted(m for m in project_modules() if not _neutral(m)):
        if LAYERS[layer_of(module)].frameworks:
            continue
        for m in sorted({module, *reach(module)}):
            hit = outside[m] & set(SERVICE_FRAMEWORKS)
            if hit:
                wrong.append(f"{module} reaches {', '.join(sorted(hit))} (imported by {m})")
    return wrong


# modules that are pure rules or pure data: nothing they reach, transitively, imports these
PURE: dict[str, tuple[str, ...]] = {
    "services.judge.core.verdicts": EFFECTFUL,
    "services.judge.core.feedback": EFFECTFUL,  # a pure renderer
    "services.judge.core.options": EFFECTFUL,  # the options model: its models and the renderer
    "services.judge.core.credit": EFFECTFUL,
    # the language declarations (its modules are read from the folder: tests/stack/test_languages.py checks them)
    "services.judge.core.languages": EFFECTFUL,
    "services.judge.core.flags": EFFECTFUL,
    "services.evaluator.metrics": EFFECTFUL,
    "services.passk": EFFECTFUL,  # the pass@k estimator: the evaluator's and judge-set's
    "services.problems.prompts": EFFECTFUL,
    "services.problems.spec": EFFECTFUL,
    "merger.merge": ("os", "subprocess", "redis", "rq", "httpx"),  # the merge arithmetic (torch, no I/O)
}


# -- the rules --------------------------------------------------------------------------------------
def test_every_module_is_in_a_layer():
    missing = []
    for module in project_modules():
        if _neutral(module):
            continue
        try:
            layer_of(module)
        except AssertionError as err:
            missing.append(str(err))
    assert not missing, "\n".join(missing)


def test_layering_runs_one_way():
    """Settings; the libraries; what the services share; the services; the trainer; the entry points:
    every module's transitive imports obey its layer's row of LAYERS, and what it imports of another
    layer is among that layer's exports."""
    wrong = layering_violations()
    assert not wrong, "\n".join(wrong)


def test_the_trainer_library_does_not_reach_the_paper_run():
    """trainer/replication/ (the paper run) imports the trainer library, never the reverse: no module of
    trainer/ outside it reaches trainer.replication, transitively, function-level imports included."""
    wrong = [
        f"{m} reaches {o}"
        for m in sorted(project_modules())
        if m.startswith("trainer") and layer_of(m) == "trainer"
        for o in sorted(reach(m))
        if o == "trainer.replication" or o.startswith("trainer.replication.")
    ]
    assert not wrong, "\n".join(wrong)


def test_the_judge_core_and_sandbox_need_no_service_framework():
    """The judge as a library: nothing the core or the sandbox reaches imports FastAPI, RQ or Redis."""
    wrong = framework_violations()
    assert not wrong, "\n".join(wrong)


def test_no_import_circles():
    """No two modules of the product import each other, directly or through others (function-level
    imports included)."""
    circles = strongly_connected(graph()[0])
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_the_problem_format_imports_nothing_of_the_judge():
    """One way between the judge library and the problem format: the judge imports services.problems,
    services.problems (but its command line, an entry point) reaches no module of services.judge."""
    wrong = sorted(
        f"{m} reaches {o}"
        for m in project_modules()
        if (m == "services.problems" or m.startswith("services.problems.")) and m != "services.problems.cli"
        for o in reach(m)
        if o == "services.judge" or o.startswith("services.judge.")
    )
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("module", sorted(PURE))
def test_pure_modules_reach_nothing_effectful(module):
    _, outside = graph()
    wrong = sorted(
        f"{m} imports {top}" for m in {module, *reach(module)} for top in outside[m] & set(PURE[module])
    )
    assert not wrong, f"{module} is pure, but:\n" + "\n".join(wrong)


# -- the judge service by process (issue 36) ---------------------------------------------------------
# services/judge/: api/ (every router), queue/ (every Redis key and Lua script), worker/ (what runs
# programs), compat/ (the two foreign wire formats), core/ (the judge as a library)
JUDGE_API = "services.judge.api"
JUDGE_QUEUE = "services.judge.queue"
JUDGE_WORKER = "services.judge.worker"
JUDGE_COMPAT = "services.judge.compat"
# what runs programs: the API reaches none of it, however deep
RUNS_PROGRAMS = (
    JUDGE_WORKER,
    "services.judge.core.sandbox",
    "services.judge.core.engine",
    "services.judge.core.runners",
)


def _in(module: str, *prefixes: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _modules_in(prefix: str) -> list[str]:
    return sorted(m for m in project_modules() if _in(m, prefix))


def test_the_judge_folders_are_there():
    """The folder rules below look at real modules (a rename would make them pass on nothing)."""
    for folder in (JUDGE_API, JUDGE_QUEUE, JUDGE_WORKER, JUDGE_COMPAT):
        assert len(_modules_in(folder)) > 2, folder
    assert (
        "services.judge.api.compat" in project_modules()
        and "services.judge.api.sessions" in project_modules()
    )
    assert _modules_in(JUDGE_COMPAT) == [
        "services.judge.compat",
        "services.judge.compat.judge0",
        "services.judge.compat.sandboxfusion",
    ]


def test_the_judge_api_runs_no_program():
    """The API runs no program, as a folder rule: nothing any module of services/judge/api/ reaches
    (transitively) is in services/judge/worker/, the sandbox, the engine or the runners. Programs run in
    the workers; the API reaches them through the queue. tests/unit/test_judge_split.py checks what the app
    loads in a fresh interpreter."""
    wrong = sorted(
        f"{m} reaches {o}" for m in _modules_in(JUDGE_API) for o in reach(m) if _in(o, *RUNS_PROGRAMS)
    )
    assert not wrong, "\n".join(wrong)


# what may not be reached from each folder of the service: no import runs back up
JUDGE_NEVER_REACHES = {
    JUDGE_QUEUE: (JUDGE_API, JUDGE_WORKER),  # the queue serves both sides and imports neither
    JUDGE_WORKER: (JUDGE_API,),
    JUDGE_COMPAT: (JUDGE_API, JUDGE_WORKER),  # pure translation
}


@pytest.mark.parametrize("folder", sorted(JUDGE_NEVER_REACHES))
def test_judge_imports_run_one_way(folder):
    """api -> queue, worker -> queue, api -> compat: the queue never imports the API or the worker, the
    worker never imports the API, and the wire formats import neither (transitively)."""
    banned = JUDGE_NEVER_REACHES[folder]
    wrong = sorted(f"{m} reaches {o}" for m in _modules_in(folder) for o in reach(m) if _in(o, *banned))
    assert not wrong, "\n".join(wrong)


def test_only_the_queue_imports_redis():
    """Among the judge service's modules only services/judge/queue/ imports `redis` (the shared
    services/redis_conn.py opens every connection): the API and the workers reach Redis through the
    queue's typed calls and name its client and errors through queue/connection.py."""
    _, outside = graph()
    wrong = sorted(
        m
        for m in project_modules()
        if _in(m, "services.judge") and not _in(m, JUDGE_QUEUE) and "redis" in outside[m]
    )
    assert not wrong, f"redis imported outside services/judge/queue/: {wrong}"


def test_lua_lives_in_the_queue():
    """Every Lua script of the judge (`redis.call`) is written under services/judge/queue/: one owner of
    the keys and of what runs atomically on them (admission is one script, queue/depth.py)."""
    folder = ROOT / "services" / "judge"
    wrong = sorted(
        str(p.relative_to(ROOT))
        for p in folder.rglob("*.py")
        if "redis.call" in p.read_text() and (folder / "queue") not in p.parents
    )
    assert not wrong, f"Lua outside services/judge/queue/: {wrong}"


def test_admission_is_one_script():
    """The queue's depth is counted in by one script (queue/depth.py), for batches and runs alike."""
    folder = ROOT / "services" / "judge"
    writers = sorted(
        str(p.relative_to(ROOT))
        for p in folder.rglob("*.py")
        if "redis.call('INCRBY', KEYS[1]" in p.read_text()
    )
    assert writers == ["services/judge/queue/depth.py"], writers


# what starts a process: the standard library's ways, and the judge's own (its sandbox, the engine and
# the runners, the host compile the API once ran)
STARTS_PROCESSES = (
    "subprocess",
    "multiprocessing",
    "concurrent.futures.process",
    "pty",
    "services.judge.core.sandbox",
    "services.judge.core.engine",
    "services.judge.core.runners",
    "services.judge.core.checks",
    "services.judge.worker",
)


def test_the_judge_api_reaches_no_code_that_starts_a_process():
    """Transitively: nothing the API's modules import, however deep, can start a program (issue 38).
    A checker's compile is a worker's job (services/judge/queue/checks.py, worker/check_job.py)."""
    edges, outside = graph()
    found = {}
    for m in sorted(edges):
        if m == "services.judge.api" or m.startswith("services.judge.api."):
            for o in {m, *reach(m)}:
                if any(o == f or o.startswith(f + ".") for f in STARTS_PROCESSES):
                    found.setdefault(o, m)
                for top in outside[o] & {"subprocess", "multiprocessing", "pty"}:
                    found.setdefault(f"{o} (which imports {top})", m)
    assert not found, "\n".join(f"{m} reaches {o}" for o, m in sorted(found.items()))


def test_commands_are_typer_apps_no_argparse():
    _, outside = graph()
    wrong = sorted(m for m in project_modules() if m.startswith("services") and "argparse" in outside[m])
    assert not wrong, f"argparse imported by {wrong}"


# -- one HTTP style, one way to Redis ---------------------------------------------------------------
ROUTE_METHODS = {"get", "post", "put", "patch", "delete", "head", "options", "websocket", "api_route"}
# the services whose APIs are module routers plus a state dependency (as the judge's own API)
ROUTER_STYLE = ("services/evaluator", "services/merger", "services/reward", "services/judge/api")


def _routes_in_functions(path: Path) -> list[str]:
    """Route handlers defined inside a function (a factory of closures) rather than on a module router."""
    out = []
    for outer in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(outer, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(outer):
            if node is outer or not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for dec in node.decorator_list:
                call = dec.func if isinstance(dec, ast.Call) else dec
                if isinstance(call, ast.Attribute) and call.attr in ROUTE_METHODS:
                    out.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} (inside {outer.name})")
    return out


@pytest.mark.parametrize("folder", ROUTER_STYLE)
def test_apis_are_module_routers_with_dependencies(folder):
    """Routes sit on module-level APIRouters and reach the app's state through a dependency; no route is
    a closure of create_app, and no module builds an app when imported."""
    wrong = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        wrong += _routes_in_functions(path)
        for node in ast.parse(path.read_text(), str(path)).body:
            value = node.value if isinstance(node, ast.Assign | ast.Expr) else None
            if isinstance(value, ast.Call):
                func = value.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                if name in ("create_app", "FastAPI"):
                    wrong.append(f"{path.relative_to(ROOT)}:{node.lineno} builds an app at import")
    assert not wrong, "\n".join(wrong)


def test_the_route_checker_finds_a_closure(tmp_path, monkeypatch):
    """The checker itself, on a factory of closures and on a module router."""
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    factory = tmp_path / "factory.py"
    factory.write_text("def create_app():\n    @api.get('/x')\n    def x():\n        return 1\n")
    routers = tmp_path / "routers.py"
    routers.write_text("@router.get('/x')\ndef x():\n    return 1\n")
    assert _routes_in_functions(factory) == ["factory.py:3 x (inside create_app)"]
    assert _routes_in_functions(routers) == []


def _redis_openings(path: Path) -> list[str]:
    """Calls that open Redis: `Redis(...)`, `Redis.from_url`, `redis.from_url`, a connection pool's."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("Redis", "StrictRedis"):
            out.append(f"{path.relative_to(ROOT)}:{node.lineno}")
        elif isinstance(func, ast.Attribute):
            owner = func.value
            owner_name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", "")
            if func.attr in ("Redis", "StrictRedis") or (
                func.attr in ("from_url", "from_pool")
                and owner_name in ("Redis", "StrictRedis", "redis", "aioredis", "BlockingConnectionPool")
            ):
                out.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return out


def test_redis_is_opened_in_one_place():
    """Every service opens Redis through services/redis_conn.py, under its one timeout policy (an async
    client wrapping that module's pool aside)."""
    wrong = [
        hit
        for module, path in project_modules().items()
        if module != "services.redis_conn"
        for hit in _redis_openings(path)
    ]
    # the judge's async client is made from redis_conn's pool: `aioredis.Redis.from_pool(pool)`
    wrong = [w for w in wrong if w != _from_pool_line()]
    assert not wrong, f"Redis opened outside services/redis_conn.py: {wrong}"


def _from_pool_line() -> str:
    path = ROOT / "services" / "judge" / "queue" / "connection.py"
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if "from_pool(" in line:
            return f"{path.relative_to(ROOT)}:{i}"
    return ""


# -- the checker itself ------------------------------------------------------------------------------
def test_the_checker_reads_relative_imports():
    """A relative import is resolved against its package."""
    sample = ROOT / "services" / "judge" / "core" / "sandbox" / "slot.py"
    assert "services.judge.core.sandbox.cgroups" in imports_of(sample)


def test_the_checker_reads_imports_inside_functions_and_skips_type_checking(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    path = tmp_path / "services" / "x" / "m.py"
    path.parent.mkdir(parents=True)
    path.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from services.never import Ann\n"
        "def f():\n    from services.late import thing\n    import services.later\n"
        "class C:\n    def g(self):\n        from . import sibling\n"
    )
    found = imports_of(path)
    assert {"services.late", "services.later", "services.x", "services.x.sibling"} <= found
    assert not any(name.startswith("services.never") for name in found)


def test_the_checker_follows_imports_transitively():
    """A chain through other modules counts: the trainer reaches the judge's models through its client."""
    edges, _ = graph()
    assert "services.judge.core.verdicts" not in edges["trainer.rewards"]
    assert "services.judge.client" in reach("trainer.rewards")
    assert "services.judge.core.verdicts" in reach("trainer.rewards")  # client -> models -> verdicts
    assert "services.judge.core.languages" in reach("services.judge.core.feedback")  # -> models -> languages


def test_the_circle_finder_finds_circles():
    """Tarjan's components on small graphs: a planted circle is found, a chain is not one."""
    chain = {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset()}
    assert strongly_connected(chain) == []
    planted = {**chain, "c": frozenset({"a"}), "d": frozenset({"a"}), "e": frozenset({"e"})}
    assert strongly_connected(planted) == [["a", "b", "c"]]


def test_a_reach_into_a_higher_tier_is_reported():
    """The layer rules themselves: a library reaching a service, or a service entering another by a
    module it does not export, is wrong; a service using a library or a client is not."""
    assert not _may_reach("problems", "evaluator", "services.evaluator.pipeline")
    assert not _may_reach("merger library", "settings", "services.settings")
    assert not _may_reach("merger service", "evaluator", "services.evaluator.client")
    assert not _may_reach("merger service", "problems", "services.problems.store")
    assert _may_reach("evaluator", "judge service", "services.judge.client")
    assert _may_reach("trainer", "evaluator", "services.evaluator.client")
    assert not _may_reach("problems", "judge core", "services.judge.core.verdicts")
    assert _may_reach("judge core", "problems", "services.problems.spec")
    assert not _may_reach("problems", "judge core", "services.judge.core.engine")
    assert not _exported("services.evaluator.pipeline", LAYERS["evaluator"])
    assert _exported("services.evaluator.client", LAYERS["evaluator"])


# -- other rules of the product's shape --------------------------------------------------------------
def _project_files() -> list[Path]:
    return [p for top in PROJECT for p in sorted((ROOT / top).rglob("*.py"))]


def test_commands_live_in_cli_modules():
    """typer is imported by the CLI modules (one per service, and the `frontier` app) and the launcher's
    own `python -m services.stack up|down`, nowhere else."""
    wrong = [
        str(path.relative_to(ROOT))
        for path in _project_files()
        if path.name != "cli.py" and path != ROOT / "services" / "stack.py"
        if any(_top(name) == "typer" for name in imports_of(path))
    ]
    assert not wrong, f"typer imported outside the CLI modules: {wrong}"


def test_one_progress_library():
    """Progress bars are tqdm's (as TRL's and transformers' are), nowhere rich.progress."""
    wrong = [
        str(path.relative_to(ROOT))
        for path in [*_project_files(), *sorted((ROOT / "bench").glob("*.py"))]
        if any(name.startswith("rich.progress") for name in imports_of(path))
    ]
    assert not wrong, f"rich.progress imported by {wrong}"


def test_test_support_is_not_imported_by_the_product():
    """services.testing (tiny and planted checkpoints) serves the tests and benchmarks only."""
    wrong = [
        str(path.relative_to(ROOT))
        for path in _project_files()
        if "testing" not in path.relative_to(ROOT).parts
        if any(n == "services.testing" or n.startswith("services.testing.") for n in imports_of(path))
    ]
    assert not wrong, f"the product imports services.testing: {wrong}"


def test_lease_workers_subclass_rq_in_two_places_only():
    """RQ's Worker is extended twice: the long jobs' lease worker (services/jobs.py, merges and evals)
    and the judge's in-process worker; a service does not grow a third."""
    subclassing = set()
    for path in _project_files():
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
                if bases & {"Worker", "SimpleWorker"}:
                    subclassing.add(str(path.relative_to(ROOT)))
    assert subclassing <= {"services/jobs.py", "services/judge/worker/judge.py"}, subclassing


def test_the_judge_extra_pins_what_the_project_pins():
    """The judge's image installs pyproject's `judge` extra: each of its requirements is, letter for
    letter, one of the project's dependencies (one list of versions)."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    judge = project["optional-dependencies"]["judge"]
    assert judge and set(judge) <= set(project["dependencies"]), set(judge) - set(project["dependencies"])
    assert not any(r.startswith(("torch", "transformers")) for r in judge)


def _requirement_closure(requirements: list[str]) -> set[str]:
    """The distributions `requirements` install, theirs included (installed metadata; extras named in
    a requirement followed, markers for this interpreter honoured)."""
    from importlib import metadata

    from packaging.requirements import Requirement

    seen: set[str] = set()
    todo = [Requirement(r) for r in requirements]
    while todo:
        req = todo.pop()
        name = req.name.lower().replace("_", "-")
        if name in seen:
            continue
        seen.add(name)
        for line in metadata.requires(req.name) or ():
            sub = Requirement(line)
            env = [{"extra": e} for e in req.extras] or [{"extra": ""}]
            if sub.marker is None or any(sub.marker.evaluate(e) for e in env):
                todo.append(sub)
    return seen


def test_the_judge_extra_installs_what_the_judge_imports():
    """The judge's image (Dockerfile) installs only pyproject's `judge` extra: every third-party module
    its entry point reaches (`services.judge.cli`: the API and the workers, function-level imports
    included) comes from a distribution that extra installs. A dependency added to the project and used
    by the judge but not to the extra breaks the image at start (ijson did)."""
    import tomllib
    from importlib import metadata

    judge = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["judge"]
    installed = _requirement_closure(judge)
    _, outside = graph()
    entry = "services.judge.cli"
    tops = set().union(*(outside[m] for m in {entry, *reach(entry)}))
    dists = metadata.packages_distributions()
    missing = sorted(
        f"{top} ({', '.join(dists.get(top, ['?']))})"
        for top in tops - set(sys.stdlib_module_names) - {"__future__"}
        if not {d.lower().replace("_", "-") for d in dists.get(top, [top])} & installed
    )
    assert not missing, f"imported by the judge, not installed by the `judge` extra: {missing}"


DEPLOY_FILES = ("Dockerfile", "Dockerfile.stack", "docker-compose.yml", "Makefile", ".ci/run")
DEPLOY_GLOBS = ("deploy/slurm/*", "deploy/helm/*/templates/*.yaml", "scripts/*.sh")


def _deploy_texts() -> list[Path]:
    paths = [ROOT / f for f in DEPLOY_FILES]
    for pattern in DEPLOY_GLOBS:
        paths.extend(sorted(ROOT.glob(pattern)))
    return [p for p in paths if p.is_file()]


def test_every_module_the_deploy_files_name_exists():
    """The images, compose, Helm, Slurm and the scripts name modules by dotted path (`python -m`,
    `from ... import`, RQ job paths in health checks): each names a module of the product or a name
    in one, so a move that forgets one fails here, not in an image build (Dockerfile.stack once named
    services.problems.bundled after the builder had moved)."""
    import importlib
    import re

    mods = project_modules()
    wrong = []
    for path in _deploy_texts():
        text = path.read_text()
        for dotted in sorted(set(re.findall(r"(?<![\w.])(?:services|trainer|merger)(?:\.\w+)+", text))):
            parts = dotted.split(".")
            known = max((i for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in mods), default=0)
            if known == len(parts):
                continue
            names = parts[known:]
            try:
                obj = importlib.import_module(".".join(parts[:known]))
                for name in names:
                    obj = getattr(obj, name)
            except (ImportError, AttributeError):
                wrong.append(f"{path.relative_to(ROOT)}: {dotted}")
        for module, name in re.findall(r"from ((?:services|trainer|merger)(?:\.\w+)+) import (\w+)", text):
            if module not in mods or not hasattr(importlib.import_module(module), name):
                wrong.append(f"{path.relative_to(ROOT)}: from {module} import {name}")
    assert not wrong, "names no module or name of the product:\n" + "\n".join(wrong)
