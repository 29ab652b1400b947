"""Imports run one way: read every module's imports with `ast` and check the layering rules.

Each rule is a table row named after it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ("services", "merger", "trainer")
# modules whose import means effects: processes, files beyond reading, network, queues
# the entry points sit above every layer: the `frontier` CLI and `make demo` may import anything
ENTRY_POINTS = {"services/cli.py", "services/demo.py", "services/problems/cli.py"}
EFFECTFUL = ("os", "subprocess", "socket", "shutil", "redis", "rq", "httpx", "fastapi", "uvicorn", "torch")


def imports_of(path: Path) -> set[str]:
    """Every module `path` imports (absolute names; relative imports resolved against its package)."""
    tree = ast.parse(path.read_text(), str(path))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                out.add(".".join([*base, node.module] if node.module else base))
            elif node.module:
                out.add(node.module)
    return out


def modules(pattern: str) -> list[Path]:
    found = sorted(ROOT.glob(pattern))
    assert found, f"no module matches {pattern}"
    return found


def _top(name: str) -> str:
    return name.split(".")[0]


RULES = [
    # (rule, modules, what they may import of the project, forbidden third-party/stdlib tops)
    (
        "the sandbox imports nothing of the project but itself",
        "services/judge/sandbox/*.py",
        ("services.judge.sandbox",),
        (),
    ),
    (
        "verdicts are pure rules: nothing of the project, nothing effectful",
        "services/judge/verdicts.py",
        (),
        EFFECTFUL,
    ),
    (
        "feedback is a pure renderer: the result models, verdicts and the functional prelude only",
        "services/judge/feedback.py",
        ("services.judge.models", "services.judge.verdicts", "services.judge.functional"),
        EFFECTFUL,
    ),
    (
        "the judge's options model is core: its models, the feedback renderer and the settings only",
        "services/judge/options.py",
        ("services.judge.models", "services.judge.feedback", "services.settings"),
        EFFECTFUL,
    ),
    (
        "credit rules are pure: the result model only",
        "services/judge/credit.py",
        ("services.judge.models",),
        EFFECTFUL,
    ),
    (
        "the evaluator's metrics are pure: records and verdicts only",
        "services/evaluator/metrics.py",
        ("services.evaluator.records", "services.judge.verdicts"),
        EFFECTFUL,
    ),
    ("the merge arithmetic is pure", "merger/merge.py", (), ("os", "subprocess", "redis", "rq", "httpx")),
    ("the merger library imports nothing of the services", "merger/*.py", ("merger",), ()),
    (
        "the services never import the trainer (entry points aside)",
        "services/**/*.py",
        ("services", "merger"),
        (),
    ),
    ("the merger never imports the trainer", "merger/*.py", ("services", "merger"), ()),
    (
        "prompts are pure: nothing of the project, nothing effectful",
        "services/problems/prompts.py",
        (),
        EFFECTFUL,
    ),
    (
        "the problem format is pure data",
        "services/problems/spec.py",
        (),
        EFFECTFUL,
    ),
    (
        "problems sit below the judge: of it they import only its pure rules and the functional and assert drivers",
        "services/problems/*.py",
        (
            "services.problems",
            "services.judge.verdicts",
            "services.judge.functional",
            "services.judge.asserts",
            "services.judge.testlib",
            "services.settings",
        ),
        (),
    ),
    (
        # the trainer submits eval jobs over HTTP and reads their records; generation stays the evaluator's
        "the trainer does not import the evaluator's generation, sweep or worker",
        "trainer/*.py",
        (
            "trainer",
            "services.problems",
            "services.judge.client",
            "services.judge.credit",
            "services.judge.models",  # the judge's boundary models, as its client's
            "services.settings",
            "services.stack",
            "services.evaluator.metrics",
            "services.evaluator.records",
            "services.evaluator.cli",
            "services.evaluator.pipeline",
            # the repair evaluation in process, as the pipeline's: replicate's repair arm, repair-only prompts
            "services.evaluator.repair",
            "merger",
        ),
        (),
    ),
    (
        "the merger service reaches the stack only through the job runner, the settings, security, serving "
        "and the id shapes",
        "services/merger/*.py",
        ("merger", "services.merger", "services.jobs", "services.settings", "services.security")
        + ("services.serving", "services.ids"),
        (),
    ),
    (
        "the job runner is generic: it knows the settings and no service",
        "services/jobs.py",
        ("services.settings",),
        (),
    ),
    (
        "the evaluator uses the merger library, not the merger service's modules",
        "services/evaluator/*.py",
        ("merger", "services.evaluator", "services.judge", "services.problems", "services.jobs")
        + ("services.settings", "services.security", "services.serving", "services.ids"),
        (),
    ),
    (
        "serving knows security and nothing of any service",
        "services/serving.py",
        ("services.security",),
        (),
    ),
    (
        "the launcher starts processes; it imports no service's code",
        "services/stack.py",
        ("services.settings",),
        (),
    ),
    (
        # programs run in the workers; the API reaches them through the queue (the worker's Redis layout)
        "the judge API runs no program: it imports neither the engine, the runners nor the sandbox",
        "services/judge/api/*.py",
        (
            "services.judge.api",
            "services.judge.deadlines",
            "services.judge.fair",
            "services.judge.models",
            "services.judge.options",  # JudgeOptions: pydantic and the feedback renderer
            "services.judge.feedback",
            "services.judge.worker",
            "services.judge.presence",  # which workers are alive (Redis keys only)
            "services.judge.compat",
            "services.judge.sessions",
            "services.problems.spec",
            "services.problems.store",
            "services.security",
            "services.serving",
            "services.ids",
            "services.settings",
            # a program checker's compile check at upload: g++ -fsyntax-only, fenced (spec 2.4), no run
            "services.judge.testlib",
            "services.judge.verdicts",
        ),
        (),
    ),
    (
        "commands are typer apps, no argparse mains",
        "services/**/*.py",
        ("services", "merger"),
        ("argparse",),
    ),
]


@pytest.mark.parametrize("rule, pattern, allowed, forbidden", RULES, ids=[r[0] for r in RULES])
def test_layering(rule, pattern, allowed, forbidden):
    wrong = []
    for path in modules(pattern):
        if str(path.relative_to(ROOT)) in ENTRY_POINTS:
            continue
        for name in imports_of(path):
            if _top(name) in PROJECT and not any(name == a or name.startswith(a + ".") for a in allowed):
                wrong.append(f"{path.relative_to(ROOT)} imports {name}")
            if _top(name) in forbidden:
                wrong.append(f"{path.relative_to(ROOT)} imports {name} (not allowed here)")
    assert not wrong, f"{rule}:\n" + "\n".join(wrong)


def test_the_checker_reads_relative_imports():
    """The rule checker itself: a relative import is resolved against its package."""
    sample = ROOT / "services" / "judge" / "sandbox" / "slot.py"
    assert "services.judge.sandbox.cgroups" in imports_of(sample)


def _project_modules() -> list[Path]:
    return [p for top in PROJECT for p in sorted((ROOT / top).rglob("*.py"))]


def test_commands_live_in_cli_modules():
    """typer is imported by the CLI modules (one per service, and the `frontier` app) and the launcher's
    own `python -m services.stack up|down`, nowhere else."""
    wrong = [
        str(path.relative_to(ROOT))
        for path in _project_modules()
        if path.name != "cli.py" and path != ROOT / "services" / "stack.py"
        if any(_top(name) == "typer" for name in imports_of(path))
    ]
    assert not wrong, f"typer imported outside the CLI modules: {wrong}"


def test_one_progress_library():
    """Progress bars are tqdm's (as TRL's and transformers' are), nowhere rich.progress."""
    wrong = [
        str(path.relative_to(ROOT))
        for path in [*_project_modules(), *sorted((ROOT / "bench").glob("*.py"))]
        if any(name.startswith("rich.progress") for name in imports_of(path))
    ]
    assert not wrong, f"rich.progress imported by {wrong}"


