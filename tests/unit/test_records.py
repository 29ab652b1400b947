"""Every record's bytes end as one record or one refusal (services/problems/records.py): the importers
(`frontier problems import`, every format) and `frontier judge` / `judge-set` read past whatever a
record holds, name it by its line, and read the rest."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli import app
from services.problems import benchmarks, importers, records
from tests.support.records import ATCODER, LEETCODE

GOOD_A, GOOD_B = {"task_id": "a", "n": [1, [2]]}, {"task_id": "b", "s": "[[[{"}
DEEP_LIST = "[" * 100_000 + "]" * 100_000
DEEP_OBJECT = '{"a":' * 100_000 + "1" + "}" * 100_000
# deep, with brackets inside strings that a scan for the value's end must not count
DEEP_STRINGS = "[" * 50_000 + '"]]\\"]"' + "]" * 50_000
# shallow enough for the JSON decoder, deeper than a record may be
NESTED = json.dumps({"x": json.loads("[" * (records.MAX_DEPTH + 1) + "]" * (records.MAX_DEPTH + 1))})


def _lines(*lines: str) -> bytes:
    return "".join(line + "\n" for line in lines).encode()


def _array(*elements: str) -> bytes:
    return ("[" + ", ".join(elements) + "]").encode()


A, B = json.dumps(GOOD_A), json.dumps(GOOD_B)


@pytest.mark.parametrize(
    "name, data, want",
    [
        ("deep-list.jsonl", _lines(A, DEEP_LIST, B), [GOOD_A, "f:2: nested deeper", GOOD_B]),
        ("deep-object.jsonl", _lines(A, DEEP_OBJECT, B), [GOOD_A, "f:2: nested deeper", GOOD_B]),
        ("nested.jsonl", _lines(A, NESTED, B), [GOOD_A, "f:2: nested deeper", GOOD_B]),
        ("deep.jsonl.gz", gzip.compress(_lines(DEEP_LIST, A)), ["f:1: nested deeper", GOOD_A]),
        ("deep.json.gz", gzip.compress(_array(DEEP_LIST, A)), ["f[0]: nested deeper", GOOD_A]),
        ("not-utf8.jsonl", _lines(A) + b'{"x": "\xff"}\n' + _lines(B), [GOOD_A, "f:2: not UTF-8", GOOD_B]),
        ("not-json.jsonl", _lines("{oops", A), ["f:1: not a JSON object", GOOD_A]),
        ("not-object.jsonl", _lines("[1, 2]", A), ["f:1: a record must be a JSON object, got list", GOOD_A]),
        # blank lines and space before the first record, and between records: its true line number
        ("blank.jsonl", b"\n \r\n\t\n" + _lines(A) + b"\n\n   \n" + _lines(B), [GOOD_A, GOOD_B]),
        ("array.json", _array(A, DEEP_LIST, B), [GOOD_A, "f[1]: nested deeper", GOOD_B]),
        ("array-strings.json", _array(DEEP_STRINGS, A), ["f[0]: nested deeper", GOOD_A]),
        (
            "array-object.json",
            b"  \n" + _array(A, DEEP_OBJECT, NESTED, B),
            [GOOD_A, "f[1]: nested", "f[2]: nested", GOOD_B],
        ),
        (
            "array-open.json",
            _array(A)[:-1] + b", " + DEEP_LIST[:-1].encode(),
            [GOOD_A, "f[1]: nested deeper than 100 levels and never closed"],
        ),
        ("array-broken.json", _array(A, "{oops", B), [GOOD_A, "f[1]: not valid JSON"]),
        ("empty.json", b"  [ ] ", []),
    ],
)
def test_each_record_is_read_or_refused_alone(tmp_path, name, data, want):
    path = tmp_path / name
    path.write_bytes(data)
    got = list(records.read(path))
    assert len(got) == len(want), got
    for (where, value), expected in zip(got, want, strict=True):
        if isinstance(expected, dict):
            assert value == expected, (where, value)
        else:
            assert isinstance(value, str) and value.replace(name, "f").startswith(expected), value
    if name == "blank.jsonl":
        assert [w for w, _ in got] == ["blank.jsonl:4", "blank.jsonl:8"]


def test_a_long_line_is_refused_without_being_held(tmp_path, monkeypatch):
    monkeypatch.setattr(records, "MAX_RECORD_BYTES", 1000)
    monkeypatch.setattr(records, "_CHUNK_BYTES", 7)  # lines split across many chunks
    path = tmp_path / "long.jsonl"
    path.write_bytes(_lines(A, json.dumps({"x": "y" * 5000}), B) + b"  " + A.encode())  # the last unended
    got = list(records.read(path))
    assert got == [
        ("long.jsonl:1", GOOD_A),
        ("long.jsonl:2", "long.jsonl:2: a record longer than 1000 bytes"),
        ("long.jsonl:3", GOOD_B),
        ("long.jsonl:4", GOOD_A),
    ]


class _Counted(io.FileIO):
    calls = 0

    def read(self, *args):
        _Counted.calls += 1
        return super().read(*args)

    def readinto(self, b):
        _Counted.calls += 1
        return super().readinto(b)


def test_leading_blank_space_is_read_a_chunk_at_a_time(tmp_path, monkeypatch):
    """Megabytes of blank lines and spaces before the first record cost a read per chunk (a pattern
    match steps over them), never a read or a loop turn per character or line; the record keeps its
    line number."""
    blank = b"\n \t" * (1 << 20)
    path = tmp_path / "blank.jsonl"
    path.write_bytes(blank + _lines(A))
    monkeypatch.setattr(records, "open", lambda p, mode: _Counted(p, "r"), raising=False)
    _Counted.calls = 0
    assert list(records.read(path)) == [(f"blank.jsonl:{(1 << 20) + 1}", GOOD_A)]
    chunks = len(blank) // records._CHUNK_BYTES + 1
    assert _Counted.calls <= 3 * chunks + 10, (_Counted.calls, chunks)


def test_judge_set_refuses_a_deep_record_and_judges_the_rest(tmp_path):
    from services.judge.judge_set import read_completions

    path = tmp_path / "samples.jsonl"
    path.write_bytes(_lines(DEEP_LIST, json.dumps({"task_id": "x", "completion": "pass"})))
    refused: list[str] = []
    assert read_completions(path, {}, refused.append) == []
    assert refused[0].startswith("samples.jsonl:1: nested deeper"), refused
    assert refused[1].startswith("samples.jsonl:2: field 'task_id'"), refused  # the next one was read


def test_benchmark_import_refuses_a_deep_record_and_imports_the_rest(tmp_path):
    from tests.support.records import HUMANEVAL

    with gzip.open(HUMANEVAL, "rt") as f:
        lines = [line.strip() for line in f if line.strip()][:3]
    path = tmp_path / "he.jsonl"
    path.write_text(DEEP_LIST + "\n" + "\n".join(lines) + "\n")
    result = CliRunner().invoke(
        app, ["problems", "import", "-f", "humaneval", str(path), str(tmp_path / "o")]
    )
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "he.jsonl:1: nested deeper" in result.output
    assert f"{len(lines)} problems imported" in result.output, result.output
    assert [w for w, r in benchmarks.read_records(path) if isinstance(r, dict)][0] == "he.jsonl:2"


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_livecodebench_import_refuses_a_deep_record_and_imports_the_rest(tmp_path, suffix):
    path = tmp_path / f"lcb{suffix}"
    if suffix == ".jsonl":
        path.write_bytes(_lines(json.dumps(ATCODER), DEEP_LIST, json.dumps(LEETCODE)))
    else:
        path.write_bytes(_array(json.dumps(ATCODER), DEEP_LIST, json.dumps(LEETCODE)))
    out = tmp_path / "o"
    result = CliRunner().invoke(app, ["problems", "import", "-f", "livecodebench", str(path), str(out)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    where = "lcb.jsonl:2" if suffix == ".jsonl" else "lcb.json[1]"
    assert f"{where}: nested deeper" in result.output, result.output
    assert "2 problems written" in result.output and "1 of them refused" in result.output
    assert sorted(p.name for p in out.iterdir()) == ["lcb-2999", "lcb-abc301_a"]
    refused: list = []
    store = importers.TestStore(tmp_path / "s")
    problems = list(importers.load_livecodebench(importers.iter_records(path), store, refuse=refused.append))
    assert [p.id for p in problems] == ["lcb-abc301_a", "lcb-2999"] and len(refused) == 1


def test_count_records_reads_no_line_whole(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_bytes(b"\n\n" + _lines(A, "  ", B) + b"x" * 100_000)
    assert importers.count_records(Path(path)) == 3
