"""An independent re-judge of a replication's recorded outcomes (`frontier rejudge RUN_DIR`, docs/spec.md 12.8).

It shares nothing with the judge that recorded them but the problem files: not its engine, sandbox,
extraction or checkers (`tests/unit/test_rejudge.py` asserts this module imports none of them). A seeded,
stratified sample of the run's records (up to `per_class` of each recorded outcome class, chosen by
the recorded class alone) is judged again here:

- the program: the first fenced block opened by a line that is exactly ```python (the judge takes
  the *last* block tagged python/py/python3/py3, else the last untagged one); in a session
  transcript, the tool setting's last ```python block (its answer ends the episode) and the agentic
  setting's last `<write path="P">` before its last `<submit path="P"/>` (observations, `<output>`
  blocks, are never read; a file written otherwise is not re-judged);
- each test (problems/<id>/tests/, in run order: ascending input length, then name) in a fresh
  interpreter (plain subprocess) under RLIMIT_CPU, RLIMIT_AS and RLIMIT_FSIZE and a wall timeout;
- the answer compared with this module's own exact, tokens and float comparisons (section 2.4), a
  functional problem's return value as JSON (section 2.5), or a Python checker program run as a
  plain subprocess; a problem whose checker is not Python is "not re-judged";
- the outcome by the rule of section 4.5, from the first non-AC test.

Tests run until the first failure and at least through the recorded first failure, so each
disagreement names the tests whose verdicts differ. A class that differs while some test's CPU time
lay within the borderline band of the limit (or a test was stopped for wall time short of its CPU
limit while idle) is counted as borderline, not as a disagreement. A test stopped at its wall limit
while the host kept it waiting for a CPU (the rule of docs/spec.md 4.1, from the kernel's schedstat
of its threads, read here on its own) is *starved*: no verdict, and its sample is counted apart, as
are the run's own samples its judge left as starved judge errors (`recorded_starved`). There is no
isolation beyond the limits: this re-judges a run's own samples, not hostile programs.
"""

from __future__ import annotations

import json
import math
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

CLASSES = ("correct", "optimization_failure", "correctness_failure", "format_error")
NOT_REJUDGED = "not_rejudged"
STARVED = "STARVED"  # a test's verdict when the host starved it: no verdict (docs/spec.md 4.1)
REPORT_FILE = "rejudge.json"
ROOT = Path(__file__).resolve().parents[2]
OUTPUT_LIMIT = 64 * 1024 * 1024  # FRONTIER_OUTPUT_LIMIT_KB's default, section 4.1
AS_HEADROOM_MB = 64  # RLIMIT_AS counts the interpreter's own mappings, a cgroup counts only what is used
WALL_FACTOR, WALL_EXTRA_S = 5.0, 1.0  # wall timeout: 5x the kill point plus 1 s (CPU decides, not load)
MAX_NUMBER = 4096
STDERR_TAIL = 2000


# -- the records ----------------------------------------------------------------------------------
def sample_files(run_dir: Path) -> list[tuple[str, Path]]:
    """(setting, samples.jsonl) of a run: the eval stage's (`single`) and each session setting's (its
    sweep's `samples.jsonl`, then its further arms' `arms_samples.jsonl` where they ran)."""
    run_dir = Path(run_dir)
    files = []
    top = run_dir / "samples.jsonl"
    if not top.is_file() and (run_dir / "eval" / "samples.jsonl").is_file():
        top = run_dir / "eval" / "samples.jsonl"
    if top.is_file():
        files.append(("single", top))
    for d in sorted(run_dir.glob("session_*")):
        for name in ("samples.jsonl", "arms_samples.jsonl"):
            if (d / name).is_file():
                files.append((d.name.removeprefix("session_"), d / name))
    return files


def _raw_records(run_dir: Path):
    """(setting, record) for every JSON object line of the run's sample files."""
    for setting, path in sample_files(run_dir):
        for line in path.read_text().split("\n"):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except (ValueError, RecursionError):
                continue  # a line cut off mid-write
            if isinstance(r, dict):
                yield setting, r


