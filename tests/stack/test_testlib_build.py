"""A program checker's language from its file's extension, a checker compiled once when its problem is
loaded (`frontier problems check` on a local Engine, PUT /problems by a worker's check job, both in the
sandbox) and refused with the compiler's first errors, and checker sources in 8-bit encodings (spec
2.4). The API runs no program: its checks are bounded and never hold up another route (issue 38)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from services.judge.core import checks, testlib
from services.judge.core.runners import RUNNERS
from services.judge.core.testlib import build
from services.problems.store import ProblemError, TestStore, load_problem_dir, parse_spec
from services.settings import Settings
from tests.support import ROOT
from tests.support.problems import make_problem, sub

GOOD_CPP = r"""#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    std::string j, p;
    ans.readWordTo(j);
    ouf.readWordTo(p);
    quitif(j != p, _wa, "expected %s, found %s", j.c_str(), p.c_str());
    quitf(_ok, "%s", j.c_str());
}
"""
BAD_CPP = r"""#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    ouf.readNothing();
    quitf(_ok, "never");
}
"""
# Polygon's checkers often carry cp1251 comments; the string literal must keep its bytes
CP1251_CPP = (
    '#include "testlib.h"\n'
    "// \u041f\u0440\u043e\u0432\u0435\u0440\u043a\u0430 \u043e\u0442\u0432\u0435\u0442\u0430\n"
    "int main(int argc, char* argv[]) {\n"
    "    registerTestlibCmd(argc, argv);\n"
    "    std::string p = ouf.readWord();\n"
    '    quitif(p != "\u0414\u0410", _wa, "not yes");\n'
    '    quitf(_ok, "yes");\n'
    "}\n"
).encode("cp1251")


# a compile of minutes of CPU: forty constant evaluations of about 1.5 million loop turns each (each
# under g++'s own constexpr limits, so only the compile's time limit stops it)
SLOW_CPP = (
    "template <int K> constexpr long f() {\n"
    "    long s = 0;\n"
    "    for (long i = 0; i < 30000; i++)\n"
    "        for (long j = 0; j < 50; j++) s += i ^ j ^ K;\n"
    "    return s;\n"
    "}\n" + "".join(f"static_assert(f<{k}>() != 1);\n" for k in range(40)) + "int main() {}\n"
)


def _spec(checker: dict) -> dict:
    return {"id": "lang", "time_limit_ms": 1000, "memory_limit_mb": 256, "checker": checker}


@pytest.mark.parametrize(
    "checker, language",
    [
        ({"type": "program", "path": "checker.cpp"}, "cpp"),
        ({"type": "program", "path": "check.cc"}, "cpp"),
        ({"type": "program", "path": "check.cxx"}, "cpp"),
        ({"type": "program", "path": "CHECK.CPP"}, "cpp"),
        ({"type": "program", "path": "checker.py"}, "python"),
        ({"type": "program", "path": "checker"}, "python"),  # no extension: the old default
        ({"type": "program", "source": "import sys\n"}, "python"),
        ({"type": "program", "path": "checker.cpp", "language": "cpp"}, "cpp"),
    ],
)
def test_a_checkers_language_comes_from_its_extension(checker, language):
    assert parse_spec(_spec(checker)).checker.language == language


@pytest.mark.parametrize(
    "checker",
    [
        {"type": "program", "path": "checker.cpp", "language": "python"},
        {"type": "program", "path": "checker.py", "language": "cpp"},
    ],
)
def test_a_language_against_the_extension_is_refused_naming_the_field(checker):
    with pytest.raises(ProblemError, match=r"checker\.language .* contradicts checker\.path"):
        parse_spec(_spec(checker))


def test_the_compile_check_is_the_judges_compile(engine):
    # compiled in the sandbox by the judge's own runner: the binary the judge will run is cached
    assert checks.compile_errors(engine, "cpp", GOOD_CPP) is None
    runner = RUNNERS["cpp"]
    digest = runner.cache_key(runner.compiler, "main.cpp", testlib.cpp_source(GOOD_CPP))
    assert (Path(engine._all[0].bin_dir) / digest).is_file()


def test_a_checker_that_compiles_passes_and_one_that_does_not_names_its_error(engine):
    errors = checks.compile_errors(engine, "cpp", BAD_CPP)
    assert errors is not None and "main.cpp:4:" in errors and "readNothing" in errors
    assert "/tmp/run" not in errors  # no sandbox path in the message
    assert checks.compile_errors(engine, "python", "import sys\nprint(1)\n") is None
    assert "SyntaxError" in checks.compile_errors(engine, "python", "def f(:\n")
    assert checks.compile_errors(engine, "python", "(" * 100_000).startswith("checker.py")  # no traceback


def test_a_compile_past_its_limit_is_refused_in_the_sandbox(tmp_path):
    # a compile that would run for minutes is stopped at the compile's limit, with whatever it started
    from services.judge.core.engine import Engine

    slow = SLOW_CPP
    settings = Settings(state_dir=tmp_path, slots=1, compile_time_limit_ms=2000)
    with Engine(settings) as eng:
        errors = checks.compile_errors(eng, "cpp", slow)
    assert errors == "compilation exceeded its time limit (2000 ms)", errors


def test_a_host_file_is_never_seen_by_the_compile(engine, tmp_path):
    """Past the fence (asked of the engine directly), an include of a host file finds nothing: the
    sandbox holds /usr and its own few /etc files, not the host's; and what is shown of a message is
    only what is located in the checker."""
    secret = Path(f"/tmp/frontier-secret-{os.getpid()}.h")
    secret.write_text("SECRETBYTES_4f2a is not C++\n")
    try:
        for path in (secret, Path("/etc/hostname"), Path("/etc/passwd")):
            message = engine.compile("cpp", f'#include "{path}"\nint main() {{}}\n')
            assert message is not None and "SECRETBYTES" not in message, message
            shown = build.shown_errors(message)
            assert "SECRETBYTES" not in shown and "root:" not in shown, shown
    finally:
        secret.unlink()


@pytest.mark.parametrize(
    "source",
    [
        '#include "/etc/passwd"\n',
        "#include </etc/passwd>\n",
        "#include <../../etc/passwd>\n",
        '#include "other.h"\n',
        "#define F </etc/passwd>\n#include F\n",
        "#inc\\\nlude </etc/passwd>\n",
        "/* a */ # /* b */ include </etc/passwd>\n",
        "%:include </etc/passwd>\n",
        "#include_next <vector>\n",
        "#import </etc/passwd>\n",
        # a raw string's text is no comment: the include after it is seen
        'const char* s = R"(\n/*\n)";\n#include "/etc/passwd"\n// */\n',
        # fooR"..." is an ordinary string after an identifier, not a raw string hiding what follows
        '#define fooR\nconst char* s = fooR"(";\n#include </etc/passwd>\n)";\n',
        "\ufeff#include </etc/passwd>\n",  # the compiler skips a byte order mark
    ],
)
def test_a_checker_may_not_include_files_by_path(engine, source):
    # the compiler's errors quote what it read: a file of the host must never be read
    errors = checks.compile_errors(engine, "cpp", source + "int main() {}\n")
    assert errors is not None and "standard headers by name and testlib.h only" in errors
    assert "root:" not in errors


@pytest.mark.parametrize(
    "source",
    [
        "#include <vector>\n#include <bits/stdc++.h>\n",
        '#include "testlib.h"\n',
        'const char* s = "#include </etc/passwd>";\n',
        "// #include </etc/passwd>\n",
    ],
)
def test_standard_headers_and_testlib_are_allowed(source):
    assert build.unsafe_include(source) is None


def test_a_checker_with_a_byte_order_mark_and_crlf_lines_compiles(engine):
    source = "\ufeff" + GOOD_CPP.replace("\n", "\r\n")
    assert testlib.is_testlib_checker(source)
    assert checks.compile_errors(engine, "cpp", source) is None


def test_only_errors_located_in_the_checker_or_our_header_are_shown():
    # an error inside any other file (a toolchain header included) could quote that file
    output = "/etc/passwd:1:1: error: 'root' does not name a type\nmain.cpp:3:1: note: here\n"
    assert "root" not in build.shown_errors(output)
    output = (
        "/tmp/run/main.cpp:4:5: error: 'x' was not declared\n/usr/include/c++/12/vector:1: error: y\n"
        "testlib.h:9:1: error: z\n    4 | int a = SECRET;\n"
    )
    assert build.shown_errors(output) == "main.cpp:4:5: error: 'x' was not declared\ntestlib.h:9:1: error: z"


def test_a_cp1251_checker_is_compiled_byte_for_byte(engine, store, tmp_path):
    problem_dir = tmp_path / "cp"
    (problem_dir / "tests").mkdir(parents=True)
    (problem_dir / "checker.cpp").write_bytes(CP1251_CPP)
    (problem_dir / "tests" / "1.in").write_text("x\n")
    (problem_dir / "tests" / "1.out").write_text("\u0414\u0410\n")
    (problem_dir / "problem.json").write_text(
        json.dumps(
            {
                "id": "cp1251",
                "time_limit_ms": 2000,
                "memory_limit_mb": 256,
                "checker": {"type": "program", "path": "checker.cpp"},
            }
        )
    )
    problem = load_problem_dir(problem_dir, store)
    assert problem.checker_latin1 and problem.spec.checker.language == "cpp"
    assert checks.compile_errors(engine, "cpp", problem.checker_source, latin1=True) is None
    assert testlib.bytes_as_escapes("\u00c0") == "\\300"
    # the program prints the cp1251 bytes of "ДА": the literal kept its bytes, so they are equal
    answer = "\u0414\u0410".encode("cp1251")
    code = f"import sys\nsys.stdout.buffer.write({answer!r})\n"
    result = engine.judge(problem, sub(code, problem_id="cp1251"))
    assert result.status == "ok" and result.tests[0].verdict == "AC", result
    wrong = engine.judge(problem, sub("print('DA')\n", problem_id="cp1251"))
    assert wrong.tests[0].verdict == "WA" and "not yes" in wrong.tests[0].message


def _frontier(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, FRONTIER_STATE_DIR=str(tmp_path / "state"))
    return subprocess.run(
        [sys.executable, "-m", "services.cli", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )


def _problem_dir(root: Path, checker_source: str, name: str = "checker.cpp") -> Path:
    d = root / "p"
    (d / "tests").mkdir(parents=True)
    (d / name).write_text(checker_source)
    (d / "tests" / "1.in").write_text("x\n")
    (d / "tests" / "1.out").write_text("a\n")
    (d / "statement.md").write_text("Print a.\n")
    spec = {
        "id": "p",
        "time_limit_ms": 1000,
        "memory_limit_mb": 256,
        "checker": {"type": "program", "path": name},
    }
    (d / "problem.json").write_text(json.dumps(spec))
    return d


def test_problems_check_refuses_a_checker_that_does_not_compile(tmp_path):
    d = _problem_dir(tmp_path, BAD_CPP)
    run = _frontier(tmp_path, "problems", "check", str(d))
    assert run.returncode == 1
    assert "checker does not compile" in run.stderr and "readNothing" in run.stderr


def test_problems_check_passes_a_checker_that_compiles(tmp_path):
    d = _problem_dir(tmp_path, GOOD_CPP)
    run = _frontier(tmp_path, "problems", "check", str(d))
    assert run.returncode == 0, run.stderr


# ------------------------------------------------------------------------------------ PUT /problems


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """An API and a worker of one slot: the API asks the worker to compile a checker; at most one check
    at a time (FRONTIER_MAX_CHECKS=1), each compile stopped at 3 s."""
    from tests.support.stack import judge_stack

    with judge_stack(tmp_path_factory, "tbuild", max_checks=1, compile_time_limit_ms=3000) as s:
        yield s


@pytest.fixture(scope="module")
def judge_http(stack):
    import httpx

    with httpx.Client(base_url=stack.url, timeout=120) as client:
        yield client


def _body(checker: dict) -> dict:
    return {
        "time_limit_ms": 1000,
        "memory_limit_mb": 256,
        "checker": checker,
        "tests": [{"name": "1", "input": "x\n", "output": "a\n"}],
    }


def test_upload_refuses_a_checker_that_does_not_compile(judge_http):
    r = judge_http.put(
        "/problems/badck", json=_body({"type": "program", "source": BAD_CPP, "language": "cpp"})
    )
    assert r.status_code == 422 and "checker does not compile" in r.json()["detail"]
    assert "readNothing" in r.json()["detail"]
    assert judge_http.get("/problems/badck").status_code == 404


def test_upload_stores_a_checker_that_compiles(judge_http):
    r = judge_http.put(
        "/problems/goodck", json=_body({"type": "program", "source": GOOD_CPP, "language": "cpp"})
    )
    assert r.status_code in (200, 201), r.text


def test_upload_refuses_a_language_against_the_extension_naming_the_field(judge_http, tmp_path):
    d = _problem_dir(tmp_path, GOOD_CPP)
    spec = json.loads((d / "problem.json").read_text())
    spec["checker"]["language"] = "python"
    (d / "problem.json").write_text(json.dumps(spec))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(d, arcname="p")
    r = judge_http.put("/problems/p", content=buf.getvalue(), headers={"content-type": "application/gzip"})
    assert r.status_code == 422 and "checker.language" in r.json()["detail"], r.text


def test_upload_of_a_cpp_checker_by_extension_judges_as_cpp(judge_http, tmp_path, engine, store):
    # the case: {"type": "program", "path": "checker.cpp"} without "language" ran as Python
    d = _problem_dir(tmp_path, GOOD_CPP)
    problem = load_problem_dir(d, TestStore(tmp_path / "store"))
    assert problem.spec.checker.language == "cpp"
    p = make_problem(
        store,
        [("t", "x\n", "a\n")],
        pid="byext",
        checker={"type": "program", "path": "checker.cpp"},
        checker_source=GOOD_CPP,
    )
    result = engine.judge(p, sub("print('a')\n", problem_id="byext"))
    assert result.status == "ok" and result.tests[0].verdict == "AC", result


def test_checks_are_bounded_and_never_hold_up_another_route(judge_http, stack):
    """A compile that runs to its limit holds a worker, not the API: /healthz and GET /problems answer
    meanwhile, a second check past FRONTIER_MAX_CHECKS is refused at once with 503, and the first is
    refused when its compile is stopped."""
    import threading

    import redis

    conn = redis.Redis.from_url(stack.env["FRONTIER_REDIS_URL"])
    in_flight = f"{stack.env['FRONTIER_REDIS_PREFIX']}:checks"
    answers = {}

    def slow_upload():
        body = _body({"type": "program", "source": SLOW_CPP, "language": "cpp"})
        answers["slow"] = judge_http.put("/problems/slowck", json=body)

    first = threading.Thread(target=slow_upload)
    first.start()
    try:
        for _ in range(600):
            if conn.zcard(in_flight):
                break
            first.join(0.05)
        assert conn.zcard(in_flight) == 1
        r = judge_http.put(
            "/problems/other", json=_body({"type": "program", "source": GOOD_CPP + "//", "language": "cpp"})
        )
        assert r.status_code == 503 and "FRONTIER_MAX_CHECKS" in r.json()["detail"], r.text
        assert judge_http.get("/healthz").status_code == 200
        assert judge_http.get("/problems").status_code == 200
    finally:
        first.join(120)
    slow = answers["slow"]
    assert slow.status_code == 422 and "compilation exceeded its time limit" in slow.json()["detail"], (
        slow.text
    )
    assert conn.zcard(in_flight) == 0
