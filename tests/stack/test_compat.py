"""The compat APIs (issue 16) end to end: a real Redis, a real judge API, a real worker with its sandbox,
driven the way SandboxFusion's and Judge0's clients drive them. Each test is one rule of the mapping
in docs/spec.md, named after it."""

from __future__ import annotations

import base64
import io
import json
import os
import stat
import struct
import threading
import time
import warnings
import zipfile
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from services.judge.compat import judge0, sandboxfusion
from services.judge.core.verdicts import Verdict
from services.judge.queue.run_models import RunOutcome
from tests.support.redis import MAIN_REDIS, claim_redis_db
from tests.support.stack import judge_stack

TOKEN = "compat-test-token"
ECHO_SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
SUM_CPP = '#include <cstdio>\nint main(){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a+b);}\n'
SPIN = "while True:\n    pass\n"
SEGV_CPP = "int main(){ volatile int *p = nullptr; *p = 1; return 0; }\n"
# several seconds of CPU for g++ -O2 (std::regex instantiated): past a compile_timeout of 1 s
SLOW_TO_COMPILE_CPP = (
    '#include <bits/stdc++.h>\n#include <regex>\nint main(){ std::regex r("a+b*"); '
    "std::map<std::string, std::vector<std::set<long>>> m; "
    'std::cout << std::regex_match("aab", r) << m.size() << "\\n"; }\n'
)


def b64(text: str | bytes) -> str:
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """One API (with a bearer token) and one worker with two slots, on their own queue and prefix."""
    with judge_stack(tmp_path_factory, "compat", slots=2, api_token=TOKEN, compat_fetch_file_mb=1) as s:
        yield s


@pytest.fixture(scope="module")
def http(stack):
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with httpx.Client(base_url=stack.url, timeout=120, headers=headers) as client:
        yield client


def run_code(http: httpx.Client, code: str, language: str = "python", **fields) -> dict:
    r = http.post("/run_code", json={"code": code, "language": language, **fields})
    assert r.status_code == 200, r.text
    return r.json()


# -- SandboxFusion /run_code ------------------------------------------------------------------------
def test_run_code_python_reads_stdin_and_succeeds(http):
    out = run_code(http, ECHO_SUM, stdin="2 40\n")
    assert out["status"] == "Success"
    assert out["compile_result"] is None  # an interpreted language has no compile step
    run = out["run_result"]
    assert (run["status"], run["return_code"], run["stdout"]) == ("Finished", 0, "42\n")
    assert isinstance(run["execution_time"], float) and isinstance(run["cpu_time"], float)


def test_run_code_cpp_compiles_then_runs(http):
    out = run_code(http, SUM_CPP, language="cpp", stdin="5 6\n")
    assert out["status"] == "Success"
    assert out["compile_result"]["status"] == "Finished"
    assert out["run_result"]["stdout"] == "11\n"


def test_run_code_cpp_compile_error_fails_in_compile_result(http):
    out = run_code(http, "int main( { return 0; }\n", language="cpp")
    assert out["status"] == "Failed"
    assert out["compile_result"]["status"] == "Error"
    assert "error" in out["compile_result"]["stderr"]
    assert out["run_result"] is None


def test_run_code_nonzero_exit_is_failed_with_its_return_code_and_stderr(http):
    out = run_code(http, "import sys\nprint('partial')\nsys.exit(3)\n")
    assert out["status"] == "Failed"
    run = out["run_result"]
    assert (run["status"], run["return_code"], run["stdout"]) == ("Finished", 3, "partial\n")


def test_run_code_exception_shows_its_traceback(http):
    out = run_code(http, "raise ValueError('boom')\n")
    assert out["status"] == "Failed"
    assert out["run_result"]["return_code"] != 0
    assert "ValueError: boom" in out["run_result"]["stderr"]


def test_run_code_python_syntax_error_is_a_failed_run(http):
    out = run_code(http, "def f(:\n")
    assert out["status"] == "Failed"
    assert out["run_result"]["return_code"] == 1
    assert "SyntaxError" in out["run_result"]["stderr"]


def test_run_code_infinite_loop_is_time_limit_exceeded(http):
    out = run_code(http, SPIN, run_timeout=0.2)
    assert out["status"] == "Failed"
    assert out["run_result"]["status"] == "TimeLimitExceeded"


def test_run_code_memory_limit_is_enforced(http):
    hog = "x = bytearray(400 << 20)\nx[::4096] = b'1' * len(x[::4096])\nprint('survived')\n"
    out = run_code(http, hog, memory_limit_MB=64)
    assert out["status"] == "Failed"
    assert out["run_result"]["stdout"] != "survived\n"
    assert out["message"] == "memory limit exceeded"


def test_run_code_files_are_placed_in_the_working_directory(http):
    code = "print(open('data.txt').read().upper(), end='')\nprint(open('raw.bin', 'rb').read()[0])\n"
    files = {"data.txt": b64("hello\n"), "./raw.bin": b64(b"\xff\x00")}
    out = run_code(http, code, files=files)
    assert out["status"] == "Success", out
    assert out["run_result"]["stdout"] == "HELLO\n255\n"


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"language": "php"}, "unsupported language"),
        ({"fetch_files": ["/etc/passwd"]}, "inside the working directory"),
        ({"fetch_files": ["../run/out.txt"]}, "inside the working directory"),
        ({"fetch_files": ["a/../../x"]}, "inside the working directory"),
        ({"files": {"sub/dir.txt": b64("x")}}, "plain file names"),
        ({"files": {"nul\u0000.txt": b64("x")}}, "plain file names"),
        ({"files": {"a.txt": "%%%not base64"}}, "base64"),
    ],
)
def test_run_code_refuses_what_it_cannot_run_in_sandboxfusions_format(http, fields, says):
    r = http.post("/run_code", json={"code": "print(1)", "language": "python", **fields})
    assert r.status_code == 400
    assert r.json()["status"] == "SandboxError"
    assert says in r.json()["message"]