def recorded_starved(run_dir: Path) -> int:
    """The run's samples its judge left as judge errors because the host starved a test (spec 4.1)."""
    return sum(
        r.get("status") == "judge_error" and str(r.get("message") or "").startswith("starved")
        for _, r in _raw_records(run_dir)
    )


def load_records(run_dir: Path) -> list[dict]:
    """Every judged (status ok) record, the last per (setting, checkpoint, problem, index)."""
    by_key: dict[tuple, dict] = {}
    for setting, r in _raw_records(run_dir):
        if r.get("status", "ok") != "ok" or r.get("outcome") not in CLASSES:
            continue
        if not isinstance(r.get("completion"), (str, type(None))) or not isinstance(
            r.get("first_failure"), (dict, type(None))
        ):
            continue
        r["setting"] = setting
        by_key[(setting, *(json.dumps(r.get(k)) for k in ("checkpoint", "problem_id", "sample_index")))] = r
    return list(by_key.values())


_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.")


def valid_problem_id(pid: str) -> bool:
    """Section 2.2's id: 1-128 of `A-Z a-z 0-9 _ - .`, starting with a letter or digit (no path escapes)."""
    return 0 < len(pid) <= 128 and pid[0].isascii() and pid[0].isalnum() and set(pid) <= _ID_CHARS


def stratified_sample(records: list[dict], per_class: int, seed: int) -> list[dict]:
    """Up to `per_class` records of each recorded class, drawn with `seed`, by the recorded class alone."""
    rng = random.Random(seed)
    chosen = []
    for cls in CLASSES:
        pool = sorted(
            (r for r in records if r["outcome"] == cls),
            key=lambda r: (
                r["setting"],
                *(json.dumps(r.get(k)) for k in ("checkpoint", "problem_id", "sample_index")),
            ),
        )
        chosen += rng.sample(pool, min(per_class, len(pool)))
    return chosen


# -- the program ----------------------------------------------------------------------------------
def _block_from(lines: list[str], start: int) -> str | None:
    """The body after the opening line `start` up to a line that is ``` alone (spaces and tabs around
    it allowed); a block never closed (a completion cut off at its token limit) is no block."""
    for end in range(start + 1, len(lines)):
        if lines[end].strip(" \t") == "```":
            text = "\n".join(lines[start + 1 : end])
            return text + "\n" if text.strip() else None
    return None


class NotRecoverable(Exception):
    """The submitted program cannot be recovered from the transcript by this re-judge's rule."""


def without_observations(text: str) -> str:
    """A session transcript less its observations (`<output>...</output>`, an unclosed one to the end):
    a program's output may hold fences or tags, and the environment's own messages name the actions."""
    parts, i = [], 0
    while True:
        start = text.find("<output>", i)
        if start < 0:
            parts.append(text[i:])
            return "".join(parts)
        parts.append(text[i:start])
        end = text.find("</output>", start)
        if end < 0:
            return "".join(parts)
        i = end + len("</output>")


def extract_program(completion: str | None, setting: str = "single") -> str | None:
    """This re-judge's own extraction rule (module docstring); None is a format error. Raises
    NotRecoverable for an agentic submission of a file that no `<write>` wrote."""
    if not completion:
        return None
    if setting in ("tool", "agentic"):
        completion = without_observations(completion)
    if setting == "agentic":
        # the session's opening (the setting's instructions, which show each action's syntax, and the
        # file list) is not the policy's: read from the end of its `Files:` line on
        opening = completion.find("\nFiles: ")
        if opening >= 0:
            line_end = completion.find("\n", opening + 1)
            completion = completion[line_end + 1 :] if line_end >= 0 else ""
        submit = completion.rfind("<submit")
        if submit < 0:
            return None
        tag_end = completion.find(">", submit)
        tag = completion[submit : tag_end + 1] if tag_end >= 0 else ""
        path = "solution.py"
        if 'path="' in tag:
            start = tag.index('path="') + 6
            path = tag[start : tag.find('"', start)].strip() or path
        opener = f'<write path="{path}">'
        w = completion.rfind(opener, 0, submit)
        end = completion.find("</write>", w + len(opener)) if w >= 0 else -1
        if w < 0 or end < 0 or end > submit:
            raise NotRecoverable(f"the submitted file {path!r} was not written by a <write> action")
        body = completion[w + len(opener) : end].removeprefix("\n")
        return body if body.strip() else None
    lines = completion.split("\n")
    opens = [i for i, line in enumerate(lines) if line.rstrip() == "```python"]
    if setting == "tool":
        opens.reverse()
    for i in opens:
        body = _block_from(lines, i)
        if body is not None:
            return body
    return None


