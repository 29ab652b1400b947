"""The bundled benchmark: every problem is a valid SPEC problem with tests spanning the R_k scopes, a
well-formed zoo, and tests the builder makes deterministically and caches by its sources' hash."""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.judge.core import build as bundled
from services.judge.core.verdicts import Outcome, Verdict
from services.problems.cli import problems_app
from services.problems.store import TestStore, load_problem_dir
from tests.support import BUNDLED

ROOT = BUNDLED
DIRS = bundled.problem_dirs(ROOT)
IDS = [d.name for d in DIRS]
CHECKER_TYPES = {"exact", "tokens", "float", "program"}
MAX_TOTAL_INPUT_BYTES = 4_500_000  # "under ~4 MB" per problem, with a little slack
SMALL_INPUT_BYTES = 10_000  # tests re-run through the reference in test_reference_outputs_reproduced
# one stdin problem, one functional, one with a program checker: rebuilt twice from scratch
DETERMINISM_SAMPLE = ["prefix_range_sums", "pair_sum_count", "any_pair_with_sum"]


@pytest.fixture(scope="session")
def built() -> dict[str, bundled.BuildResult]:
    """Build every problem's tests (a no-op where the cache stamp is current, as after `make problems`)."""
    return {r.problem_id: r for r in bundled.build_all(ROOT, progress=False, index=False)}


def _tests(problem_dir: Path) -> dict[str, tuple[bytes, bytes]]:
    tdir = problem_dir / "tests"
    return {p.stem: (p.read_bytes(), p.with_suffix(".out").read_bytes()) for p in sorted(tdir.glob("*.in"))}


def _specs():
    return [bundled.read_spec(d) for d in DIRS]


# ------------------------------------------------------------------------------------ the collection


def test_there_are_at_least_40_problems():
    assert len(DIRS) >= 40, f"{len(DIRS)} bundled problems: {IDS}"


def test_at_least_5_functional_problems():
    functional = [s.id for s in _specs() if s.function]
    assert len(functional) >= 5, functional


def test_every_checker_type_is_used():
    assert {s.checker.type for s in _specs()} == CHECKER_TYPES


def test_every_difficulty_is_used_and_named():
    specs = _specs()
    assert all(s.difficulty in ("easy", "medium", "hard") for s in specs), [
        s.id for s in specs if s.difficulty is None
    ]
    assert {s.difficulty for s in specs} == {"easy", "medium", "hard"}


def test_index_is_in_sync(built):
    """problems/bundled/README.md is what the build writes: run `make problems` after changing a problem."""
    text = (ROOT / bundled.INDEX_NAME).read_text()
    assert text == bundled.render_index(bundled.index_rows(ROOT))
    for pid in IDS:
        assert f"| `{pid}` |" in text


# ------------------------------------------------------------------------------------ each problem


@pytest.mark.parametrize("problem_dir", DIRS, ids=IDS)
def test_problem_builds_and_validates(problem_dir, built, tmp_path):
    result = built[problem_dir.name]
    assert result.error is None, result.error
    problem = load_problem_dir(problem_dir, TestStore(tmp_path))
    assert problem.id == problem_dir.name
    assert problem.statement.strip(), "statement.md is empty"
    assert (problem_dir / "gen.py").is_file() and (problem_dir / "ref.py").is_file()


@pytest.mark.parametrize("problem_dir", DIRS, ids=IDS)
def test_input_sizes_span_the_reward_scopes(problem_dir, built):
    """Smallest input < 100 bytes, largest >= 10^5 bytes, inputs in at least 4 decades of size. An
    interactive problem's input is the interactor's (a secret and its size, a few bytes), and its
    program's work grows with the dialogue instead: its inputs span at least 2 decades."""
    sizes = sorted(len(inp) for inp, _ in _tests(problem_dir).values())
    if bundled.read_spec(problem_dir).interactor is not None:
        assert sizes[0] < 100 and len({int(math.log10(max(n, 1))) for n in sizes}) >= 2, sizes
        return
    assert sizes[0] < 100, f"smallest input is {sizes[0]} bytes"
    assert sizes[-1] >= 10**5, f"largest input is {sizes[-1]} bytes"
    decades = {int(math.log10(max(n, 1))) for n in sizes}
    assert len(decades) >= 4, f"input sizes cover only the decades {sorted(decades)}"
    assert sum(sizes) <= MAX_TOTAL_INPUT_BYTES, f"{sum(sizes)} bytes of input in all"


