"""A training set and an evaluation set that share no problem (docs/spec.md 12.1): `overlaps` says
where two sets of problem directories meet, by id and by content, so a run can refuse to measure on
what it trained on. Content is compared by digests: a problem copied under another id (or imported
from two sources) is the same problem.

Two problems are the same when they have the same id, the same statement (whitespace collapsed), the
same test data (every test's input and output), or share one test whose input is at least
`SHARED_TEST_MIN_INPUT_BYTES` long (a copy with a test dropped or added); tiny inputs ("1") are
common to unrelated problems and are not evidence.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from services.problems.store import ProblemError

# a test shared by two problems makes them one problem when its input is at least this long
SHARED_TEST_MIN_INPUT_BYTES = 64


class SplitOverlap(ProblemError):
    """The training and evaluation sets share a problem."""


@dataclass(frozen=True)
class ProblemDigests:
    """What a problem's content is compared by: its statement's digest (None when it has no text),
    its whole test data's digest (None without tests), and the digests of its tests that are long
    enough to count (input digest + output digest)."""

    problem_id: str
    statement: str | None
    tests: str | None
    long_tests: frozenset[str]


def _file_sha256(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def problem_digests(problem_id: str, problem_dir: Path, statement: str) -> ProblemDigests:
    """The digests of one problem directory (its tests are `tests/*.in` with their `.out`)."""
    words = " ".join(statement.split())
    pairs = []
    long_tests = set()
    for inp in sorted(Path(problem_dir, "tests").glob("*.in")):
        out = inp.with_suffix(".out")
        pair = _file_sha256(inp) + ":" + (_file_sha256(out) if out.is_file() else "-")
        pairs.append(pair)
        if inp.stat().st_size >= SHARED_TEST_MIN_INPUT_BYTES:
            long_tests.add(pair)
    return ProblemDigests(
        problem_id,
        hashlib.sha256(words.encode()).hexdigest() if words else None,
        hashlib.sha256("\n".join(sorted(pairs)).encode()).hexdigest() if pairs else None,
        frozenset(long_tests),
    )


def overlaps(train: Sequence[ProblemDigests], held_out: Sequence[ProblemDigests]) -> list[str]:
    """One sentence per (training, evaluation) pair that is the same problem, saying why; [] when the
    sets are disjoint. Linear in the problems and their tests (digests indexed, not compared pairwise)."""
    by_id = {d.problem_id: d for d in train}
    by_statement = {d.statement: d.problem_id for d in train if d.statement}
    by_tests = {d.tests: d.problem_id for d in train if d.tests}
    by_test: dict[str, str] = {}
    for d in train:
        for t in d.long_tests:
            by_test.setdefault(t, d.problem_id)
    found = []
    for e in held_out:
        if e.problem_id in by_id:
            found.append(f"{e.problem_id!r} is in both sets")
        elif e.statement and e.statement in by_statement:
            found.append(
                f"{e.problem_id!r} has the statement of training problem {by_statement[e.statement]!r}"
            )
        elif e.tests and e.tests in by_tests:
            found.append(f"{e.problem_id!r} has the test data of training problem {by_tests[e.tests]!r}")
        else:
            shared = next((by_test[t] for t in sorted(e.long_tests) if t in by_test), None)
            if shared is not None:
                found.append(f"{e.problem_id!r} shares a test with training problem {shared!r}")
    return found


def check_disjoint(train: Sequence[ProblemDigests], held_out: Sequence[ProblemDigests]) -> None:
    """Raise SplitOverlap naming every shared problem (and why), unless the sets are disjoint."""
    found = overlaps(train, held_out)
    if found:
        shown = "; ".join(found[:10]) + (f"; and {len(found) - 10} more" if len(found) > 10 else "")
        raise SplitOverlap(
            f"the evaluation set shares {len(found)} problem(s) with the training set: {shown}. A figure "
            "over a problem the policy trained on measures memory, not the frontier: take it out of one set"
        )
