"""Public tests and feedback (docs/spec.md sections 2.3, 5.1, 6.3): what a failing result shows.

Three layers, each with real parts: the pure renderer (`services/judge/core/feedback.py`) on hand-made
results; the engine on real sandboxed runs, one per verdict, on public and hidden tests; and the judge
service (API and worker processes on a real Redis) for the request fields, the uploads that carry
`public_tests`, and the rule that a hidden test's content appears nowhere in the answer.
"""

from __future__ import annotations

import asyncio
import io
import json
import tarfile
from pathlib import Path

import httpx
import pytest

from services.judge.client import AsyncJudgeClient, JudgeClient
from services.judge.core import feedback as fb
from services.judge.core.build import build_problem_tests
from services.judge.core.models import JudgeResult, TestFeedback
from services.judge.core.verdicts import Outcome, Verdict
from services.problems.importers import (
    codecontests_plus_problem,
    livecodebench_problem,
    write_problem_dir,
)
from services.problems.spec import ProblemSpec
from services.problems.store import ProblemError, load_problem_dir, load_problem_tar
from tests.support import BUNDLED
from tests.support.problems import make_problem, sub
from tests.support.redis import claim_redis_db
from tests.support.stack import judge_stack

# a problem with two small public tests and two hidden ones whose content must never be shown
HIDDEN_IN = "hidden-input-7f3a 40\n"
HIDDEN_OUT = "hidden-answer-9c1e\n"
HIDDEN_IN_2 = "hidden-input-b2d4 9000 " + "x" * 40 + "\n"
HIDDEN_OUT_2 = "hidden-answer-e5f6\n"
TESTS = [
    ("p1", "1\n", "2\n"),
    ("p2", "10\n", "11\n"),
    ("h1", HIDDEN_IN, HIDDEN_OUT),
    ("h2", HIDDEN_IN_2, HIDDEN_OUT_2),
]
HIDDEN_TEXTS = ["hidden-input-7f3a", "hidden-answer-9c1e", "hidden-input-b2d4", "hidden-answer-e5f6"]
# answers the public tests (n + 1), and the hidden ones by their known answer
RIGHT = (
    "s = input().split()\n"
    "known = {'hidden-input-7f3a': 'hidden-answer-9c1e', 'hidden-input-b2d4': 'hidden-answer-e5f6'}\n"
    "print(known[s[0]] if s[0] in known else int(s[0]) + 1)\n"
)
WRONG_EVERYWHERE = "s = input().split()\nprint(s[0])\n"  # echoes the input: WA, and shows it as actual
CRASH = "s = input().split()\nx = int(s[0])\nraise ValueError(f'bad value {x}')\n"
CRASH_ON_HIDDEN = "s = input().split()\nprint(int(s[0]) + 1)\n"  # int('hidden-...') fails: RE on hidden
SPIN = "while True:\n    pass\n"
HOG = "x = bytearray(400 << 20)\nx[::4096] = b'1' * len(x[::4096])\nprint(len(x))\n"
SYNTAX = "print(\n"


def feedback_problem(store, pid="fbp"):
    return make_problem(
        store, TESTS, pid=pid, time_limit_ms=500, memory_limit_mb=64, public_tests=["p1", "p2"]
    )


def no_hidden_content(result: JudgeResult) -> None:
    """No text of a hidden test anywhere in the result's JSON (feedback, feedback_text, tests[].message)."""
    text = result.model_dump_json()
    for secret in HIDDEN_TEXTS:
        assert secret not in text, (secret, text)


# -- pure: first difference, paths, truncation, templates -------------------------------------------
@pytest.mark.parametrize(
    "expected, actual, checker, where",
    [
        (b"1 2 3\n", b"1 2 4\n", "exact", (1, 5, 4)),
        (b"ab\ncd\n", b"ab\nce\n", "exact", (2, 2, 4)),
        (b"ab\ncd\n", b"ab\n", "exact", (2, 1, 3)),  # the answer ended early
        (b"ab  \n\n", b"ab\n", "exact", None),  # only what the exact checker ignores differs
        (b"1 2\n3\n", b"1\n2 4\n", "tokens", (2, 3, 4)),
        (b"1.0000001 2\n", b"1.0 3\n", "float", (1, 5, 4)),
        (b"[1,2]\n", b"[1,2]\n", "json", None),
        (b"x\n", b"y\n", "program", None),  # a program checker judges for itself
    ],
    ids=["exact-column", "exact-line", "exact-short", "exact-same", "tokens", "float", "json", "program"],
)
def test_first_diff_points_where_the_checker_sees_the_difference(expected, actual, checker, where):
    diff = fb.first_diff(expected, actual, checker)
    assert (None if diff is None else (diff.line, diff.column, diff.offset)) == where