def test_run_code_fetch_files_come_back_base64_by_the_path_as_asked(http):
    code = (
        "import os\nos.makedirs('sub')\nopen('out.txt', 'w').write('result 42')\n"
        "open('sub/raw.bin', 'wb').write(bytes(range(256)))\n"
    )
    out = run_code(http, code, fetch_files=["out.txt", "./sub/raw.bin", "never-written.txt"])
    assert out["status"] == "Success", out
    # a path that names no file is left out, as SandboxFusion leaves it out
    assert set(out["files"]) == {"out.txt", "./sub/raw.bin"}
    assert base64.b64decode(out["files"]["out.txt"]) == b"result 42"
    assert base64.b64decode(out["files"]["./sub/raw.bin"]) == bytes(range(256))


def test_run_code_fetch_files_of_a_failed_cpp_run_come_back_too(http):
    code = (
        '#include <cstdio>\nint main(){ FILE *f = fopen("log.txt", "w"); '
        'fputs("partial", f); fclose(f); return 3; }\n'
    )
    out = run_code(http, code, language="cpp", fetch_files=["log.txt"])
    assert out["status"] == "Failed" and out["run_result"]["return_code"] == 3
    assert base64.b64decode(out["files"]["log.txt"]) == b"partial"


def test_run_code_fetch_files_never_follow_a_link_out_of_the_working_directory(http):
    code = (
        "import os\nos.symlink('/etc/passwd', 'leak')\nos.symlink('/etc', 'etc')\n"
        "open('real.txt', 'w').write('mine')\n"
    )
    out = run_code(http, code, fetch_files=["leak", "etc/passwd", "pipe", "real.txt"])
    assert out["status"] == "Success", out
    assert out["files"] == {"real.txt": b64("mine")}


def test_run_code_fetch_files_over_the_size_cap_are_left_out_with_a_message(http):
    """The module's judge runs with FRONTIER_COMPAT_FETCH_FILE_MB=1."""
    code = "open('big.bin', 'wb').write(b'x' * (2 << 20))\nopen('small.txt', 'w').write('ok')\n"
    out = run_code(http, code, fetch_files=["big.bin", "small.txt"])
    assert out["status"] == "Success"
    assert set(out["files"]) == {"small.txt"}
    assert "big.bin" in out["message"] and "size limit" in out["message"]


def test_run_code_compile_timeout_applies_to_cpp_and_a_longer_one_compiles_it(http):
    short = run_code(http, SLOW_TO_COMPILE_CPP, language="cpp", compile_timeout=1)
    assert short["status"] == "Failed" and short["run_result"] is None
    assert short["compile_result"]["status"] == "TimeLimitExceeded", short
    # the timed-out compile is not remembered as this source's failure: a longer limit compiles it
    longer = run_code(http, SLOW_TO_COMPILE_CPP, language="cpp", compile_timeout=60)
    assert longer["status"] == "Success", longer
    assert longer["run_result"]["stdout"] == "10\n"


def test_sandboxfusion_compile_timeout_is_capped_by_the_judges_compile_limit():
    body = sandboxfusion.RunCodeRequest(code="int main(){}", language="cpp", compile_timeout=60)
    assert sandboxfusion.to_run(body, compile_cap_ms=20_000).compile_time_limit_ms == 20_000
    body = sandboxfusion.RunCodeRequest(code="int main(){}", language="cpp", compile_timeout=2.5)
    assert sandboxfusion.to_run(body, compile_cap_ms=20_000).compile_time_limit_ms == 2_500


def test_run_code_malformed_body_is_422(http):
    r = http.post("/run_code", json={"language": "python"})
    assert r.status_code == 422
    assert "code" in r.json()["detail"]


def test_compat_routes_need_the_bearer_token(stack):
    for method, path in (
        ("POST", "/run_code"),
        ("GET", "/judge0/languages"),
        ("POST", "/judge0/submissions"),
    ):
        r = httpx.request(method, stack.url + path, json={"code": "print(1)"}, timeout=10)
        assert r.status_code == 401, (path, r.text)


def test_verl_style_client_one_post_per_test_case_concurrently(stack):
    """verl's sandbox_fusion reward: one /run_code per test case, many at once, stdout compared."""
    cases = [(f"{i} {i * 7}\n", f"{i * 8}\n") for i in range(12)]
    code = ECHO_SUM + "# verl\n"

    def call(case):
        stdin, expected = case
        payload = {
            "code": code,
            "stdin": stdin,
            "memory_limit_MB": 1024,
            "language": "python",
            "files": {},
            "fetch_files": [],
            "compile_timeout": 10,
            "run_timeout": 10,
        }
        response = httpx.post(
            stack.url + "/run_code",
            json=payload,
            headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
            timeout=120,
        )
        response.raise_for_status()
        result = response.json()
        ok = result["status"] == "Success" and result["run_result"]["status"] == "Finished"
        return ok and result["run_result"]["stdout"].strip() == expected.strip()

    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(call, cases)) == [True] * len(cases)


# -- Judge0 -----------------------------------------------------------------------------------------
def j0_wait(http: httpx.Client, body: dict, **params) -> dict:
    r = http.post("/judge0/submissions", json=body, params={"wait": "true", **params})
    assert r.status_code == 201, r.text
    return r.json()


def test_judge0_languages_statuses_about_and_config(http):
    ids = {lang["id"] for lang in http.get("/judge0/languages").json()}
    assert {71, 54} <= ids
    statuses = {s["id"]: s["description"] for s in http.get("/judge0/statuses").json()}
    assert statuses[3] == "Accepted" and statuses[6] == "Compilation Error"
    assert statuses[11] == "Runtime Error (NZEC)" and statuses[13] == "Internal Error"
    # Judge0's SDK maps its language aliases by this version: PYTHON -> 71, CPP -> 52
    assert http.get("/judge0/about").json()["version"] == "1.13.1"
    assert 52 in ids
    config = http.get("/judge0/config_info").json()
    assert config["enable_wait_result"] is True and config["maintenance_mode"] is False


