"""The host side of one sandbox slot: starts its keeper, runs one program at a time, enforces limits.

A slot is made once (namespaces, private root, cgroup, warm interpreter) and serves many runs. Per
run the engine resets the cgroup's counters, asks the keeper to fork the program, and watches CPU
time (cgroup) and wall time (clock) until the keeper reports the exit; every process of the run is
gone before the reply arrives.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import py_compile
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from services.judge.core.sandbox.cgroups import CgroupHost, Usage
from services.judge.core.sandbox.uids import NoFreeUids, UidLease

log = logging.getLogger(__name__)

KEEPER = Path(__file__).with_name("keeper.py")
STACK_LIMIT_BYTES = 1 << 30
POLL_S = 0.01
# how often the watchdog looks at a stop event (Slot.stop) while a run goes on
STOP_POLL_S = 0.05
CPUS = os.cpu_count() or 1
# the kernel keeps each thread's time spent waiting for a CPU (CONFIG_SCHED_INFO: every distribution's)
SCHEDSTAT = os.path.exists("/proc/self/schedstat")
STALE_OUTPUT_BYTES = 64 << 10  # output left by the last run, emptied before the peak is reset past this
_SLOT_SEQ = itertools.count()

# a run stopped at its wall limit was starved (docs/spec.md 4.1) when it wanted a CPU (ran, or was
# runnable and waited) for at least WANTED_SHARE of its wall time and waited for at least WAITED_SHARE
# of it; one that wanted less was idle there (sleeping, blocked): its own doing, a TLE
WANTED_SHARE = 0.5
# a quarter: a slot's CPU weight leaves other work about a tenth of its CPU, and a wall limit as long
# as the CPU limit (SandboxFusion's run_timeout) must not read that as starvation
WAITED_SHARE = 0.25


def starved(cpu_ms: float, waited_ms: float, wall_ms: float) -> bool:
    """Whether a run stopped at its wall limit, short of its CPU limit, was starved by the host rather
    than idle: it ran or waited for a CPU (schedstat's run_delay, CPU quota throttling included) for at
    least WANTED_SHARE of its wall time, and waited for at least WAITED_SHARE of it.

    A program cannot make itself starved on a host that gives it the CPU: waiting needs other work
    on its CPU, and its own threads' work is its own CPU time (a TLE past the limit); a sleeping one
    waits for nothing. Threads add up, so a many-threaded run can want more than its wall time.

    >>> starved(cpu_ms=1000, waited_ms=2000, wall_ms=3000)  # a third of a core beside other work
    True
    >>> starved(cpu_ms=2950, waited_ms=30, wall_ms=3000)  # the CPU it wanted, a wall limit = its CPU's
    False
    >>> starved(cpu_ms=20, waited_ms=400, wall_ms=3000)  # mostly asleep: late wake-ups do not count
    False
    >>> starved(cpu_ms=2700, waited_ms=300, wall_ms=3000)  # 90% of a CPU beside others: not starved
    False
    """
    return cpu_ms + waited_ms >= WANTED_SHARE * wall_ms and waited_ms >= WAITED_SHARE * wall_ms


class SandboxError(RuntimeError):
    """The sandbox itself failed (never a verdict of the program)."""


class HostStarved(RuntimeError):
    """The host kept a run waiting for a CPU at its wall limit each time it ran (docs/spec.md 4.1):
    never a verdict of the program; the slot itself is sound."""


@dataclass
class RunSpec:
    """One program run. Paths are as the sandbox sees them: /data (tests), /io (this slot), /bincache."""

    kind: str  # "python": run `code` in the warm interpreter; "exec": execve `argv`
    time_limit_ms: int
    memory_limit_mb: int
    wall_limit_ms: int
    output_limit_bytes: int
    pids_max: int
    open_files_max: int
    code: str | None = None
    argv: list[str] = field(default_factory=list)
    stdin: str | None = None
    files: list[tuple[str, str]] = field(default_factory=list)
    # files given by descriptor, never copied (a checker's input, expected output and answer, which
    # a copy into the sandbox's /tmp might not fit): the name in the working directory links to the
    # open file; one of this slot's (/io) is made readable by the run's uid only (keeper.child)
    fd_files: list[tuple[str, str]] = field(default_factory=list)
    source_file: tuple[str, str] | None = None
    keep: tuple[str, str] | None = None
    as_checker: bool = False
    # a test of the open zygote (Slot.open_zygote): forked from the submission's zygote, with the
    # zygote's request; only `stdin` is this run's own
    in_zygote: bool = False
    # another test of the zygote follows: the zygote forks its child ahead (keeper.prefork_spare)
    spare: bool = False
    # the watchdog stops a program once its CPU time passes time_limit_ms * (1 + kill_margin); at
    # wall_limit_ms it stops it whatever it did, and says whether the host starved it (RunResult)
    kill_margin: float = 0.1
    # paths relative to the working directory copied out before it is wiped (RunResult.fetched)
    fetch: list[str] = field(default_factory=list)
    fetch_max_file_bytes: int = 0
    fetch_max_total_bytes: int = 0
    # an interactive run (docs/spec.md 2.8): host descriptors of two pipe ends, its stdin and its
    # stdout in place of `stdin` and the output file; handed over: the slot closes them once sent
    pipe_fds: tuple[int, int] | None = None
    # SIGPIPE ignored in the run (an interactor: a write to a program that has gone fails with EPIPE)
    ignore_sigpipe: bool = False
    # the run's uid owns its stdout file, so that it can open it again by /dev/fd/1 (a compiler that
    # writes a precompiled header there: too large for /tmp); only for runs of the judge's own input
    own_stdout: bool = False


@dataclass
class RunResult:
    exit_code: int | None
    signal: int | None
    cpu_ms: float
    wall_ms: float
    memory_kb: int
    oom_killed: bool
    cpu_killed: bool
    wall_killed: bool
    compile_error: str | None
    stdout_path: Path
    stderr_path: Path
    # stopped at its wall limit while it wanted the CPU and the host kept it waiting (starved()):
    # the host's doing, never a verdict of the program (docs/spec.md 4.1)
    starved: bool = False
    # at a wall-limit stop: how long the run's threads were runnable but not running (the kernel's
    # schedstat run_delay, CPU quota throttling included); None where nothing measured it
    waited_ms: float | None = None
    # per RunSpec.fetch path: (path, "ok" | "missing" | "too_large"); copy i is fetch_dir / str(i)
    fetched: list[tuple[str, str]] = field(default_factory=list)
    fetch_dir: Path | None = None

    @property
    def stdout_bytes(self) -> int:
        try:
            return self.stdout_path.stat().st_size
        except FileNotFoundError:
            return 0

    def stderr_text(self, limit: int = 4096) -> str:
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read(limit).decode("utf-8", "replace")
        except FileNotFoundError:
            return ""

    def stderr_tail(self, limit: int = 1000) -> str:
        """The last `limit` bytes of stderr (where a crash's own message is)."""
        try:
            with open(self.stderr_path, "rb") as f:
                f.seek(max(0, os.fstat(f.fileno()).st_size - limit))
                return f.read(limit).decode("utf-8", "replace")
        except FileNotFoundError:
            return ""


@dataclass
class _Stops:
    """How the watchdog ended a run (Slot._watch): what RunResult says of it."""

    cpu_killed: bool = False
    wall_killed: bool = False
    starved: bool = False
    waited_ms: float | None = None


class Slot:
    """One sandbox: a keeper process in its own namespaces and cgroup. Not thread-safe: one run at a time."""

    def __init__(
        self,
        index: int,
        state_dir: Path,
        cgroup_host: CgroupHost | None,
        tmp_size_mb: int = 64,
        seccomp_bpf: bytes | None = None,
    ):
        self.index = index
        self.isolate = cgroup_host is not None
        seq = next(_SLOT_SEQ)  # unique per slot object: engines in one process never share a cgroup
        self.tag = f"{os.getpid()}-{seq}"
        self.dir = Path(state_dir) / "slots" / self.tag
        self.io_dir = self.dir / "io"
        self._stdout_path, self._stderr_path = self.io_dir / "stdout", self.io_dir / "stderr"
        # a zygote's tests, forked or in a shared runner, use the two pairs in turn: a test's files are
        # emptied while the caller checks the last one's (a forked test's by its spare, keeper.py)
        self._pairs = (
            (self._stdout_path, self._stderr_path),
            (self.io_dir / "stdout.1", self.io_dir / "stderr.1"),
        )
        self._last_pair = 1
        self._fetch_dir = self.io_dir / "fetch"
        self.data_dir = Path(state_dir) / "tests"
        self.bin_dir = Path(state_dir) / "bin"
        # this slot's hard links to the cached binaries its runs exec (runners.py), newest last
        self.pin_dir = self.bin_dir / f".pins-{self.tag}"
        self.pinned: list[str] = []
        self.tmp_size_mb = tmp_size_mb
        # the system-call filter of every run (seccomp.py); None only in unsafe mode without libseccomp
        self.seccomp_bpf = seccomp_bpf
        self._cgroup_host = cgroup_host
        self.cgroup = None
        self.proc: subprocess.Popen | None = None
        self._req_w = self._resp_r = -1
        self._request_fd = -1
        self.in_zygote = False
        # the engine's end of the socket to a shared runner (run_shared); the keeper holds the other
        self._runner_sock: socket.socket | None = None
        self._runner_gen: int | None = None  # the live runner's generation, None when there is none
        self._pending: dict | None = None  # a test sent ahead to the runner (run_shared's `then`)
        self._gens = itertools.count(1)
        self._seqs = itertools.count(1)
        self.runners_started = 0  # in the open zygote
        # leased host-wide in start() (uids.py): no two live slots, of any judge, share a uid
        self._uids: UidLease | None = None
        self.uid_run: int | None = None
        self.uid_check: int | None = None
        # set by the engine while a job whose caller may go away holds the slot: once the event is
        # set the watchdog stops the run as at its wall limit (docs/spec.md 6.7, deadlines)
        self.stop: threading.Event | None = None

    # -- life cycle -------------------------------------------------------------------------------
    def start(self, timeout_s: float = 20.0) -> None:
        for d, mode in (
            (self.io_dir, 0o700),
            (self.dir / "root", 0o755),
            (self.data_dir, 0o700),
            (self.bin_dir, 0o711),
            (self.pin_dir, 0o711),
        ):
            d.mkdir(parents=True, exist_ok=True)
            os.chmod(d, mode)
        if self.isolate:
            try:
                self._uids = UidLease()
            except (NoFreeUids, OSError) as err:
                raise SandboxError(f"sandbox slot {self.index} could not start: {err}") from None
            self.uid_run, self.uid_check = self._uids.uid_run, self._uids.uid_check
        try:
            self._start(timeout_s)
        except BaseException:
            self.close()  # the uid lease, the cgroup and the keeper go with a slot that did not start
            raise

    def _start(self, timeout_s: float) -> None:
        if self._cgroup_host is not None:
            self.cgroup = self._cgroup_host.slot(f"slot-{self.tag}")
        req_r, self._req_w = os.pipe()
        self._resp_r, resp_w = os.pipe()
        self._runner_sock, runner_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self._spawn_keeper(req_r, resp_w, runner_end.fileno())
        finally:
            # the keeper's ends: it holds its own copies, or it never started (close() takes ours)
            os.close(req_r)
            os.close(resp_w)
            runner_end.close()
        try:
            msg = self._recv(timeout_s)
        except SandboxError as err:
            self.close()
            raise SandboxError(f"sandbox slot {self.index} could not start: {err}") from None
        if msg is None or msg.get("event") != "ready":
            reason = msg.get("error") if msg else self._stderr_tail()
            self.close()
            raise SandboxError(f"sandbox slot {self.index} could not start: {reason}")

    def _spawn_keeper(self, req_r: int, resp_w: int, runner_fd: int) -> None:
        """Start the keeper with the request pipe's read end, the response pipe's write end and its
        end of the runner socket."""
        self._request_fd = os.memfd_create("run-request")  # one run's request (see run())
        config = {
            "req_fd": req_r,
            "resp_fd": resp_w,
            "runner_fd": runner_fd,
            "request_fd": self._request_fd,
            "isolate": self.isolate,
            "root_dir": str(self.dir / "root"),
            "io_dir": str(self.io_dir),
            "data_dir": str(self.data_dir),
            "bin_dir": str(self.bin_dir),
            "python_prefix": sys.base_prefix,
            "tmp_size_mb": self.tmp_size_mb,
            "uid_run": self.uid_run,
            "uid_check": self.uid_check,
            "stack_limit_bytes": STACK_LIMIT_BYTES,
            "cgroup_procs": [str(p) for p in self.cgroup.procs_files] if self.cgroup else [],
            "seccomp_bpf": self.seccomp_bpf.hex() if self.seccomp_bpf else None,
        }
        python = os.path.realpath(sys.executable)
        # the keeper runs compiled: compiling its source at start would leave the compiler's freed
        # memory (~1.4 MB) in its heap, mapped in every fork, where each test copies its page table
        try:
            keeper = py_compile.compile(str(KEEPER), str(self.dir / "keeper.pyc"), doraise=True, optimize=0)
        except (OSError, py_compile.PyCompileError) as err:
            raise SandboxError(f"sandbox slot {self.index} could not start: its keeper: {err}") from None
        cmd = [python, "-I", "-S", "-B", keeper, json.dumps(config)]
        if self.isolate:
            unshare = shutil.which("unshare")
            if unshare is None:
                raise SandboxError("the 'unshare' program (util-linux) is not installed")
            cmd = [unshare, "--pid", "--fork", "--kill-child", "--mount", "--net", "--ipc", "--uts", *cmd]
        self.proc = subprocess.Popen(
            cmd,
            # the keeper holds the uid lease too: it lasts as long as anything runs as those uids
            pass_fds=(req_r, resp_w, runner_fd, self._request_fd) + ((self._uids.fd,) if self._uids else ()),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            # LD_BIND_NOW: the keeper's libraries are bound at its start, once, not lazily in each
            # forked test (a lookup and a written, so copied, page for each function it calls first);
            # the keeper clears its environment before any program runs (keeper.main)
            env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "LD_BIND_NOW": "1"},
            start_new_session=True,
        )

    def close(self) -> None:
        for fd in (self._req_w, self._resp_r, self._request_fd):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._req_w = self._resp_r = self._request_fd = -1
        if self._runner_sock is not None:
            self._runner_sock.close()
            self._runner_sock = None
        self._runner_gen = None
        self._pending = None
        self.in_zygote = False
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
            if self.proc.stderr:
                self.proc.stderr.close()
            self.proc = None
        if self.cgroup is not None:
            try:
                self.cgroup.kill_all()
            except Exception as err:  # noqa: BLE001 - best effort on the way out
                log.warning("slot %s: %s", self.index, err)
            self.cgroup.remove()
            self.cgroup = None
        if self._uids is not None:
            self._uids.release()
            self._uids = None
        shutil.rmtree(self.dir, ignore_errors=True)
        shutil.rmtree(self.pin_dir, ignore_errors=True)
        self.pinned.clear()

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    # -- protocol ---------------------------------------------------------------------------------
    def _send(self, obj: dict) -> None:
        data = json.dumps(obj).encode()
        try:
            os.write(self._req_w, struct.pack("!I", len(data)) + data)
        except OSError as err:
            raise SandboxError(f"slot {self.index}: keeper is gone ({err})") from None

    def _recv(self, timeout_s: float | None) -> dict | None:
        """One message, or None on timeout. A dead keeper is a SandboxError."""
        head = self._read_exact(4, timeout_s)
        if head is None:
            return None
        (n,) = struct.unpack("!I", head)
        body = self._read_exact(n, 10.0)
        if body is None:
            raise SandboxError(f"slot {self.index}: keeper stopped mid-message")
        return json.loads(body)

    def _read_exact(self, n: int, timeout_s: float | None) -> bytes | None:
        buf = b""
        while len(buf) < n:
            ready, _, _ = select.select([self._resp_r], [], [], timeout_s)
            if not ready:
                if buf:
                    raise SandboxError(f"slot {self.index}: keeper stopped mid-message")
                return None
            chunk = os.read(self._resp_r, n - len(buf))
            if not chunk:
                raise SandboxError(f"slot {self.index}: keeper exited ({self._stderr_tail()})")
            buf += chunk
        return buf

    def _stderr_tail(self) -> str:
        if self.proc is None or self.proc.stderr is None:
            return "no keeper"
        if self.proc.poll() is None:
            return "keeper did not answer"
        return (
            self.proc.stderr.read()[-2000:].decode("utf-8", "replace").strip()
            or f"exit {self.proc.returncode}"
        )

    def _write_request(self, spec: RunSpec) -> None:
        # What names or holds submission data (code, checker source, test paths) goes through a
        # memory file that only a forked child reads: the keeper, whose heap every later test
        # inherits, never has it in memory. The pipe carries what the keeper itself needs.
        request = {
            "kind": spec.kind,
            "code": spec.code,
            "argv": list(spec.argv),
            "stdin": spec.stdin,
            "files": [list(f) for f in spec.files],
            "fd_files": [list(f) for f in spec.fd_files],
            "source_file": list(spec.source_file) if spec.source_file else None,
            "cpu_limit_ms": spec.time_limit_ms * (1 + spec.kill_margin),
            "memory_limit_mb": spec.memory_limit_mb,
            "output_limit_bytes": spec.output_limit_bytes,
            "pids_max": spec.pids_max,
            "open_files_max": spec.open_files_max,
            "own_stdout": spec.own_stdout,
        }
        data = json.dumps(request).encode()
        os.ftruncate(self._request_fd, len(data))
        os.pwrite(self._request_fd, data, 0)

    # -- a submission's zygote --------------------------------------------------------------------
    def open_zygote(self, spec: RunSpec) -> None:
        """Fork the submission's zygote from the keeper: it reads `spec`'s request once (and compiles
        a Python program once), and every run with `in_zygote` is then forked from it, with the
        same limits and its own stdin. Each test still gets a fresh cgroup accounting, working
        directory and IPC namespace clean-up, and its processes are reaped before the reply; nothing
        of a test reaches the zygote or a later test. Close it (close_zygote) before the next
        submission: the zygote holds this one's code."""
        if not self.alive:
            raise SandboxError(f"slot {self.index} is not running")
        if self.in_zygote:
            raise SandboxError(f"slot {self.index}: a zygote is already open")
        self._write_request(spec)
        self._send({"op": "zygote", "uid": self.uid_run})
        self.runners_started = 0
        reply = self._recv(30.0)
        if reply is None or reply.get("event") != "zygote":
            raise SandboxError(f"slot {self.index}: the zygote did not open ({reply})")
        self.in_zygote = True

    def close_zygote(self) -> None:
        """End the zygote: it exits, the keeper reaps whatever is left and wipes /tmp/run."""
        if not self.in_zygote:
            return
        self.end_runner()
        self.in_zygote = False
        self._send({"op": "end"})
        reply = self._recv(30.0)
        if reply is None or reply.get("event") != "closed" or not reply.get("clean"):
            raise SandboxError(f"slot {self.index}: the zygote did not close cleanly ({reply})")

    # -- one run ----------------------------------------------------------------------------------
    def run(self, spec: RunSpec) -> RunResult:
        if not self.alive or (spec.pipe_fds is not None and spec.in_zygote):
            _close_all(spec.pipe_fds or ())
            raise SandboxError(f"slot {self.index} is not running, or a zygote's test was given pipes")
        self.end_runner()  # the zygote serves one thing at a time
        if self.cgroup is not None:
            self.cgroup.set_limits(spec.memory_limit_mb, spec.pids_max)
            # the last run's output is page cache charged to this cgroup: empty the files before the
            # peak is reset, or this run's peak starts at what the last one wrote (the child's
            # O_TRUNC comes after the reset; a few pages left to it make no difference)
            for path in (*self._pairs[0], *self._pairs[1]):
                try:
                    if os.stat(path).st_size > STALE_OUTPUT_BYTES:
                        os.truncate(path, 0)
                except FileNotFoundError:
                    pass
            self.cgroup.begin()
        if spec.in_zygote:
            if not self.in_zygote:
                raise SandboxError(f"slot {self.index}: a zygote's test without an open zygote")
            # the zygote holds the submission's request; the test's own (its input's path) goes
            # through the memory file to the test's child, so the zygote never holds a test's name
            data = _zygote_test_request(spec.stdin)
            os.ftruncate(self._request_fd, len(data))
            os.pwrite(self._request_fd, data, 0)
            pair = self._last_pair = 1 - self._last_pair  # not the pair of the test the caller checked
            self._send({"op": "test", "uid": self.uid_run, "spare": spec.spare, "pair": pair})
        else:
            try:
                self._write_request(spec)
            except BaseException:
                _close_all(spec.pipe_fds or ())
                raise
            if spec.pipe_fds is not None:
                self._send_pipes(spec.pipe_fds)
            self._send(
                {
                    "op": "run",
                    "pipes": spec.pipe_fds is not None,
                    "ignore_sigpipe": spec.ignore_sigpipe,
                    "keep": list(spec.keep) if spec.keep else None,
                    "fetch": {
                        "paths": list(spec.fetch),
                        "max_file_bytes": spec.fetch_max_file_bytes,
                        "max_total_bytes": spec.fetch_max_total_bytes,
                    }
                    if spec.fetch
                    else None,
                    "uid": self.uid_check if spec.as_checker else self.uid_run,
                }
            )
        if spec.in_zygote and self.cgroup is not None:
            # no "started" message: the watchdog stops a zygote's test through its cgroup, and its
            # wall clock starts at the request (a little early: never in the program's favour)
            started = {"pid": None}
        else:
            started = self._recv(30.0)
            if started is None or started.get("event") != "started":
                raise SandboxError(f"slot {self.index}: keeper did not start the run ({started})")
        t0 = time.monotonic()
        reply, _, stops = self._watch(spec, t0, started["pid"])
        return self._finish(spec, reply, stops, pair=self._last_pair if spec.in_zygote else 0)

    def _send_pipes(self, fds: tuple[int, int]) -> None:
        """Hand an interactive run's pipe ends to the keeper (keeper.receive_pipes), then close ours:
        from here the run's processes hold the only copies, so its peer sees its end of file when
        they are gone."""
        try:
            socket.send_fds(self._runner_sock, [b"P"], list(fds))
        except OSError as err:
            raise SandboxError(f"slot {self.index}: cannot hand the run its pipes ({err})") from None
        finally:
            _close_all(fds)

    def _watch(self, spec: RunSpec, t0: float, pid_in_slot: int | None, seq: int | None = None):
        """Wait for the keeper's reply (the run's process is gone), or with `seq` for the shared
        runner's report of that test, whichever comes first, stopping the run when it passes its CPU
        or wall time limit: (reply, report, stops), one of the first two None.

        TLE is CPU time (docs/spec.md 4.1): wall time stops a run only at wall_limit_ms, and then
        the kernel's account of its threads (starved()) says whether it was idle there
        (sleeping, blocked: the program's doing) or kept waiting for a CPU (the host's)."""
        cpu_kill_ns = spec.time_limit_ms * (1 + spec.kill_margin) * 1e6
        wall_end = t0 + spec.wall_limit_ms / 1000
        # the run cannot have used more CPU time than this many seconds on every CPU: the cgroup's
        # counter (a read costs tens of microseconds on v1) is read only from then on
        cpu_from = t0 + cpu_kill_ns / 1e9 / CPUS
        stops = _Stops()
        while True:
            killed = stops.cpu_killed or stops.wall_killed
            # once the run is stopped only the keeper's reply counts (the runner's socket is not read)
            watched = [self._resp_r] if seq is None or killed else [self._resp_r, self._runner_sock]
            timeout = POLL_S if killed else max(POLL_S, min(wall_end, cpu_from) - time.monotonic())
            if self.stop is not None:
                timeout = min(timeout, STOP_POLL_S)
            ready, _, _ = select.select(watched, [], [], timeout)
            if self._resp_r in ready:
                return self._recv(30.0), None, stops
            if ready and not killed:
                report = self._runner_report(seq)
                if report is not None:
                    return None, report, stops
            if killed:
                continue
            now = time.monotonic()
            if self.stop is not None and self.stop.is_set():
                stops.wall_killed = True
                self._kill_run(pid_in_slot)
                continue
            if now > wall_end:
                used_ns, waited_ns = self._cpu_account(pid_in_slot)
                if used_ns > cpu_kill_ns:
                    stops.cpu_killed = True
                else:
                    stops.wall_killed = True
                    if waited_ns is not None:
                        stops.waited_ms = waited_ns / 1e6
                        stops.starved = starved(used_ns / 1e6, stops.waited_ms, (now - t0) * 1000)
                self._kill_run(pid_in_slot)
                continue
            if self.cgroup is None or now < cpu_from:
                continue
            if self.cgroup.cpu_ns() > cpu_kill_ns:
                stops.cpu_killed = True
                self._kill_run(pid_in_slot)

    def _cpu_account(self, pid_in_slot: int | None) -> tuple[int, int | None]:
        """The run's CPU time so far (the cgroup's counter; without cgroups its threads' own) and how
        long its live threads waited for a CPU (schedstat's run_delay: runnable, not running, CPU
        quota throttling included), None where the kernel does not keep it. Read before the kill."""
        try:
            if self.cgroup is not None:
                tids = self.cgroup.threads()
            else:  # unsafe mode: no PID namespace, the run's pid is the host's
                tids = [int(t) for t in os.listdir(f"/proc/{pid_in_slot}/task")]
        except (OSError, ValueError):
            tids = []
        ran = waited = 0
        for tid in tids:
            try:
                with open(f"/proc/{tid}/schedstat", "rb") as f:
                    fields = f.read(256).split()
                ran, waited = ran + int(fields[0]), waited + int(fields[1])
            except (OSError, ValueError, IndexError):
                continue  # a thread that just exited
        used = self.cgroup.cpu_ns() if self.cgroup is not None else ran
        return used, waited if SCHEDSTAT else None

    def _finish(self, spec: RunSpec, reply: dict, stops: _Stops, wall_ms=None, pair: int = 0) -> RunResult:
        """The result of a run whose processes are gone, from the keeper's reply and the cgroup; its
        output is in the files of `pair`."""
        if reply is None or reply.get("event") != "exited":
            raise SandboxError(f"slot {self.index}: unexpected keeper reply {reply}")
        if reply.get("setup_error") is not None:
            raise SandboxError(f"slot {self.index}: run set-up failed: {reply['setup_error'] or 'killed'}")
        if reply.get("exec_error"):
            raise SandboxError(f"slot {self.index}: cannot execute {spec.argv[:1]}: {reply['exec_error']}")
        if self.cgroup is not None:
            usage = self.cgroup.usage()
            # the keeper already reaped everything; this is the second line (pids.current, a file
            # kept open, counts every task of the cgroup: a read, where listing its processes opens one)
            if self.cgroup.tasks():
                self.cgroup.kill_all()
        else:  # unsafe mode: the kernel's rusage of the one child is all there is
            usage = Usage(
                cpu_ns=int(reply["rusage_cpu_ms"] * 1e6),
                memory_peak_bytes=reply["rusage_maxrss_kb"] * 1024,
                oom_kills=0,
            )
        memory_kb = usage.memory_peak_bytes // 1024
        stdout_path, stderr_path = self._pairs[pair]
        return RunResult(
            exit_code=reply["exit_code"],
            signal=reply["signal"],
            cpu_ms=usage.cpu_ns / 1e6,
            wall_ms=reply["wall_ms"] if wall_ms is None else wall_ms,
            memory_kb=memory_kb,
            oom_killed=usage.oom_kills > 0
            or (self.cgroup is None and memory_kb > spec.memory_limit_mb * 1024),
            cpu_killed=stops.cpu_killed or reply["signal"] in (signal.SIGXCPU,),
            wall_killed=stops.wall_killed,
            compile_error=self._compile_error(stderr_path) if reply["compile_error"] else None,
            stdout_path=stdout_path,
            stderr_path=stderr_path,
            starved=stops.starved,
            waited_ms=stops.waited_ms,
            fetched=list(zip(spec.fetch, reply.get("fetched") or [], strict=False)),
            fetch_dir=self._fetch_dir,
        )

    # -- a zygote's shared runner -------------------------------------------------------------------
    def run_shared(self, spec: RunSpec, then: str | None = None) -> tuple[RunResult, bool]:
        """Run one test of the open zygote in its shared runner, started here when there is none:
        one process forked from the zygote, a snapshot of the submission before its first test, that
        forks each test's process from itself (keeper.run_shared; docs/spec.md 4.8). Returns the
        result and whether it stands as a forked test's: always, unless the runner ended during the
        test by itself rather than at a limit (its test's process may have killed it, say).

        Per test the slot resets the cgroup's counters, hands the runner the test's input, output and
        error files as descriptors (never their names) and watches CPU and wall time as for any run;
        CPU time, memory peak, OOM kills and the processes left are the cgroup's, not the runner's
        word. A runner that died or was stopped, that said it was left unclean, or that left another
        process or a thread behind is ended after the test, and the next test starts a new one.
        `then`: the input of the test that comes next. It starts as soon as this one is done, with
        output files of its own, so that it runs while the caller checks this one's output; a call
        for any other test, a run, or the zygote's end stops it first.
        Needs an open zygote and cgroups (a strict-mode slot)."""
        if not self.alive:
            raise SandboxError(f"slot {self.index} is not running")
        if not self.in_zygote or self.cgroup is None:
            raise SandboxError(f"slot {self.index}: a shared test needs an open zygote and cgroups")
        # the runner is one task more than a forked test: its test's process gets pids_max of its own
        self.cgroup.set_limits(spec.memory_limit_mb, spec.pids_max + 1)
        test = self._pending
        if test is not None and test["stdin"] != spec.stdin:
            self.end_runner()
            test = None
        if test is None:
            test = self._start_shared(spec.stdin)
        self._pending = None
        # the other pair holds the last test's output, which the caller is done with, and takes the
        # next test's: emptied now, while this test runs, not between the two (a truncate costs most
        # of a millisecond a megabyte on ext4, and pages left would count in the next test's peak)
        for path in self._pairs[1 - test["pair"]]:
            try:
                if os.stat(path).st_size:
                    os.truncate(path, 0)
            except FileNotFoundError:
                pass
        reply, report, stops = self._watch(spec, test["t0"], None, test["seq"])
        wall_ms = (time.monotonic() - test["t0"]) * 1000
        stdout_path, stderr_path = self._pairs[test["pair"]]
        if reply is not None:  # the runner is gone: the test's result is its exit
            self._runner_gen = None
            result = self._finish(spec, reply, stops, wall_ms, pair=test["pair"])
            # stopped at a limit, or the code did not compile (the program never ran): as a fork's
            stands = (
                stops.cpu_killed or stops.wall_killed or result.oom_killed or result.compile_error is not None
            )
            return result, stands
        status, clean = report
        usage = self.cgroup.usage()  # before the next test resets the counters
        # the runner alone, with one thread: pids.current counts every task, threads included
        if not (clean and self.cgroup.tasks() == 1):
            self.end_runner()
        elif then is not None:
            self._pending = self._start_shared(then, chained=True)
        return (
            RunResult(
                exit_code=status if status >= 0 else None,
                signal=-status if status < 0 else None,
                cpu_ms=usage.cpu_ns / 1e6,
                wall_ms=wall_ms,
                memory_kb=usage.memory_peak_bytes // 1024,
                oom_killed=usage.oom_kills > 0,
                cpu_killed=status == -signal.SIGXCPU,
                wall_killed=False,
                compile_error=None,
                stdout_path=stdout_path,
                stderr_path=stderr_path,
            ),
            True,
        )

    def _start_shared(self, stdin: str | None, chained: bool = False) -> dict:
        """Start the runner if there is none, and send it the test with this input: its record.
        `chained`: right after the last test's usage was read (see the cgroup's begin)."""
        pair = self._last_pair = 1 - self._last_pair  # not the pair of the test the caller checks
        seq = next(self._seqs)
        fds = [os.open(self._host_path(stdin), os.O_RDONLY | os.O_CLOEXEC)]
        try:
            # emptied before the peak is reset (see run), and before a runner starts on them: a new
            # runner writes a compile error to this pair's stderr at once, and a truncation after
            # that (as when the host is slower than the runner) would leave the error empty
            for path in self._pairs[pair]:
                fds.append(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600))
            self._start_runner(pair)
            self.cgroup.begin(chained)
            t0 = time.monotonic()
            socket.send_fds(self._runner_sock, [b"G" + struct.pack("!II", self._runner_gen, seq)], fds)
        finally:
            for fd in fds:
                os.close(fd)
        return {"seq": seq, "stdin": stdin, "t0": t0, "pair": pair}

    def _start_runner(self, pair: int) -> None:
        """Start the zygote's shared runner unless one runs; its own stdout and stderr (a compile
        error) are `pair`'s files, its first test's."""
        if self._runner_gen is None:
            self._runner_gen = next(self._gens)
            self.runners_started += 1
            data = _zygote_test_request(None)
            os.ftruncate(self._request_fd, len(data))
            os.pwrite(self._request_fd, data, 0)
            # the runner's own stdout and stderr (a compile error) are its first test's files
            msg = {
                "op": "test",
                "uid": self.uid_run,
                "spare": False,
                "shared": self._runner_gen,
                "pair": pair,
            }
            self._send(msg)

    def _runner_report(self, seq: int) -> tuple[int, bool] | None:
        """The runner's report of test `seq` (exit status or minus the signal that ended the test's
        process, clean), or None for anything else: read as data, never trusted to be well formed."""
        try:
            msg = self._runner_sock.recv(64, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return None
        if len(msg) != 10 or msg[:1] != b"D":
            return None
        got, status, clean = struct.unpack("!IiB", msg[1:])
        if got != seq or not -64 <= status <= 255:
            return None
        return status, clean == 1

    def end_runner(self) -> None:
        """End the zygote's shared runner, if one runs, and wait until the zygote has reaped it;
        a test sent ahead (run_shared's `then`) is stopped."""
        if self._runner_gen is None:
            return
        gen, self._runner_gen = self._runner_gen, None
        if self._pending is not None:
            self._pending = None
            self.cgroup.kill_all()
        else:
            self._runner_sock.send(b"Q" + struct.pack("!I", gen))
        reply = self._recv(1.0)
        if reply is None and self.cgroup is not None:  # it did not stop when asked
            self.cgroup.kill_all()
            reply = self._recv(30.0)
        if reply is None or reply.get("event") != "exited":
            raise SandboxError(f"slot {self.index}: the shared runner did not end ({reply})")

    def _host_path(self, path: str | None) -> str:
        """A path as the sandbox sees it (/data/..., /io/...) on this host."""
        if path is None:
            return os.devnull
        for prefix, host in (("/data/", self.data_dir), ("/io/", self.io_dir)):
            if path.startswith(prefix):
                return str(host / path[len(prefix) :])
        raise SandboxError(f"slot {self.index}: no host path for {path!r}")

    def _compile_error(self, stderr_path: Path) -> str:
        with open(stderr_path, "rb") as f:
            return f.read(64 << 10).decode("utf-8", "replace")

    def _kill_run(self, pid_in_slot: int) -> None:
        if self.cgroup is not None:
            self.cgroup.kill_all()
        else:
            try:
                os.killpg(pid_in_slot, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def _zygote_test_request(stdin: str | None) -> bytes:
    """A zygote's test's own request in the memory file: its input's path as is, empty for none
    (keeper.zygote_test_stdin; no JSON for the child to decode, whose pages it would copy)."""
    return (stdin or "").encode()


def _close_all(fds) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass
