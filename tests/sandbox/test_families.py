"""The families miniature's problems judged by the real engine (docs/spec.md 12.9): for a sample of
instances, one of every family, the efficient program is accepted, the slow one passes every test
under 1,000 bytes (R_3 = 1) and is TLE on a larger one (R_inf = 0), and every typical mistake is WA."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from services.judge.core.models import Submission
from services.problems.families import SMALL_BYTES, build_families, family_files
from services.problems.store import load_problem_dir


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """Instance i % 8 of the i-th family (seed 0): every family once, instances spread over 0..7."""
    out = tmp_path_factory.mktemp("families")
    dirs = []
    for i, path in enumerate(family_files()):
        dirs += build_families(out, 0, families=[path.stem], instances=[i % 8])
    return dirs


def test_efficient_slow_and_mistaken_programs_get_their_verdict_classes(engine, sample):
    jobs = []
    for d in sample:
        problem = load_problem_dir(d, engine.store)
        jobs.append((problem, "efficient", (d / "ref.py").read_text()))
        jobs.append((problem, "slow", (d / "zoo" / "slow.py").read_text()))
        jobs += [
            (problem, f"mistake {p.stem}", p.read_text()) for p in sorted((d / "zoo").glob("wrong_*.py"))
        ]

    def judged(job):
        problem, label, code = job
        sub = Submission(id=f"{problem.id}/{label}", problem_id=problem.id, language="python", code=code)
        return problem.id, label, engine.judge(problem, sub)

    with ThreadPoolExecutor(max(engine.n_slots, 1)) as pool:
        results = list(pool.map(judged, jobs))
    wrong = []
    for pid, label, r in results:
        first = r.first_failure
        got = f"{pid} {label}: {r.status} {r.outcome} {first and first.verdict} {first and first.input_bytes}"
        if label == "efficient":
            ok = r.status == "ok" and r.outcome == "correct" and r.rewards["R_inf"] == 1
        elif label == "slow":
            ok = (
                r.status == "ok"
                and r.outcome == "optimization_failure"
                and first.verdict == "TLE"
                and first.input_bytes >= SMALL_BYTES
                and r.rewards["R_3"] == 1
                and r.rewards["R_inf"] == 0
            )
        else:
            ok = r.status == "ok" and r.outcome == "correctness_failure" and first.verdict == "WA"
        if not ok:
            wrong.append(got)
    assert len(results) >= 12 * 4
    assert not wrong, "\n".join(wrong)