def test_sandbox_paths_are_rewritten():
    text = (
        'File "<solution>", line 12, in f\n'
        "/tmp/run/main.cpp:3:5: error: x\n"
        "/var/lib/codefrontier/slots/1/run/solution.py:4\n"
        "/bincache/.pins-77/" + "ab" * 32 + ": terminated\n"
    )
    got = fb.rewrite_paths(text)
    prelude = fb.PRELUDE.count("\n")
    assert f'File "solution.py", line {12 - prelude}, in f' in got
    assert "solution.cpp:3:5: error" in got and "main.cpp" not in got and "/tmp/run" not in got
    assert "solution.py:4" in got and "/var/lib" not in got
    assert "./solution: terminated" in got and "bincache" not in got


def test_a_traceback_keeps_its_first_line_and_its_tail():
    tb = "Traceback (most recent call last):\n" + "".join(f"  frame {i}\n" for i in range(300))
    tb += "ValueError: the real reason\n"
    cut, was_cut = fb.cut_traceback(tb, 512)
    assert was_cut and len(cut) <= 512
    assert cut.startswith("Traceback (most recent call last):\n...\n")
    assert cut.endswith("ValueError: the real reason\n")
    assert fb.cut_traceback("short", 512) == ("short", False)


def _failing(verdict, public=True, **content) -> TestFeedback:
    return TestFeedback(
        name="t",
        public=public,
        verdict=verdict,
        input_bytes=3,
        cpu_ms=1200,
        wall_ms=1300,
        time_limit_ms=1000,
        memory_kb=2048,
        memory_limit_kb=65536,
        **content,
    )


def _text(tests, template=None, outcome=Outcome.CORRECTNESS_FAILURE, compile_output=None) -> str:
    res = JudgeResult(id="s", problem_id="p", status="ok", outcome=outcome)
    return fb.render(fb.Feedback(tests=tests, compile_output=compile_output), res, template)


def test_rlef_phrases_for_each_verdict():
    wa = _text([_failing(Verdict.WA, input="1 2\n", expected="3\n", actual="4\n")])
    assert "input `1 2` failed:\nExpected output `3` but got `4`" in wa
    assert "Execution took too long." in _text([_failing(Verdict.TLE, input="1\n")])
    assert "Out of memory." in _text([_failing(Verdict.MLE, input="1\n")])
    re_text = _text([_failing(Verdict.RE, input="1\n", stderr="ValueError: bad\n")])
    assert "input `1` failed:\nValueError: bad" in re_text
    ce = _text([], compile_output="solution.cpp:1:1: error: expected ';'\n")
    assert "does not compile" in ce and "solution.cpp:1:1: error" in ce
    fe = _text([], outcome=Outcome.FORMAT_ERROR)
    assert "No python code block" in fe
    hidden = _text([_failing(Verdict.WA, public=False)])
    assert "hidden test (3 bytes of input)" in hidden and "Wrong answer." in hidden


def test_each_tests_error_text_is_capped_at_512_characters():
    long = "y" * 5000
    text = _text([_failing(Verdict.WA, input="1\n", expected="x" * 5000, actual=long)])
    line = text.split("failed:\n", 1)[1].split("\n", 1)[0]
    assert len(line) <= 512 and line.startswith("Expected output `xxx") and "..." in line
    tb = "Traceback (most recent call last):\n" + "  frame\n" * 2000 + "KeyError: 'k'"
    text = _text([_failing(Verdict.RE, input="1\n", stderr=tb)])
    error = text.split("failed:\n", 1)[1].split("\n\nFix", 1)[0]
    assert len(error) <= 512 + 1
    assert error.startswith("Traceback (most recent call last):") and error.rstrip().endswith("KeyError: 'k'")


