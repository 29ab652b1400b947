"""Loaders: LiveCodeBench `code_generation_lite` and CodeContests+ records, in their published formats,
to problems and SPEC problem directories; the pickle layer refuses anything but a string."""

from __future__ import annotations

import base64
import json
import os
import pickle
import zlib
from datetime import date
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from services.judge.core.functional import run_functional
from services.problems import importers as loaders
from services.problems.cli import import_command
from services.problems.importers import LoaderError, Selection
from services.problems.spec import ExactChecker, Interactor, ProgramChecker, TokensChecker
from services.problems.store import ProblemError, load_problem_dir
from services.problems.store import TestStore as Store  # not "TestStore": pytest would collect it
from tests.support.records import (
    ATCODER,
    CODEFORCES,
    LEETCODE,
    SUM_REFERENCE,
    SUM_STARTER,
    functional_test,
    lcb_encode,
    stdin_test,
)


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "store")


@pytest.fixture
def lcb_file(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "test.jsonl", [ATCODER, LEETCODE, CODEFORCES])


def read_test(store: Store, problem, name: str) -> tuple[bytes, bytes]:
    t = next(t for t in problem.tests if t.name == name)
    return store.get(t.input_sha256), store.get(t.output_sha256)


# ------------------------------------------------------------------------------------ private tests


def test_private_tests_decode_from_the_published_encoding_and_from_plain_json():
    tests = [stdin_test("1\n", "2\n"), stdin_test("3\n", "4\n")]
    assert loaders.decode_private_tests(lcb_encode(tests)) == tests
    assert loaders.decode_private_tests(json.dumps(tests)) == tests
    assert loaders.decode_private_tests("") == []


def test_pickled_bytes_are_accepted_as_utf8_text():
    tests = [stdin_test("1\n", "2\n")]
    raw = base64.b64encode(zlib.compress(pickle.dumps(json.dumps(tests).encode()))).decode()
    assert loaders.decode_private_tests(raw) == tests


class _RunsAShellCommand:
    """A pickle payload that would run a shell command when loaded by a plain `pickle.loads`."""

    def __init__(self, command: str):
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


def test_a_malicious_pickle_is_refused_and_never_runs(tmp_path: Path, store: Store):
    marker = tmp_path / "pwned"
    payload = pickle.dumps(_RunsAShellCommand(f"touch {marker}"))
    raw = base64.b64encode(zlib.compress(payload)).decode()
    record = dict(ATCODER, private_test_cases=raw)

    with pytest.raises(LoaderError) as err:
        loaders.livecodebench_problem(record, store, where="evil.jsonl:1")
    message = str(err.value)
    assert "evil.jsonl:1" in message and "abc301_a" in message
    assert "refused to load" in message and "only a pickled string is accepted" in message
    assert not marker.exists()


@pytest.mark.parametrize(
    "value, complaint",
    [
        ([stdin_test("1\n", "1\n")], "of type list"),  # data, but not the string the format defines
        ({"input": "1"}, "of type dict"),
        (42, "of type int"),
    ],
)
def test_a_pickle_of_anything_but_a_string_is_refused(value, complaint):
    raw = base64.b64encode(zlib.compress(pickle.dumps(value))).decode()
    with pytest.raises(LoaderError, match=complaint):
        loaders.decode_private_tests(raw)


@pytest.mark.parametrize(
    "raw, complaint",
    [
        ("not base64 at all!", "neither JSON nor base64"),
        (base64.b64encode(b"not zlib").decode(), "not zlib data"),
        (base64.b64encode(zlib.compress(b"garbage")).decode(), "invalid pickle"),
        (base64.b64encode(zlib.compress(pickle.dumps("{not json"))).decode(), "not a JSON list"),
    ],
)
def test_broken_private_tests_give_clear_errors(raw, complaint):
    with pytest.raises(LoaderError, match=complaint):
        loaders.decode_private_tests(raw)


# --------------------------------------------------------------------------------- LiveCodeBench


