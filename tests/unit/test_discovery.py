"""What a benchmark name means (services/problems/discovery.py): "bundled" is the checkout's
problems/bundled, anything else a directory of problems or one problem; and the evaluator's view of
it, the same problems with its own error types."""

from __future__ import annotations

import json
import shutil

import pytest

from services.evaluator.inputs import EvalError, UnknownProblemError
from services.evaluator.inputs import resolve_benchmark as eval_resolve
from services.problems.discovery import (
    BUNDLED_DIR,
    UnknownBenchmark,
    UnknownProblems,
    benchmark_root,
    resolve_benchmark,
)
from services.problems.store import ProblemError
from tests.support import ROOT


def test_bundled_is_the_checkouts_problems_directory():
    assert benchmark_root("bundled") == BUNDLED_DIR == ROOT / "problems" / "bundled"
    (p,) = resolve_benchmark("bundled", ["bracket_depth"])
    assert p.problem_id == "bracket_depth" and p.path == BUNDLED_DIR / "bracket_depth"
    assert p.prompt.problem_id == "bracket_depth" and p.prompt.statement


def test_named_problems_come_in_the_order_asked_and_unknown_ones_are_named():
    got = [p.problem_id for p in resolve_benchmark("bundled", ["prefix_range_sums", "bracket_depth"])]
    assert got == ["prefix_range_sums", "bracket_depth"]
    with pytest.raises(UnknownProblems, match="benchmark 'bundled': .*'no_such_problem'"):
        resolve_benchmark("bundled", ["no_such_problem"])
    with pytest.raises(UnknownProblemError, match="no_such_problem"):
        eval_resolve("bundled", ["no_such_problem"])


def test_a_directory_is_a_benchmark_and_a_missing_one_is_refused(tmp_path):
    with pytest.raises(UnknownBenchmark, match="no such directory; give 'bundled'"):
        resolve_benchmark(str(tmp_path / "absent"))
    with pytest.raises(EvalError, match="no such directory"):
        eval_resolve(str(tmp_path / "absent"))
    with pytest.raises(ProblemError, match="no problem directories"):
        resolve_benchmark(str(tmp_path))
    shutil.copytree(BUNDLED_DIR / "bracket_depth", tmp_path / "bracket_depth")
    assert [p.problem_id for p in resolve_benchmark(str(tmp_path))] == ["bracket_depth"]
    # one problem directory is a benchmark of one
    assert [p.path for p in resolve_benchmark(str(tmp_path / "bracket_depth"))] == [
        tmp_path / "bracket_depth"
    ]


def test_a_problem_without_tests_on_disk_is_refused(tmp_path):
    d = tmp_path / "bracket_depth"
    shutil.copytree(BUNDLED_DIR / "bracket_depth", d, ignore=shutil.ignore_patterns("tests"))
    assert json.loads((d / "problem.json").read_text())["id"] == "bracket_depth"
    with pytest.raises(ProblemError, match="problems without tests on disk: bracket_depth$"):
        resolve_benchmark(str(tmp_path))
