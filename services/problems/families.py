"""The families miniature's problems (docs/spec.md 12.9): procedurally generated instances of twelve
algorithmic families, `problems/families/<family>.py`, one file a family.

A family file holds templates (`string.Template`, `$name` holes) and two functions:

- `FAMILY`, `TITLE`: its name and the statement's title;
- `params(rng, index) -> dict`: one instance's statement parameters (a modulus, a bound, a comparison,
  the array's identifier, nouns, the input's order), drawn from a seeded `random.Random`; a two-way
  choice (the comparison, the input's order) alternates with the index, so that the training
  instances 0-4 show both ways;
- `STATEMENT`, `EFFICIENT`, `SLOW` and `MISTAKES` (name -> template): the statement, an efficient
  correct program, a slow correct one (a quadratic or brute-force scan: right answers, too slow on the
  largest tests) and typical mistakes (wrong answers), all rendered by the instance's parameters;
- `generate(rng, params) -> [(name, input)]`: the tests, inputs from ~10 bytes to ~10^5 bytes.

`build_families(out, seed)` renders every instance into a problem directory in the bundled format
(problem.json with `metadata.family` and `metadata.instance`, statement.md, ref.py the efficient
program, zoo/ the slow one and the mistakes with their expected outcomes, tests/ with the efficient
program's outputs). Each instance is checked as it is built, in this process and without timing: the
slow program agrees with the efficient one on every test under 1,000 bytes (`R_3`'s scope), and each
mistake differs from it on some test under 1,000 bytes (a wrong answer before any large test). The
judge's verdicts on the built problems are the sandbox tier's test (tests/sandbox/test_families.py).
"""

from __future__ import annotations

import importlib.util
import io
import json
import random
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from types import ModuleType

from services.problems.discovery import FAMILIES_BUILT_DIR as BUILT_DIR  # benchmark "families"

FAMILIES_DIR = BUILT_DIR.parent
INSTANCES = 8
TIME_LIMIT_MS = 1000
MEMORY_LIMIT_MB = 256
SMALL_BYTES = 1000  # R_3's scope: tests with inputs under 10^3 bytes
_REQUIRED = ("FAMILY", "TITLE", "STATEMENT", "EFFICIENT", "SLOW", "MISTAKES", "params", "generate")


class FamilyError(ValueError):
    """A family file that cannot be loaded, or an instance whose programs do not behave as labelled."""


@dataclass(frozen=True)
class Instance:
    family: str
    index: int
    params: dict
    title: str
    statement: str
    efficient: str
    slow: str
    mistakes: dict[str, str]
    tests: list[tuple[str, str]]  # (name, input), in the generator's order
    outputs: dict[str, str] = field(default_factory=dict)  # name -> the efficient program's output

    @property
    def problem_id(self) -> str:
        return f"{self.family}_{self.index}"


def family_files(root: Path = FAMILIES_DIR) -> list[Path]:
    """Every family file under `root`, by name."""
    return sorted(p for p in root.glob("*.py") if not p.name.startswith("_"))


