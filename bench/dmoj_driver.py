"""One DMOJ judge process for bench/peers.py: the judge-server's own Judge, its executors and its
ptrace/seccomp sandbox, driven through its Python API (no network bridge).

    python bench/dmoj_driver.py CONFIG.yml

It loads the executors named in the config, says `ready` on its protocol line, then reads one job a
line (JSON: id, problem, language, source, time_limit, memory_limit in KB), grades it with every
test run (no short circuit), and answers one line: the job's id and each test case's codes and
times, in case order. Everything DMOJ itself prints goes to stderr.
"""

from __future__ import annotations

import json
import os
import sys


class Recorder:
    """The packet manager the Judge reports to: keeps each test case's result codes."""

    def __init__(self):
        self.cases: list[tuple[int, list[str], float, float]] = []
        self.compile_error: str | None = None

    def test_case_status_packet(self, position, result) -> None:
        self.cases.append((position, result.readable_codes(), result.execution_time, result.wall_clock_time))

    def compile_error_packet(self, log) -> None:
        self.compile_error = str(log)

    def internal_error_packet(self, message) -> None:
        self.compile_error = f"internal error: {message}"

    def __getattr__(self, name):  # the other packets (begin, end, batches) carry nothing we need
        return lambda *args, **kwargs: None


def main() -> None:
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # DMOJ's own output (and its workers') goes to stderr
    sys.stdout = sys.stderr
    config = sys.argv[1]
    sys.argv = [sys.argv[0], "-c", config, "--no-ansi", "--skip-self-test", "-e", "PY3,CPP17"]

    from dmoj import executors, judgeenv
    from dmoj.judge import Judge, Submission

    judgeenv.load_env(cli=True)
    executors.load_executors()
    recorder = Recorder()
    judge = Judge(recorder)
    proto.write(json.dumps({"ready": sorted(executors.executors)}) + "\n")
    for line in sys.stdin:
        job = json.loads(line)
        recorder.cases, recorder.compile_error = [], None
        sub = Submission(
            id=job["id"],
            problem_id=job["problem"],
            language=job["language"],
            source=job["source"],
            time_limit=job["time_limit"],
            memory_limit=job["memory_limit"],
            short_circuit=False,
            meta={},
        )
        judge.begin_grading(sub, report=lambda *_: None, blocking=True)
        cases = sorted(recorder.cases)
        answer = {
            "id": job["id"],
            "codes": [c for _, c, _, _ in cases],
            "times": [[cpu, wall] for _, _, cpu, wall in cases],  # DMOJ's execution time and wall time, s
            "error": recorder.compile_error,
        }
        proto.write(json.dumps(answer) + "\n")


if __name__ == "__main__":
    main()
