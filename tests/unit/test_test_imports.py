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
