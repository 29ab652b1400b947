"""The independent re-judge (trainer/replication/rejudge.py, docs/spec.md 12.8) on a tiny run directory written here:
real programs for a bundled problem run in real subprocesses. The slow program is a busy loop with no
end on every input over 1,000 bytes, so it is over any time limit on any host, loaded or not."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT
from trainer.replication.rejudge import (
    extract_program,
    float_equal,
    functional_equal,
    load_problem,
    rejudge_program,
    rejudge_run,
    stratified_sample,
)

BUNDLED = ROOT / "problems" / "bundled"
PID = "prefix_range_sums"

REF = (BUNDLED / PID / "ref.py").read_text()
# passes the tests of at most 1,000 bytes, then never ends on a larger one
SLOW = (
    "import sys\nDATA = sys.stdin.buffer.read()\nif len(DATA) > 1000:\n    while True:\n        pass\n"
    + REF.replace("sys.stdin.buffer.read()", "DATA")
)
WRONG = "print(0)\n"


def fence(code: str) -> str:
    return f"Here is my program.\n```python\n{code.strip()}\n```\n"


def first_test_over(size: int) -> dict:
    p = load_problem(BUNDLED / PID)
    name, inp, _ = next(t for t in p.tests if t[1].stat().st_size > size)
    return {"test": name, "input_bytes": inp.stat().st_size, "verdict": "TLE"}


def record(checkpoint, index, outcome, completion, first_failure=None):
    return {
        "problem_id": PID,
        "checkpoint": checkpoint,
        "alpha": 0.0,
        "sample_index": index,
        "status": "ok",
        "completion": completion,
        "outcome": outcome,
        "rewards": {},
        "first_failure": first_failure,
    }


def write_run(run_dir: Path, records: list[dict], session: dict[str, list[dict]] | None = None) -> Path:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(json.dumps({"benchmark": "bundled"}))
    (run_dir / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    for setting, rows in (session or {}).items():
        d = run_dir / f"session_{setting}"
        d.mkdir()
        (d / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return run_dir


@pytest.fixture(scope="module")
def problem():
    p = load_problem(BUNDLED / PID)
    assert p.tests, "the bundled problem's tests are built (make problems)"
    return p


def test_imports_nothing_of_the_judge():
    """The re-judge is the independent check: neither its source nor its import pulls in the judge's
    engine, sandbox, checkers or extraction."""
    tree = ast.parse((ROOT / "trainer" / "replication" / "rejudge.py").read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add(node.module or "")
    assert not [n for n in names if n.startswith("services")], names
    probe = (
        "import sys, trainer.replication.rejudge\n"
        "bad = [m for m in sys.modules if m.startswith(('services.judge.core.engine', 'services.judge.core.sandbox',"
        " 'services.judge.core.checkers', 'services.judge.core.extract'))]\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_programs_classified(problem):
    band = 0.1
    assert rejudge_program(REF, problem, band).outcome == "correct"
    slow = rejudge_program(SLOW, problem, band)
    assert slow.outcome == "optimization_failure"
    assert slow.first_failure["verdict"] == "TLE" and slow.first_failure["input_bytes"] > 1000
    wrong = rejudge_program(WRONG, problem, band)
    assert wrong.outcome == "correctness_failure" and wrong.first_failure["verdict"] == "WA"
    assert rejudge_program(None, problem, band).outcome == "format_error"
    crash = rejudge_program("raise SystemExit(3)\n", problem, band)
    assert crash.outcome == "correctness_failure" and crash.first_failure["verdict"] == "RE"
    syntax = rejudge_program("def f(:\n", problem, band)
    assert syntax.first_failure["verdict"] == "CE"
    hog = rejudge_program("x = bytearray(2**31)\n", problem, band)
    assert hog.first_failure["verdict"] == "MLE" and hog.outcome == "correctness_failure"


def test_run_agrees_and_finds_a_falsified_record(tmp_path):
    ff = first_test_over(1000)
    records = [
        record("alpha_0", 0, "correct", fence(REF)),
        record("alpha_0", 1, "optimization_failure", fence(SLOW), ff),
        record(
            "alpha_0",
            2,
            "correctness_failure",
            fence(WRONG),
            {"test": "02_no_questions", "input_bytes": 10, "verdict": "WA"},
        ),
        record("alpha_0", 3, "format_error", "I cannot write this program."),
        # falsified: a wrong program recorded as correct
        record("alpha_1", 0, "correct", fence(WRONG)),
    ]
    run = write_run(tmp_path / "run", records)
    report = rejudge_run(run, per_class=8, seed=0, workers=2, progress=False)
    assert (run / "rejudge.json").is_file()
    assert json.loads((run / "rejudge.json").read_text())["agree"] == report["agree"]
    assert report["sampled"] == 5 and report["rejudged"] == 5
    assert report["agree"] == 4 and report["disagree"] == 1 and report["borderline"] == 0
    assert report["agreement"] == pytest.approx(0.8)
    assert report["table"]["correct"]["correct"] == 1
    assert report["table"]["correct"]["correctness_failure"] == 1
    assert report["table"]["optimization_failure"]["optimization_failure"] == 1
    assert report["table"]["format_error"]["format_error"] == 1
    (d,) = report["disagreements"]
    assert (d["checkpoint"], d["problem_id"], d["sample_index"]) == ("alpha_1", PID, 0)
    assert (d["recorded"], d["rejudged"]) == ("correct", "correctness_failure")
    assert (
        d["tests_differ"]
        and d["tests_differ"][0]["recorded"] == "AC"
        and d["tests_differ"][0]["rejudged"] == "WA"
    )


def test_cli_prints_the_table(tmp_path):
    # a checkpoint's name is the record's text, never rich markup
    run = write_run(
        tmp_path / "run",
        [
            record("alpha_0", 0, "correctness_failure", fence(WRONG)),
            record("[/bold]", 0, "correct", fence(WRONG)),
        ],
    )
    out = subprocess.run(
        [sys.executable, "-m", "services.cli", "rejudge", str(run), "--per-class", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert "agreement: 1 of 2 re-judged (50.0%)" in out.stdout
    assert (
        "disagreement: single/[/bold] prefix_range_sums #0: recorded correct, re-judged correctness_failure"
        in out.stdout
    )
    bad = subprocess.run(
        [sys.executable, "-m", "services.cli", "rejudge", str(tmp_path / "missing")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_session_settings_extracted(tmp_path):
    tool = f"<python>\nprint(1)\n</python>\n<output>\n1\n</output>\n{fence(WRONG)}"
    agentic = (
        '<write path="solution.py">\nprint(1)\n</write>\n<output>\nwritten\n</output>\n'
        f'<write path="solution.py">\n{REF}</write>\n<output>\nwritten\n</output>\n'
        '<submit path="solution.py"/>\n'
    )
    assert extract_program(tool, "tool") == WRONG
    assert extract_program(agentic, "agentic") == REF
    assert extract_program("<bash>\nls\n</bash>\n", "agentic") is None
    run = write_run(
        tmp_path / "run",
        [],
        {
            "tool": [record("alpha_0", 0, "correctness_failure", tool)],
            "agentic": [record("alpha_0", 0, "correct", agentic)],
        },
    )
    report = rejudge_run(run, per_class=4, seed=1, workers=1, progress=False)
    assert report["rejudged"] == 2 and report["agree"] == 2
    assert {r["setting"] for r in report["samples"]} == {"tool", "agentic"}
    # the session settings' further arms (k-family, partial credit, repair) write arms_samples.jsonl
    arm = record("repair", 0, "correctness_failure", tool)
    (run / "session_tool" / "arms_samples.jsonl").write_text(json.dumps(arm) + "\n")
    report = rejudge_run(run, per_class=4, seed=1, workers=1, progress=False)
    assert report["rejudged"] == 3 and report["agree"] == 3
    assert {(r["setting"], r["checkpoint"]) for r in report["samples"]} >= {("tool", "repair")}


def test_draw_is_seeded_and_stratified():
    recs = [
        {"setting": "single", "checkpoint": f"c{i % 3}", "problem_id": "p", "sample_index": i, "outcome": cls}
        for i in range(40)
        for cls in ("correct", "correctness_failure")
    ]
    a = stratified_sample(recs, 5, seed=3)
    b = stratified_sample(list(reversed(recs)), 5, seed=3)
    assert a == b
    assert sum(r["outcome"] == "correct" for r in a) == 5
    assert sum(r["outcome"] == "correctness_failure" for r in a) == 5
    assert stratified_sample(recs, 5, seed=4) != a


def test_first_python_fence_and_comparisons():
    assert extract_program("```python\na = 1\n```\n```python\nb = 2\n```\n") == "a = 1\n"
    assert extract_program("```\na = 1\n```\n") is None  # untagged: the judge would take it
    assert extract_program("```python\n\n```\n```python\nb = 2\n```") == "b = 2\n"
    assert extract_program("```python\nprint(1)\nfor i in ran") is None  # cut off: never closed
    assert extract_program("```python\nprint(1)\n  ```  \n") == "print(1)\n"
    assert float_equal(b"1.0 2\n", b"1.0000000001 2")
    assert not float_equal(b"1.0 2\n", b"1.1 2")
    assert not float_equal(b"3\n", b"3.5\n")
    big = str(2**200 + 1).encode()
    assert functional_equal(b"[" + big + b", true]", b"[" + big + b",true]", {"type": "exact"})
    assert not functional_equal(str(2**200).encode(), big, {"type": "exact"})
    assert not functional_equal(b"1", b"true", {"type": "exact"})
    assert not functional_equal(b"[1, 2]", b"[1, 2.0000001]", {"type": "exact"})


def test_functional_problem_rejudged():
    p = load_problem(BUNDLED / "count_smaller_right")
    assert p.function == "countSmaller" and p.tests
    ref = (BUNDLED / "count_smaller_right" / "ref.py").read_text()
    assert rejudge_program(ref, p, 0.1).outcome == "correct"
    wrong = "class Solution:\n    def countSmaller(self, *a):\n        return [0]\n"
    assert rejudge_program(wrong, p, 0.1).outcome == "correctness_failure"


def test_program_checker_problem_rejudged():
    p = load_problem(BUNDLED / "any_pair_with_sum")
    assert p.unsupported is None and p.tests
    ref = (BUNDLED / "any_pair_with_sum" / "ref.py").read_text()
    assert rejudge_program(ref, p, 0.1).outcome == "correct"
    assert rejudge_program("print(-1)\n", p, 0.1).outcome == "correctness_failure"


def test_borderline_counted_apart(tmp_path):
    """With a band of 100%, any CPU time up to twice the limit is borderline (print(0) takes a few tens of
    ms of a 1,000 ms limit): a class difference is then counted as borderline, not as a disagreement."""
    run = write_run(tmp_path / "run", [record("alpha_1", 0, "correct", fence(WRONG))])
    report = rejudge_run(run, per_class=4, seed=0, workers=1, progress=False, band=1.0)
    assert report["borderline"] == 1 and report["disagree"] == 0 and report["agree"] == 0
    (b,) = report["borderlines"]
    assert (b["recorded"], b["rejudged"]) == ("correct", "correctness_failure")
    report = rejudge_run(run, per_class=4, seed=0, workers=1, progress=False, band=0.1)
    assert report["borderline"] == 0 and report["disagree"] == 1


def test_observations_ignored_and_unrecoverable_files(tmp_path):
    # the environment's own message names an action, and a program's output may hold a fence
    noise = "<output>\nno action: use <bash>, <write path=...> or <submit path=.../>\n```python\nprint(2)\n```\n</output>\n"
    assert extract_program('<write path="solution.py">\nprint(1)\n</write>\n' + noise, "agentic") is None
    assert extract_program("<python>\nprint(1)\n</python>\n" + noise, "tool") is None
    by_bash = (
        '<bash>\necho "print(1)" > solution.py\n</bash>\n<output>\n</output>\n<submit path="solution.py"/>\n'
    )
    run = write_run(tmp_path / "run", [], {"agentic": [record("alpha_0", 0, "correctness_failure", by_bash)]})
    report = rejudge_run(run, per_class=4, seed=0, workers=1, progress=False)
    assert report["not_rejudged"] == 1 and report["rejudged"] == 0 and report["agreement"] is None
    assert "not written by a <write>" in report["not_rejudged_samples"][0]["reason"]


def test_bad_records_and_ids_refused(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    lines = [
        "[1, 2]",
        "not json",
        json.dumps({"problem_id": ["x"], "checkpoint": {"a": 1}, "sample_index": "s", "outcome": "correct"}),
        json.dumps(record("c", 0, "correct", fence(REF)) | {"problem_id": "../../etc"}),
        json.dumps(record("c", 1, "correct", {"not": "text"})),
    ]
    (run / "samples.jsonl").write_text("\n".join(lines) + "\n")
    report = rejudge_run(run, per_class=4, seed=0, workers=1, progress=False)
    assert report["sampled"] == 2 and report["not_rejudged"] == 2
    assert all("not found" in r["reason"] for r in report["not_rejudged_samples"])
    empty = tmp_path / "empty"
    empty.mkdir()
    out = subprocess.run(
        [sys.executable, "-m", "services.cli", "rejudge", str(empty)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and "no judged samples" in out.stderr and "Traceback" not in out.stderr


def test_a_crash_is_re_whatever_the_parent_process_holds(problem):
    """A child's ru_maxrss starts at its parent's high-water mark (Linux), so a re-judge run from a big
    process (a test session that loaded torch) must not read a crash as MLE: hold 400 MB here, more
    than the problem's limit, and a plain crash is still RE."""
    held = bytearray(400 << 20)  # touched: resident in this process
    for i in range(0, len(held), 4096):
        held[i] = 1
    crash = rejudge_program("raise SystemExit(3)\n", problem, 0.1)
    assert crash.outcome == "correctness_failure" and crash.first_failure["verdict"] == "RE"
    del held