def test_the_whole_message_is_capped_and_says_what_it_left_out():
    tests = [
        _failing(Verdict.WA, input=f"{i}\n" * 100, expected="x" * 400, actual="y" * 400) for i in range(40)
    ]
    text = _text(tests)
    assert len(text) <= fb.Template().max_chars == 4096
    shown = text.count("failed:\n")
    assert 1 <= shown < 40
    assert f"({40 - shown} more failing tests not shown)" in text
    assert text.rstrip().endswith("code block.")


def test_templates_are_styles_or_parts_and_bad_ones_are_refused():
    stats = _text([_failing(Verdict.TLE, input="1\n")], fb.parse_template("stats"))
    assert "(CPU 1200 ms of 1000 ms; peak memory 2.0 MB of 64 MB)" in stats
    custom = fb.parse_template({"style": "rlef", "time_limit": "Too slow ({cpu_ms} ms).", "max_chars": 300})
    text = _text([_failing(Verdict.TLE, input="1\n")], custom)
    assert "Too slow (1200 ms)." in text and custom.max_chars == 300
    for bad, words in [
        ("fancy", "unknown feedback style"),
        ({"nope": "x"}, "unknown key 'nope'"),
        ({"hidden_test": "{input}"}, "uses {input}"),  # a hidden test has no content to show
        ({"time_limit": "{cpu_ms!r}"}, "no format spec"),
        ({"time_limit": "{cpu_ms.real}"}, "uses {cpu_ms.real}"),
        ({"max_chars": 10}, "max_chars"),
        ({"time_limit": 5}, "must be a string"),
    ]:
        with pytest.raises(ValueError, match=words.replace("{", r"\{").replace("(", r"\(")):
            fb.parse_template(bad)


def test_build_never_shows_a_hidden_tests_content_even_if_kept():
    res = JudgeResult(
        id="s",
        problem_id="p",
        status="ok",
        outcome=Outcome.CORRECTNESS_FAILURE,
        tests=[{"name": "h", "input_bytes": 5, "verdict": "WA", "cpu_ms": 1, "wall_ms": 2, "memory_kb": 3}],
    )
    kept = {"h": fb.Kept(b"secret-in", 9, b"secret-out", 10, b"mine", 4, "secret-err")}
    got = fb.build(res, public=set(), time_limit_ms=1000, memory_limit_mb=64, kept=kept)
    item = got.tests[0]
    assert not item.public and item.input is None and item.expected is None and item.actual is None
    assert item.stderr is None and item.first_diff is None
    assert "secret" not in got.model_dump_json()
    assert (
        fb.build(
            res.model_copy(update={"outcome": Outcome.CORRECT}),
            public=set(),
            time_limit_ms=1,
            memory_limit_mb=1,
            kept={},
        )
        is None
    )


# -- public tests in the problem format ---------------------------------------------------------------
def test_public_tests_by_name_or_count_and_unknown_names_refused(store):
    by_count = make_problem(store, TESTS, pid="cnt", public_tests=3)
    # the first three in run order: p1 (2 bytes), p2 (3), h1 (21)
    assert by_count.spec.public_tests == ["p1", "p2", "h1"]
    by_name = make_problem(store, TESTS, pid="nm", public_tests=["p2", "p1"])
    assert (
        by_name.spec.public_tests == ["p1", "p2"] and by_name.is_public("p1") and not by_name.is_public("h1")
    )
    with pytest.raises(ProblemError, match=r"public_tests.*\['nope'\]"):
        make_problem(store, TESTS, pid="bad", public_tests=["p1", "nope"])
    with pytest.raises(ValueError, match="more than once"):
        ProblemSpec.model_validate(
            {"id": "d", "time_limit_ms": 1, "memory_limit_mb": 1, "public_tests": ["a", "a"]}
        )


def _write_dir(root: Path, public) -> Path:
    d = root / "pub"
    (d / "tests").mkdir(parents=True)
    (d / "problem.json").write_text(
        json.dumps({"id": "pub", "time_limit_ms": 1000, "memory_limit_mb": 64, "public_tests": public})
    )
    for name, i, o in TESTS:
        (d / "tests" / f"{name}.in").write_text(i)
        (d / "tests" / f"{name}.out").write_text(o)
    return d