def test_test_support_is_not_imported_by_the_product():
    """services.testing (tiny and planted checkpoints) serves the tests and benchmarks only."""
    wrong = [
        str(path.relative_to(ROOT))
        for path in _project_modules()
        if "testing" not in path.relative_to(ROOT).parts
        if any(n == "services.testing" or n.startswith("services.testing.") for n in imports_of(path))
    ]
    assert not wrong, f"the product imports services.testing: {wrong}"


def test_lease_workers_subclass_rq_in_two_places_only():
    """RQ's Worker is extended twice: the long jobs' lease worker (services/jobs.py, merges and evals)
    and the judge's in-process worker; a service does not grow a third."""
    subclassing = set()
    for path in _project_modules():
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
                if bases & {"Worker", "SimpleWorker"}:
                    subclassing.add(str(path.relative_to(ROOT)))
    assert subclassing <= {"services/jobs.py", "services/judge/worker.py"}, subclassing


def test_the_judge_extra_pins_what_the_project_pins():
    """The judge's image installs pyproject's `judge` extra: each of its requirements is, letter for
    letter, one of the project's dependencies (one list of versions)."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    judge = project["optional-dependencies"]["judge"]
    assert judge and set(judge) <= set(project["dependencies"]), set(judge) - set(project["dependencies"])
    assert not any(r.startswith(("torch", "transformers")) for r in judge)
