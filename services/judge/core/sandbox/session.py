"""The host side of one session sandbox: a persistent shell (Python or bash) with the judge's isolation.

Theory of operation
-------------------
A session is a slot that lives for many calls and keeps its state. `SessionSandbox.start` leases a uid
pair (uids.py), makes the session's own cgroup (`slot-<pid>-s<n>`, so the judge's stale-cgroup sweep
covers it) with its memory and process limits, and starts `session_keeper.py` through
`unshare --pid --fork --kill-child --mount --net --ipc --uts`: PID 1 of fresh namespaces, chrooted into
the same private root a judging slot gets (the slot keeper's `build_root`: read-only system
directories, loopback-only network, hidepid /proc), with a size-capped tmpfs /tmp holding the
session's working directory /tmp/work, and under the same seccomp filter. The keeper talks to this
process over one SOCK_SEQPACKET socket; when this process dies (even by SIGKILL) the keeper reads
EOF and exits, and as PID 1 its exit kills every process of the session; the tmpfs goes with the
mount namespace and the uid lease with the keeper's descriptor.

The shell is forked by the keeper into the cgroup as the session's uid: Python is a fork of the
keeper's own interpreter (a copy-on-write zygote, so an idle session costs little memory) running a
small driver; bash runs an eval loop. Four pipes join it to this process: requests, replies (one
JSON line per exec: exit code), stdout and stderr. `exec` writes one request and reads the three
others until the reply comes, counting output against `output_kb` and polling the cgroup's CPU time
against `cpu_s` and the clock against the exec's `timeout_s`. Past a limit it sends SIGINT to the
shell's process group (Python raises KeyboardInterrupt in the running code; bash's children die and
its own trap returns to the loop) and waits a grace period for the reply; a shell that does not
answer is killed with every process of the session and started again: the answer says
`restarted: true` (bash gets its exported environment and cwd back; Python's variables are lost).
An OOM kill is read from the cgroup's own counter (status `memory`). The reply pipe carries one
JSON line per exec, but the session's code can write to it too: a line over MAX_REPLY_BYTES or one
that is not `{"exit_code": int}` restarts the shell, and the pipe is emptied before each request.
Output is kept in bytes and returned as UTF-8 text where it is UTF-8, else base64, cut so that its
size in the JSON answer (`fit_output`) is within `output_kb`; `exec_raw` hands on views of the bytes
read (the worker sends them to the API as they are: one copy of an output in each process).

Between calls the session's cgroup has a CPU quota (`idle_cpus`, cgroups.py `set_cpu_quota`), lifted
for the length of each exec and file call, so a background process cannot spin for the session's
whole lifetime at the cost of the judged programs on the host.

Files are read and written by a child of the keeper that runs as the session's uid inside the
chroot, so a path reaches exactly what the session's own code could reach (paths are relative, no
`..`, the last component never a symbolic link).
"""

from __future__ import annotations

import base64
import codecs
import contextlib
import itertools
import json
import logging
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from services.judge.core.paths import check_path
from services.judge.core.sandbox.cgroups import CgroupError, CgroupHost, CgroupV1
from services.judge.core.sandbox.uids import NoFreeUids, UidLease

log = logging.getLogger(__name__)

KEEPER = Path(__file__).with_name("session_keeper.py")
GRACE_S = 0.5  # after SIGINT, how long an exec has to answer before the shell is restarted
POLL_S = 0.01  # how often CPU time is read while an exec runs
MAX_REPLY_BYTES = 4096  # the shell's reply line; longer is junk the session's code wrote there
_SEQ = itertools.count()


class SessionSandboxError(RuntimeError):
    """The session's sandbox failed (could not start, or its keeper died): never a result of its code."""


class FileOpError(RuntimeError):
    """A file could not be read or written (missing, a directory, too large ...); `errno` names why."""

    def __init__(self, errno_name: str, message: str):
        super().__init__(message)
        self.errno_name = errno_name


@dataclass
class ExecResult:
    stdout: str
    stderr: str
    exit_code: int | None
    status: str  # ok | timeout | memory | output_limit | dead
    cpu_ms: int
    wall_ms: int
    restarted: bool = False
    stdout_encoding: str = "utf-8"  # utf-8: the text itself; base64: the bytes were not UTF-8
    stderr_encoding: str = "utf-8"