def test_public_tests_round_trip_through_a_directory_and_a_tar(store, tmp_path):
    d = _write_dir(tmp_path, 2)
    loaded = load_problem_dir(d, store)
    assert loaded.spec.public_tests == ["p1", "p2"]
    again = write_problem_dir(loaded, store, tmp_path / "out" / "pub")
    assert json.loads((again / "problem.json").read_text())["public_tests"] == ["p1", "p2"]
    assert load_problem_dir(again, store).spec.public_tests == ["p1", "p2"]
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(d, arcname="pub")
    assert load_problem_tar(buf.getvalue(), store).spec.public_tests == ["p1", "p2"]


def test_bundled_problems_mark_their_three_smallest_tests_public(store):
    d = BUNDLED / "prefix_range_sums"
    build_problem_tests(d)  # cached: a no-op where `make problems` already built them
    p = load_problem_dir(d, store)
    assert p.spec.public_tests == [t.name for t in p.tests[:3]]
    assert all(json.loads(f.read_text()).get("public_tests") == 3 for f in BUNDLED.glob("*/problem.json"))


def test_importers_keep_the_public_split(store):
    lcb = {
        "question_title": "t",
        "question_content": "add one",
        "platform": "atcoder",
        "question_id": "abc1",
        "contest_date": "2024-05-01T00:00:00",
        "difficulty": "easy",
        "public_test_cases": json.dumps([{"input": "1\n", "output": "2\n", "testtype": "stdin"}]),
        "private_test_cases": json.dumps(
            [{"input": f"{n}\n", "output": f"{n + 1}\n", "testtype": "stdin"} for n in (5, 100)]
        ),
        "metadata": "{}",
    }
    p = livecodebench_problem(lcb, store)
    assert p.spec.public_tests == ["01"] and p.spec.metadata["public_test_count"] == 1
    cc = {
        "id": "cf1",
        "public_tests": {"input": ["1\n"], "output": ["2\n"]},
        "test_cases": [{"input": "1\n", "output": "2\n"}, {"input": "7\n", "output": "8\n"}],
    }
    p = codecontests_plus_problem(cc, store)
    assert p.spec.public_tests == ["01"] and len(p.tests) == 2  # the repeated example is one test
    assert (
        codecontests_plus_problem({"id": "cf2", "test_cases": cc["test_cases"]}, store).spec.public_tests
        == []
    )


# -- the engine: one real run per verdict, on public and hidden tests --------------------------------
def test_a_correct_result_has_no_feedback(engine, store):
    r = engine.judge(feedback_problem(store), sub(RIGHT, problem_id="fbp"), feedback=True)
    assert r.outcome == Outcome.CORRECT and r.feedback is None and r.feedback_text is None


def test_without_the_flag_there_is_no_feedback(engine, store):
    r = engine.judge(feedback_problem(store), sub(WRONG_EVERYWHERE, problem_id="fbp"))
    assert r.outcome == Outcome.CORRECTNESS_FAILURE and r.feedback is None and r.feedback_text is None


def test_wrong_answer_public_then_hidden_in_full_mode(engine, store):
    r = engine.judge(feedback_problem(store), sub(WRONG_EVERYWHERE, problem_id="fbp"), "full", feedback=True)
    names = [(t.name, t.public, t.verdict) for t in r.feedback.tests]
    assert names == [("p1", True, "WA"), ("p2", True, "WA"), ("h1", False, "WA"), ("h2", False, "WA")]
    p1 = r.feedback.tests[0]
    assert (p1.input, p1.expected, p1.actual) == ("1\n", "2\n", "1\n")
    assert (p1.first_diff.line, p1.first_diff.column, p1.first_diff.offset) == (1, 1, 0)
    assert p1.time_limit_ms == 500 and p1.memory_limit_kb == 64 * 1024 and p1.cpu_ms is not None
    h1 = r.feedback.tests[2]
    assert h1.input is h1.expected is h1.actual is h1.stderr is h1.first_diff is None
    assert h1.input_bytes == len(HIDDEN_IN) and h1.memory_kb is not None
    assert "input `1` failed:\nExpected output `2` but got `1`" in r.feedback_text
    assert r.feedback_text.count("hidden test") == 2
    # the program echoed the hidden input as its answer: the feedback shows none of it
    no_hidden_content(r)