def test_a_stdin_record_becomes_a_problem_with_public_tests_first(lcb_file: Path, store: Store):
    problems = {p.id: p for p in loaders.load_livecodebench(loaders.iter_records(lcb_file), store)}
    assert sorted(problems) == ["lcb-1873_A", "lcb-2999", "lcb-abc301_a"]

    p = problems["lcb-abc301_a"]
    assert p.spec.title == "Problem abc301_a"
    assert p.spec.function is None
    assert p.spec.difficulty == "easy"
    assert p.spec.checker == TokensChecker(type="tokens")
    assert (p.spec.time_limit_ms, p.spec.memory_limit_mb) == (
        loaders.LCB_TIME_LIMIT_MS,
        loaders.LCB_MEMORY_LIMIT_MB,
    )
    assert p.spec.metadata["platform"] == "atcoder"
    assert p.spec.metadata["contest_date"] == "2023-05-13T00:00:00"
    assert p.spec.metadata["public_test_count"] == 1
    assert read_test(store, p, "01") == (b"3\n1 2 3\n", b"6\n")  # the public test
    assert read_test(store, p, "02") == (b"1\n5\n", b"5\n")
    assert read_test(store, p, "03") == (b"2\n10 20\n", b"30\n")
    assert "Statement of abc301_a." in p.statement

    # plain-JSON private tests load the same way
    assert read_test(store, problems["lcb-1873_A"], "02") == (b"x\n", b"x\n")


def test_a_functional_record_maps_to_our_functional_format(lcb_file: Path, store: Store):
    (p,) = [
        p for p in loaders.load_livecodebench(loaders.iter_records(lcb_file), store) if p.id == "lcb-2999"
    ]
    assert p.spec.function == "sumBelow"
    assert p.spec.checker == ExactChecker(type="exact")
    assert p.spec.metadata["starter_code"] == SUM_STARTER
    assert "def sumBelow" in p.statement
    # arguments one JSON value a line, as published; the answer as the functional driver prints it
    assert read_test(store, p, "01") == (b"[1, 5, 2]\n4", b"3\n")
    # a reference run through our functional driver gives exactly the expected bytes on every test
    for t in p.tests:
        inp, out = store.get(t.input_sha256), store.get(t.output_sha256)
        assert run_functional(SUM_REFERENCE, "sumBelow", inp.decode()).encode() == out


@pytest.mark.parametrize(
    "selection, expected",
    [
        (Selection(), ["lcb-1873_A", "lcb-2999", "lcb-abc301_a"]),
        (Selection(start_date=date(2023, 9, 1)), ["lcb-1873_A", "lcb-2999"]),
        (Selection(end_date=date(2023, 9, 10)), ["lcb-2999", "lcb-abc301_a"]),  # end date inclusive
        (Selection(start_date=date(2023, 9, 10), end_date=date(2023, 12, 31)), ["lcb-2999"]),
        (Selection(start_date=date(2024, 1, 5), end_date=date(2024, 1, 5)), ["lcb-1873_A"]),  # time ignored
        (Selection(difficulties=frozenset({"easy", "hard"})), ["lcb-1873_A", "lcb-abc301_a"]),
        (Selection(platforms=frozenset({"LeetCode"})), ["lcb-2999"]),
        (Selection(start_date=date(2023, 1, 1), difficulties=frozenset({"medium"})), ["lcb-2999"]),
        (Selection(start_date=date(2025, 1, 1)), []),
    ],
)
def test_selection_by_date_window_difficulty_and_platform(lcb_file, store, selection, expected):
    problems = loaders.load_livecodebench(loaders.iter_records(lcb_file), store, selection)
    assert sorted(p.id for p in problems) == expected