def load_family(path: Path) -> ModuleType:
    """A family file as a module (read by path, as the bundled generators are); FamilyError when it
    lacks one of the names a family defines."""
    spec = importlib.util.spec_from_file_location(f"frontier_family_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise FamilyError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    missing = [n for n in _REQUIRED if not hasattr(module, n)]
    if missing:
        raise FamilyError(f"{path}: a family defines {', '.join(_REQUIRED)}; missing {', '.join(missing)}")
    if module.FAMILY != path.stem:
        raise FamilyError(f"{path}: FAMILY is {module.FAMILY!r}, the file's name says {path.stem!r}")
    return module


def render(template: str, params: dict) -> str:
    """A template with every `$name` filled; a KeyError names a hole the parameters lack."""
    return Template(template).substitute({k: str(v) for k, v in params.items()})


def run_program(code: str, input_text: str) -> str:
    """A program's standard output on `input_text`, run in this process (the instance checks: trusted
    code of the family files, never a submission)."""
    stdin, stdout = sys.stdin, sys.stdout
    fake_in = io.TextIOWrapper(io.BytesIO(input_text.encode()), encoding="utf-8")
    sys.stdin, sys.stdout = fake_in, io.StringIO()
    try:
        exec(compile(code, "<family program>", "exec"), {"__name__": "__main__"})
        return sys.stdout.getvalue()
    finally:
        sys.stdin, sys.stdout = stdin, stdout


def _same(a: str, b: str) -> bool:
    return a.split() == b.split()


def make_instance(module: ModuleType, index: int, seed: int = 0, *, check: bool = True) -> Instance:
    """Instance `index` of a family: its parameters, statement, programs and tests, seeded by (seed,
    family, index); with `check`, the outputs computed and the programs checked against their labels."""
    family = module.FAMILY
    params = dict(module.params(random.Random(f"{seed}:{family}:{index}:params"), index))
    params.setdefault("title", module.TITLE)
    tests = list(module.generate(random.Random(f"{seed}:{family}:{index}:tests"), params))
    efficient = render(module.EFFICIENT, params)
    mistakes = {name: render(t, params) for name, t in module.MISTAKES.items()}
    same_text = [name for name, code in mistakes.items() if code == efficient]
    if same_text:
        raise FamilyError(f"{family}: mistakes {same_text} are the efficient program itself")
    inst = Instance(
        family=family,
        index=index,
        params=params,
        title=f"{module.TITLE} ({index})",
        statement=render(module.STATEMENT, params),
        efficient=efficient,
        slow=render(module.SLOW, params),
        mistakes=mistakes,
        tests=tests,
    )
    if check:
        inst.outputs.update(check_instance(inst))
    return inst


def check_instance(inst: Instance) -> dict[str, str]:
    """The efficient program's output on every test, after checking the labels without timing: the
    slow program agrees on every test under SMALL_BYTES, each mistake differs on one of them."""
    outputs = {name: run_program(inst.efficient, text) for name, text in inst.tests}
    small = [(n, t) for n, t in inst.tests if len(t.encode()) < SMALL_BYTES]
    where = inst.problem_id
    if not small or len(small) == len(inst.tests):
        raise FamilyError(f"{where}: needs tests both under and over {SMALL_BYTES} bytes")
    for name, text in small:
        got = run_program(inst.slow, text)
        if not _same(got, outputs[name]):
            raise FamilyError(
                f"{where}: the slow program answers {got[:40]!r} on {name}, not {outputs[name][:40]!r}"
            )
    for label, code in inst.mistakes.items():
        if all(_same(_run_or_error(code, text), outputs[n]) for n, text in small):
            raise FamilyError(f"{where}: mistake {label} answers every test under {SMALL_BYTES} bytes right")
    return outputs


def _run_or_error(code: str, text: str) -> str:
    try:
        return run_program(code, text)
    except Exception as err:  # a mistake may crash: that is an answer too, and never a right one
        return f"<{type(err).__name__}>"


def problem_json(inst: Instance) -> dict:
    return {
        "id": inst.problem_id,
        "title": inst.title,
        "time_limit_ms": TIME_LIMIT_MS,
        "memory_limit_mb": MEMORY_LIMIT_MB,
        "checker": {"type": "tokens"},
        "statement": "statement.md",
        "public_tests": 3,
        "metadata": {"family": inst.family, "instance": inst.index, "params": inst.params},
    }


def zoo_json(inst: Instance) -> dict:
    variants = [
        {
            "file": "slow.py",
            "language": "python",
            "label": "naive",
            "note": "the family's slow correct program",
            "expect": {"outcome": "optimization_failure", "first_verdict": "TLE"},
        }
    ]
    variants += [
        {
            "file": f"wrong_{name}.py",
            "language": "python",
            "label": "wrong",
            "note": f"typical mistake: {name}",
            "expect": {"outcome": "correctness_failure", "first_verdict": "WA"},
        }
        for name in inst.mistakes
    ]
    return {"variants": variants}


def write_instance(inst: Instance, out: Path) -> Path:
    """The instance as a problem directory `out/<id>/` (replaced if there)."""
    d = out / inst.problem_id
    shutil.rmtree(d, ignore_errors=True)
    (d / "tests").mkdir(parents=True)
    (d / "zoo").mkdir()
    (d / "problem.json").write_text(json.dumps(problem_json(inst), indent=1) + "\n")
    (d / "statement.md").write_text(inst.statement)
    (d / "ref.py").write_text(inst.efficient)
    (d / "zoo" / "slow.py").write_text(inst.slow)
    for name, code in inst.mistakes.items():
        (d / "zoo" / f"wrong_{name}.py").write_text(code)
    (d / "zoo" / "zoo.json").write_text(json.dumps(zoo_json(inst), indent=1) + "\n")
    for name, text in inst.tests:
        (d / "tests" / f"{name}.in").write_text(text)
        (d / "tests" / f"{name}.out").write_text(inst.outputs[name])
    return d


def build_families(
    out: Path,
    seed: int = 0,
    *,
    families: Sequence[str] | None = None,
    instances: Sequence[int] | None = None,
    root: Path = FAMILIES_DIR,
    progress: Callable[[str], None] | None = None,
) -> list[Path]:
    """Every instance of every family (or those named) written under `out`; a FamilyError names the
    first family or instance that is wrong (nothing is half-written for it)."""
    files = family_files(root)
    if families:
        unknown = sorted(set(families) - {p.stem for p in files})
        if unknown:
            raise FamilyError(
                f"unknown families: {', '.join(unknown)} (known: {', '.join(p.stem for p in files)})"
            )
        files = [p for p in files if p.stem in families]
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in files:
        module = load_family(path)
        for index in instances if instances is not None else range(INSTANCES):
            written.append(write_instance(make_instance(module, index, seed), out))
            if progress:
                progress(written[-1].name)
    return written
