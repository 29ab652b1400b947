"""The real peers of bench/judge_bench.py (bench/peers.py): what the DMOJ problem-dir writer and the
nsjail argv builder produce. The bench itself is not a test; these are its pure parts."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from baselines import Task  # noqa: E402
from peers import dmoj_checker, dmoj_job, dmoj_problem_dir, nsjail_argv  # noqa: E402


def _task(**kw) -> Task:
    base = dict(
        code="print(int(input()) + 1)\n",
        tests=[(b"1\n", b"2\n"), (b"41\n", b"42\n")],
        checker={"type": "exact"},
        time_limit_s=1.25,
        limit_s=1.0,
        memory_mb=64,
    )
    return Task(**{**base, **kw})


def test_dmoj_problem_dir_holds_every_test_in_order_with_init_yml(tmp_path):
    task = _task(tests=[(f"{i}\n".encode(), f"{i + 1}\n".encode()) for i in range(12)])
    d = dmoj_problem_dir(tmp_path, "p7", task)
    assert d == tmp_path / "p7"
    init = yaml.safe_load((d / "init.yml").read_text())
    assert init["checker"] == "standard"
    cases = init["test_cases"]
    assert len(cases) == 12 and all(c["points"] == 1 for c in cases)
    for i, case in enumerate(cases):  # case order is test order: 10 comes after 9, not after 1
        assert (d / case["in"]).read_bytes() == f"{i}\n".encode()
        assert (d / case["out"]).read_bytes() == f"{i + 1}\n".encode()


def test_dmoj_checker_and_job_carry_the_problem_and_its_limits():
    assert dmoj_checker({"type": "float", "abs_tol": 1e-6, "rel_tol": 1e-6}) == {
        "name": "floats",
        "args": {"precision": 6},
    }
    assert dmoj_checker({"type": "tokens"}) == "standard"
    with pytest.raises(ValueError, match="program"):
        dmoj_checker({"type": "program", "path": "checker.py"})
    job = dmoj_job(3, "p0", _task(language="cpp", code="int main(){}"))
    # DMOJ takes the limits with the submission: the time limit itself (not our stop point), KB
    assert job == {
        "id": 3,
        "problem": "p0",
        "language": "CPP17",
        "source": "int main(){}",
        "time_limit": 1.0,
        "memory_limit": 64 * 1024,
    }


def test_nsjail_argv_limits_cpu_memory_and_user_and_runs_the_program_last():
    argv = nsjail_argv(
        "/x/nsjail", ["/usr/bin/python3", "main.py"], "/w", cpu_s=1.5, memory_mb=256, wall_s=4.2
    )
    assert argv[0] == "/x/nsjail"
    assert argv[argv.index("--") + 1 :] == ["/usr/bin/python3", "main.py"]
    opts = dict(zip(argv[1 : argv.index("--")], argv[2 : argv.index("--")], strict=False))
    assert opts["--mode"] == "o"
    assert opts["--rlimit_cpu"] == "2"  # whole seconds, rounded up: never below the limit
    assert opts["--rlimit_as"] == "256"
    assert opts["--time_limit"] == "5"
    assert opts["--user"] == opts["--group"] == "65534"
    assert opts["--cwd"] == "/w"
    # no network: nsjail's own fresh network namespace, which no option may switch off
    assert not any(a.startswith("--disable_clone_newnet") or a == "-N" for a in argv)
