"""Pure parts of the judge: checkers, code extraction, problem loading and validation."""

from __future__ import annotations

import io
import json
import tarfile

import pytest

from services.judge.core import checkers
from services.judge.core.extract import extract_code
from services.problems.store import ProblemError, TestStore, load_problem_dir, load_problem_tar


@pytest.mark.parametrize(
    "expected, actual, ok",
    [
        (b"1 2\n3\n", b"1 2\n3\n", True),
        (b"1 2\n3\n", b"1 2   \n3\n\n\n", True),  # trailing spaces and blank lines
        (b"1 2\n3\n", b"1 2\r\n3\r\n", True),
        (b"1 2\n3\n", b"1  2\n3\n", False),  # inner whitespace is significant
        (b"1 2\n3\n", b"\n1 2\n3\n", False),  # leading blank line is significant
        (b"", b"\n\n", True),
    ],
)
def test_exact(expected, actual, ok):
    assert checkers.exact(expected, actual) is ok


def test_tokens():
    assert checkers.tokens(b"1 2\n3", b" 1\n2 3 \n")
    assert not checkers.tokens(b"1 2 3", b"1 2")


@pytest.mark.parametrize(
    "expected, actual, ok",
    [
        (b"0.333333 x", b"0.3333334 x", True),
        (b"1000000", b"1000000.5", True),  # relative tolerance 1e-6
        (b"0.5", b"0.5001", False),
        (b"1.0 yes", b"1.0 YES", False),  # non-numeric tokens exactly
        (b"1 2", b"1", False),
        (b"nan", b"nan", True),
        (b"inf", b"inf", True),
    ],
)
def test_float_tokens(expected, actual, ok):
    assert checkers.float_tokens(expected, actual, abs_tol=1e-6, rel_tol=1e-6) is ok


def test_json_value():
    assert checkers.json_value(b"[0, 1]", b"[0,1]\n")
    assert checkers.json_value(b'{"a": 0.1}', b'{"a": 0.1000000001}', abs_tol=1e-6, rel_tol=1e-6)
    assert not checkers.json_value(b'{"a": 0.1}', b'{"a": 0.1000000001}')  # no tolerance by default
    assert not checkers.json_value(b"[0, 1]", b"[1, 0]")
    assert not checkers.json_value(b"true", b"1")  # booleans are not numbers
    assert not checkers.json_value(b"[0]", b"not json")


@pytest.mark.parametrize(
    "completion, language, code",
    [
        ("```python\nprint(1)\n```", "python", "print(1)\n"),
        ("a\n```py\nprint(1)\n```\nthen\n```python\nprint(2)\n```\n", "python", "print(2)\n"),
        # a block in another language is never taken; an untagged one only as a fallback
        ("```cpp\nint main(){}\n```", "python", None),
        ("```\nprint(3)\n```", "python", "print(3)\n"),
        ("```\nuntagged\n```\n```python\nprint(4)\n```\n```\nlater untagged\n```", "python", "print(4)\n"),
        ("```c++\nint main(){}\n```", "cpp", "int main(){}\n"),
        ("no code at all", "python", None),
        ("```python\nprint(5)\n", "python", None),  # unterminated: the model ran out of tokens
    ],
)
def test_extract_code(completion, language, code):
    assert extract_code(completion, language) == code


def write_problem(root, spec, tests=(("1", "1\n", "1\n"),)):
    root.mkdir(parents=True, exist_ok=True)
    (root / "problem.json").write_text(json.dumps(spec) if isinstance(spec, dict) else spec)
    (root / "statement.md").write_text("Echo.")
    (root / "tests").mkdir(exist_ok=True)
    for name, i, o in tests:
        (root / "tests" / f"{name}.in").write_text(i)
        (root / "tests" / f"{name}.out").write_text(o)
    return root


GOOD = {
    "id": "echo",
    "title": "Echo",
    "time_limit_ms": 1000,
    "memory_limit_mb": 256,
    "checker": {"type": "exact"},
    "statement": "statement.md",
}