def _parse_reply(line: bytes) -> dict | None:
    """The shell's reply line ({"exit_code": int, ...}), or None for anything else (the session's code
    can write to the reply pipe: what it writes restarts the shell, never fails the worker)."""
    try:
        reply = json.loads(line)
    except ValueError:
        return None
    if not isinstance(reply, dict) or type(reply.get("exit_code")) is not int:
        return None
    return reply


# JSON's cost of each byte of valid UTF-8 past its own: a control character is \uXXXX (5 more), except
# the five with a short escape, and '"' and '\\' (1 more each); every other byte is itself
_EXTRA = bytearray(256)
for _b in range(0x20):
    _EXTRA[_b] = 5
for _b in b'\b\f\n\r\t"\\':
    _EXTRA[_b] = 1
_FIVE = bytes(1 if e == 5 else 0 for e in _EXTRA)
_ONE = bytes(1 if e == 1 else 0 for e in _EXTRA)
_CHUNK = 1 << 16


def _json_size(data) -> int:
    """Bytes of the JSON string body (quotes aside) of valid UTF-8 `data`, as the API writes it
    (UTF-8, not ASCII-escaped): one pass over the bytes, in C, a 64 KiB slice at a time (no copy of
    the whole output)."""
    view = memoryview(data)
    extra = 0
    for at in range(0, len(view), _CHUNK):
        chunk = bytes(view[at : at + _CHUNK])
        extra += 5 * chunk.translate(_FIVE).count(1) + chunk.translate(_ONE).count(1)
    return len(view) + extra


def _text_prefix(data, budget: int):
    """The longest prefix of valid UTF-8 `data` that ends on a character and costs at most `budget`
    (a view of `data`, not a copy)."""
    data = memoryview(data)
    end = cost = 0
    while end < len(data):
        chunk = data[end : end + _CHUNK]
        c = _json_size(chunk)
        if cost + c > budget:
            break
        cost, end = cost + c, end + len(chunk)
    else:
        return data
    while end < len(data):  # the last chunk byte by byte: at most _CHUNK steps
        c = 1 + _EXTRA[data[end]]
        if cost + c > budget:
            break
        cost, end = cost + c, end + 1
    while 0 < end < len(data) and 0x80 <= data[end] < 0xC0:  # not inside a character
        end -= 1
    return data[:end]


def _as_text(data, truncated: bool):
    """`data` (a view of it) when it is UTF-8, a character cut by the output limit at its end dropped;
    else None. Checked a slice at a time: no decoded copy of the whole output is made."""
    view = memoryview(data)
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for at in range(0, len(view), _CHUNK):
            decoder.decode(view[at : at + _CHUNK])
    except UnicodeDecodeError:
        return None
    pending = len(decoder.getstate()[0])  # bytes of a character not complete at the end
    if not pending:
        return view
    return view[: len(view) - pending] if truncated else None