# -- the problem ----------------------------------------------------------------------------------
@dataclass
class Problem:
    id: str
    dir: Path
    time_limit_ms: int
    memory_limit_mb: int
    checker: dict
    function: str | None
    tests: list[tuple[str, Path, Path]]  # (name, .in, .out) in run order
    unsupported: str | None = None  # why it is not re-judged


def load_problem(problem_dir: Path) -> Problem:
    spec = json.loads((problem_dir / "problem.json").read_text())
    ins = sorted(problem_dir.glob("tests/*.in"), key=lambda p: (p.stat().st_size, p.stem))
    tests = [(p.stem, p, p.with_suffix(".out")) for p in ins if p.with_suffix(".out").is_file()]
    checker = spec.get("checker") or {"type": "exact"}
    p = Problem(
        id=spec["id"],
        dir=problem_dir,
        time_limit_ms=int(spec["time_limit_ms"]),
        memory_limit_mb=int(spec["memory_limit_mb"]),
        checker=checker,
        function=spec.get("function"),
        tests=tests,
    )
    if not tests:
        p.unsupported = "no built tests in the problem directory"
    elif spec.get("entry_point"):
        p.unsupported = "an assert problem (its tests call a function); not re-implemented here"
    elif checker.get("type") == "program":
        path = checker.get("path") or ""
        lang = checker.get("language") or ("cpp" if path.endswith((".cpp", ".cc")) else "python")
        if lang != "python" or not path or not (problem_dir / path).is_file():
            p.unsupported = "a checker program that is not a Python file (testlib/C++): not re-implemented"
        elif p.function:
            p.unsupported = "a functional problem with a checker program"
    elif checker.get("type") not in ("exact", "tokens", "float"):
        p.unsupported = f"checker type {checker.get('type')!r} unknown to the re-judge"
    return p


# -- comparisons (section 2.4, implemented here) --------------------------------------------------
def exact_equal(expected: bytes, answer: bytes) -> bool:
    def norm(b: bytes) -> bytes:
        return b"\n".join(line.rstrip(b" \t\r\v\f") for line in b.split(b"\n")).rstrip(b"\n")

    return norm(expected) == norm(answer)


def tokens_equal(expected: bytes, answer: bytes) -> bool:
    return expected.split() == answer.split()


def _canon_int(tok: bytes) -> bytes | None:
    body = tok[1:] if tok[:1] in (b"+", b"-") else tok
    if not body or not body.isdigit() or not body.isascii():
        return None
    digits = body.lstrip(b"0") or b"0"
    return (b"-" if tok[:1] == b"-" and digits != b"0" else b"") + digits


def _as_float(tok: bytes) -> float | None:
    if b"_" in tok or not tok.isascii():
        return None
    try:
        return float(tok)
    except ValueError:
        return None


def numbers_equal(a: bytes, b: bytes, abs_tol: float, rel_tol: float) -> bool:
    if a == b:
        return True
    if len(a) > MAX_NUMBER or len(b) > MAX_NUMBER:
        return False
    ia, ib = _canon_int(a), _canon_int(b)
    if ia is not None and ib is not None:
        return ia == ib
    fa, fb = _as_float(a), _as_float(b)
    if fa is None or fb is None:
        return False
    if math.isnan(fa) and math.isnan(fb):
        return True
    if math.isinf(fa) or math.isinf(fb):  # past a float's range: compared exactly as decimals
        try:
            return Decimal(a.decode()) == Decimal(b.decode())
        except InvalidOperation:
            return False
    return math.isclose(fb, fa, rel_tol=rel_tol, abs_tol=abs_tol)


