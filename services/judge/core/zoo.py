"""The solution zoo as a workload: judge every labelled variant and compare with its expectation."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from services.judge.core.build import ZooVariant, load_zoo
from services.judge.core.engine import Engine
from services.judge.core.models import JudgeResult, Submission
from services.problems.discovery import problem_dirs
from services.problems.store import Problem, load_problem_dir


@dataclass
class ZooRow:
    variant: ZooVariant
    result: JudgeResult
    time_limit_ms: int  # its problem's

    @property
    def first_verdict(self) -> str | None:
        return self.result.first_failure.verdict.value if self.result.first_failure else None

    @property
    def as_expected(self) -> bool:
        """The result is what the label says (one of its verdicts, where it lists several)."""
        return self.variant.accepts(self.result.status, self.result.outcome, self.first_verdict)


def load_zoo_workload(
    engine: Engine, root: Path, only: Iterable[str] | None = None
) -> list[tuple[Problem, ZooVariant]]:
    wanted = set(only) if only else None
    items = []
    for d in problem_dirs(root):
        if wanted is not None and d.name not in wanted:
            continue
        problem = load_problem_dir(d, engine.store)
        items += [(problem, v) for v in load_zoo(d)]
    return items


def judge_zoo(
    engine: Engine, root: Path, only: Iterable[str] | None = None, progress: bool = True
) -> list[ZooRow]:
    """Judge every zoo variant under `root` in `full`-free first-failure mode, using every slot."""
    items = load_zoo_workload(engine, root, only)
    subs = [
        (p, Submission(id=f"{v.problem_id}/{v.file}", problem_id=p.id, language=v.language, code=v.code))
        for p, v in items
    ]
    bar = tqdm(total=len(subs), desc="zoo", unit="variant", disable=not progress)

    def judged(item: tuple[Problem, Submission]) -> JudgeResult:
        result = engine.judge(*item, queued=queued)
        bar.update(1)
        return result

    # one pool over every variant, so that no slot waits for the slowest of a batch (a time-out); the
    # variants are announced, so that a fan-out (docs/spec.md 4.10) takes only the slots left at the end
    with ThreadPoolExecutor(max(engine.n_slots, 1)) as pool, engine.queued(len(subs)) as queued:
        results = list(pool.map(judged, subs))
    bar.close()
    return [ZooRow(v, r, p.spec.time_limit_ms) for (p, v), r in zip(items, results, strict=True)]