def test_judge0_one_language_by_id(http):
    assert http.get("/judge0/languages/52").json()["name"].startswith("C++")
    assert http.get("/judge0/languages/71").json()["name"].startswith("Python")
    assert http.get("/judge0/languages/62").json()["name"].startswith("Java")
    assert http.get("/judge0/languages/68").status_code == 404  # PHP: not run here


@pytest.mark.parametrize(
    ("name", "body", "status_id"),
    [
        (
            "accepted ignoring trailing whitespace",
            {"source_code": ECHO_SUM, "language_id": 71, "stdin": "1 2", "expected_output": "3  \n\n"},
            3,
        ),
        (
            "no expected output: accepted when it runs",
            {"source_code": ECHO_SUM, "language_id": 71, "stdin": "1 2"},
            3,
        ),
        (
            "wrong answer",
            {"source_code": ECHO_SUM, "language_id": 71, "stdin": "1 2", "expected_output": "4"},
            4,
        ),
        ("time limit exceeded", {"source_code": SPIN, "language_id": 71, "cpu_time_limit": 0.2}, 5),
        ("compilation error", {"source_code": "int main( {}", "language_id": 54}, 6),
        ("runtime error NZEC", {"source_code": "import sys; sys.exit(2)", "language_id": 71}, 11),
        ("runtime error SIGSEGV", {"source_code": SEGV_CPP, "language_id": 54}, 7),
        (
            "cpp accepted",
            {"source_code": SUM_CPP, "language_id": 54, "stdin": "20 22", "expected_output": "42"},
            3,
        ),
    ],
)
def test_judge0_status_ids(http, name, body, status_id):
    out = j0_wait(http, body)
    assert out["status"] == {"id": status_id, "description": judge0.STATUSES[status_id]}, (name, out)


def test_judge0_reports_time_memory_stdout_and_compile_output(http):
    ok = j0_wait(http, {"source_code": ECHO_SUM, "language_id": 71, "stdin": "1 2\n"})
    assert set(ok) == set(judge0.DEFAULT_FIELDS)
    assert ok["stdout"] == "3\n" and isinstance(ok["token"], str)
    assert float(ok["time"]) >= 0 and isinstance(ok["memory"], int) and ok["memory"] > 0
    ce = j0_wait(http, {"source_code": "int main( {}", "language_id": 54})
    assert "error" in ce["compile_output"] and ce["stdout"] is None


def test_judge0_base64_encoded_both_ways(http):
    body = {"source_code": b64("print(input()[::-1])"), "language_id": 71, "stdin": b64("héllo")}
    out = j0_wait(http, body, base64_encoded="true")
    assert out["status"]["id"] == 3
    assert base64.b64decode(out["stdout"]).decode() == "olléh\n"


def test_judge0_submit_without_wait_then_poll_the_token(http):
    r = http.post("/judge0/submissions", json={"source_code": ECHO_SUM, "language_id": 71, "stdin": "4 5"})
    assert r.status_code == 201
    token = r.json()["token"]
    deadline = time.monotonic() + 60
    while True:
        out = http.get(f"/judge0/submissions/{token}", params={"fields": "status,stdout,language_id"}).json()
        if out["status"]["id"] > 2 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert out == {"status": {"id": 3, "description": "Accepted"}, "stdout": "9\n", "language_id": 71}


def test_judge0_batch_submit_and_read(http):
    subs = [
        {"source_code": ECHO_SUM, "language_id": 71, "stdin": "1 1", "expected_output": "2"},
        {"source_code": "print(1)", "language_id": 999},
        {"source_code": ECHO_SUM, "language_id": 71, "stdin": "1 1", "expected_output": "3"},
    ]
    r = http.post("/judge0/submissions/batch", json={"submissions": subs})
    assert r.status_code == 201
    answers = r.json()
    assert "language_id" in answers[1]
    tokens = [answers[0]["token"], answers[2]["token"]]
    deadline = time.monotonic() + 60
    while True:
        got = http.get("/judge0/submissions/batch", params={"tokens": ",".join(tokens)}).json()["submissions"]
        if all(s["status"]["id"] > 2 for s in got) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert [s["status"]["id"] for s in got] == [3, 4]


def test_judge0_unknown_language_is_422_in_judge0s_format(http):
    r = http.post(
        "/judge0/submissions", json={"source_code": "x", "language_id": 68}, params={"wait": "true"}
    )
    assert r.status_code == 422
    assert r.json()["language_id"] == ["language with id 68 doesn't exist"]


def test_judge0_unknown_token_is_404(http):
    r = http.get("/judge0/submissions/no-such-token")
    assert r.status_code == 404


def test_judge0_limits_over_judge0s_maxima_are_422_in_judge0s_format(http):
    r = http.post("/judge0/submissions", json={"source_code": "x", "language_id": 71, "cpu_time_limit": 100})
    assert r.status_code == 422
    assert "less than or equal to 15" in r.json()["cpu_time_limit"][0]
    r = http.post("/judge0/submissions", json={"language_id": 71, "compiler_options": "-O2" * 300})
    assert r.status_code == 422
    assert set(r.json()) >= {"source_code", "compiler_options", "detail"}
    assert "at most 512 characters" in r.json()["compiler_options"][0]
    # in a batch, as alone: the whole batch 422, the field named (never a 500)
    sub = {"source_code": "int main(){}", "language_id": 54, "compiler_options": "-O2 " * 129}
    r = http.post("/judge0/submissions/batch", json={"submissions": [sub]})
    assert r.status_code == 422 and "at most 512 characters" in r.json()["compiler_options"][0], r.json()


def test_judge0_compiler_options_from_the_allow_list_reach_gcc(http):
    code = '#include <cstdio>\nint main(){ printf("%d %ld\\n", ANSWER, __cplusplus); }\n'
    body = {"source_code": code, "language_id": 54, "compiler_options": "-O0 -DANSWER=42 -std=c++20"}
    out = j0_wait(http, body)
    assert out["status"]["id"] == 3, out
    assert out["stdout"] == "42 202002\n"