def float_equal(expected: bytes, answer: bytes, abs_tol: float = 1e-6, rel_tol: float = 1e-6) -> bool:
    e, a = expected.split(), answer.split()
    return len(e) == len(a) and all(numbers_equal(x, y, abs_tol, rel_tol) for x, y in zip(a, e, strict=True))


class _Int:
    """A JSON integer kept as its canonical digits (no int digit limit, no float rounding)."""

    def __init__(self, text: str) -> None:
        self.digits = _canon_int(text.encode())

    def __eq__(self, other) -> bool:
        return isinstance(other, _Int) and self.digits == other.digits


def json_equal(expected, answer, tol: tuple[float, float] | None) -> bool:
    if isinstance(expected, bool) or isinstance(answer, bool):
        return type(expected) is type(answer) and expected == answer
    if isinstance(expected, _Int) and isinstance(answer, _Int):
        return expected == answer
    if isinstance(expected, (_Int, float)) and isinstance(answer, (_Int, float)):
        fe = float(expected.digits) if isinstance(expected, _Int) else expected
        fa = float(answer.digits) if isinstance(answer, _Int) else answer
        if tol is None:
            return fe == fa
        return math.isclose(fa, fe, abs_tol=tol[0], rel_tol=tol[1])
    if isinstance(expected, list) and isinstance(answer, list):
        return len(expected) == len(answer) and all(
            json_equal(x, y, tol) for x, y in zip(expected, answer, strict=True)
        )
    if isinstance(expected, dict) and isinstance(answer, dict):
        return expected.keys() == answer.keys() and all(
            json_equal(expected[k], answer[k], tol) for k in expected
        )
    return type(expected) is type(answer) and expected == answer


def functional_equal(expected: bytes, answer: bytes, checker: dict) -> bool:
    try:
        e = json.loads(expected, parse_int=_Int)
        a = json.loads(answer, parse_int=_Int)
    except ValueError:
        return False
    tol = (
        (checker.get("abs_tol", 1e-6), checker.get("rel_tol", 1e-6))
        if checker.get("type") == "float"
        else None
    )
    return json_equal(e, a, tol)


# the functional driver: the program's class, called with each input line's JSON value
DRIVER = """import sys, json
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)
import typing, collections, heapq, bisect, itertools, functools, math
from typing import *
from collections import *
from heapq import *
from bisect import *
from itertools import *
from functools import *
_args = [json.loads(l) for l in sys.stdin.read().split("\\n") if l.strip()]
_out, sys.stdout = sys.stdout, sys.stderr
_ns = dict(globals())
exec(compile(open(sys.argv[1]).read(), "solution.py", "exec"), _ns)
_result = _ns["Solution"]().{function}(*_args)
_out.write(json.dumps(_result))
_out.flush()
"""


# -- running ---------------------------------------------------------------------------------------
@dataclass
class TestRun:
    test: str
    input_bytes: int
    verdict: str
    cpu_ms: float
    borderline: bool = False
    note: str = ""


INHERITED_SLACK_MB = 8  # a peak this far above the parent's own is the program's