def test_first_failure_mode_gives_the_first_failing_test_only(engine, store):
    r = engine.judge(feedback_problem(store), sub(CRASH_ON_HIDDEN, problem_id="fbp"), feedback=True)
    assert [(t.name, t.verdict) for t in r.feedback.tests] == [("h1", "RE")]
    assert r.feedback.tests[0].stderr is None and "crashed" in r.feedback_text
    no_hidden_content(r)


def test_runtime_error_on_a_public_test_shows_its_traceback(engine, store):
    r = engine.judge(feedback_problem(store), sub(CRASH, problem_id="fbp"), "full", feedback=True)
    p1 = r.feedback.tests[0]
    # the program's own frames, by its line numbers; nothing of the judge's
    tb = 'Traceback (most recent call last):\n  File "solution.py", line 3, in <module>\nValueError: bad value 1'
    assert p1.verdict == "RE" and p1.stderr.startswith(tb)
    assert f"input `1` failed:\n{tb}" in r.feedback_text
    assert "keeper" not in r.model_dump_json()
    assert [t.verdict for t in r.feedback.tests] == ["RE"] * 4


def test_a_deep_recursion_is_one_short_traceback(engine, store):
    code = "import sys\nsys.setrecursionlimit(5000)\ndef f(n):\n    return f(n + 1)\nf(int(input()))\n"
    r = engine.judge(feedback_problem(store), sub(code, problem_id="fbp"), feedback=True)
    tb = r.feedback.tests[0].stderr
    assert tb.count("line 4, in f") == 3 and "[Previous line repeated" in tb and "RecursionError" in tb
    assert len(tb) < 600


def test_a_functional_tracebacks_lines_are_the_programs_own(engine, store):
    p = make_problem(store, [("a", "1\n", "2\n")], pid="fx", function="inc", public_tests=1)
    code = "class Solution:\n    def inc(self, x):\n        y = 0\n        return x // y\n"
    r = engine.judge(p, sub(code, problem_id="fx"), feedback=True)
    assert r.feedback.tests[0].stderr.startswith(
        'Traceback (most recent call last):\n  File "solution.py", line 4, in inc\nZeroDivisionError'
    )


def test_time_limit_on_public_and_hidden_tests(engine, store):
    r = engine.judge(feedback_problem(store), sub(SPIN, problem_id="fbp"), "full", feedback=True)
    assert [(t.public, t.verdict) for t in r.feedback.tests] == [(True, "TLE")] * 2 + [(False, "TLE")] * 2
    assert r.feedback_text.count("Execution took too long.") == 4
    assert all(t.cpu_ms is not None and t.time_limit_ms == 500 for t in r.feedback.tests)
    no_hidden_content(r)


def test_memory_limit_shows_peak_memory_against_the_limit(engine, store):
    r = engine.judge(feedback_problem(store), sub(HOG, problem_id="fbp"), "full", feedback=True)
    assert [(t.public, t.verdict) for t in r.feedback.tests] == [(True, "MLE")] * 2 + [(False, "MLE")] * 2
    assert all(t.memory_limit_kb == 64 * 1024 and t.memory_kb is not None for t in r.feedback.tests)
    assert r.feedback_text.count("Out of memory.") == 4
    no_hidden_content(r)


