"""testlib generators and validators with our testlib.h (issue 22): `registerGen`/`rnd` give testlib's
random sequence for a given command line, and `registerValidation` validators, in strict mode, refuse
a bundled problem's build at the first test they reject.

The sequence is checked against a model written here from the algorithm testlib.h documents in its
source (a 48-bit linear congruential generator with java.util.Random's constants, seeded by hashing
the command line; `next(n)` by rejection, `next()` from 53 bits). The model is anchored to a value
java.util.Random's documentation makes public: testlib's `setSeed(long)` scrambles the seed as Java's
`Random(seed)` does and its `next(int n)` rejects exactly as Java's `nextInt(n)`, so `new
Random(42).nextInt()` = -1170105035 pins the model's arithmetic. No sequence from testlib itself could
be established from documentation, so the registerGen hash is checked against the model only.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from services.judge.core import testlib
from services.judge.core.runners import RUNNERS
from tests.support import ROOT

MASK = (1 << 48) - 1
MULT, ADD = 0x5DEECE66D, 0xB


class Model:
    """testlib's random_t, as its header describes it."""

    def __init__(self, seed: int, version: int = 1):
        self.seed, self.version = seed, version

    @classmethod
    def from_argv(cls, argv: list[str], version: int = 1) -> Model:
        seed = 3905348978240129619
        for arg in argv[1:]:
            for ch in arg.encode():
                seed = (seed * MULT + ch + ADD) & ((1 << 64) - 1)
            seed = (seed + MULT // ADD) & ((1 << 64) - 1)
        return cls(seed & MASK, version)

    @classmethod
    def from_long(cls, value: int) -> Model:  # setSeed(long long), java.util.Random's scramble
        return cls((value ^ MULT) & MASK)

    def bits(self, n: int) -> int:
        if n <= 48:
            self.seed = (self.seed * MULT + ADD) & MASK
            return self.seed >> (48 - n)
        high = self.bits(31) << 32
        return high ^ self.bits(31 if self.version == 0 else 32)

    def next_int(self, n: int) -> int:
        if n & -n == n:
            return (n * self.bits(31)) >> 31
        limit = (2**31 - 1) // n * n
        while True:
            b = self.bits(31)
            if b < limit:
                return b % n

    def next_long(self, n: int) -> int:
        limit = (2**63 - 1) // n * n
        while True:
            b = self.bits(63)
            if b < limit:
                return b % n

    def next_range(self, lo: int, hi: int) -> int:  # next(int from, int to) goes through next(long long)
        return self.next_long(hi - lo + 1) + lo

    def next_double(self) -> float:
        return ((self.bits(26) << 27) + self.bits(27)) / float(1 << 53)

    def shuffle(self, items: list) -> list:
        items = list(items)
        for i in range(1, len(items)):
            j = self.next_int(i + 1)
            items[i], items[j] = items[j], items[i]
        return items


def test_the_model_is_java_random_for_a_long_seed():
    # java.util.Random(42).nextInt() is -1170105035 (its next(32)); next(31) is that shifted right once
    m = Model.from_long(42)
    first32 = m.bits(32)
    assert first32 - (1 << 32) == -1170105035


GENERATOR = r"""#include "testlib.h"
#include <cstdio>
int main(int argc, char* argv[]) {
    registerGen(argc, argv, 1);
    for (int i = 0; i < 5; ++i) std::printf("%d ", rnd.next(1000));
    std::printf("\n");
    for (int i = 0; i < 5; ++i) std::printf("%d ", rnd.next(1, 6));
    std::printf("\n");
    std::printf("%lld\n", rnd.next(1LL, 1000000000000000000LL));
    std::printf("%.17g\n", rnd.next());
    std::vector<int> v = {1, 2, 3, 4, 5, 6, 7};
    shuffle(v.begin(), v.end());
    for (int x : v) std::printf("%d ", x);
    std::printf("\n");
    std::vector<int> p = rnd.perm(10, 1);
    for (int x : p) std::printf("%d ", x);
    std::printf("\n");
    std::vector<int> d = rnd.distinct(5, 1, 8);
    for (int x : d) std::printf("%d ", x);
    std::printf("\n");
    std::vector<int> parts = rnd.partition(4, 20);
    for (int x : parts) std::printf("%d ", x);
    std::printf("\n%s\n", rnd.next("[a-c]{3,6}x|y[0-9]").c_str());
    for (int i = 0; i < 5; ++i) std::printf("%d ", rnd.wnext(100, 2));
    std::printf("\n%d %s %d\n", opt<int>("n", -1), has_opt("s") ? opt("s").c_str() : "-", int(opt<bool>("flag")));
    rnd.setSeed(42);
    std::printf("%d\n", rnd.next(1 << 30));
}
"""


@pytest.fixture(scope="module")
def generator(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("gen")
    (work / "main.cpp").write_text(testlib.with_header(GENERATOR))
    binary = work / "gen"
    done = subprocess.run(
        [*RUNNERS["cpp"].compiler, "-o", str(binary), str(work / "main.cpp")], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[:3000]
    return binary


def _gen(binary: Path, *args: str) -> list[str]:
    done = subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.parametrize("args", [["1"], ["-n", "5", "abc"], ["tree", "--s=x", "-flag"], []])
def test_the_sequence_is_the_documented_one_for_the_command_line(generator, args):
    lines = _gen(generator, *args)
    m = Model.from_argv(["gen", *args])
    assert [int(x) for x in lines[0].split()] == [m.next_int(1000) for _ in range(5)]
    assert [int(x) for x in lines[1].split()] == [m.next_range(1, 6) for _ in range(5)]
    assert int(lines[2]) == m.next_long(10**18) + 1
    assert float(lines[3]) == m.next_double()
    assert [int(x) for x in lines[4].split()] == m.shuffle([1, 2, 3, 4, 5, 6, 7])
    # rnd.perm: the identity, each position swapped with a random one at or before it
    assert [int(x) for x in lines[5].split()] == m.shuffle(list(range(1, 11)))
    # setSeed(42) then next(2^30): java.util.Random(42)'s first next(31), halved
    assert int(lines[-1]) == ((-1170105035 + (1 << 32)) >> 1) >> 1


def test_the_same_command_line_gives_the_same_test_and_another_one_another(generator):
    assert _gen(generator, "7", "x") == _gen(generator, "7", "x")
    assert _gen(generator, "7", "x")[:6] != _gen(generator, "7", "y")[:6]
    assert _gen(generator, "7", "x")[:6] != _gen(generator, "x", "7")[:6]


def test_the_generated_values_have_their_documented_properties(generator):
    for seed in range(20):
        lines = _gen(generator, str(seed), "-n", str(seed), "-s=word", "-flag")
        assert all(0 <= int(x) < 1000 for x in lines[0].split())
        assert all(1 <= int(x) <= 6 for x in lines[1].split())
        assert 0.0 <= float(lines[3]) < 1.0
        assert sorted(int(x) for x in lines[5].split()) == list(range(1, 11))
        d = [int(x) for x in lines[6].split()]
        assert len(set(d)) == 5 and all(1 <= x <= 8 for x in d)
        parts = [int(x) for x in lines[7].split()]
        assert len(parts) == 4 and sum(parts) == 20 and min(parts) >= 1
        word = lines[8]
        assert (len(word) in (4, 5, 6, 7) and set(word[:-1]) <= set("abc") and word[-1] == "x") or (
            len(word) == 2 and word[0] == "y" and word[1].isdigit()
        )
        assert all(0 <= int(x) < 100 for x in lines[9].split())
        assert lines[10] == f"{seed} word 1"


VALIDATOR = r"""#include "testlib.h"
int main(int argc, char* argv[]) {
    registerValidation(argc, argv);
    int n = inf.readInt(1, 100, "n");
    inf.readSpace();
    int m = inf.readInt(1, 100, "m");
    inf.readEoln();
    std::vector<int> a = inf.readInts(n, 1, m, "a");
    inf.readEoln();
    inf.readToken("[a-z]{1,5}", "s");
    inf.readEoln();
    inf.readEof();
}
"""

# (case, input, exit code, a word of the message): strict mode reads every blank explicitly
VALIDATOR_CASES = [
    ("valid", b"3 5\n1 2 5\nabc\n", 0, None),
    ("two spaces", b"3  5\n1 2 5\nabc\n", 3, "Unexpected white-space - token expected"),
    ("a tab for the space", b"3\t5\n1 2 5\nabc\n", 3, "Unexpected character '\t', but ' ' expected"),
    ("a CR before the newline", b"3 5\r\n1 2 5\nabc\n", 3, "Expected EOLN"),
    ("no final newline", b"3 5\n1 2 5\nabc", 3, "Expected EOLN"),
    ("an extra line", b"3 5\n1 2 5\nabc\n\n", 3, "Expected EOF"),
    ("out of range", b"3 5\n1 6 5\nabc\n", 3, "Integer element a[2] equals to 6, violates the range [1, 5]"),
    ("a leading zero", b"03 5\n1 2 5\nabc\n", 3, 'Expected integer, but "03" found'),
    ("the pattern", b"3 5\n1 2 5\nabcdef\n", 3, "doesn't correspond to pattern"),
    ("the line is named", b"3 5\n1 2 5\nab1\n", 3, "line 3"),
    ("a leading space", b" 3 5\n1 2 5\nabc\n", 3, "Unexpected white-space"),
]


@pytest.fixture(scope="module")
def validator_binary(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("val")
    (work / "main.cpp").write_text(testlib.with_header(VALIDATOR))
    binary = work / "val"
    done = subprocess.run(
        [*RUNNERS["cpp"].compiler, "-o", str(binary), str(work / "main.cpp")], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[:3000]
    return binary


@pytest.mark.parametrize("case, data, code, word", VALIDATOR_CASES, ids=[c[0] for c in VALIDATOR_CASES])
def test_a_validator_reads_in_strict_mode(validator_binary, case, data, code, word):
    done = subprocess.run([str(validator_binary)], input=data, capture_output=True, timeout=30)
    assert done.returncode == code, done.stderr
    if word is not None:
        message = done.stderr.decode()
        assert word in message and message.startswith("FAIL ") and "(stdin" in message, message


def test_a_validator_that_forgets_read_eof_fails(tmp_path):
    source = '#include "testlib.h"\nint main(int argc, char* argv[]) { registerValidation(argc, argv); inf.readInt(); }\n'
    (tmp_path / "main.cpp").write_text(testlib.with_header(source))
    subprocess.run(
        [*RUNNERS["cpp"].compiler, "-o", str(tmp_path / "v"), str(tmp_path / "main.cpp")], check=True
    )
    done = subprocess.run([str(tmp_path / "v")], input=b"5\n", capture_output=True, timeout=30)
    assert done.returncode == 3 and b"Validator must end with readEof call" in done.stderr


# ------------------------------------------------------------------------ frontier problems build


def _bundled(root: Path, validator_source: str | None, max_n: int) -> Path:
    d = root / "vsum"
    d.mkdir(parents=True)
    (d / "problem.json").write_text(json.dumps({"id": "vsum", "time_limit_ms": 1000, "memory_limit_mb": 256}))
    (d / "statement.md").write_text("Print n.\n")
    (d / "gen.py").write_text(
        f"def generate(rng):\n    return [(f't{{i}}', f'{{i}}\\n') for i in range(1, {max_n} + 1)]\n"
    )
    (d / "ref.py").write_text("print(int(input()))\n")
    if validator_source is not None:
        (d / "validator.cpp").write_text(validator_source)
    return d


N_VALIDATOR = r"""#include "testlib.h"
int main(int argc, char* argv[]) {
    registerValidation(argc, argv);
    inf.readInt(1, 3, "n");
    inf.readEoln();
    inf.readEof();
}
"""


def _build(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "services.cli", "problems", "build", str(root), "--force"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=600,
    )


def test_build_runs_the_validator_on_every_test(tmp_path):
    d = _bundled(tmp_path / "ok", N_VALIDATOR, 3)
    run = _build(tmp_path / "ok")
    assert run.returncode == 0, run.stdout + run.stderr
    assert sorted(p.name for p in (d / "tests").glob("*.in")) == ["t1.in", "t2.in", "t3.in"]


def test_build_refuses_a_test_the_validator_rejects_with_its_message(tmp_path):
    d = _bundled(tmp_path / "bad", N_VALIDATOR, 4)
    run = _build(tmp_path / "bad")
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "test t4 is not a valid input" in out and "violates the range [1, 3]" in out
    assert not (d / "tests").exists()  # nothing written


def test_build_refuses_a_validator_that_does_not_compile(tmp_path):
    _bundled(tmp_path / "broken", N_VALIDATOR.replace("readEoln", "readEolnn"), 2)
    run = _build(tmp_path / "broken")
    assert run.returncode == 1 and "validator does not compile" in run.stdout + run.stderr


def test_the_validator_is_part_of_the_build_stamp(tmp_path):
    from services.judge.core import build as bundled

    d = _bundled(tmp_path / "stamp", N_VALIDATOR, 2)
    before = bundled.source_hash(d, 0)
    (d / "validator.cpp").write_text(N_VALIDATOR.replace("1, 3", "1, 2"))
    assert bundled.source_hash(d, 0) != before
    (d / "validator.cpp").unlink()
    h = hashlib.sha256(b"builder=1;seed=0;")
    for name in ("gen.py", "ref.py"):
        data = (d / name).read_bytes()
        h.update(f"{name}:{len(data)}:".encode() + data)
    assert bundled.source_hash(d, 0) == h.hexdigest()  # without a validator: the stamp of before


# ------------------------------------------------------------- an imported record's validator, checked


def _import_with_validator(tmp_path: Path, validator_source: str) -> Path:
    record = {
        "id": "7001_A",
        "source": "Codeforces",
        "title": "A. Echo",
        "description": "Print n.",
        "time_limit": 1000,
        "memory_limit": 256,
        "test_cases": [{"input": "1\n", "output": "1\n"}, {"input": "3\n", "output": "3\n"}],
        "checker": "",
        "validator": validator_source,
    }
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps(record) + "\n")
    out = tmp_path / "out"
    run = subprocess.run(
        [sys.executable, "-m", "services.cli", "problems", "import", "--format", "codecontests-plus"]
        + [str(records), str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return out / "ccplus-7001_A"


def _check(problem_dir: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "services.cli", "problems", "check", str(problem_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_an_imported_validator_checks_every_test(tmp_path):
    d = _import_with_validator(tmp_path, N_VALIDATOR)
    assert (d / "validator.cpp").read_text() == N_VALIDATOR
    assert _check(d).returncode == 0


def test_an_imported_validator_refuses_a_test_it_rejects(tmp_path):
    d = _import_with_validator(tmp_path, N_VALIDATOR.replace("1, 3", "1, 2"))
    run = _check(d)
    assert run.returncode == 1
    assert "is not a valid input" in run.stderr and "violates the range [1, 2]" in run.stderr