def test_unselected_records_are_not_decoded(tmp_path: Path, store: Store):
    # a record outside the window with broken private tests is skipped, not an error
    broken = dict(CODEFORCES, private_test_cases="!!!")
    path = write_jsonl(tmp_path / "t.jsonl", [ATCODER, broken])
    problems = loaders.load_livecodebench(
        loaders.iter_records(path), store, Selection(end_date=date(2023, 12, 31))
    )
    assert [p.id for p in problems] == ["lcb-abc301_a"]


@pytest.mark.parametrize(
    "change, complaint",
    [
        ({"difficulty": "trivial"}, "field 'difficulty'"),
        ({"contest_date": "someday"}, "field 'contest_date'"),
        ({"question_content": None}, "field 'question_content'"),
        ({"public_test_cases": "[{"}, "public_test_cases: not valid JSON"),
        ({"public_test_cases": json.dumps([{"input": "1"}])}, "public_test_cases[0]: field 'output'"),
        (
            {"metadata": json.dumps({"func_name": "sumBelow"})},
            "testtype 'stdin', but the problem is functional",
        ),
        ({"metadata": json.dumps({"func_name": "not valid"})}, "is not a Python identifier"),
        ({"public_test_cases": "[]", "private_test_cases": "[]"}, "has no tests"),
    ],
)
def test_malformed_records_give_errors_that_name_the_record(tmp_path, store, change, complaint):
    record = dict(ATCODER, **change)
    path = write_jsonl(tmp_path / "bad.jsonl", [LEETCODE, record])
    with pytest.raises(LoaderError) as err:
        list(loaders.load_livecodebench(loaders.iter_records(path), store))
    assert "bad.jsonl:2" in str(err.value) and "abc301_a" in str(err.value)
    assert complaint in str(err.value)


def test_functional_tests_must_hold_json(store: Store):
    bad = dict(LEETCODE, public_test_cases=json.dumps([functional_test("[1, 2\n3", "1")]))
    with pytest.raises(LoaderError, match=r"public_test_cases\[0\]: input line 1 is not a JSON value"):
        loaders.livecodebench_problem(bad, store, "f.jsonl:1")
    bad = dict(LEETCODE, public_test_cases=json.dumps([functional_test("[1]\n3", "three")]))
    with pytest.raises(LoaderError, match=r"public_test_cases\[0\]: output is not a JSON value"):
        loaders.livecodebench_problem(bad, store, "f.jsonl:1")


def test_a_line_that_is_not_json_is_named(tmp_path: Path, store: Store):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(ATCODER) + "\n\n{oops\n")
    with pytest.raises(LoaderError, match=r"t\.jsonl:3: not a JSON object"):
        list(loaders.load_livecodebench(loaders.iter_records(path), store))


def test_a_json_array_file_and_a_parquet_file_load_like_jsonl(tmp_path: Path, store: Store):
    array = tmp_path / "records.json"
    array.write_text(json.dumps([ATCODER, LEETCODE]))
    assert [p.id for p in loaders.load_livecodebench(loaders.iter_records(array), store)] == [
        "lcb-abc301_a",
        "lcb-2999",
    ]

    import pyarrow as pa
    import pyarrow.parquet as pq

    parquet = tmp_path / "test.parquet"
    pq.write_table(pa.Table.from_pylist([ATCODER, LEETCODE, CODEFORCES]), parquet)
    assert loaders.count_records(parquet) == 3
    problems = loaders.load_livecodebench(
        loaders.iter_records(parquet), store, Selection(platforms=frozenset({"leetcode"}))
    )
    assert [p.id for p in problems] == ["lcb-2999"]


# --------------------------------------------------------------------------------- CodeContests+

# a testlib checker in the shape CodeContests+ ships (C++ source; services/judge/core/testlib provides testlib.h)
CC_CHECKER = r"""#include "testlib.h"

int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    long long expected = ans.readLong();
    long long got = ouf.readLong();
    if (got != expected) quitf(_wa, "expected %lld, found %lld", expected, got);
    quitf(_ok, "answer is %lld", got);
}
"""