@pytest.mark.parametrize("problem_dir", DIRS, ids=IDS)
def test_reference_outputs_reproduced(problem_dir, built):
    """The stored outputs are what the reference prints now (checked on every test under 10^4 bytes)."""
    spec = bundled.read_spec(problem_dir)
    small = {n: t for n, t in _tests(problem_dir).items() if len(t[0]) < SMALL_INPUT_BYTES}
    assert small
    for name, (inp, out) in small.items():
        assert bundled.reference_output(problem_dir, spec, name, inp.decode()) == out, name


def _inputs_digest(pairs) -> str:
    h = hashlib.sha256()
    for name, data in sorted(pairs):
        h.update(name.encode() + b"\0" + data + b"\0")
    return h.hexdigest()


_GENERATE_ALL = """
import hashlib, json, sys
from pathlib import Path
from services.judge.core import build as bundled
out = {}
for d in bundled.problem_dirs(Path(sys.argv[1])):
    h = hashlib.sha256()
    for name, text in sorted(bundled.generate_inputs(d)):
        h.update(name.encode() + b"\\0" + text.encode() + b"\\0")
    out[d.name] = h.hexdigest()
print(json.dumps(out))
"""


def test_generators_do_not_depend_on_hash_order(built):
    """generate() under another string-hash seed gives the inputs `build_all` made (with hashing pinned)."""
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    proc = subprocess.run(
        [sys.executable, "-c", _GENERATE_ALL, str(ROOT)], capture_output=True, text=True, env=env, check=True
    )
    fresh = json.loads(proc.stdout)
    for d in DIRS:
        stored = _inputs_digest((n, inp) for n, (inp, _) in _tests(d).items())
        assert fresh[d.name] == stored, f"{d.name}: generate() depends on hash order"


# ------------------------------------------------------------------------------------ the zoo


@pytest.mark.parametrize("problem_dir", DIRS, ids=IDS)
def test_zoo_is_valid_and_complete(problem_dir):
    spec = bundled.read_spec(problem_dir)
    zoo = bundled.load_zoo(problem_dir)
    labels = {v.label for v in zoo}
    assert {"naive", "wrong", "crash"} <= labels, labels
    for v in zoo:
        assert v.problem_id == spec.id and v.code.strip()
        if v.label.startswith("naive"):
            assert v.expected_outcome == Outcome.OPTIMIZATION_FAILURE
            assert v.expected_first_verdict in (Verdict.TLE, Verdict.MLE)
        elif v.label.startswith("wrong"):
            assert v.expected_outcome == Outcome.CORRECTNESS_FAILURE
        elif v.label.startswith("crash"):
            assert (v.expected_outcome, v.expected_first_verdict) == (Outcome.CORRECTNESS_FAILURE, Verdict.RE)
    cpp = [v for v in zoo if v.language == "cpp"]
    if spec.function:
        assert not cpp, "a functional problem takes `class Solution` in Python only"
    else:
        assert any(v.expected_outcome == Outcome.CORRECT for v in cpp), "no C++ solution expected correct"


def test_all_zoo_variants_cover_every_problem():
    variants = bundled.all_zoo_variants(ROOT)
    assert {v.problem_id for v in variants} == set(IDS)


@pytest.mark.parametrize(
    ("zoo_json", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"variants": []}', "variants"),
        ('{"variants": [{"file": "a.py", "language": "python", "label": "naive"}]}', "expect"),
        (
            '{"variants": [{"file": "a.py", "language": "php", "label": "x",'
            ' "expect": {"outcome": "correct", "first_verdict": null}}]}',
            "language",
        ),
        (
            '{"variants": [{"file": "a.py", "language": "python", "label": "x",'
            ' "expect": {"outcome": "fast", "first_verdict": null}}]}',
            "outcome",
        ),
        (
            '{"variants": [{"file": "missing.py", "language": "python", "label": "x",'
            ' "expect": {"outcome": "correct", "first_verdict": null}}]}',
            "does not exist",
        ),
        (
            '{"variants": [{"file": "a.py", "language": "python", "label": "x",'
            ' "expect": {"outcome": "optimization_failure", "first_verdict": "WA"}}]}',
            "TLE or MLE",
        ),
        (
            '{"variants": [{"file": "a.py", "language": "python", "label": "x",'
            ' "expect": {"outcome": "correctness_failure", "first_verdict": null}}]}',
            "first_verdict",
        ),
    ],
    ids=[
        "bad_json",
        "empty",
        "no_expect",
        "bad_language",
        "bad_outcome",
        "missing_file",
        "slow_wa",
        "no_verdict",
    ],
)
def test_bad_zoo_gets_a_clear_error(tmp_path, zoo_json, message):
    (tmp_path / "zoo").mkdir()
    (tmp_path / "zoo" / "a.py").write_text("print(1)\n")
    (tmp_path / "zoo" / "zoo.json").write_text(zoo_json)
    with pytest.raises(bundled.BundledError, match=message):
        bundled.load_zoo(tmp_path)


