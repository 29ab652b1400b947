"""The keeper of one session sandbox: PID 1 of the session's namespaces, root inside them.

This file runs *inside* the session's namespaces with `python3 -I -S`, so it imports only the standard
library and never this package; it borrows the slot keeper's set-up (`keeper.py`: private root,
loopback, seccomp) by loading that file by path. It is started by `session.py` (read its docstring,
and the sandbox's theory of operation in `__init__.py`).

Protocol: one SOCK_SEQPACKET socket to the host; each packet is one JSON request, descriptors ride
along (SCM_RIGHTS); each request gets one JSON reply packet. The keeper never runs anything of the
session's as root: the shell (a persistent Python interpreter, forked from this process, or bash) and
every file operation run in a child that has joined the session's cgroup and dropped to its uid.
"""

import errno
import gc
import importlib.util
import json
import os
import resource
import select
import signal
import socket
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = "/tmp/work"  # the session's working directory (HOME), on the size-capped tmpfs /tmp
STATE = "/tmp/.session"  # the shell's exported environment and cwd, restored when it restarts
CTL_IN, CTL_OUT = 200, 201  # the shell's request and reply descriptors (high, yet under RLIMIT_NOFILE)
PRELOAD = "ast codeop collections functools itertools json math re traceback types".split()

CONFIG: dict = {}
CGROUP_FDS: list[int] = []
SHELL = {"pid": None, "status": None}

# The bash shell loop: commands arrive NUL-terminated on CTL_IN and run with eval in the shell itself,
# so cwd, variables and functions persist; each ends with its exit status as one JSON line on CTL_OUT.
# The exported environment and cwd are saved after every command, for a restart after a timeout.
BASH_LOOP = r"""
[ -r /tmp/.session/env ] && . /tmp/.session/env 2>/dev/null
[ -r /tmp/.session/cwd ] && cd "$(cat /tmp/.session/cwd)" 2>/dev/null
trap ':' INT
while IFS= read -r -d '' -u 200 __cf_cmd; do
  eval "$__cf_cmd" 200<&- 201>&-
  __cf_rc=$?
  export -p > /tmp/.session/env 2>/dev/null
  printf '%s' "$PWD" > /tmp/.session/cwd 2>/dev/null
  printf '{"exit_code": %d}\n' "$__cf_rc" >&201
done
"""