CC_WITH_CHECKER = {
    "id": "1000_A",
    "source": "Codeforces",
    "title": "A. Any Divisor",
    "description": "Print any divisor of n.\n\nInput: n.\nOutput: a divisor.",
    "time_limit": 1000,
    "memory_limit": 256,
    "test_cases": [{"input": "6\n", "output": "3\n"}, {"input": "7\n", "output": "7\n"}],
    "checker": CC_CHECKER,
    "generator": "// a generator",
    "validator": "// a validator",
    "correct_submissions": [{"code": "print(1)", "language": "py3"}],
    "incorrect_submissions": [],
    "true_positive_rate": 1.0,
    "true_negative_rate": 0.95,
}
CC_PLAIN = {
    "id": "1001_B",
    "source": "Codeforces",
    "title": "B. Sum",
    "description": "Sum two numbers.",
    "time_limit": 2000,
    "memory_limit": 512,
    # tests as two separate lists
    "test_cases": {"input": ["1 2\n", "10 20\n", "5 5\n"], "output": ["3\n", "30\n", "10\n"]},
    "checker": None,
}


def test_a_ccplus_record_with_a_checker_becomes_a_program_checked_problem(store: Store):
    p = loaders.codecontests_plus_problem(CC_WITH_CHECKER, store, "cc.jsonl:1")
    assert p.id == "ccplus-1000_A"
    assert p.spec.title == "A. Any Divisor"
    assert (p.spec.time_limit_ms, p.spec.memory_limit_mb) == (1000, 256)
    assert p.spec.checker == ProgramChecker(type="program", path="checker.cpp", language="cpp")
    assert p.spec.metadata["origin"] == "Codeforces"
    assert p.spec.metadata["true_negative_rate"] == 0.95
    assert p.spec.metadata["checker_protocol"] == "testlib"
    # kept verbatim: the judge compiles it against its own testlib.h (tests/stack/test_testlib.py runs it)
    assert p.checker_source == CC_CHECKER
    assert read_test(store, p, "02") == (b"7\n", b"7\n")
    assert "Print any divisor" in p.statement


def test_a_ccplus_record_without_a_checker_compares_tokens(store: Store):
    p = loaders.codecontests_plus_problem(CC_PLAIN, store)
    assert p.spec.checker == TokensChecker(type="tokens")
    assert p.checker_source is None
    assert [t.name for t in p.tests] == ["01", "03", "02"]  # run order: by input length, then name
    assert read_test(store, p, "02") == (b"10 20\n", b"30\n")
    assert (p.spec.time_limit_ms, p.spec.memory_limit_mb) == (2000, 512)


@pytest.mark.parametrize(
    "change, limits",
    [
        (
            {"time_limit": None, "memory_limit": None},
            (loaders.CCPLUS_TIME_LIMIT_MS, loaders.CCPLUS_MEMORY_LIMIT_MB),
        ),
        # the original CodeContests' shapes: a Duration and bytes
        (
            {
                "time_limit": {"seconds": 3, "nanos": 500_000_000},
                "memory_limit": None,
                "memory_limit_bytes": 64 << 20,
            },
            (3500, 64),
        ),
    ],
)
def test_ccplus_limits_fall_back_when_absent(store, change, limits):
    p = loaders.codecontests_plus_problem(dict(CC_PLAIN, **change), store)
    assert (p.spec.time_limit_ms, p.spec.memory_limit_mb) == limits


def test_numbered_sources_and_difficulties_of_the_original_codecontests_are_kept_as_metadata(store):
    p = loaders.codecontests_plus_problem(dict(CC_PLAIN, source=2, difficulty=7), store)
    assert p.spec.metadata["origin"] == "2"
    assert p.spec.difficulty is None