def test_the_agentic_instructions_are_not_read_as_the_policys_actions():
    """The agentic transcript opens with the instructions, which show `<write path="solution.py">`
    and `<submit .../>` themselves: a policy that never submitted is a format error, not the
    instructions' `content` judged as its program."""
    opening = (
        "\n\nOne action per turn:\n<bash>\ncommand\n</bash> runs a command;\n"
        '<write path="solution.py">\ncontent\n</write> writes a file;\n'
        '<submit path="solution.py"/> submits the file to be judged, which ends the task.\n'
        "Files: statement.md, tests/01.in, tests/01.out.\n\n"
    )
    never = opening + '<write path="solution.py">\nprint(1)\n'  # unclosed, and no submission
    assert extract_program(never, "agentic") is None
    done = opening + '<write path="solution.py">\nprint(2)\n</write>\n<submit path="solution.py"/>'
    assert extract_program(done, "agentic") == "print(2)\n"


def test_the_runs_own_starved_judge_errors_are_counted(tmp_path):
    starved = {
        **record("alpha_0", 5, None, fence(REF)),
        "status": "judge_error",
        "message": "starved on test 01: the host starved it 2 time(s): ...",
    }
    other = {**record("alpha_0", 6, None, fence(REF)), "status": "judge_error", "message": "sandbox broke"}
    run = write_run(tmp_path / "run", [record("alpha_0", 0, "correct", fence(REF)), starved, other])
    report = rejudge_run(run, per_class=4, seed=0, workers=1, progress=False)
    assert report["recorded_starved"] == 1 and report["rejudged"] == 1 and report["starved"] == 0


def test_a_run_on_the_families_benchmark_is_re_judged_on_its_built_problems():
    """A run whose [eval] benchmark is "families" (docs/spec.md 12.9) names no directory: its problems
    are the checkout's problems/families/build, as `frontier replicate` resolves it."""
    from trainer.replication.rejudge import benchmark_dir

    assert benchmark_dir("families") == ROOT / "problems" / "families" / "build"
    assert benchmark_dir("bundled") == benchmark_dir(None) == ROOT / "problems" / "bundled"
    assert benchmark_dir("/some/where") == Path("/some/where")