def _load_slot_keeper():
    spec = importlib.util.spec_from_file_location("_slot_keeper", os.path.join(HERE, "keeper.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- children: the shell and file operations --------------------------------------------------------
def _enter_session(fds_keep=()):
    """In a forked child, as root: join the cgroup, set rlimits, drop to the session's uid."""
    for fd in CGROUP_FDS:
        os.write(fd, b"0")
    for sig in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGCHLD, signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    os.setsid()
    try:  # the host's OOM killer's first choice, as a judged program (keeper.py set_oom_score_adj)
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    nofile = max(CONFIG["open_files_max"], CTL_OUT + 1)
    resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    pids = CONFIG["pids_max"]
    resource.setrlimit(resource.RLIMIT_NPROC, (pids, pids))
    uid = CONFIG["uid"]
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    os.environ.clear()
    os.environ.update({"PATH": "/usr/bin:/bin", "HOME": WORK, "TMPDIR": WORK, "LANG": "C.UTF-8"})
    os.chdir(WORK)


def _close_except(keep):
    keep = sorted(set(keep))
    low = 3
    for fd in keep:
        if fd >= low:
            os.closerange(low, fd)
            low = fd + 1
    os.closerange(low, 65536)


def start_shell(kind, fds):
    """Fork the shell: fds = [requests (read), replies (write), stdout (write), stderr (write)]."""
    cmd_r, rep_w, out_w, err_w = fds
    pid = os.fork()
    if pid == 0:
        try:
            null = os.open("/dev/null", os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(out_w, 1)
            os.dup2(err_w, 2)
            os.dup2(cmd_r, CTL_IN)
            os.dup2(rep_w, CTL_OUT)
            _enter_session()
            _close_except((0, 1, 2, CTL_IN, CTL_OUT))
            if kind == "bash":
                bash = "/bin/bash" if os.path.exists("/bin/bash") else "/usr/bin/bash"
                os.execve(bash, [bash, "--noprofile", "--norc", "-c", BASH_LOOP], dict(os.environ))
            python_driver()
        except BaseException as err:  # noqa: BLE001 - set-up failed: the host sees the shell die
            try:
                os.write(2, f"session shell could not start: {type(err).__name__}: {err}\n".encode())
            finally:
                os._exit(126)
    for fd in fds:
        os.close(fd)
    SHELL["pid"], SHELL["status"] = pid, None
    return pid


def file_op(op, path, data_fd, max_bytes):
    """Read or write one file of the working directory in a child that runs as the session's uid.

    `path` was checked by the host (relative, no `..`); here the kernel resolves it with exactly the
    session's own rights, and the last component must not be a symbolic link.
    """
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(err_r)
            _enter_session()
            parts = path.split("/")
            if op == "put":
                parent = WORK
                for part in parts[:-1]:
                    parent = os.path.join(parent, part)
                    try:
                        os.mkdir(parent, 0o755)
                    except FileExistsError:
                        pass
                flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
                fd = os.open(os.path.join(WORK, path), flags, 0o644)
                size = os.fstat(data_fd).st_size
                offset = 0
                while offset < size:
                    chunk = os.pread(data_fd, min(1 << 20, size - offset), offset)
                    if not chunk:
                        break
                    os.write(fd, chunk)
                    offset += len(chunk)
                os.close(fd)
            else:
                fd = os.open(os.path.join(WORK, path), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
                st = os.fstat(fd)
                import stat

                if not stat.S_ISREG(st.st_mode):
                    raise OSError(errno.EINVAL, "not a regular file")
                if st.st_size > max_bytes:
                    raise OSError(errno.EFBIG, f"file is {st.st_size} bytes, over the limit of {max_bytes}")
                # the file may grow after fstat (a background process of the session writing to it):
                # read at most one byte past the limit, whatever its size was
                left = max_bytes + 1
                while left > 0 and (chunk := os.read(fd, min(1 << 20, left))):
                    left -= len(chunk)
                    view = memoryview(chunk)
                    while view:
                        view = view[os.write(data_fd, view) :]
                if left <= 0:
                    raise OSError(errno.EFBIG, f"file grew past the limit of {max_bytes} bytes while read")
        except OSError as err:
            os.write(err_w, f"{errno.errorcode.get(err.errno, 'EIO')} {err.strerror}".encode())
            code = 1
        except BaseException as err:  # noqa: BLE001
            os.write(err_w, f"EIO {type(err).__name__}: {err}".encode())
            code = 1
        os._exit(code)
    os.close(err_w)
    _, status = os.waitpid(pid, 0)
    message = b""
    while chunk := os.read(err_r, 4096):
        message += chunk
    os.close(err_r)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        return {"ok": True}
    text = message.decode("utf-8", "replace") or f"file operation died ({status})"
    code, _, reason = text.partition(" ")
    return {"ok": False, "errno": code, "error": reason or text}


def reap(block=False):
    """Collect exited children (orphans of the namespace included); note the shell's exit status."""
    while True:
        try:
            pid, status = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if pid == SHELL["pid"]:
            SHELL["status"] = status


def kill_all():
    """As PID 1, kill(-1) reaches every other process of the namespace; wait until none is left."""
    while True:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            return
        if pid == SHELL["pid"]:
            SHELL["status"] = status


def _status_of(status):
    if status is None:
        return None
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    return 128 + os.WTERMSIG(status)


# -- the Python shell: a persistent interpreter driven over CTL_IN / CTL_OUT -------------------------
def python_driver():
    """Runs as the session's uid: read framed code, run it in one namespace, reply with a JSON line.

    The value of a last expression statement is printed (its repr), as at an interactive prompt.
    SIGINT raises KeyboardInterrupt only while the session's code runs (how the host stops an exec
    that is over its time or output limit, without losing the interpreter's state).
    """
    import ast
    import builtins
    import io
    import struct
    import traceback
    import types

    running = [False]

    def on_sigint(signum, frame):
        if running[0]:
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)

    def _exit(code=None):
        raise SystemExit(code)

    builtins.exit = builtins.quit = _exit
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)))
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)))
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)))
    sys.argv = [""]
    main = types.ModuleType("__main__")
    sys.modules["__main__"] = main
    namespace = main.__dict__
    sys.path.insert(0, WORK)

    def read_exact(n):
        buf = b""
        while len(buf) < n:
            chunk = os.read(CTL_IN, n - len(buf))
            if not chunk:
                os._exit(0)
            buf += chunk
        return buf

    while True:
        (n,) = struct.unpack("!I", read_exact(4))
        source = read_exact(n).decode("utf-8", "replace")
        exit_code, interrupted = 0, False
        try:
            running[0] = True
            tree = ast.parse(source, "<exec>", "exec")
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr):
                last = ast.Expression(tree.body.pop().value)
            exec(compile(tree, "<exec>", "exec"), namespace)
            if last is not None:
                value = eval(compile(last, "<exec>", "eval"), namespace)
                if value is not None:
                    print(repr(value))
        except SystemExit as ex:
            code = ex.code
            exit_code = code & 0xFF if isinstance(code, int) else (0 if code is None else 1)
            if code is not None and not isinstance(code, int):
                print(code, file=sys.stderr)
        except KeyboardInterrupt:
            exit_code, interrupted = 130, True
            sys.stderr.write("KeyboardInterrupt: the exec was stopped\n")
        except BaseException as err:  # noqa: BLE001 - the session's own error, reported as its stderr
            exit_code = 1
            tb = err.__traceback__
            while tb is not None and tb.tb_frame.f_code.co_filename != "<exec>":
                tb = tb.tb_next
            sys.stderr.write("".join(traceback.format_exception(type(err), err, tb)))
        finally:
            running[0] = False
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # noqa: BLE001 - a broken pipe or an interrupt while flushing
                pass
        reply = json.dumps({"exit_code": exit_code, "interrupted": interrupted}) + "\n"
        os.write(CTL_OUT, reply.encode())


