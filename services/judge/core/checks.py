"""A problem's checks in the judge's sandbox (docs/spec.md 2.4, 9.x): a program checker compiled once
when its problem is loaded (a worker's check job for PUT /problems, services/judge/worker/check_job.py;
`frontier problems check` on a local Engine), so that a checker that cannot compile refuses the
problem instead of failing every submission later; a problem's testlib validator (`validator.cpp`)
compiled once and run on each test's input (`frontier problems build` / `check`).

Nothing runs on the host: each compile and each validator run is an Engine's, in a slot (namespaces,
no network, the slot's unprivileged uid, cgroup memory and pids, the compile's or the run's time
limit; the sandbox shows /usr and the few /etc files of its root, never /data, /io or /bincache,
which are root-only), and whatever it starts is killed with the run. The source passes the include
fence first, and a refusal shows only errors located in the checker or our header
(services/judge/core/testlib/build.py).

`python -m services.judge.core.checks validate VALIDATOR INPUTS_DIR` runs a validator on every file
of a directory and prints one JSON line (`frontier problems build` asks it so, from its library).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from services.judge.core import testlib
from services.judge.core.engine import Engine
from services.judge.core.testlib import build
from services.settings import get_settings

VALIDATOR_TIME_LIMIT_MS = 10_000  # CPU time of one validator run
VALIDATOR_MEMORY_LIMIT_MB = 1024


@contextmanager
def local_engine() -> Iterator[Engine]:
    """A one-slot Engine on this machine's sandbox (as `frontier judge` judges locally), for the
    checks of `frontier problems check` and `build`; closed, with everything it started, after."""
    with Engine(get_settings().model_copy(update={"slots": 1})) as engine:
        yield engine


def compile_errors(engine: Engine, language: str, source: str, *, latin1: bool = False) -> str | None:
    """Why the checker does not compile (the compiler's first errors), or None when it does; a C++
    checker is compiled by `engine` in its sandbox, as the judge compiles it (and cached)."""
    if language == "python":
        return build.python_errors(source)
    if language != "cpp":
        return f"no compiler for a {language!r} checker"
    refused = build.fence(language, source)
    if refused is not None:
        return refused
    message = engine.compile("cpp", testlib.cpp_source(source, latin1=latin1))
    return None if message is None else build.shown_errors(message)


def check_checker(engine: Engine, language: str, source: str, *, latin1: bool = False) -> None:
    """Raise `build.CheckerDoesNotCompile` with the compiler's first errors unless the checker compiles."""
    errors = compile_errors(engine, language, source, latin1=latin1)
    if errors is not None:
        raise build.CheckerDoesNotCompile(f"checker does not compile: {errors}")


def check_problem(engine: Engine, problem) -> None:
    """`check_checker` for a loaded problem (store.Problem)'s program checker and interactor, if any."""
    checker = problem.spec.checker
    if getattr(checker, "type", None) == "program" and problem.checker_source is not None:
        check_checker(engine, checker.language, problem.checker_source, latin1=problem.checker_latin1)
    interactor = getattr(problem.spec, "interactor", None)
    if interactor is not None and problem.interactor_source is not None:
        try:
            check_checker(engine, interactor.language, problem.interactor_source)
        except build.CheckerDoesNotCompile as err:
            raise build.CheckerDoesNotCompile(
                str(err).replace("checker does not", "interactor does not", 1)
            ) from None


# ----------------------------------------------------------------------------------------- validators


def validate(
    engine: Engine, source: str, inputs: Iterable[tuple[str, bytes]], *, latin1: bool = False
) -> tuple[str, str] | None:
    """Run a testlib validator (compiled once by `engine`, in its sandbox) on each (name, input) on its
    stdin: None when it accepts every one, else the first refused input's name and the validator's
    message. Raises `build.CheckerDoesNotCompile` when the validator does not compile."""
    refused = build.fence("cpp", source)
    if refused is not None:
        raise build.CheckerDoesNotCompile(f"validator: {refused}")
    code = testlib.cpp_source(source, latin1=latin1)
    message = engine.compile("cpp", code)
    if message is not None:
        raise build.CheckerDoesNotCompile(f"validator does not compile: {build.shown_errors(message)}")
    for name, data in inputs:
        run = engine.run(
            "cpp",
            code,
            stdin=data,
            time_limit_ms=VALIDATOR_TIME_LIMIT_MS,
            wall_limit_ms=VALIDATOR_TIME_LIMIT_MS * 2,
            memory_limit_mb=VALIDATOR_MEMORY_LIMIT_MB,
            output_limit_bytes=1 << 20,
        )
        if run.compile_error is not None:  # evicted and compiled again: the same source, the same answer
            raise build.CheckerDoesNotCompile(
                f"validator does not compile: {build.shown_errors(run.compile_error)}"
            )
        result = run.result
        if result.cpu_killed or result.wall_killed:
            return name, f"the validator ran past {VALIDATOR_TIME_LIMIT_MS} ms"
        if result.exit_code != 0 or result.signal:
            lines = run.stderr.decode("utf-8", "replace").strip().splitlines()
            how = (
                f"the validator exited {result.exit_code}"
                if not result.signal
                else "the validator was killed"
            )
            return name, (lines[-1][:500] if lines else "") or how
    return None


def read_source(path: Path) -> tuple[str, bool]:
    """A checker's or validator's file as text: UTF-8, else its bytes held as Latin-1 (latin1 True)."""
    raw = Path(path).read_bytes()
    try:
        return raw.decode(), False
    except UnicodeDecodeError:
        return raw.decode("latin-1"), True


def _main(argv: list[str]) -> int:
    """`validate VALIDATOR INPUTS_DIR`: {"refused": [name, message] | null} or {"error": message}."""
    if len(argv) != 3 or argv[0] != "validate":
        print("usage: python -m services.judge.core.checks validate VALIDATOR INPUTS_DIR", file=sys.stderr)
        return 2
    source, latin1 = read_source(Path(argv[1]))
    inputs = ((p.name, p.read_bytes()) for p in sorted(Path(argv[2]).iterdir()))
    try:
        with local_engine() as engine:
            refused = validate(engine, source, inputs, latin1=latin1)
    except build.CheckerDoesNotCompile as err:
        print(json.dumps({"error": str(err)}))
        return 0
    print(json.dumps({"refused": list(refused) if refused else None}))
    return 0


__all__ = ["check_checker", "check_problem", "compile_errors", "local_engine", "read_source", "validate"]

if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