@pytest.mark.parametrize(
    "change, complaint",
    [
        ({"test_cases": [{"input": "1\n"}]}, "field 'test_cases"),
        ({"test_cases": {"input": ["1\n", "2\n"], "output": ["1\n"]}}, "2 inputs but 1 outputs"),
        ({"test_cases": []}, "has no tests"),
        ({"time_limit": 120_000}, "field 'time_limit_ms'"),
        ({"checker": "some text that is no program"}, "cannot tell its language"),
        ({"checker": '#include "testlib.h"\nvoid check() {}\n'}, "without `int main(` cannot run"),
    ],
)
def test_malformed_ccplus_records_give_errors_that_name_the_record(store, change, complaint):
    with pytest.raises(LoaderError) as err:
        loaders.codecontests_plus_problem(dict(CC_PLAIN, **change), store, "cc.jsonl:7")
    assert "cc.jsonl:7" in str(err.value) and "1001_B" in str(err.value)
    assert complaint in str(err.value)


CC_INTERACTOR = r"""#include "testlib.h"
#include <iostream>
int main(int argc, char* argv[]) {
    registerInteraction(argc, argv);
    long long n = inf.readLong();
    std::cout << n << std::endl;
    long long got = ouf.readLong();
    if (got != 2 * n) quitf(_wa, "expected %lld, got %lld", 2 * n, got);
    quitf(_ok, "doubled");
}
"""
CC_INTERACTIVE = dict(
    CC_PLAIN,
    id="1002_C",
    title="C. Double It (interactive)",
    test_cases=[{"input": "4\n", "output": ""}, {"input": "21\n", "output": ""}],
    interactor=CC_INTERACTOR,
)


def test_a_ccplus_record_with_an_interactor_becomes_an_interactive_problem(tmp_path, store: Store):
    p = loaders.codecontests_plus_problem(CC_INTERACTIVE, store)
    assert p.spec.interactor == Interactor(path="interactor.cpp", language="cpp")
    assert p.interactor_source == CC_INTERACTOR and p.spec.metadata["interactive"] is True
    # no checker: the interactor's verdict stands (tokens would compare nothing the program wrote)
    assert p.spec.checker == ExactChecker(type="exact")
    back = load_problem_dir(loaders.write_problem_dir(p, store, tmp_path / p.id), store)
    assert (back.spec, back.interactor_source) == (p.spec, p.interactor_source)


@pytest.mark.parametrize(
    "interactor, complaint",
    [
        ("import sys\nprint(1)\n", "not a testlib interactor"),
        (
            '#include "testlib.h"\nint main(int argc, char** argv) { registerTestlibCmd(argc, argv); }\n',
            "not a testlib interactor",
        ),
        (
            '#include "testlib.h"\nvoid f(int c, char** v) { registerInteraction(c, v); }\n',
            "without `int main(`",
        ),
    ],
)
def test_an_interactor_the_judge_cannot_run_is_refused_with_its_reason(store, interactor, complaint):
    with pytest.raises(LoaderError) as err:
        loaders.codecontests_plus_problem(dict(CC_INTERACTIVE, interactor=interactor), store, "cc.jsonl:3")
    assert "cc.jsonl:3" in str(err.value) and "1002_C" in str(err.value) and complaint in str(err.value)


def test_ccplus_selection_by_difficulty_and_platform_and_no_date_window(tmp_path, store):
    path = write_jsonl(tmp_path / "cc.jsonl", [CC_WITH_CHECKER, dict(CC_PLAIN, source="AtCoder")])
    pick = Selection(platforms=frozenset({"atcoder"}))
    assert [p.id for p in loaders.load_codecontests_plus(loaders.iter_records(path), store, pick)] == [
        "ccplus-1001_B"
    ]
    none = Selection(difficulties=frozenset({"easy"}))  # these records carry no difficulty
    assert list(loaders.load_codecontests_plus(loaders.iter_records(path), store, none)) == []
    with pytest.raises(LoaderError, match="no contest date"):
        list(
            loaders.load_codecontests_plus(
                loaders.iter_records(path), store, Selection(start_date=date(2020, 1, 1))
            )
        )


# ---------------------------------------------------------------------------- problem directories


