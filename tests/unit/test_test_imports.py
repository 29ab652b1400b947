"""No test module imports another: what tests share lives in tests/support/ (helpers) and the
conftest.py files (fixtures). Every module under tests/ is parsed, none is imported."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = (
    Path(__file__).resolve().parents[1] if Path(__file__).parent.name != "tests" else Path(__file__).parent
)


def imported_modules(tree: ast.AST) -> list[str]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out += [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            out.append("tests." + "." * node.level + (node.module or ""))  # relative: never allowed
    return out


def allowed(module: str) -> bool:
    if not (module == "tests" or module.startswith("tests.")):
        return True
    return module == "tests.support" or module.startswith("tests.support.")


def test_no_test_module_imports_another():
    bad = []
    for path in sorted(TESTS.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for module in imported_modules(tree):
            if not allowed(module):
                bad.append(f"{path.relative_to(TESTS.parent)} imports {module}")
    assert not bad, "test code imports only tests.support:\n" + "\n".join(bad)


def test_support_imports_no_test_module():
    for path in (TESTS / "support").rglob("*.py"):
        for module in imported_modules(ast.parse(path.read_text())):
            assert allowed(module), f"{path} imports {module}"


# what a test may import from tests/support/stack.py: the one factory and the helpers beside it
STACK_PUBLIC = {"judge_stack", "session_workers", "eventually", "metric", "free_port"}


def stack_imports(tree: ast.AST) -> list[str]:
    """The ways `tree` could start a judge stack other than `judge_stack`: the stack launcher
    (`services.stack.LocalStack`, or the module itself) and the private parts of tests.support.stack."""
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bad += [a.name for a in node.names if a.name in ("services.stack", "tests.support.stack")]
        elif isinstance(node, ast.ImportFrom) and node.module in ("services", "tests.support"):
            bad += [f"{node.module}.stack" for a in node.names if a.name == "stack"]
        elif isinstance(node, ast.ImportFrom) and node.module == "services.stack":
            bad += [f"services.stack.{a.name}" for a in node.names if a.name in ("LocalStack", "*")]
        elif isinstance(node, ast.ImportFrom) and node.module == "tests.support.stack":
            bad += [f"tests.support.stack.{a.name}" for a in node.names if a.name not in STACK_PUBLIC]
    return bad


def test_tests_start_judge_stacks_only_through_judge_stack():
    """One way to start a judge stack in a test: tests.support.stack.judge_stack. No test module
    outside tests/support imports the launcher (LocalStack) or a private part of support/stack.py."""
    bad = []
    for path in sorted(TESTS.rglob("*.py")):
        if (TESTS / "support") in path.parents:
            continue
        for name in stack_imports(ast.parse(path.read_text(), str(path))):
            bad.append(f"{path.relative_to(TESTS.parent)} imports {name}")
    assert not bad, "tests start judge stacks with tests.support.stack.judge_stack:\n" + "\n".join(bad)


def test_the_stack_import_check_sees_each_way_around_it():
    for source in (
        "from services.stack import LocalStack",
        "import services.stack",
        "from services import stack",
        "from tests.support import stack",
        "from tests.support.stack import _Stack",
        "def f():\n    from tests.support.stack import stack_env",
    ):
        assert stack_imports(ast.parse(source)), source
    assert not stack_imports(ast.parse("from tests.support.stack import judge_stack, metric"))
    assert not stack_imports(ast.parse("from services.stack import free_port"))