@pytest.mark.parametrize(
    ("language_id", "options"),
    [
        (54, "-include /etc/passwd"),
        (54, "-o /bincache/x"),
        (54, "-fplugin=evil.so"),
        (54, "@/etc/passwd"),
        (54, "-Wl,-rpath,/tmp"),
        (54, "'-DX"),
        (71, "-O2"),
    ],
)
def test_judge0_compiler_options_off_the_allow_list_are_422(http, language_id, options):
    body = {"source_code": "int main(){}", "language_id": language_id, "compiler_options": options}
    r = http.post("/judge0/submissions", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["compiler_options"], r.json()


@pytest.mark.parametrize(("language_id", "code"), [(71, "import sys\nprint(sys.argv[1:])\n"), (54, None)])
def test_judge0_command_line_arguments_reach_the_program(http, language_id, code):
    if code is None:
        code = (
            '#include <cstdio>\nint main(int c, char **v){ printf("["); '
            'for (int i = 1; i < c; i++) printf("%s\'%s\'", i > 1 ? ", " : "", v[i]); puts("]"); }\n'
        )
    body = {"source_code": code, "language_id": language_id, "command_line_arguments": "a 'b c' --d=e"}
    out = j0_wait(http, body)
    assert out["stdout"] == "['a', 'b c', '--d=e']\n", out


def zip_b64(files: dict[str, bytes]) -> str:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return base64.b64encode(buf.getvalue()).decode()


def test_judge0_additional_files_are_in_the_working_directory(http):
    extra = zip_b64({"data.txt": b"4 5\n", "weights.bin": b"\x00\x07"})
    code = "a, b = map(int, open('data.txt').read().split())\nprint(a * b + open('weights.bin', 'rb').read()[1])\n"
    out = j0_wait(http, {"source_code": code, "language_id": 71, "additional_files": extra})
    assert out["status"]["id"] == 3 and out["stdout"] == "27\n", out


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        ("%%% not base64", "zip archive"),
        (base64.b64encode(b"not a zip").decode(), "zip archive"),
        (zip_b64({"dir/inner.txt": b"x"}), "top level"),
        (zip_b64({"../escape.txt": b"x"}), "top level"),
    ],
)
def test_judge0_bad_additional_files_are_422(http, extra, says):
    r = http.post(
        "/judge0/submissions", json={"source_code": "1", "language_id": 71, "additional_files": extra}
    )
    assert r.status_code == 422
    assert says in r.json()["additional_files"][0]