# -- the request loop -------------------------------------------------------------------------------
def handle(sock, msg, fds):
    op = msg["op"]
    if op == "start":
        reap()
        if SHELL["pid"] is not None and SHELL["status"] is None:
            kill_all()
        return {"ok": True, "pid": start_shell(msg["kind"], fds)}
    if op == "signal":
        reap()
        if SHELL["pid"] is not None and SHELL["status"] is None:
            try:
                os.killpg(SHELL["pid"], msg["signal"])
            except ProcessLookupError:
                pass
        return {"ok": True}
    if op == "kill_all":
        kill_all()
        return {"ok": True, "exit_code": _status_of(SHELL["status"])}
    if op == "status":
        reap()
        alive = SHELL["pid"] is not None and SHELL["status"] is None
        return {"ok": True, "alive": alive, "exit_code": _status_of(SHELL["status"])}
    if op in ("put", "get"):
        try:
            return file_op(op, msg["path"], fds[0], msg.get("max_bytes", 0))
        finally:
            for fd in fds:
                os.close(fd)
    if op == "ping":
        return {"ok": True}
    return {"ok": False, "error": f"unknown op {op!r}"}


def main():
    global CONFIG
    CONFIG = json.loads(sys.argv[1])
    sock = socket.socket(fileno=CONFIG["sock_fd"])
    slot_keeper = _load_slot_keeper()
    for path in CONFIG["cgroup_procs"]:
        CGROUP_FDS.append(os.open(path, os.O_WRONLY))
    socket.sethostname("sandbox")
    slot_keeper.build_root(CONFIG)
    slot_keeper.loopback_up()
    uid = CONFIG["uid"]
    for path in (WORK, STATE):
        os.mkdir(path, 0o700)
        os.chown(path, uid, uid)
    for name in PRELOAD:
        __import__(name)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    gc.collect()
    gc.freeze()
    if CONFIG.get("seccomp_bpf"):  # last: the set-up above mounts, which the filter denies
        slot_keeper.install_seccomp(bytes.fromhex(CONFIG["seccomp_bpf"]))
    sock.send(json.dumps({"event": "ready"}).encode())
    while True:
        ready, _, _ = select.select([sock], [], [], 1.0)
        reap()
        if not ready:
            continue
        try:
            data, fds, _, _ = socket.recv_fds(sock, 1 << 16, 8)
        except InterruptedError:
            continue
        if not data:
            return  # the host is gone (closed or killed): PID 1's exit ends every process of the session
        try:
            reply = handle(sock, json.loads(data), fds)
        except Exception as err:  # noqa: BLE001 - answer, never die, on a request we could not serve
            reply = {"ok": False, "error": f"{type(err).__name__}: {err}"}
        sock.send(json.dumps(reply).encode())


if __name__ == "__main__":
    try:
        main()
    except BaseException as err:  # noqa: BLE001 - tell the host why the session could not start
        try:
            socket.socket(fileno=json.loads(sys.argv[1])["sock_fd"]).send(
                json.dumps({"event": "fatal", "error": f"{type(err).__name__}: {err}"}).encode()
            )
        except (OSError, ValueError, KeyError, IndexError):
            pass
        os._exit(1)