def test_written_directories_reload_as_the_same_problems(tmp_path, lcb_file, store):
    imported = list(loaders.load_livecodebench(loaders.iter_records(lcb_file), store))
    imported.append(loaders.codecontests_plus_problem(CC_WITH_CHECKER, store))
    imported.append(loaders.codecontests_plus_problem(CC_PLAIN, store))
    for p in imported:
        written = loaders.write_problem_dir(p, store, tmp_path / "out" / p.id)
        assert (written / "problem.json").is_file() and (written / "statement.md").is_file()
        again = load_problem_dir(written, Store(tmp_path / "store2"))
        assert again.spec == p.spec
        assert again.tests == p.tests
        assert again.statement == p.statement
        assert again.checker_source == p.checker_source
    cc = tmp_path / "out" / "ccplus-1000_A"
    assert sorted(f.name for f in (cc / "tests").iterdir()) == ["01.in", "01.out", "02.in", "02.out"]
    assert (cc / "checker.cpp").read_text() == imported[3].checker_source
    assert json.loads((cc / "problem.json").read_text())["checker"] == {
        "type": "program",
        "path": "checker.cpp",
        "language": "cpp",
    }


def test_writing_replaces_a_problem_directory_but_nothing_else(tmp_path, store):
    p = loaders.codecontests_plus_problem(CC_PLAIN, store)
    target = tmp_path / "p"
    loaders.write_problem_dir(p, store, target)
    (target / "tests" / "stale.in").write_text("old")
    loaders.write_problem_dir(p, store, target)
    assert not (target / "tests" / "stale.in").exists()
    assert not [x for x in tmp_path.iterdir() if x.name.startswith(".tmp-")]  # no staging left behind

    other = tmp_path / "not-a-problem"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    with pytest.raises(ProblemError, match="not a problem directory"):
        loaders.write_problem_dir(p, store, other)
    assert (other / "notes.txt").read_text() == "keep me"


# ------------------------------------------------------------------------------------------- CLI


@pytest.fixture
def cli() -> typer.Typer:
    app = typer.Typer()
    app.command("import")(import_command)

    @app.command("noop")
    def _noop() -> None:  # a second command keeps typer from collapsing the app into `import`
        pass

    return app


def test_cli_imports_selected_livecodebench_records(tmp_path, lcb_file, cli):
    out = tmp_path / "imported"
    result = CliRunner().invoke(
        cli,
        [
            "import",
            "--format",
            "livecodebench",
            str(lcb_file),
            str(out),
            "--start-date",
            "2023-06-01",
            "--difficulty",
            "medium",
            "--difficulty",
            "hard",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "2 problems written" in result.output
    assert sorted(p.name for p in out.iterdir()) == ["lcb-1873_A", "lcb-2999"]  # the staging store is gone
    p = load_problem_dir(out / "lcb-2999", Store(tmp_path / "s"))
    assert p.spec.function == "sumBelow" and len(p.tests) == 3


def test_cli_limit_and_ccplus(tmp_path, cli):
    path = write_jsonl(tmp_path / "cc.jsonl", [CC_WITH_CHECKER, CC_PLAIN])
    out = tmp_path / "cc"
    result = CliRunner().invoke(
        cli, ["import", "-f", "codecontests-plus", str(path), str(out), "--limit", "1"]
    )
    assert result.exit_code == 0, result.output
    assert [p.name for p in out.iterdir()] == ["ccplus-1000_A"]
    assert (out / "ccplus-1000_A" / "checker.cpp").is_file()


def test_cli_reports_a_malformed_record_and_fails(tmp_path, cli):
    path = write_jsonl(tmp_path / "bad.jsonl", [ATCODER, dict(LEETCODE, difficulty="impossible")])
    result = CliRunner().invoke(cli, ["import", "-f", "livecodebench", str(path), str(tmp_path / "o")])
    assert result.exit_code == 1
    assert "bad.jsonl:2" in result.output and "question_id '2999'" in result.output
    assert "1 problems written" in result.output and "1 of them refused" in result.output