def test_a_program_checkers_message_shows_on_public_tests_only(engine, store):
    # the checker says what it expected: fine for a public test, a leak for a hidden one
    checker = (
        "import sys\n"
        "exp = open(sys.argv[2]).read().strip()\n"
        "ans = open(sys.argv[3]).read().strip()\n"
        "if exp != ans:\n"
        "    print(f'expected {exp}, found {ans}')\n"
        "    sys.exit(1)\n"
    )
    p = make_problem(
        store,
        TESTS,
        pid="chk",
        checker={"type": "program", "source": checker},
        checker_source=checker,
        public_tests=["p1", "p2"],
    )
    r = engine.judge(p, sub(WRONG_EVERYWHERE, problem_id="chk"), "full", feedback=True)
    p1, _, h1, _ = r.feedback.tests
    assert p1.message == "expected 2, found 1" and p1.first_diff is None
    assert h1.message is None and h1.verdict == "WA"
    # without feedback the result object keeps the checker's text on every test, as before
    plain = engine.judge(p, sub(WRONG_EVERYWHERE, problem_id="chk"), "full")
    assert "hidden-answer-9c1e" in plain.tests[2].message
    # with it, a hidden test's text is gone from tests[] too
    assert [t.message for t in r.tests] == ["expected 2, found 1", "expected 11, found 10", None, None]
    no_hidden_content(r)


def test_a_hidden_tests_stderr_is_withheld_without_feedback_unless_a_setting_allows_it(engine, store):
    """A program that prints its input to stderr and crashes would read the hidden tests back from a
    plain result's tests[].message; only FRONTIER_HIDDEN_STDERR keeps it (an operator debugging)."""
    leak = "import sys\nsys.stderr.write(sys.stdin.read())\nraise SystemExit(1)\n"
    p = feedback_problem(store, pid="leak")
    plain = engine.judge(p, sub(leak, problem_id="leak"), "full")
    assert [t.verdict for t in plain.tests] == [Verdict.RE] * 4
    assert "10" in plain.tests[1].message  # a public test's stderr stays
    assert [t.message for t in plain.tests[2:]] == [fb.WITHHELD] * 2
    assert not any(text in plain.model_dump_json() for text in HIDDEN_TEXTS)
    engine.settings.hidden_stderr = True
    try:
        shown = engine.judge(p, sub(leak, problem_id="leak"), "full")
    finally:
        engine.settings.hidden_stderr = False
    assert "hidden-input-7f3a" in shown.tests[2].message


def test_a_checker_failure_on_a_hidden_test_does_not_quote_it(engine, store):
    checker = "import sys\nprint(open(sys.argv[1]).read(), file=sys.stderr)\nsys.exit(3)\n"
    p = make_problem(
        store, TESTS[2:], pid="chkerr", checker={"type": "program", "source": checker}, checker_source=checker
    )
    r = engine.judge(p, sub(WRONG_EVERYWHERE, problem_id="chkerr"), feedback=True)
    assert r.status == "judge_error" and r.feedback is None and fb.WITHHELD in r.message
    no_hidden_content(r)


def test_compile_error_shows_the_compilers_message(engine, store):
    r = engine.judge(feedback_problem(store), sub(SYNTAX, problem_id="fbp"), feedback=True)
    assert r.feedback.tests == [] and "SyntaxError" in r.feedback.compile_output
    assert "does not compile" in r.feedback_text and "SyntaxError" in r.feedback_text
    cpp = engine.judge(feedback_problem(store), sub("int main( {", "cpp", problem_id="fbp"), feedback=True)
    assert "solution.cpp" in cpp.feedback.compile_output and "main.cpp" not in cpp.feedback.compile_output
    assert "/tmp/run" not in cpp.feedback_text


def test_a_format_error_asks_for_a_code_block(engine, store):
    s = sub("x", problem_id="fbp").model_copy(update={"code": None, "completion": "no code here"})
    r = engine.judge(feedback_problem(store), s, feedback=True)
    assert r.outcome == Outcome.FORMAT_ERROR and r.feedback.tests == []
    assert "No python code block" in r.feedback_text


def test_long_outputs_are_truncated_and_flagged(engine, store):
    big = "9" * 5000 + "\n"
    p = make_problem(store, [("a", "1\n", big)], pid="bigout", public_tests=1)
    r = engine.judge(p, sub("print('8' * 6000)", problem_id="bigout"), feedback=True)
    t = r.feedback.tests[0]
    assert t.truncated and len(t.expected) <= fb.SHOW_CHARS and t.expected.endswith("...")
    assert len(t.actual) <= fb.SHOW_CHARS and (t.first_diff.line, t.first_diff.column) == (1, 1)
    assert len(r.feedback_text.split("failed:\n", 1)[1].split("\n", 1)[0]) <= 512


# -- the service: request fields, uploads, no hidden content in the answer --------------------------
@pytest.fixture(scope="module")
def redis_url():
    yield from claim_redis_db([*range(15, 7, -1), *range(1, 8)])


@pytest.fixture(scope="module")
def service(redis_url, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("feedback-stack")
    with judge_stack(tmp, "fb", redis_url=redis_url, slots=2, job_retries=0, job_lease_s=30) as stack:
        with JudgeClient(stack.judge_url) as client:
            client.put_problem(
                "fbp",
                {
                    "time_limit_ms": 500,
                    "memory_limit_mb": 64,
                    "public_tests": ["p1", "p2"],
                    "tests": [{"name": n, "input": i, "output": o} for n, i, o in TESTS],
                },
            )
            yield client


def test_service_feedback_over_http_and_no_hidden_text_anywhere(service):
    subs = [
        {"id": "w", "problem_id": "fbp", "code": WRONG_EVERYWHERE},
        {"id": "ok", "problem_id": "fbp", "code": RIGHT},
        {"id": "re", "problem_id": "fbp", "code": CRASH_ON_HIDDEN},
    ]
    plain = service.judge(subs, mode="full")
    assert all(r.feedback is None and r.feedback_text is None for r in plain)
    # the same units again, now with feedback: never a feedback-less copy of the first batch
    got = service.judge(subs, mode="full", feedback=True)
    assert [r.id for r in got] == ["w", "ok", "re"]
    w, ok, re_ = got
    assert ok.feedback is None and w.feedback is not None and re_.feedback is not None
    assert [t.public for t in w.feedback.tests] == [True, True, False, False]
    raw = httpx.post(
        f"{service.base_url}/judge",
        json={"submissions": subs[2:], "mode": "full", "feedback": True, "feedback_template": "stats"},
        timeout=120,
    )
    assert raw.status_code == 200
    for secret in HIDDEN_TEXTS:
        assert secret not in raw.text  # the whole answer, tests[].message included
    assert "peak memory" in raw.json()["results"][0]["feedback_text"]
    for r in got:
        no_hidden_content(r)


def test_service_async_batches_carry_feedback_too(service):
    batch = service.submit([{"id": "a", "problem_id": "fbp", "code": SPIN}], feedback=True)
    (r,) = service.wait(batch, timeout_s=120)
    assert r.feedback.tests[0].verdict == "TLE" and "Execution took too long." in r.feedback_text


def test_the_async_client_asks_for_feedback_too(service):
    async def go():
        async with AsyncJudgeClient(service.base_url) as client:
            subs = [{"id": "a", "problem_id": "fbp", "code": CRASH}]
            return await client.judge(subs, feedback=True, feedback_template={"crash": "Crashed."})

    (r,) = asyncio.run(go())
    assert r.feedback.tests[0].stderr.endswith("ValueError: bad value 1\n")
    assert "input `1` failed:\nTraceback (most recent call last):" in r.feedback_text


def test_service_refuses_a_bad_template_or_unknown_public_test(service):
    body = {"submissions": [], "feedback": True, "feedback_template": {"hidden_test": "{expected}"}}
    bad = httpx.post(f"{service.base_url}/judge", json=body, timeout=30)
    assert bad.status_code == 422 and "uses {expected}" in bad.json()["detail"]
    bad = httpx.put(
        f"{service.base_url}/problems/nope",
        json={
            "time_limit_ms": 100,
            "memory_limit_mb": 64,
            "public_tests": ["zz"],
            "tests": [{"name": "a", "input": "1", "output": "1"}],
        },
        timeout=30,
    )
    assert bad.status_code == 422 and "zz" in bad.json()["detail"]


def test_service_upload_forms_carry_public_tests(service, tmp_path):
    d = _write_dir(tmp_path, ["p2"])
    service.put_problem_dir(d)
    got = service.problem("pub")
    assert got["public_test_count"] == 1
    assert {t["name"]: t["public"] for t in got["tests"]} == {
        "p1": False,
        "p2": True,
        "h1": False,
        "h2": False,
    }
    json_form = service.problem("fbp")
    assert [t["name"] for t in json_form["tests"] if t["public"]] == ["p1", "p2"]