def fit_output(out, err, limit: int, truncated: bool = False) -> tuple:
    """(stdout, its encoding, stderr, its encoding, cut): each stream's bytes as the answer carries
    them, views of `out` and `err` (no copy): UTF-8 text where it is UTF-8, else the bytes that the
    answer gives in base64; cut so that the two together take at most `limit` bytes in the JSON
    answer (what `output_kb` counts). stderr keeps up to a quarter of the limit when stdout alone
    would fill it."""
    streams = []
    for data in (out, err):
        text = _as_text(data, truncated)
        streams.append(("utf-8", text) if text is not None else ("base64", memoryview(data)))

    def size(enc: str, data) -> int:
        return _json_size(data) if enc == "utf-8" else 4 * ((len(data) + 2) // 3)

    def fit(enc: str, data, budget: int):
        if size(enc, data) <= budget:
            return data
        return _text_prefix(data, budget) if enc == "utf-8" else data[: max(0, budget) // 4 * 3]

    (enc_o, data_o), (enc_e, data_e) = streams
    cut = False
    if size(enc_o, data_o) + size(enc_e, data_e) > limit:
        cut = True
        data_e = fit(enc_e, data_e, min(size(enc_e, data_e), limit // 4))
        data_o = fit(enc_o, data_o, limit - size(enc_e, data_e))
        data_e = fit(enc_e, streams[1][1], limit - size(enc_o, data_o))
    return data_o, enc_o, data_e, enc_e, cut


def show_output(encoding: str, data) -> str:
    """A stream as the answer's text: the UTF-8 itself, or base64 (`encoding`, as fit_output says)."""
    return str(data, "utf-8") if encoding == "utf-8" else base64.b64encode(data).decode()


def encode_output(out: bytes, err: bytes, limit: int, truncated: bool = False) -> tuple:
    """fit_output's streams as the answer's text: (stdout, its encoding, stderr, its encoding, cut)."""
    data_o, enc_o, data_e, enc_e, cut = fit_output(out, err, limit, truncated)
    return show_output(enc_o, data_o), enc_o, show_output(enc_e, data_e), enc_e, cut


def _memory_current(cgroup) -> int:
    """Bytes charged to the cgroup now (page cache of the session's files included)."""
    try:
        if isinstance(cgroup, CgroupV1):
            return int((cgroup.dirs["memory"] / "memory.usage_in_bytes").read_text())
        return int((cgroup.path / "memory.current").read_text())
    except (OSError, ValueError):
        return 0


class SessionSandbox:
    """One session's sandbox. Not thread-safe: the caller runs one operation at a time."""

    def __init__(
        self,
        kind: str,
        *,
        state_dir: Path,
        cgroup_host: CgroupHost,
        seccomp_bpf: bytes | None,
        memory_limit_mb: int,
        cpu_limit_s: float,
        output_limit_kb: int,
        disk_mb: int = 256,
        pids_max: int = 64,
        open_files_max: int = 256,
        idle_cpus: float | None = None,
    ):
        if kind not in ("python", "bash"):
            raise ValueError(f"unknown session kind {kind!r}")
        self.kind = kind
        self.tag = f"{os.getpid()}-s{next(_SEQ)}"
        self.dir = Path(state_dir) / "sessions" / self.tag
        self.cgroup_host = cgroup_host
        self.seccomp_bpf = seccomp_bpf
        self.memory_limit_mb = memory_limit_mb
        self.cpu_limit_s = cpu_limit_s
        self.output_limit_bytes = output_limit_kb << 10
        self.disk_mb = disk_mb
        self.pids_max = pids_max
        self.open_files_max = open_files_max
        self.idle_cpus = idle_cpus  # the CPU quota between calls (None: none)
        self._quota = False
        self.cgroup = None
        self.proc: subprocess.Popen | None = None
        self.uids: UidLease | None = None
        self.uid: int | None = None
        self._sock: socket.socket | None = None
        self._pipes: dict[str, int] = {}
        self.closed = False

    # -- life cycle -------------------------------------------------------------------------------
    def start(self, timeout_s: float = 20.0) -> None:
        try:
            self._start(timeout_s)
        except BaseException:
            self.close()
            raise

    def _start(self, timeout_s: float) -> None:
        for name, mode in (("root", 0o755), ("data", 0o700), ("io", 0o700), ("bin", 0o700)):
            (self.dir / name).mkdir(parents=True, exist_ok=True)
            os.chmod(self.dir / name, mode)
        try:
            self.uids = UidLease()
        except (NoFreeUids, OSError) as err:
            raise SessionSandboxError(f"no sandbox uid for the session: {err}") from None
        self.uid = self.uids.uid_run
        self.cgroup = self.cgroup_host.slot(f"slot-{self.tag}")
        self.cgroup.set_limits(self.memory_limit_mb, self.pids_max)
        self.cgroup.begin()
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._sock = mine
        config = {
            "sock_fd": theirs.fileno(),
            "root_dir": str(self.dir / "root"),
            "data_dir": str(self.dir / "data"),
            "io_dir": str(self.dir / "io"),
            "bin_dir": str(self.dir / "bin"),
            "python_prefix": sys.base_prefix,
            "tmp_size_mb": self.disk_mb,
            "uid_run": self.uids.uid_run,
            "uid_check": self.uids.uid_check,
            "uid": self.uid,
            "pids_max": self.pids_max,
            "open_files_max": self.open_files_max,
            "cgroup_procs": [str(p) for p in self.cgroup.procs_files],
            "seccomp_bpf": self.seccomp_bpf.hex() if self.seccomp_bpf else None,
        }
        unshare = shutil.which("unshare")
        if unshare is None:
            raise SessionSandboxError("the 'unshare' program (util-linux) is not installed")
        python = os.path.realpath(sys.executable)
        self.proc = subprocess.Popen(
            [unshare, "--pid", "--fork", "--kill-child", "--mount", "--net", "--ipc", "--uts"]
            + [python, "-I", "-S", "-B", str(KEEPER), json.dumps(config)],
            pass_fds=(theirs.fileno(), self.uids.fd),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"},
            start_new_session=True,
        )
        theirs.close()
        msg = self._recv(timeout_s)
        if msg.get("event") != "ready":
            raise SessionSandboxError(f"session sandbox could not start: {msg.get('error') or msg}")
        self._start_shell()
        self._quota = self.idle_cpus is not None and self.cgroup.has_cpu_quota
        if self.idle_cpus is not None and not self._quota:
            log.warning("session %s: no CPU quota between execs (no cpu cgroup controller)", self.tag)
        self._set_idle(True)

    def _set_idle(self, idle: bool) -> None:
        """Between calls the session's processes share `idle_cpus` CPUs; during a call, no cap."""
        if self._quota and self.cgroup is not None:
            try:
                self.cgroup.set_cpu_quota(self.idle_cpus if idle else None)
            except OSError as err:
                log.warning("session %s: CPU quota: %s", self.tag, err)

    @contextlib.contextmanager
    def _awake(self):
        self._set_idle(False)
        try:
            yield
        finally:
            self._set_idle(True)

    def close(self) -> bool:
        """Kill every process of the session and remove its cgroup, uid lease and files.

        True when nothing of the session is left. False when its cgroup still lists a process (one
        that takes its time to die on a loaded host): then the cgroup, the uid lease and the directory
        stay until `finish_close` succeeds, so no other session gets the uid while a process of it lives.
        """
        if self.closed:
            return self.finish_close()
        self.closed = True
        self._set_idle(False)  # what is killed dies at full speed
        if self._sock is not None and self.proc is not None and self.proc.poll() is None:
            try:
                self._call({"op": "kill_all"}, timeout_s=5.0)
            except (SessionSandboxError, OSError, ValueError):
                pass
        for fd in self._pipes.values():
            try:
                os.close(fd)
            except OSError:
                pass
        self._pipes.clear()
        if self._sock is not None:
            self._sock.close()  # the keeper reads EOF and exits, taking the namespace with it
            self._sock = None
        if self.proc is not None:
            try:
                self.proc.wait(5.0)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait()
            if self.proc.stderr:
                self.proc.stderr.close()
        return self.finish_close()

    def finish_close(self) -> bool:
        """Remove the cgroup once it is empty, then give back the uid lease and remove the directory."""
        if self.cgroup is not None:
            try:
                self.cgroup.kill_all()
            except (CgroupError, OSError) as err:
                log.warning("session %s: %s", self.tag, err)
            self.cgroup.remove()
            dirs = self.cgroup.dirs.values() if isinstance(self.cgroup, CgroupV1) else [self.cgroup.path]
            if any(d.exists() for d in dirs):
                return False
            self.cgroup = None
        if self.uids is not None:
            self.uids.release()
            self.uids = None
        shutil.rmtree(self.dir, ignore_errors=True)
        return True

    def configure(self, memory_limit_mb: int, cpu_limit_s: float, output_limit_kb: int) -> None:
        """Set the limits of a sandbox started ahead of time (a warm one) for the session it now serves."""
        self.memory_limit_mb = memory_limit_mb
        self.cpu_limit_s = cpu_limit_s
        self.output_limit_bytes = output_limit_kb << 10
        self.cgroup.set_limits(memory_limit_mb, self.pids_max)

    @property
    def alive(self) -> bool:
        return not self.closed and self.proc is not None and self.proc.poll() is None

    def memory_bytes(self) -> int:
        return _memory_current(self.cgroup) if self.cgroup is not None else 0

    # -- keeper protocol --------------------------------------------------------------------------
    def _recv(self, timeout_s: float) -> dict:
        ready, _, _ = select.select([self._sock], [], [], timeout_s)
        if not ready:
            raise SessionSandboxError(f"the session's keeper did not answer in {timeout_s} s")
        try:
            data = self._sock.recv(1 << 16)
        except OSError as err:  # a keeper killed with our request unread resets the socket
            raise SessionSandboxError(f"the session's keeper is gone ({err})") from None
        if not data:
            raise SessionSandboxError(f"the session's keeper is gone ({self._stderr_tail()})")
        try:
            msg = json.loads(data)
        except ValueError:
            msg = None
        if not isinstance(msg, dict):  # a sandbox failure, never an error of the worker
            raise SessionSandboxError(f"the session's keeper answered {data[:100]!r}")
        return msg

    def _call(self, msg: dict, fds: tuple[int, ...] = (), timeout_s: float = 30.0) -> dict:
        if self._sock is None:
            raise SessionSandboxError("the session is closed")
        try:
            socket.send_fds(self._sock, [json.dumps(msg).encode()], list(fds))
        except OSError as err:
            raise SessionSandboxError(f"the session's keeper is gone ({err})") from None
        return self._recv(timeout_s)

    def _stderr_tail(self) -> str:
        if self.proc is None or self.proc.stderr is None or self.proc.poll() is None:
            return "no answer"
        return (
            self.proc.stderr.read()[-1000:].decode("utf-8", "replace").strip()
            or f"exit {self.proc.returncode}"
        )

    def _start_shell(self) -> None:
        for fd in self._pipes.values():
            os.close(fd)
        cmd_r, cmd_w = os.pipe()
        rep_r, rep_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            reply = self._call({"op": "start", "kind": self.kind}, (cmd_r, rep_w, out_w, err_w))
        finally:
            for fd in (cmd_r, rep_w, out_w, err_w):
                os.close(fd)
        self._pipes = {"cmd": cmd_w, "rep": rep_r, "out": out_r, "err": err_r}
        for name in ("rep", "out", "err"):
            os.set_blocking(self._pipes[name], False)
        if not reply.get("ok"):
            raise SessionSandboxError(f"the session's shell could not start: {reply.get('error')}")

    # -- exec -------------------------------------------------------------------------------------
    def exec(self, text: str, timeout_s: float) -> ExecResult:
        """Run `text` (Python code, or a bash command line) in the persistent shell."""
        result, out, err = self.exec_raw(text, timeout_s)
        result.stdout = show_output(result.stdout_encoding, out)
        result.stderr = show_output(result.stderr_encoding, err)
        return result

    def exec_raw(
        self, text: str, timeout_s: float
    ) -> tuple[ExecResult, memoryview | bytes, memoryview | bytes]:
        """`exec`, its output not made text: the result with empty stdout and stderr, and the bytes of
        each as the answer carries them (fit_output: views of what was read, never a copy), for a
        caller that sends them on as they are (the session worker, to the API through Redis)."""
        if not self.alive:
            return ExecResult("", "", None, "dead", 0, 0), b"", b""
        with self._awake():
            return self._exec(text, timeout_s)

    def _exec(self, text: str, timeout_s: float) -> tuple[ExecResult, memoryview | bytes, memoryview | bytes]:
        data = text.encode("utf-8", "surrogatepass")
        request = struct.pack("!I", len(data)) + data if self.kind == "python" else data + b"\0"
        cpu0 = self.cgroup.cpu_ns()
        oom0 = self.cgroup.usage().oom_kills
        t0 = time.monotonic()
        out, err = bytearray(), bytearray()
        over_output = timed_out = False
        reply_line = b""
        reply = None
        shell_died = bad_reply = False
        interrupt_at: float | None = None
        self._discard_stale_replies()
        self._write_request(request, t0 + timeout_s)
        fds = {self._pipes["rep"]: "rep", self._pipes["out"]: "out", self._pipes["err"]: "err"}
        while reply is None and not shell_died and not bad_reply:
            ready, _, _ = select.select(list(fds), [], [], POLL_S)
            for fd in ready:
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                name = fds[fd]
                if name == "rep":
                    if not chunk:
                        shell_died = True
                        continue
                    reply_line += chunk
                    if b"\n" in reply_line:
                        reply = _parse_reply(reply_line.split(b"\n", 1)[0])
                        bad_reply = reply is None
                    elif len(reply_line) > MAX_REPLY_BYTES:
                        bad_reply = True
                    if bad_reply:  # the session's code wrote to the reply pipe: restart the shell
                        break
                elif chunk:
                    over_output |= self._keep(out if name == "out" else err, out, err, chunk)
            now = time.monotonic()
            if reply is not None or shell_died or bad_reply:
                break
            if interrupt_at is None:
                over_time = now - t0 > timeout_s
                over_cpu = self.cgroup.cpu_ns() - cpu0 > self.cpu_limit_s * 1e9
                if over_time or over_cpu or over_output:
                    timed_out = over_time or over_cpu
                    interrupt_at = now
                    self._signal(signal.SIGINT)
            elif now - interrupt_at > GRACE_S:
                break  # the shell did not come back: restart it below
        if reply is not None:
            self._drain(out, err)
        wall_ms = round((time.monotonic() - t0) * 1000)
        restarted = False
        exit_code = reply["exit_code"] if reply is not None else None
        if reply is None:
            if shell_died:
                exit_code = self._shell_exit_code()
            self._call({"op": "kill_all"}, timeout_s=10.0)
            self._drain(out, err)
            self._start_shell()
            restarted = True
        usage = self.cgroup.usage()
        stdout, stdout_enc, stderr, stderr_enc, cut = fit_output(
            out, err, self.output_limit_bytes, truncated=over_output
        )
        over_output |= cut
        if usage.oom_kills > oom0:
            status = "memory"
        elif timed_out:
            status = "timeout"
        elif over_output:
            status = "output_limit"
        else:
            status = "ok"
        result = ExecResult(
            stdout="",
            stderr="",
            exit_code=exit_code,
            status=status,
            cpu_ms=round((self.cgroup.cpu_ns() - cpu0) / 1e6),
            wall_ms=wall_ms,
            restarted=restarted,
            stdout_encoding=stdout_enc,
            stderr_encoding=stderr_enc,
        )
        return result, stdout, stderr

    def _discard_stale_replies(self) -> None:
        """Empty the reply pipe before a request: what the session's code wrote there after the last
        exec's reply must not answer this one."""
        fd = self._pipes.get("rep")
        while fd is not None:
            try:
                if not os.read(fd, 1 << 16):
                    return
            except BlockingIOError:
                return

    def _keep(self, buf: bytearray, out: bytearray, err: bytearray, chunk: bytes) -> bool:
        """Append what fits under the output limit (stdout and stderr together); True when over it."""
        room = self.output_limit_bytes - len(out) - len(err)
        if room > 0:
            buf += chunk[:room]
        return len(chunk) > room

    def _drain(self, out: bytearray, err: bytearray) -> None:
        for name, buf in (("out", out), ("err", err)):
            fd = self._pipes.get(name)
            while fd is not None:
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    break
                if not chunk:
                    break
                self._keep(buf, out, err, chunk)

    def _write_request(self, request: bytes, deadline: float) -> None:
        fd = self._pipes["cmd"]
        view = memoryview(request)
        while view:
            _, writable, _ = select.select([], [fd], [], max(0.0, deadline - time.monotonic()))
            if not writable:
                return  # the shell is not reading: the exec's own loop times it out
            try:
                n = os.write(fd, view[: 1 << 16])
            except BrokenPipeError:
                return  # the shell is gone: the reply pipe's EOF says so
            view = view[n:]

    def _signal(self, signum: int) -> None:
        try:
            self._call({"op": "signal", "signal": int(signum)}, timeout_s=5.0)
        except SessionSandboxError:
            pass

    def _shell_exit_code(self) -> int | None:
        for _ in range(50):
            status = self._call({"op": "status"})
            if not status.get("alive"):
                return status.get("exit_code")
            time.sleep(0.01)
        return None

    # -- files ------------------------------------------------------------------------------------
    def put_file(self, path: str, data: bytes) -> None:
        with self._awake():
            self._put_file(path, data)

    def get_file(self, path: str, max_bytes: int) -> bytes:
        with self._awake():
            return self._get_file(path, max_bytes)

    def _put_file(self, path: str, data: bytes) -> None:
        path = check_path(path)
        fd = os.memfd_create("session-put")
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            reply = self._call({"op": "put", "path": path}, (fd,))
        finally:
            os.close(fd)
        if not reply.get("ok"):
            raise FileOpError(reply.get("errno", "EIO"), f"cannot write {path!r}: {reply.get('error')}")

    def _get_file(self, path: str, max_bytes: int) -> bytes:
        path = check_path(path)
        fd = os.memfd_create("session-get")
        try:
            reply = self._call({"op": "get", "path": path, "max_bytes": max_bytes}, (fd,))
            if not reply.get("ok"):
                raise FileOpError(reply.get("errno", "EIO"), f"cannot read {path!r}: {reply.get('error')}")
            # the session's own processes may reach this descriptor (same uid): trust no size but the cap
            size = os.fstat(fd).st_size
            if size > max_bytes:
                raise FileOpError("EFBIG", f"cannot read {path!r}: over the limit of {max_bytes} bytes")
            return os.pread(fd, size, 0) if size else b""
        finally:
            os.close(fd)