def _limits(cpu_s: int, as_bytes: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
        resource.setrlimit(resource.RLIMIT_AS, (as_bytes, as_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (OUTPUT_LIMIT, OUTPUT_LIMIT))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def run_test(
    problem: Problem, argv: list[str], name: str, inp: Path, out: Path, work: Path, band: float
) -> TestRun:
    limit_ms = problem.time_limit_ms
    kill_s = limit_ms * (1 + band) / 1000
    wall_s = kill_s * WALL_FACTOR + WALL_EXTRA_S
    as_bytes = (problem.memory_limit_mb + AS_HEADROOM_MB) * 1024 * 1024
    size = inp.stat().st_size
    stdout_path, stderr_path = work / "stdout", work / "stderr"
    with open(inp, "rb") as fin, open(stdout_path, "wb") as fout, open(stderr_path, "wb") as ferr:
        proc = subprocess.Popen(
            argv,
            stdin=fin,
            stdout=fout,
            stderr=ferr,
            cwd=work,
            preexec_fn=_limits(math.ceil(kill_s), as_bytes),
            start_new_session=True,  # its own process group: whatever it started is stopped with it
        )
        walled = threading.Event()
        wanted: list[float] = []  # at the wall stop: [ms it ran, ms it waited for a CPU]

        def stop() -> None:
            wanted[:] = _schedstat_ms(proc.pid)
            walled.set()
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(wall_s, stop)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # any process it left behind
        except ProcessLookupError:
            pass
    cpu_ms = (usage.ru_utime + usage.ru_stime) * 1000
    # a child's ru_maxrss starts at what it inherited at fork (Linux keeps the forked copy's high-water
    # mark across exec): only a peak above this process's own says anything of the program's memory
    inherited_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    peak_mb = usage.ru_maxrss / 1024 if usage.ru_maxrss / 1024 > inherited_mb + INHERITED_SLACK_MB else None
    code = proc.returncode
    borderline = abs(cpu_ms - limit_ms) <= band * limit_ms
    run = TestRun(name, size, "AC", round(cpu_ms, 1), borderline)
    out_size = stdout_path.stat().st_size
    killed = not walled.is_set() and code == -signal.SIGKILL
    killed_for_cpu = not walled.is_set() and (code == -signal.SIGXCPU or killed and cpu_ms >= limit_ms)
    if killed and not killed_for_cpu:  # not by its limits: the host's OOM killer, as the judge reads one
        run.verdict, run.note = "MLE", "killed (SIGKILL) short of its CPU limit"
    elif cpu_ms > limit_ms or killed_for_cpu:
        run.verdict = "TLE"
        run.borderline = borderline and not killed_for_cpu
    elif walled.is_set() and wanted and _starved(*wanted, wall_s * 1000):
        # the host kept it waiting for a CPU (docs/spec.md 4.1): no verdict, counted apart
        run.verdict, run.note = (
            STARVED,
            f"starved at the wall limit ({wall_s:.1f} s): {wanted[0]:.0f} ms of CPU, {wanted[1]:.0f} ms waiting",
        )
    elif walled.is_set():
        # stopped for wall time short of the CPU limit, idle (or unmeasured): borderline
        run.verdict, run.note = (
            "TLE",
            f"stopped at the wall limit ({wall_s:.1f} s) after {cpu_ms:.0f} ms of CPU",
        )
        run.borderline = True
    elif code == -signal.SIGXFSZ or out_size >= OUTPUT_LIMIT:
        run.verdict = "OLE"
    elif code != 0:
        with open(stderr_path, "rb") as f:
            f.seek(max(0, stderr_path.stat().st_size - STDERR_TAIL))
            tail = f.read().decode("utf-8", "replace")
        if "MemoryError" in tail or (peak_mb is not None and peak_mb >= 0.97 * problem.memory_limit_mb):
            run.verdict = "MLE"
        else:
            run.verdict = "RE"
            run.note = tail.strip().splitlines()[-1][:200] if tail.strip() else f"exit {code}"
    else:
        run.verdict = "AC" if accepted(problem, inp, out, stdout_path, work) else "WA"
    return run


def _schedstat_ms(pid: int) -> list[float]:
    """[ms run, ms waited for a CPU] of process `pid`'s live threads (the kernel's schedstat), [] where
    the kernel keeps none."""
    ran = waited = 0
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                fields = f.read(256).split()
            ran, waited = ran + int(fields[0]), waited + int(fields[1])
        except (OSError, ValueError, IndexError):
            continue
    return [ran / 1e6, waited / 1e6]


def _starved(ran_ms: float, waited_ms: float, wall_ms: float) -> bool:
    """docs/spec.md 4.1: it wanted a CPU for half its wall time at least, and waited a quarter of it."""
    return ran_ms + waited_ms >= 0.5 * wall_ms and waited_ms >= 0.25 * wall_ms


def accepted(problem: Problem, inp: Path, out: Path, answer: Path, work: Path) -> bool:
    c = problem.checker
    if c.get("type") == "program":
        r = subprocess.run(
            [sys.executable, str(problem.dir / c["path"]), str(inp), str(out), str(answer)],
            cwd=work,
            capture_output=True,
            timeout=60,
        )
        if r.returncode not in (0, 1):
            raise CheckerFailed(f"checker exited {r.returncode}")
        return r.returncode == 0
    expected, got = out.read_bytes(), answer.read_bytes()
    if problem.function:
        return functional_equal(expected, got, c)
    if c.get("type") == "tokens":
        return tokens_equal(expected, got)
    if c.get("type") == "float":
        return float_equal(expected, got, c.get("abs_tol", 1e-6), c.get("rel_tol", 1e-6))
    return exact_equal(expected, got)


class CheckerFailed(Exception):
    pass


def classify(runs: list[TestRun]) -> str:
    """Section 4.5 from the tests in run order (the first non-AC decides)."""
    for i, r in enumerate(runs):
        if r.verdict == "AC":
            continue
        if r.verdict in ("TLE", "MLE") and any(
            p.verdict == "AC" and p.input_bytes < r.input_bytes for p in runs[:i]
        ):
            return "optimization_failure"
        return "correctness_failure"
    return "correct"


@dataclass
class Rejudged:
    outcome: str
    tests: list[TestRun] = field(default_factory=list)
    reason: str = ""

    @property
    def first_failure(self) -> dict | None:
        for r in self.tests:
            if r.verdict != "AC":
                return {"test": r.test, "input_bytes": r.input_bytes, "verdict": r.verdict}
        return None


def rejudge_program(
    program: str | None, problem: Problem, band: float, stop_after: str | None = None
) -> Rejudged:
    """Judge `program` on `problem`; tests run until a failure and through the test `stop_after`."""
    if problem.unsupported:
        return Rejudged(NOT_REJUDGED, reason=problem.unsupported)
    if program is None:
        return Rejudged("format_error")
    try:
        compile(program, "solution.py", "exec")
        syntax_ok = True
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # what Python itself would refuse
        syntax_ok = False
    names = [t[0] for t in problem.tests]
    must_reach = names.index(stop_after) if stop_after in names else -1
    if not syntax_ok:
        t = problem.tests[0]
        return Rejudged("correctness_failure", [TestRun(t[0], t[1].stat().st_size, "CE", 0.0)])
    runs: list[TestRun] = []
    with tempfile.TemporaryDirectory(prefix="rejudge-") as tmp:
        work = Path(tmp)
        (work / "solution.py").write_text(program)
        argv = [sys.executable, str(work / "solution.py")]
        if problem.function:
            (work / "driver.py").write_text(DRIVER.replace("{function}", problem.function))
            argv = [sys.executable, str(work / "driver.py"), str(work / "solution.py")]
        failed = False
        for i, (name, inp, out) in enumerate(problem.tests):
            if failed and i > must_reach:
                break
            try:
                run = run_test(problem, argv, name, inp, out, work, band)
            except (CheckerFailed, subprocess.TimeoutExpired) as err:
                return Rejudged(NOT_REJUDGED, runs, reason=f"the problem's checker failed on {name}: {err}")
            runs.append(run)
            if run.verdict == STARVED:  # no verdict of the program: the sample is counted apart
                return Rejudged(STARVED, runs, reason=f"the host starved test {name}: {run.note}")
            failed = failed or run.verdict != "AC"
    return Rejudged(classify(runs), runs)


# -- comparing with the record ----------------------------------------------------------------------
def differing_tests(record: dict, result: Rejudged, problem: Problem) -> list[dict]:
    """The tests both judges have a verdict for (the record: AC before its first failure) that differ."""
    ff = record.get("first_failure") or {}
    names = [t[0] for t in problem.tests]
    ff_index = names.index(ff["test"]) if ff.get("test") in names else None
    out = []
    for r in result.tests:
        i = names.index(r.test)
        if record["outcome"] == "correct":
            recorded = "AC"
        elif ff_index is None:
            continue
        elif i < ff_index:
            recorded = "AC"
        elif i == ff_index:
            recorded = ff.get("verdict")
        else:
            continue
        if recorded != r.verdict:
            out.append(
                {
                    "test": r.test,
                    "recorded": recorded,
                    "rejudged": r.verdict,
                    "cpu_ms": r.cpu_ms,
                    "note": r.note,
                }
            )
    return out


def rejudge_record(record: dict, problems: dict[str, Problem], band: float) -> dict:
    pid = record.get("problem_id")
    row = {
        "setting": record["setting"],
        "checkpoint": record.get("checkpoint"),
        "problem_id": pid,
        "sample_index": record.get("sample_index"),
        "recorded": record["outcome"],
        "recorded_first_failure": record.get("first_failure"),
    }
    problem = problems.get(str(pid))
    if problem is None:
        return row | {
            "rejudged": NOT_REJUDGED,
            "reason": f"problem {pid!r} not found",
            "status": NOT_REJUDGED,
        }
    try:
        program = extract_program(record.get("completion"), record["setting"])
    except NotRecoverable as err:
        return row | {"rejudged": NOT_REJUDGED, "reason": str(err), "status": NOT_REJUDGED}
    stop_after = (record.get("first_failure") or {}).get("test")
    result = rejudge_program(program, problem, band, stop_after)
    row |= {
        "rejudged": result.outcome,
        "rejudged_first_failure": result.first_failure,
        "tests_run": len(result.tests),
        "max_cpu_ms": max((r.cpu_ms for r in result.tests), default=0.0),
    }
    if result.outcome == NOT_REJUDGED:
        return row | {"status": NOT_REJUDGED, "reason": result.reason}
    if result.outcome == STARVED:
        return row | {"rejudged": NOT_REJUDGED, "status": "starved", "reason": result.reason}
    if result.outcome == record["outcome"]:
        return row | {"status": "agree"}
    row["tests_differ"] = differing_tests(record, result, problem)
    if any(r.borderline for r in result.tests):
        row["status"] = "borderline"
    else:
        row["status"] = "disagree"
    return row


def benchmark_dir(benchmark: str | None) -> Path:
    """The problems' root a run's benchmark names, as `frontier replicate` resolves it
    (services/problems/discovery.py, not imported here): "bundled" the checkout's problems/bundled,
    "families" its problems/families/build (docs/spec.md 12.9), anything else the directory it names."""
    if benchmark in ("bundled", None):
        return ROOT / "problems" / "bundled"
    if benchmark == "families":
        return ROOT / "problems" / "families" / "build"
    return Path(benchmark)


def rejudge_run(
    run_dir: Path,
    per_class: int = 16,
    seed: int = 0,
    workers: int = 2,
    problems_root: Path | None = None,
    band: float | None = None,
    progress: bool = True,
) -> dict:
    """Re-judge a stratified sample of a run's records; writes RUN_DIR/rejudge.json and returns it."""
    from tqdm import tqdm

    run_dir = Path(run_dir)
    if band is None:
        band = float(os.environ.get("FRONTIER_BORDERLINE_BAND", "0.1"))
    if problems_root is None:
        problems_root = ROOT / "problems" / "bundled"
        cfg = run_dir / "config.json"
        if cfg.is_file():
            data = json.loads(cfg.read_text())  # the samples are the evaluation set's (issue 37)
            bench = (data.get("eval") or {}).get("benchmark") or data.get("benchmark", "bundled")
            problems_root = benchmark_dir(bench)
    records = load_records(run_dir)
    if not records:
        raise ValueError(f"{run_dir}: no judged samples (samples.jsonl, session_*/samples.jsonl)")
    chosen = stratified_sample(records, per_class, seed)
    problems: dict[str, Problem] = {}
    for pid in sorted({str(r.get("problem_id")) for r in chosen}):
        d = Path(problems_root) / pid
        if valid_problem_id(pid) and (d / "problem.json").is_file():
            problems[pid] = load_problem(d)
    with ThreadPoolExecutor(max(1, workers)) as pool:
        futures = [pool.submit(rejudge_record, r, problems, band) for r in chosen]
        rows = [f.result() for f in tqdm(futures, desc="rejudge", unit="sample", disable=not progress)]
    report = summarize(rows, records, per_class, seed, band)
    report["recorded_starved"] = recorded_starved(run_dir)
    report["run_dir"] = str(run_dir)
    report["problems_root"] = str(problems_root)
    (run_dir / REPORT_FILE).write_text(json.dumps(report, indent=1) + "\n")
    return report


def summarize(rows: list[dict], records: list[dict], per_class: int, seed: int, band: float) -> dict:
    cols = (*CLASSES, NOT_REJUDGED)
    table = {rec: {c: 0 for c in cols} for rec in CLASSES}
    for r in rows:
        table[r["recorded"]][r["rejudged"]] += 1
    judged = [r for r in rows if r["status"] not in (NOT_REJUDGED, "starved")]
    agree = sum(r["status"] == "agree" for r in judged)
    return {
        "seed": seed,
        "per_class": per_class,
        "borderline_band": band,
        "population": {c: sum(r["outcome"] == c for r in records) for c in CLASSES},
        "sampled": len(rows),
        "rejudged": len(judged),
        "agree": agree,
        "borderline": sum(r["status"] == "borderline" for r in judged),
        "disagree": sum(r["status"] == "disagree" for r in judged),
        # re-judged here on a host that starved a test (docs/spec.md 4.1): neither agreement nor not
        "starved": sum(r["status"] == "starved" for r in rows),
        "not_rejudged": sum(r["status"] == NOT_REJUDGED for r in rows),
        "agreement": agree / len(judged) if judged else None,
        "table": table,
        "disagreements": [r for r in rows if r["status"] == "disagree"],
        "borderlines": [r for r in rows if r["status"] == "borderline"],
        "not_rejudged_samples": [r for r in rows if r["status"] == NOT_REJUDGED],
        "starved_samples": [r for r in rows if r["status"] == "starved"],
        "samples": rows,
    }


def print_report(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    # names and reasons come from the records: printed as they are, never as markup
    plain = {"markup": False, "highlight": False, "soft_wrap": True}
    cols = (*CLASSES, NOT_REJUDGED)
    short = {
        "optimization_failure": "optimization",
        "correctness_failure": "correctness",
        "format_error": "format",
    }
    short[NOT_REJUDGED] = "not re-judged"
    t = Table(title="recorded (rows) x re-judged (columns)")
    t.add_column("recorded")
    for c in cols:
        t.add_column(short.get(c, c), justify="right")
    for rec in CLASSES:
        t.add_row(short.get(rec, rec), *(str(report["table"][rec][c]) for c in cols))
    console.print(t)
    share = report["agreement"]
    console.print(
        f"agreement: {report['agree']} of {report['rejudged']} re-judged"
        + (f" ({share:.1%})" if share is not None else "")
        + f"; borderline {report['borderline']}, disagreements {report['disagree']}, "
        f"starved here {report.get('starved', 0)}, not re-judged {report['not_rejudged']} (of "
        f"{report['sampled']} sampled); the run's own starved judge errors: {report.get('recorded_starved', 0)}",
        soft_wrap=True,
    )
    for title, key in (("disagreement", "disagreements"), ("borderline", "borderlines")):
        for r in report[key]:
            tests = "; ".join(
                f"{d['test']}: {d['recorded']} vs {d['rejudged']}" for d in r.get("tests_differ", [])
            )
            console.print(
                f"{title}: {r['setting']}/{r['checkpoint']} {r['problem_id']} #{r['sample_index']}: "
                f"recorded {r['recorded']}, re-judged {r['rejudged']}" + (f" ({tests})" if tests else ""),
                **plain,
            )
    for r in [*report["not_rejudged_samples"], *report.get("starved_samples", [])]:
        console.print(
            f"not re-judged: {r['setting']}/{r['checkpoint']} {r['problem_id']} #{r['sample_index']}: {r['reason']}",
            **plain,
        )