def test_load_orders_tests_and_stores_them_once(tmp_path):
    store = TestStore(tmp_path / "store")
    tests = [("b", "22\n", "x\n"), ("a", "22\n", "x\n"), ("c", "1\n", "x\n")]
    p = load_problem_dir(write_problem(tmp_path / "echo", GOOD, tests), store)
    assert [t.name for t in p.tests] == ["c", "a", "b"]  # by input length, ties by name
    assert p.tests[1].input_sha256 == p.tests[2].input_sha256
    blobs = [f for f in (tmp_path / "store").rglob("*") if f.is_file()]
    assert len(blobs) == 3  # "22\n", "1\n", "x\n": identical bytes are stored once
    again = load_problem_dir(tmp_path / "echo", store)
    assert again == p
    assert len([f for f in (tmp_path / "store").rglob("*") if f.is_file()]) == 3


@pytest.mark.parametrize(
    "change, message",
    [
        ({"time_limit_ms": -5}, "time_limit_ms"),
        ({"time_limit_ms": "fast"}, "time_limit_ms"),
        ({"memory_limit_mb": None}, "memory_limit_mb"),
        ({"checker": {"type": "fuzzy"}}, "checker"),
        ({"checker": {"type": "float", "abs_tol": -1}}, "abs_tol"),
        ({"id": "../etc"}, "id"),
        ({"function": "not an identifier"}, "function"),
        ({"unknown_field": 1}, "unknown_field"),
    ],
)
def test_malformed_problem_json_names_the_field(tmp_path, change, message):
    with pytest.raises(ProblemError, match=message):
        load_problem_dir(write_problem(tmp_path / "p", {**GOOD, **change}), TestStore(tmp_path / "s"))


def test_structural_problems_are_explained(tmp_path):
    store = TestStore(tmp_path / "s")
    with pytest.raises(ProblemError, match="not valid JSON"):
        load_problem_dir(write_problem(tmp_path / "a", "{nope"), store)
    root = write_problem(tmp_path / "b", GOOD)
    (root / "tests" / "2.in").write_text("x")
    with pytest.raises(ProblemError, match=r"without a matching .in/.out pair: \['2'\]"):
        load_problem_dir(root, store)
    with pytest.raises(ProblemError, match="no problem.json"):
        load_problem_dir(tmp_path / "nowhere", store)
    with pytest.raises(ProblemError, match="checker.path"):
        load_problem_dir(
            write_problem(tmp_path / "c", {**GOOD, "checker": {"type": "program", "path": "chk.py"}}), store
        )
    empty = write_problem(tmp_path / "d", GOOD, tests=())
    with pytest.raises(ProblemError, match="has no tests"):
        load_problem_dir(empty, store)


def test_program_checker_source_is_loaded(tmp_path):
    root = write_problem(tmp_path / "p", {**GOOD, "checker": {"type": "program", "path": "checker.py"}})
    (root / "checker.py").write_text("import sys; sys.exit(0)")
    p = load_problem_dir(root, TestStore(tmp_path / "s"))
    assert p.checker_source == "import sys; sys.exit(0)"


def test_tar_upload(tmp_path):
    root = write_problem(tmp_path / "echo", GOOD)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(root, arcname="echo")
    p = load_problem_tar(buf.getvalue(), TestStore(tmp_path / "s"))
    assert p.id == "echo" and len(p.tests) == 1
    with pytest.raises(ProblemError, match="tar.gz"):
        load_problem_tar(b"not a tarball", TestStore(tmp_path / "s"))


def test_tar_members_outside_the_archive_are_refused(tmp_path):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        data = b"x"
        info = tarfile.TarInfo("../escape.txt")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    with pytest.raises(ProblemError, match="outside the archive"):
        load_problem_tar(buf.getvalue(), TestStore(tmp_path / "s"))
    assert not (tmp_path / "escape.txt").exists()