def _zip(members: list[tuple[str, bytes, int]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a name twice is one of the hostile cases
        for name, data, method in members:
            archive.writestr(zipfile.ZipInfo(name), data, compress_type=method)
    return buf.getvalue()


def _symlink_zip(name: str, target: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        info = zipfile.ZipInfo(name)
        info.external_attr = (stat.S_IFLNK | 0o777) << 16  # as `zip --symlinks` writes one
        archive.writestr(info, target)
    return buf.getvalue()


def _patch_directory(data: bytes, offset: int, fmt: str, value: int) -> bytes:
    """Overwrite one field of the first central directory entry (a size or the flags): a lying zip."""
    at = data.index(b"PK\x01\x02")
    field = struct.pack(fmt, value)
    return data[: at + offset] + field + data[at + offset + len(field) :]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


ZEROS_16MB = bytes(16 << 20)
HOSTILE_ZIPS = [
    ("a bzip2 member", _zip([("a.txt", b"x" * 100, zipfile.ZIP_BZIP2)]), "compression method 12", False),
    ("an lzma member", _zip([("a.txt", b"x" * 100, zipfile.ZIP_LZMA)]), "compression method 14", False),
    (
        "a member that claims 1 byte and inflates 16 MB",
        _patch_directory(_zip([("a.txt", ZEROS_16MB, zipfile.ZIP_DEFLATED)]), 24, "<I", 1),
        "'a.txt'",
        False,
    ),
    ("a deflate bomb over the limit", _zip([("a.txt", ZEROS_16MB, zipfile.ZIP_DEFLATED)]), "MB", True),
    (
        "members that add up over the limit",
        _zip([(f"f{i}", bytes(400 << 10), zipfile.ZIP_DEFLATED) for i in range(3)]),
        "unpack to more than 1 MB",
        True,
    ),
    (
        "too many tiny members",
        _zip([(f"f{i}", b"", zipfile.ZIP_STORED) for i in range(judge0.MAX_ADDITIONAL_FILES + 1)]),
        "more than 256 files",
        True,
    ),
    (
        "an encrypted member",
        _patch_directory(_zip([("a.txt", b"secret", zipfile.ZIP_STORED)]), 8, "<H", 1),
        "encrypted",
        False,
    ),
    ("a path climbing out", _zip([("../../etc/passwd", b"x", zipfile.ZIP_STORED)]), "top level", False),
    ("a symbolic link", _symlink_zip("link", "/etc/passwd"), "symbolic links", False),
    ("the same name twice", _zip([("a", b"1", 0), ("a", b"2", 0)]), "the same file twice", False),
]


@pytest.mark.parametrize(
    ("data", "says", "too_large"), [c[1:] for c in HOSTILE_ZIPS], ids=[c[0] for c in HOSTILE_ZIPS]
)
def test_judge0_hostile_zips_are_refused_counting_real_bytes(data, says, too_large):
    """A zip's members inflate in chunks counted against the limit (1 MB here), stored or deflate only."""
    start = time.process_time()
    with pytest.raises(judge0.SubmissionRefused) as caught:
        judge0._additional_files(_b64(data), 1 << 20)
    assert says in str(caught.value)
    assert isinstance(caught.value, judge0.SubmissionTooLarge) == too_large
    assert time.process_time() - start < 5.0  # about 20 ms each: inflating stops at the limit


def test_judge0_a_zip_that_declares_a_huge_directory_is_refused_before_it_is_parsed():
    data = _zip([("a", b"1", zipfile.ZIP_STORED)])
    end = data.rindex(b"PK\x05\x06")
    for offset, value in ((8, 60000), (10, 60000), (12, 50 << 20)):  # entries here, in all, directory bytes
        fmt = "<I" if offset == 12 else "<H"
        lying = data[: end + offset] + struct.pack(fmt, value) + data[end + offset + struct.calcsize(fmt) :]
        with pytest.raises(judge0.SubmissionTooLarge):
            judge0._additional_files(_b64(lying), 1 << 20)


def test_judge0_zips_within_the_limits_still_unpack():
    data = _zip([("a.bin", bytes(range(256)), zipfile.ZIP_DEFLATED), ("b.txt", b"hi", zipfile.ZIP_STORED)])
    files = judge0._additional_files(_b64(data), 1 << 20)
    assert files == {"a.bin": bytes(range(256)).decode("latin-1"), "b.txt": "hi"}


def test_judge0_an_oversized_zip_is_413_in_judge0s_shape(http):
    bomb = _b64(_zip([("a.txt", bytes(80 << 20), zipfile.ZIP_DEFLATED)]))  # over FRONTIER_TMP_SIZE_MB
    r = http.post(
        "/judge0/submissions", json={"source_code": "1", "language_id": 71, "additional_files": bomb}
    )
    assert r.status_code == 413 and "unpack to more than" in r.json()["additional_files"][0], r.text
    lzma = _b64(_zip([("a.txt", b"x", zipfile.ZIP_LZMA)]))
    r = http.post(
        "/judge0/submissions", json={"source_code": "1", "language_id": 71, "additional_files": lzma}
    )
    assert r.status_code == 422 and "only stored or deflate" in r.json()["additional_files"][0], r.text


def test_judge0_delete_is_refused_where_not_enabled(http):
    token = j0_wait(http, {"source_code": "print(1)", "language_id": 71})["token"]
    r = http.delete(f"/judge0/submissions/{token}")
    assert r.status_code == 400 and r.json()["error"] == "delete not allowed"
    assert http.get(f"/judge0/submissions/{token}").status_code == 200  # still there


def test_judge0_status_goes_in_queue_processing_then_done(http):
    body = {"source_code": "import time\ntime.sleep(3)\nprint('done')\n", "language_id": 71}
    token = http.post("/judge0/submissions", json=body).json()["token"]
    seen = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        sid = http.get(f"/judge0/submissions/{token}", params={"fields": "status"}).json()["status"]["id"]
        if not seen or seen[-1] != sid:
            seen.append(sid)
        if sid > 2:
            break
        time.sleep(0.05)
    assert seen[-2:] == [2, 3], seen  # Processing while it slept, then Accepted
    assert seen == sorted(seen)


@pytest.mark.parametrize(
    "url",
    [
        "http://10.1.2.3/cb",
        "http://example.invalid:8080/cb",
        "ftp://127.0.0.1/cb",
        "not a url",
        "http://127.0.0.1:x/",
    ],
)
def test_judge0_callback_url_outside_the_allowed_hosts_is_422(http, url):
    body = {"source_code": "print(1)", "language_id": 71, "callback_url": url}
    r = http.post("/judge0/submissions", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["callback_url"]


class _Callbacks(BaseHTTPRequestHandler):
    received: list = []
    arrived = threading.Event()

    def do_PUT(self):  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).received.append((self.path, self.headers["Content-Type"], json.loads(body)))
        self.send_response(200)
        self.end_headers()
        type(self).arrived.set()

    def log_message(self, *args):
        pass


def test_judge0_callback_url_gets_the_finished_submission_put_to_it(http):
    """A tiny HTTP server on loopback (the default FRONTIER_JUDGE0_CALLBACK_HOSTS) takes the PUT."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Callbacks)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/judged?job=7"
        body = {"source_code": ECHO_SUM, "language_id": 71, "stdin": "20 22", "callback_url": url}
        r = http.post("/judge0/submissions", json=body)
        assert r.status_code == 201
        token = r.json()["token"]
        assert _Callbacks.arrived.wait(120), "no callback arrived"
        path, content_type, sent = _Callbacks.received[0]
        assert path == "/judged?job=7" and content_type == "application/json"
        # as Judge0 sends it: the default fields, base64-encoded
        assert set(sent) == set(judge0.DEFAULT_FIELDS)
        assert sent["token"] == token and sent["status"] == {"id": 3, "description": "Accepted"}
        assert base64.b64decode(sent["stdout"]) == b"42\n"
    finally:
        server.shutdown()
        server.server_close()


def test_judge0_config_info_says_what_this_judge_allows(http):
    config = http.get("/judge0/config_info").json()
    assert config["enable_compiler_options"] is True and config["enable_command_line_arguments"] is True
    assert config["enable_additional_files"] is True and config["enable_callbacks"] is True
    assert config["enable_submission_delete"] is False  # FRONTIER_JUDGE0_SUBMISSION_DELETE off


def test_compat_calls_and_refusals_count_in_the_judges_metrics(http):
    run_code(http, "print(1)")
    http.post("/run_code", json={"code": "x", "language": "cobol"})
    text = http.get("/metrics").text
    lines = {
        line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line and not line.startswith("#")
    }
    assert lines['frontier_judge_compat_requests_total{code="200",endpoint="POST /run_code"}'] >= 1
    assert lines['frontier_judge_compat_requests_total{code="400",endpoint="POST /run_code"}'] >= 1
    assert lines['frontier_judge_compat_runs_total{api="sandboxfusion"}'] >= 1
    assert (
        lines['frontier_judge_compat_sandboxfusion_results_total{endpoint="/run_code",status="Success"}'] >= 1
    )
    # the judge's own metrics are in the same registry
    assert any(key.startswith("frontier_judge_submissions") for key in lines)


# -- the pure mapping -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("outcome", "expected", "status_id"),
    [
        (RunOutcome(status="judge_error", message="slot died"), None, 13),
        (RunOutcome(status="ok", verdict=Verdict.MLE, exit_code=1), None, 11),
        (RunOutcome(status="ok", verdict=Verdict.RE, signal=8), None, 9),
        (RunOutcome(status="ok", verdict=Verdict.RE, signal=6), None, 10),
        (RunOutcome(status="ok", verdict=Verdict.OLE, signal=25), None, 8),
        (RunOutcome(status="ok", stdout="1\n2 \n"), "1\n2", 3),
        (RunOutcome(status="ok", stdout="1\n\n2\n"), "1\n2", 4),
    ],
)
def test_judge0_status_mapping_rules(outcome, expected, status_id):
    assert judge0.status_id(outcome, expected) == status_id


def test_sandboxfusion_judge_error_is_sandbox_error_never_a_program_result():
    answer = sandboxfusion.from_run(RunOutcome(status="judge_error", message="slot died"), "python")
    assert (answer.status, answer.message, answer.run_result) == ("SandboxError", "slot died", None)


def test_sandboxfusion_no_memory_limit_gets_the_default_cap():
    body = sandboxfusion.RunCodeRequest(code="print(1)", memory_limit_MB=-1)
    request = sandboxfusion.to_run(body, compile_cap_ms=20_000)
    assert request.memory_limit_mb == sandboxfusion.DEFAULT_MEMORY_MB
    assert request.time_limit_ms == request.wall_limit_ms == 10_000


# -- SandboxFusion /run_jupyter ---------------------------------------------------------------------
def run_jupyter(http: httpx.Client, cells: list[str], **fields) -> dict:
    r = http.post("/run_jupyter", json={"cells": cells, **fields})
    assert r.status_code == 200, r.text
    return r.json()


def test_run_jupyter_cells_share_one_interpreter_and_report_like_a_notebook(http):
    cells = [
        "a = 123",
        "a",
        "print(a)",
        "import sys; _ = sys.stderr.write('err msg')",
        "raise RuntimeError('boom')",
    ]
    out = run_jupyter(http, cells)
    assert out["status"] == "Success" and out["driver"]["status"] == "Finished"
    first, value, printed, stderr, failed = out["cells"]
    assert first == {"stdout": "", "stderr": "", "display": [], "error": []}
    assert value["display"] == [{"text/plain": "123"}]
    assert printed["stdout"] == "123\n"
    assert stderr["stderr"] == "err msg"
    assert failed["error"][0]["ename"] == "RuntimeError" and failed["error"][0]["evalue"] == "boom"


def test_run_jupyter_cell_timeout_stops_that_cell_only(http):
    out = run_jupyter(http, [SPIN, "print('after')"], cell_timeout=0.3, total_timeout=30)
    assert out["status"] == "Success"
    spun, after = out["cells"]
    assert spun["error"][0]["ename"] == "CellTimeout"
    assert after["stdout"] == "after\n"


def test_run_jupyter_total_timeout_keeps_the_cells_that_finished(http):
    out = run_jupyter(http, ["print(1)", SPIN, "print(2)"], total_timeout=0.5)
    assert out["status"] == "Failed"
    assert out["driver"]["status"] == "TimeLimitExceeded"
    assert [c["stdout"] for c in out["cells"]] == ["1\n"]


def test_run_jupyter_files_and_subprocess_output_are_caught(http):
    cells = ["print(open('in.txt').read())", "import os; os.system('echo from-shell')"]
    out = run_jupyter(http, cells, files={"in.txt": b64("hello")})
    assert [c["stdout"] for c in out["cells"]] == ["hello\n", "from-shell\n"]


def test_run_jupyter_fetch_files(http):
    cells = ["import json", "json.dump({'answer': 42}, open('result.json', 'w'))"]
    out = run_jupyter(http, cells, fetch_files=["result.json", "absent.json"])
    assert out["status"] == "Success"
    assert json.loads(base64.b64decode(out["files"]["result.json"])) == {"answer": 42}
    assert "absent.json" not in out["files"]


def test_run_jupyter_refuses_another_kernel(http):
    r = http.post("/run_jupyter", json={"cells": ["1"], "kernel": "ir"})
    assert r.status_code == 400 and "kernel" in r.json()["message"]


# -- the queue: runs share the judge's depth limit --------------------------------------------------
def test_a_finished_run_gives_its_queue_unit_back(http):
    j0_wait(http, {"source_code": "print(1)", "language_id": 71})
    deadline = time.monotonic() + 30
    while http.get("/healthz").json()["queue_depth"] != 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert http.get("/healthz").json()["queue_depth"] == 0


def test_runs_past_the_queue_limit_get_429_with_retry_after(tmp_path_factory):
    """An API without workers and a queue of one: the second run finds it full."""
    for url in claim_redis_db(range(8, 16), *MAIN_REDIS):
        s = judge_stack(
            tmp_path_factory.mktemp("compat-full"),
            redis_url=url,
            workers=0,
            judge_queue=f"compat-full-{os.getpid()}",
            redis_prefix=f"compatfull{os.getpid()}",
            max_queue_depth=1,
        )
        try:
            body = {"source_code": "print(1)", "language_id": 71}
            first = httpx.post(s.url + "/judge0/submissions", json=body, timeout=30)
            assert first.status_code == 201
            for path, payload in (("/judge0/submissions", body), ("/run_code", {"code": "print(1)"})):
                r = httpx.post(s.url + path, json=payload, timeout=30)
                assert r.status_code == 429, r.text
                assert r.headers["retry-after"] == "5" and "queue is full" in r.json()["detail"]
        finally:
            s.close()


# -- a run lost for good is answered, never left waiting --------------------------------------------
def _busy_loops(conn, queue: str) -> list[tuple[int, str]]:
    """(pid, job id) of each worker loop of `queue` that holds a job now."""
    busy = []
    for key in conn.smembers(f"rq:workers:{queue}"):
        job = conn.hget(key, "current_job")
        if job:
            busy.append((int(key.decode().split(".")[-3]), job.decode()))
    return busy


def test_a_run_whose_worker_is_killed_with_no_retries_left_answers_internal_error(tmp_path_factory):
    """FRONTIER_JOB_RETRIES=0 and the worker SIGKILLed holding a /run_code run and a Judge0 submission:
    the reaper answers both with the internal error (SandboxFusion SandboxError, Judge0 status 13) once
    the lease runs out, long before FRONTIER_JUDGE_WAIT_S (which would be a 504 and 'In Queue')."""
    import redis

    for url in claim_redis_db(range(8, 16), *MAIN_REDIS):
        queue = f"compat-lost-{os.getpid()}"
        s = judge_stack(
            tmp_path_factory.mktemp("compat-lost"),
            redis_url=url,
            workers=0,
            judge_queue=queue,
            redis_prefix=f"compatlost{os.getpid()}",
            job_retries=0,
            job_lease_s=2,
            judge_wait_s=600,
        )
        conn = redis.Redis.from_url(url)
        try:
            worker = s.start_worker(slots=2)
            s.wait_workers(2)
            sleepy = "import time\ntime.sleep(120)\nprint('never')\n"
            with httpx.Client(base_url=s.url, timeout=300) as client, ThreadPoolExecutor(1) as pool:
                j0 = client.post(
                    "/judge0/submissions",
                    json={"source_code": sleepy, "language_id": 71, "wall_time_limit": 20},
                )
                assert j0.status_code == 201, j0.text
                token = j0.json()["token"]
                pending = pool.submit(client.post, "/run_code", json={"code": sleepy, "run_timeout": 60})
                deadline = time.monotonic() + 60
                while len(_busy_loops(conn, queue)) < 2 and time.monotonic() < deadline:
                    time.sleep(0.02)
                busy = _busy_loops(conn, queue)
                assert len(busy) == 2 and {pid for pid, _ in busy} == {worker.pid}, busy
                worker.kill()
                worker.wait()
                # answered by the reaper (lease 2 s), not by the 600 s wait: a hang fails on the 300 s timeout
                r = pending.result()
                assert r.status_code == 200, r.text
                out = r.json()
                assert out["status"] == "SandboxError" and out["run_result"] is None, out
                assert "after 1 attempt" in out["message"] and "not finished" not in out["message"]
                deadline = time.monotonic() + 60
                while True:
                    got = client.get(
                        f"/judge0/submissions/{token}", params={"fields": "status,message"}
                    ).json()
                    if got["status"]["id"] > 2 or time.monotonic() > deadline:
                        break
                    time.sleep(0.1)
                assert got["status"] == {"id": 13, "description": "Internal Error"}, got
                assert "after 1 attempt" in got["message"]
                # both lost runs gave their queue units back
                assert client.get("/healthz").json()["queue_depth"] == 0
        finally:
            s.close()


# -- the official clients, unchanged, pointed at our URL --------------------------------------------
@pytest.fixture(scope="module")
def open_stack(tmp_path_factory):
    """A judge without FRONTIER_API_TOKEN (SandboxFusion's client sends no auth header) and one worker."""
    with judge_stack(tmp_path_factory, "compat-open", slots=2, judge0_submission_delete="true") as s:
        yield s


def test_sandbox_fusion_client_run_code_against_our_judge(open_stack):
    import sandbox_fusion as sf

    sf.set_sandbox_endpoint(open_stack.url)  # the one-line switch: the client's configured endpoint
    ok = sf.run_code(sf.RunCodeRequest(code=ECHO_SUM, language="python", stdin="20 22\n"), max_attempts=1)
    assert ok.status == sf.RunStatus.Success
    assert (ok.run_result.status, ok.run_result.return_code, ok.run_result.stdout) == (
        sf.CommandRunStatus.Finished,
        0,
        "42\n",
    )
    cpp = sf.run_code(sf.RunCodeRequest(code=SUM_CPP, language="cpp", stdin="5 6\n"), max_attempts=1)
    assert cpp.status == sf.RunStatus.Success and cpp.run_result.stdout == "11\n"
    assert cpp.compile_result.status == sf.CommandRunStatus.Finished
    bad = sf.run_code(sf.RunCodeRequest(code="raise SystemExit(4)\n", language="python"), max_attempts=1)
    assert bad.status == sf.RunStatus.Failed and bad.run_result.return_code == 4
    spin = sf.run_code(sf.RunCodeRequest(code=SPIN, language="python", run_timeout=1), max_attempts=1)
    assert spin.run_result.status == sf.CommandRunStatus.TimeLimitExceeded
    assert sf.summary_run_code_result(spin, sf.SummaryMapping(RunTimeout="timeout")) == "timeout"
    # what we cannot run is the client's SandboxError (it raises on it), never a program result
    with pytest.raises(Exception, match="Faas api responded with code 400"):
        sf.run_code(sf.RunCodeRequest(code="<?php echo 1;", language="php"), max_attempts=1)


def test_sandbox_fusion_async_client_and_run_jupyter_against_our_judge(open_stack):
    import asyncio

    import sandbox_fusion as sf

    async def many():
        reqs = [sf.RunCodeRequest(code=ECHO_SUM, language="python", stdin=f"{i} 1\n") for i in range(6)]
        return await asyncio.gather(
            *(sf.run_code_async(r, endpoint=open_stack.url, max_attempts=1) for r in reqs)
        )

    outs = asyncio.run(many())
    assert [o.run_result.stdout for o in outs] == [f"{i + 1}\n" for i in range(6)]
    nb = sf.run_jupyter(
        sf.RunJupyterRequest(cells=["x = 20", "x + 22", "print('hi')"]),
        endpoint=open_stack.url,
        max_attempts=1,
    )
    assert nb.status == sf.RunStatus.Success
    assert nb.cells[1].display[0]["text/plain"] == "42"
    assert nb.cells[2].stdout == "hi\n"


def test_judge0_sdk_run_against_our_judge(open_stack):
    import judge0

    client = judge0.Client(open_stack.url + "/judge0")  # the one-line switch: our base URL
    one = judge0.run(client=client, source_code=ECHO_SUM, language=judge0.PYTHON, stdin="2 3")
    assert one.status == judge0.Status.ACCEPTED and one.stdout == "5\n"
    cpp = judge0.run(client=client, source_code=SUM_CPP, language=judge0.CPP, stdin="7 8")
    assert cpp.status == judge0.Status.ACCEPTED and cpp.stdout == "15\n"
    ce = judge0.run(client=client, source_code="int main( {", language=judge0.CPP)
    assert ce.status == judge0.Status.COMPILATION_ERROR and "error" in ce.compile_output
    cases = [("1 2", "3"), ("2 2", "5"), ("4 4", "8")]
    batch = judge0.run(client=client, source_code=ECHO_SUM, language=judge0.PYTHON, test_cases=cases)
    assert [s.status for s in batch] == [
        judge0.Status.ACCEPTED,
        judge0.Status.WRONG_ANSWER,
        judge0.Status.ACCEPTED,
    ]


def test_judge0_sdk_with_our_bearer_token(stack):
    import judge0

    client = judge0.Client(stack.url + "/judge0", headers={"Authorization": f"Bearer {TOKEN}"})
    out = judge0.run(client=client, source_code="print(6 * 7)", language=judge0.PYTHON)
    assert out.status == judge0.Status.ACCEPTED and out.stdout == "42\n"
    with pytest.raises(RuntimeError):  # no token: the SDK's own check of the server fails at once
        judge0.Client(stack.url + "/judge0")


def test_judge0_delete_where_enabled_answers_base64_then_forgets(open_stack):
    with httpx.Client(base_url=open_stack.url, timeout=120) as client:
        done = client.post(
            "/judge0/submissions",
            json={"source_code": "print('bye')", "language_id": 71},
            params={"wait": "true"},
        ).json()
        r = client.delete(f"/judge0/submissions/{done['token']}", params={"fields": "stdout,status"})
        assert r.status_code == 200, r.text
        # Judge0 answers a delete base64-encoded whatever was asked
        assert r.json() == {"stdout": b64("bye\n"), "status": {"id": 3, "description": "Accepted"}}
        assert client.get(f"/judge0/submissions/{done['token']}").status_code == 404
        assert client.delete(f"/judge0/submissions/{done['token']}").status_code == 404
        # a submission not finished yet is not deleted
        slow = {"source_code": "import time\ntime.sleep(2)\n", "language_id": 71}
        token = client.post("/judge0/submissions", json=slow).json()["token"]
        r = client.delete(f"/judge0/submissions/{token}")
        assert r.status_code == 400 and "cannot be deleted because its status is" in r.json()["error"]
        assert client.get(f"/judge0/submissions/{token}").status_code == 200


def test_judge0_sdk_compiler_options_arguments_and_additional_files(open_stack):
    import judge0

    client = judge0.Client(open_stack.url + "/judge0")
    code = (
        '#include <cstdio>\nint main(int c, char **v){ FILE *f = fopen("in.txt", "r"); int x; '
        'fscanf(f, "%d", &x); printf("%d %s\\n", x * SCALE, v[1]); }\n'
    )
    out = judge0.run(
        client=client,
        source_code=code,
        language=judge0.CPP,
        compiler_options="-DSCALE=3",
        command_line_arguments="tag",
        additional_files=judge0.Filesystem(content=[judge0.File(name="in.txt", content="14")]),
    )
    assert out.status == judge0.Status.ACCEPTED, (out.status, out.compile_output, out.stderr)
    assert out.stdout == "42 tag\n"


def test_sandbox_fusion_client_fetch_files_against_our_judge(open_stack):
    import sandbox_fusion as sf

    code = "open('answer.txt', 'w').write('forty-two')\n"
    out = sf.run_code(
        sf.RunCodeRequest(code=code, language="python", fetch_files=["answer.txt"]),
        endpoint=open_stack.url,
        max_attempts=1,
    )
    assert out.status == sf.RunStatus.Success
    assert base64.b64decode(out.files["answer.txt"]) == b"forty-two"


# -- Engine.run, the public seam the runs use -------------------------------------------------------
def test_engine_run_places_files_passes_args_and_fetches_files_back(tmp_path):
    from services.judge.core.engine import Engine
    from services.settings import Settings

    code = (
        "import sys\nsrc = open('in.txt').read()\nprint(src.upper(), sys.argv[1:], input())\n"
        "open('out.txt', 'w').write(src[::-1])\nsys.stderr.write('note')\n"
    )
    with Engine(Settings(state_dir=tmp_path, slots=1)) as engine:
        run = engine.run(
            "python",
            code,
            time_limit_ms=5000,
            wall_limit_ms=10_000,
            memory_limit_mb=256,
            output_limit_bytes=1 << 20,
            stdin=b"from stdin\n",
            files={"in.txt": b"abc"},
            args=["x", "y z"],
            fetch=["out.txt", "in.txt", "nothing.txt"],
            fetch_max_file_bytes=1 << 20,
            fetch_max_total_bytes=1 << 20,
        )
        assert run.compile_error is None and run.result.exit_code == 0
        assert run.stdout == b"ABC ['x', 'y z'] from stdin\n" and run.stderr == b"note"
        assert run.fetched == {"out.txt": "ok", "in.txt": "ok", "nothing.txt": "missing"}
        assert run.files == {"out.txt": b"cba", "in.txt": b"abc"}
        failed = engine.run(
            "cpp",
            "int main( {",
            time_limit_ms=1000,
            wall_limit_ms=2000,
            memory_limit_mb=256,
            output_limit_bytes=1 << 20,
        )
        assert failed.result is None and "error" in failed.compile_error