# ------------------------------------------------------------------------------------ the builder


def _copy(problem_id: str, dest: Path) -> Path:
    target = dest / problem_id
    shutil.copytree(ROOT / problem_id, target, ignore=shutil.ignore_patterns("tests", "__pycache__"))
    return target


def _digest_tests(problem_dir: Path) -> str:
    h = hashlib.sha256()
    for p in sorted((problem_dir / "tests").iterdir()):
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


@pytest.mark.parametrize("problem_id", DETERMINISM_SAMPLE)
def test_builder_is_deterministic(problem_id, tmp_path, built):
    a = _copy(problem_id, tmp_path / "a")
    b = _copy(problem_id, tmp_path / "b")
    assert bundled.build_problem_tests(a) > 0
    assert bundled.build_problem_tests(b) > 0
    assert _digest_tests(a) == _digest_tests(b)
    # and the same bytes as the parallel build of the whole collection
    assert _digest_tests(a) == _digest_tests(ROOT / problem_id)


def test_other_seed_gives_other_tests(tmp_path):
    a = bundled.generate_inputs(ROOT / "prefix_range_sums", seed=0)
    b = bundled.generate_inputs(ROOT / "prefix_range_sums", seed=1)
    assert [n for n, _ in a] == [n for n, _ in b] and a != b


def test_cache_stamp(tmp_path):
    d = _copy("pair_sum_count", tmp_path)
    n = bundled.build_problem_tests(d)
    assert n > 0 and bundled.is_up_to_date(d)
    assert bundled.build_problem_tests(d) == 0, "an up-to-date build is skipped"
    assert bundled.build_problem_tests(d, force=True) == n, "force rebuilds"
    assert not bundled.is_up_to_date(d, seed=1), "another seed is another build"
    (d / "gen.py").write_text((d / "gen.py").read_text() + "\n# edited\n")
    assert not bundled.is_up_to_date(d)
    assert bundled.build_problem_tests(d) == n, "an edited generator rebuilds"
    next((d / "tests").glob("*.out")).unlink()
    assert not bundled.is_up_to_date(d), "a missing test file rebuilds"
    assert bundled.build_problem_tests(d) == n
    stamp = json.loads((d / "tests" / bundled.STAMP_NAME).read_text())
    assert stamp["sha256"] == bundled.source_hash(d, 0) and len(stamp["tests"]) == n


def test_broken_reference_is_a_build_error_naming_the_test(tmp_path):
    d = _copy("prefix_range_sums", tmp_path)
    (d / "ref.py").write_text("raise SystemExit(3)\n")
    with pytest.raises(bundled.BundledError, match=r"exit status 3 on test 01_one_day"):
        bundled.build_problem_tests(d)
    assert not (d / "tests").exists(), "no half-written tests are left behind"


def test_build_all_reports_errors_and_builds_the_rest(tmp_path):
    good = _copy("pair_sum_count", tmp_path)
    bad = _copy("bracket_depth", tmp_path)
    (bad / "gen.py").write_text("def generate(rng):\n    return [('a/b', '1')]\n")
    results = {r.problem_id: r for r in bundled.build_all(tmp_path, progress=False)}
    assert results["pair_sum_count"].error is None and results["pair_sum_count"].tests_written > 0
    assert "bad test name" in results["bracket_depth"].error
    assert bundled.is_up_to_date(good)
    assert "| `pair_sum_count` |" in (tmp_path / bundled.INDEX_NAME).read_text()


# ------------------------------------------------------------------------------------ the CLI


def test_cli_build_and_check(tmp_path):
    _copy("subarrays_with_sum", tmp_path)
    runner = CliRunner()
    res = runner.invoke(problems_app, ["build", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "1 built" in res.output
    res = runner.invoke(problems_app, ["check", str(tmp_path / "subarrays_with_sum")])
    assert res.exit_code == 0, res.output
    assert "countSubarrays" in res.output and "up to date" in res.output


def test_cli_check_reports_a_broken_problem(tmp_path):
    d = tmp_path / "broken"
    d.mkdir()
    (d / "problem.json").write_text('{"id": "broken", "time_limit_ms": -5, "memory_limit_mb": 256}')
    res = CliRunner().invoke(problems_app, ["check", str(d)])
    assert res.exit_code == 1
    assert "time_limit_ms" in res.output
