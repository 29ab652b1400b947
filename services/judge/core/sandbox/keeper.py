"""The keeper: PID 1 of one sandbox slot, and the warm interpreter that every test is forked from.

This file runs *inside* the slot's namespaces with `python3 -I -S` (compiled: the slot runs the
.pyc it makes of it), so it imports only the standard library and never this package. It is
started by `slot.py` (read that module's docstring, and the package's theory of operation in
`__init__.py`). Protocol: length-prefixed JSON requests on fd 3,
replies on fd 4; a run's own request (code, test paths) lies in a memfd that only the forked child
reads, so that none of it ever enters this process's memory, which every later test inherits. Everything the engine trusts about a run comes from this process or from the
kernel (cgroup counters); nothing comes from the program under test.
"""

import _signal
import ctypes
import errno
import fcntl
import io
import json
import os
import resource
import signal
import socket
import stat
import struct
import sys
import time
import types

REQ_FD, RESP_FD = 3, 4  # replaced by the numbers the slot passes in its config
RUNNER_FD = -1  # this slot's socket to a shared runner's engine (run_shared), from the config
WORK = "/tmp/run"  # the per-test working directory; elsewhere in unsafe mode (see main)
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 1, 38, 22, 2
PR_SET_CHILD_SUBREAPER, PR_SET_DUMPABLE = 36, 4
IPC_RMID = 0

# modules a typical solution imports, loaded once here so a test's `import` is a dict lookup
PRELOAD = (
    "array bisect collections copy dataclasses decimal fractions functools heapq itertools json math "
    "operator random re statistics string typing datetime enum traceback"
).split()

_libc = ctypes.CDLL(None, use_errno=True)
CONFIG: dict = {}
CGROUP_FDS: list[int] = []
# what every forked child would otherwise set again: set once here, inherited by each fork
NO_NEW_PRIVS = False  # set with the seccomp filter
PROGRAM_ENV: dict = {}
# in a submission's zygote (see handle_zygote): its run request and its code, compiled once
ZYGOTE: dict | None = None
# in a zygote: the next test's child, forked ahead while the engine reads the last test's output
SPARE: dict | None = None
STDIO_BUFFER = 64 << 10  # stdin's and stdout's buffers: a megabyte input is 16 reads, not 128
COMPILE_ONCE_MAX_BYTES = 64 << 10  # larger sources compile in each test's child, inside its limits
# a shared runner's RLIMIT_CPU, in multiples of one test's: a second line behind the engine's
# per-test watchdog, which stops a test at its own limit (the rlimit counts the whole process)
SHARED_CPU_TESTS = 16


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install_seccomp(prog: bytes) -> None:  # also sets no_new_privs, which every fork inherits
    """Put this process, and so every process forked from it from now on, under the filter.

    Once, in the keeper, after its own set-up: the kernel checks and compiles a filter when it is
    installed, which would cost every run a fraction of a millisecond; a fork inherits it for free.
    """
    buf = ctypes.create_string_buffer(prog, len(prog))
    fprog = _SockFprog(len(prog) // 8, ctypes.cast(buf, ctypes.c_void_p))
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    mode = ctypes.c_ulong(SECCOMP_MODE_FILTER)
    _check(_libc.prctl(PR_SET_SECCOMP, mode, ctypes.byref(fprog), 0, 0), "seccomp")


def copy_file(src, dst, mode=None):
    """Copy the bytes of `src` into `dst` (made, or emptied), in the kernel where it can (sendfile);
    with `mode`, `dst` gets that mode. shutil's copy is not used: importing shutil loads zlib, bz2 and
    lzma, six shared libraries whose mappings every fork would copy and every test's exit undo."""
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        if mode is not None:
            os.fchmod(fout.fileno(), mode)
        size, offset = os.fstat(fin.fileno()).st_size, 0
        try:
            while offset < size:
                sent = os.sendfile(fout.fileno(), fin.fileno(), offset, size - offset)
                if sent == 0:
                    break
                offset += sent
        except OSError as err:
            if offset or err.errno not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
                raise
        fin.seek(offset)
        while chunk := fin.read(1 << 20):  # what sendfile did not copy (a file that grew, a pipe)
            fout.write(chunk)


def _check(ret, what):
    if ret != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"{what}: {os.strerror(e)}")


def _mount(src, dst, fstype, flags, data=None):
    _check(
        _libc.mount(
            src.encode() if src else None,
            dst.encode(),
            fstype.encode() if fstype else None,
            ctypes.c_ulong(flags),
            data.encode() if data else None,
        ),
        f"mount {src} on {dst}",
    )


def _bind(src, dst, writable=False, device=False):
    if os.path.isdir(src):
        os.makedirs(dst, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        open(dst, "a").close()
    _mount(src, dst, None, MS_BIND | MS_REC)
    flags = MS_REMOUNT | MS_BIND | MS_NOSUID | (0 if device else MS_NODEV) | (0 if writable else MS_RDONLY)
    _mount(None, dst, None, flags)


def build_root(cfg):
    """A private filesystem: tmpfs root, read-only system dirs, private /tmp, no host state."""
    root = cfg["root_dir"]
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,mode=0755")
    for name in ("bin", "lib", "lib64", "sbin", "lib32", "libx32"):
        host = "/" + name
        if os.path.islink(host):
            os.symlink(os.readlink(host), os.path.join(root, name))
        elif os.path.isdir(host):
            _bind(host, root + host)
    _bind("/usr", root + "/usr")
    prefix = cfg["python_prefix"]
    if not prefix.startswith("/usr/"):
        _bind(prefix, root + prefix)
    # /etc: only what the dynamic linker, the compiler and a few runtimes read
    os.makedirs(root + "/etc", mode=0o755)
    for name in ("ld.so.cache", "ld.so.conf", "localtime", "nsswitch.conf"):
        if os.path.isfile("/etc/" + name):
            copy_file("/etc/" + name, root + "/etc/" + name, os.stat("/etc/" + name).st_mode & 0o7777)
    # the JDK's conf/ links into /etc/java-<version>-openjdk (read-only, as the rest of /etc here)
    java_conf = sorted(n for n in os.listdir("/etc") if n.startswith("java-"))
    for name in ("ld.so.conf.d", "alternatives", *java_conf):
        if os.path.isdir("/etc/" + name):
            _bind("/etc/" + name, root + "/etc/" + name)
    with open(root + "/etc/passwd", "w") as f:
        f.write("root:x:0:0::/:/usr/sbin/nologin\n")
        for uid in (cfg["uid_run"], cfg["uid_check"]):
            f.write(f"u{uid}:x:{uid}:{uid}::/tmp/run:/usr/sbin/nologin\n")
    with open(root + "/etc/group", "w") as f:
        f.write("root:x:0:\n")
    with open(root + "/etc/hosts", "w") as f:
        f.write("127.0.0.1 localhost\n")
    # /dev: four harmless character devices
    os.makedirs(root + "/dev")
    _mount("tmpfs", root + "/dev", "tmpfs", MS_NOSUID, "size=64k,mode=0755")
    for dev in ("null", "zero", "random", "urandom"):
        _bind("/dev/" + dev, root + "/dev/" + dev, writable=True, device=True)
    os.symlink("/proc/self/fd", root + "/dev/fd")
    # /tmp: the only writable place a program sees, size-capped, wiped between tests
    os.makedirs(root + "/tmp")
    _mount("tmpfs", root + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"size={cfg['tmp_size_mb']}m,mode=0755")
    # host directories, root-only (mode 0700 on the host): test data, this slot's I/O, binaries
    _bind(cfg["data_dir"], root + "/data")
    _bind(cfg["io_dir"], root + "/io", writable=True)
    _bind(cfg["bin_dir"], root + "/bincache", writable=True)
    os.makedirs(root + "/proc")
    os.chroot(root)
    os.chdir("/")
    # hidepid=2: a program sees only its own user's processes, never the keeper
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2")


def loopback_up():
    # SIOCGIFFLAGS / SIOCSIFFLAGS on "lo": the namespace's only interface
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        ifr = struct.pack("16sh", b"lo", 0)
        flags = struct.unpack("16sh", fcntl.ioctl(s, 0x8913, ifr))[1]
        fcntl.ioctl(s, 0x8914, struct.pack("16sh", b"lo", flags | 1))
    finally:
        s.close()


def read_msg():
    head = _read_exact(REQ_FD, 4)
    if not head:
        return None
    (n,) = struct.unpack("!I", head)
    return json.loads(_read_exact(REQ_FD, n))


def _read_exact(fd, n):
    buf = b""
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            return b""
        buf += chunk
    return buf


def send_msg(obj):
    data = json.dumps(obj).encode()
    os.write(RESP_FD, struct.pack("!I", len(data)) + data)


def _path(p):
    """Requests name /data, /io and /bincache as the sandbox sees them; unsafe mode has no such view."""
    if CONFIG["isolate"] or p is None:
        return p
    for prefix, key in (("/data", "data_dir"), ("/io", "io_dir"), ("/bincache", "bin_dir")):
        if p == prefix or p.startswith(prefix + "/"):
            return CONFIG[key] + p[len(prefix) :]
    return p


def reap_all(pid):
    """Kill every process of the test and wait until they are gone.

    As PID 1 of the slot's PID namespace, kill(-1) reaches every process in it but ourselves, and
    every orphan is re-parented to us, so waiting until we have no children means none is left.
    Unsafe mode has no namespace: only the test's own session is killed.
    """
    if not CONFIG["isolate"]:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        return
    # every process of the run descends from us (orphans come back to us): with no child left there
    # is nothing to kill, and kill(-1), which walks every process of the host, is not needed
    try:
        if os.waitpid(-1, os.WNOHANG) == (0, 0):
            os.kill(-1, signal.SIGKILL)
    except ChildProcessError:
        return
    while True:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _read_small(path):
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        data = b""
        while chunk := os.read(fd, 65536):
            data += chunk
        return data.decode()
    finally:
        os.close(fd)


# SHM_INFO, SEM_INFO and MSG_INFO, and the int of each answer that counts the objects that exist in
# this IPC namespace: shm_info's used_ids, seminfo's semusz, msginfo's msgpool. The calls and their
# buffer are made once (ipc_calls), so a check is three calls and no allocation
_IPC_INFO_BUF = (ctypes.c_int * 32)()
_IPC_CALLS: list = []


def ipc_calls():
    buf = ctypes.byref(_IPC_INFO_BUF)
    _IPC_CALLS[:] = [
        (_libc.shmctl, (0, 14, buf), 0),
        (_libc.semctl, (0, 0, 19, buf), 7),
        (_libc.msgctl, (0, 12, buf), 0),
    ]


def ipc_objects():
    """Whether any System V IPC object exists in this IPC namespace (True where a call fails, so
    that the caller looks in /proc)."""
    for call, args, field in _IPC_CALLS:
        if call(*args) < 0 or _IPC_INFO_BUF[field]:
            return True
    return not _IPC_CALLS


def clean_ipc():
    if not ipc_objects():
        return
    for kind, rm in (("shm", "shmctl"), ("sem", "semctl"), ("msg", "msgctl")):
        try:
            lines = _read_small(f"/proc/sysvipc/{kind}").splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            ident = int(line.split()[1])
            if kind == "sem":
                _libc.semctl(ident, 0, IPC_RMID)
            else:
                getattr(_libc, rm)(ident, IPC_RMID, None)


def wipe(path):
    """Remove the tree at `path`, of any depth, with one directory descriptor open at a time.

    A recursive removal (shutil.rmtree) fails on a tree deeper than Python's recursion limit, and
    paths of a deep tree pass PATH_MAX: so walk down by descriptor (openat), back up through "..",
    and remove each directory from its parent once it is empty. Every process of the run is gone by
    now, so nothing changes the tree under us.
    """
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return
    depth = 0
    try:
        while True:
            down = None
            with os.scandir(fd) as entries:
                for entry in entries:
                    if not entry.is_dir(follow_symlinks=False):
                        os.unlink(entry.name, dir_fd=fd)
                        continue
                    try:
                        os.rmdir(entry.name, dir_fd=fd)
                    except OSError as err:
                        if err.errno != errno.ENOTEMPTY:
                            raise
                        down = entry.name
                        break
            if down is not None:
                new = os.open(down, flags, dir_fd=fd)
                depth += 1
            elif depth:
                new = os.open("..", flags, dir_fd=fd)
                depth -= 1
            else:
                break
            os.close(fd)
            fd = new
    finally:
        os.close(fd)
    os.rmdir(path)


def copy_out(fetch):
    """Copy the files a run's caller asked for out of the working directory, before it is wiped.

    `fetch`: {"paths": [...], "max_file_bytes": n, "max_total_bytes": n}. Path i is copied to
    /io/fetch/<i>; the answer is one status per path: "ok", "missing" (absent, or not a regular file)
    or "too_large". A path is walked from the working directory one component at a time with
    O_NOFOLLOW, so a symlink anywhere on it, "..", or an absolute path never leads out of it. Every
    process of the run is gone by now, so nothing changes the tree under us. The bytes go from file to
    file in the kernel (sendfile): none of them enters this process's memory.
    """
    dest = _path("/io/fetch")
    os.makedirs(dest, mode=0o700, exist_ok=True)
    left = fetch["max_total_bytes"]
    statuses = []
    for i, rel in enumerate(fetch["paths"]):
        status, size = _copy_one(rel, os.path.join(dest, str(i)), min(fetch["max_file_bytes"], left))
        left -= size
        statuses.append(status)
    return statuses


def _copy_one(rel, dest, cap):
    parts = rel.split("/")
    if rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        return "missing", 0
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    fds = []
    try:
        fds.append(os.open(WORK, flags | os.O_DIRECTORY))
        for part in parts[:-1]:
            fds.append(os.open(part, flags | os.O_DIRECTORY, dir_fd=fds[-1]))
        # O_NONBLOCK: a FIFO left by the program must not block the keeper
        src = os.open(parts[-1], flags | os.O_NONBLOCK | os.O_NOCTTY, dir_fd=fds[-1])
        fds.append(src)
        st = os.fstat(src)
        if not stat.S_ISREG(st.st_mode):
            return "missing", 0
        if st.st_size > cap:
            return "too_large", 0
        out = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        fds.append(out)
        offset = 0
        while offset < st.st_size:
            sent = os.sendfile(out, src, offset, st.st_size - offset)
            if sent == 0:
                break
            offset += sent
        return "ok", offset
    except OSError:  # absent, a symlink (ELOOP), a component that is not a directory
        return "missing", 0
    finally:
        for fd in fds:
            os.close(fd)


def fresh_workdir(uid):
    wipe(WORK)
    os.mkdir(WORK, 0o700)
    if uid is not None:
        os.chown(WORK, uid, uid)


def _cpu_limit_s(req, shared):
    return (int(req["cpu_limit_ms"] / 1000) + 1) * (SHARED_CPU_TESTS if shared else 1)


def rlimits(req):
    """The rlimits of a run, as (resource, (soft, hard)) pairs."""
    # a shared runner's CPU limit, the larger: child() lowers it to the run's own (SHARED_CPU_TESTS)
    cpu_s = _cpu_limit_s(req, True)
    out = req["output_limit_bytes"]
    stack = min(req["memory_limit_mb"], 1024) << 20
    limits = [
        (resource.RLIMIT_CPU, (cpu_s, cpu_s + 1)),
        (resource.RLIMIT_FSIZE, (out, out)),
        (resource.RLIMIT_CORE, (0, 0)),
        (resource.RLIMIT_NOFILE, (req["open_files_max"], req["open_files_max"])),
        (resource.RLIMIT_STACK, (stack, stack)),
    ]
    if req["uid"] is not None:  # RLIMIT_NPROC counts every process of the uid: only for our own uid
        # one above for a shared runner, one process more than a forked test: child() sets the run's
        limits.append((resource.RLIMIT_NPROC, (req["pids_max"], req["pids_max"] + 1)))
    return limits


def _set_limits(req, limits=None):
    """Set a run's rlimits: `limits` made ahead (a zygote's, the same for each of its tests) or req's."""
    for which, values in limits or rlimits(req):
        resource.setrlimit(which, values)


def load_request(msg):
    """The run's own request, from the memory file the engine wrote: read only in a forked child."""
    fd = CONFIG["request_fd"]
    return {**json.loads(os.pread(fd, os.fstat(fd).st_size, 0)), **msg}


# the signals a program starts with at their defaults; the keeper ignores them (and Python SIGPIPE
# and SIGXFSZ). A zygote sets the last three for itself once (zygote_defaults): a fork inherits them
PROGRAM_SIGNALS = (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGCHLD, signal.SIGINT, signal.SIGTERM)
ZYGOTE_SIGNALS = PROGRAM_SIGNALS[2:]
# as plain numbers, for the C function itself: signal.signal wraps it in enum conversions, Python code
# that each fork would run (and whose pages it would copy) for nothing
_SIGNAL_NUMBERS = tuple(int(s) for s in PROGRAM_SIGNALS)
_SIG_DFL = int(signal.SIG_DFL)


def zygote_test_stdin():
    """A zygote's test's own request, its input's path, from the memory file (the engine writes it
    as is: Slot._zygote_test_request); None for none. Read only in the test's forked child."""
    fd = CONFIG["request_fd"]
    data = os.pread(fd, os.fstat(fd).st_size, 0)
    return data.decode() if data else None


def prepare_child():
    """What a child sets up before anything of its run is known: signals, its own session.

    A test of a zygote inherits what zygote_defaults set once (three signals, the OOM score), so
    that each fork does less: every page a fork's Python code writes is a page copied."""
    for sig in _SIGNAL_NUMBERS[:2] if ZYGOTE is not None else _SIGNAL_NUMBERS:
        _signal.signal(sig, _SIG_DFL)
    if not CONFIG["isolate"]:  # in a slot, the PID namespace dies with its PID 1, the keeper
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    os.setsid()
    if ZYGOTE is None:
        set_oom_score_adj()


def zygote_defaults():
    """In a zygote, once: what every test of it would otherwise set after its fork. SIGCHLD, SIGINT
    and SIGTERM at their defaults (only root can signal the zygote: the keeper, which never does, and
    the engine's SIGKILL; SIGPIPE stays ignored, so that a write to a gone spare fails with EPIPE),
    and the OOM score of a sandboxed process: the zygote holds submission data and none of the
    judge's, so the host's OOM killer may take it as it may take its tests."""
    for sig in ZYGOTE_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)
    set_oom_score_adj()


def set_oom_score_adj():
    """A sandboxed process is the host's OOM killer's first choice (1000), never the judge (as root)."""
    try:
        fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY | os.O_CLOEXEC)
    except OSError:
        return  # no /proc in the root: the cgroup's own limit still holds
    try:
        os.write(fd, b"1000")
    except OSError:
        pass
    finally:
        os.close(fd)


# a test's stdout and stderr, as the sandbox sees them: a zygote's tests use the two pairs in turn,
# so that the next test's files can be emptied (by its spare) while the engine checks the last one's
OUTPUT_PAIRS = (("/io/stdout", "/io/stderr"), ("/io/stdout.1", "/io/stderr.1"))


# what a program's start replaces (sys.stdin, stdout, stderr, argv): held here for good, so that a
# forked child's assignments drop a reference instead of freeing the keeper's objects (a free writes
# to, and so copies, every page they and their buffers lie on)
STARTUP_OBJECTS: list = []
OUTPUT_FILES: list = []  # OUTPUT_PAIRS as this keeper opens them (main: unsafe mode has no /io)


def open_outputs(pair):
    """Open (emptied) the stdout and stderr files of `pair`: descriptors, as root."""
    stdout, stderr = OUTPUT_FILES[pair]
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    return os.open(stdout, flags, 0o600), os.open(stderr, flags, 0o600)


def receive_pipes():
    """The two pipe ends of an interactive run (its stdin, its stdout), which the engine sent over
    RUNNER_FD as b"P" with two descriptors just before the request; anything else still queued there
    (a message to a shared runner that had ended) is dropped, its descriptors closed."""
    sock = socket.socket(fileno=RUNNER_FD)
    try:
        while True:
            msg, fds, _, _ = socket.recv_fds(sock, 16, 4)
            if msg == b"P" and len(fds) == 2:
                return fds
            for fd in fds:
                os.close(fd)
            if not msg:
                raise OSError("the engine's socket closed before an interactive run's pipes came")
    finally:
        sock.detach()  # the keeper's descriptor stays open


def child(msg, status_w, base=None, code=None, stdio=None, pipes=None, outputs=None):
    """In the forked child, as root: enter the cgroup, set up I/O and limits, drop to the test's uid.

    `base`: the submission's request, already read by its zygote (a test of a zygote); otherwise
    the run's own request is read here, after the fork, from the memory file. `outputs`: a spare
    (prefork_spare) has run prepare_child, set its limits and opened its stdout and stderr files
    already. `stdio`: the program's Python stdio objects, made once by its zygote where it has one.
    `pipes`: an interactive run's stdin and stdout (receive_pipes), in place of its files.
    """
    for fd in CGROUP_FDS:
        os.write(fd, b"0")
    # a zygote's test's own request holds only its input's path, in the memory file as well: the
    # zygote never has the name of any test's data
    if base is None:
        req = load_request(msg)
    else:  # this process's own copy of the zygote's request, filled in place: a merged copy would
        # take a reference to each of its keys and values, a write to (a copy of) each of their pages
        req = base
        req.update(msg)
        req["stdin"] = zygote_test_stdin()
    if req["kind"] == "exec":
        req["argv"] = [_path(req["argv"][0]), *req["argv"][1:]]
    if outputs is None:
        prepare_child()
    if req.get("ignore_sigpipe"):
        # an interactor whose program has gone gets EPIPE from a write, not a death by signal: it
        # then reads the end of the program's output and says so (a verdict, not a crash)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    uid = req["uid"]
    for src, name in req.get("files", []):
        dst = os.path.join(WORK, name)
        copy_file(_path(src), dst)
        if uid is not None:
            os.chown(dst, uid, uid)
        os.chmod(dst, 0o400)
    by_fd = []
    for src, name in req.get("fd_files", []):
        # no copy that can fail (ENOSPC in /tmp): the name links to the open file, whatever its size
        fd = os.open(_path(src), os.O_RDONLY)
        if src.startswith("/io/"):  # this slot's own file (the answer): the run's uid alone reads it
            if uid is not None:
                os.fchown(fd, uid, uid)
            os.fchmod(fd, 0o400)
        # test data (/data) is shared and stays as it is, read-only (0644): only its link opens it
        os.set_inheritable(fd, True)  # kept across an execve (a C++ checker, a fresh interpreter)
        os.symlink(f"/dev/fd/{fd}", os.path.join(WORK, name))
        by_fd.append(fd)
    if req.get("source_file"):
        name, text = req["source_file"]
        with open(os.path.join(WORK, name), "w") as f:
            f.write(text)
        if uid is not None:
            os.chown(os.path.join(WORK, name), uid, uid)
    stdin = os.open(_path(req["stdin"]) or "/dev/null", os.O_RDONLY)
    stdout, stderr = outputs or open_outputs(req.get("pair") or 0)
    if req.get("own_stdout") and uid is not None:  # a precompiled header's build (runners.py)
        os.fchown(stdout, uid, uid)
    os.dup2(stdin, 0)
    os.dup2(stdout, 1)
    os.dup2(stderr, 2)
    if pipes is not None:  # an interactive run: the two pipes are its stdin and stdout
        os.dup2(pipes[0], 0)
        os.dup2(pipes[1], 1)
    os.set_inheritable(status_w, True)
    shared = req.get("shared") is not None and req["kind"] == "python"
    keep = sorted({status_w, RUNNER_FD, *by_fd} if shared else {status_w, *by_fd})
    for lo, hi in zip([3] + [fd + 1 for fd in keep], [*keep, 65536], strict=True):
        os.closerange(lo, hi)
    os.chdir(WORK)
    if outputs is None:
        _set_limits(req)
    cpu_s = _cpu_limit_s(req, shared)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    if uid is not None:  # a shared runner is one process more than a forked test (run_shared)
        nproc = req["pids_max"] + (1 if shared else 0)
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    if uid is not None:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    if not NO_NEW_PRIVS:
        _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    env = PROGRAM_ENV  # os.environ is this already (main), for a Python program
    if req["kind"] == "exec":
        fcntl.fcntl(status_w, fcntl.F_SETFD, fcntl.FD_CLOEXEC)
        os.write(status_w, b"S")
        try:
            os.execve(req["argv"][0], req["argv"], env)
        except OSError as err:
            os.write(status_w, f"E{err}".encode())
            os._exit(127)
    if shared:
        run_shared(req, status_w, code, stdio)
    if ZYGOTE is not None and base is None:
        # a Python run forked from a submission's zygote (a checker between its tests) would hold
        # the submission in its memory: it starts over in a fresh interpreter, once its code compiles
        _compile(req, status_w, None)
        path = os.path.join(WORK, os.path.basename(req["argv"][0] if req.get("argv") else "") or "checker.py")
        with open(path, "w") as f:
            f.write(req["code"])
        fcntl.fcntl(status_w, fcntl.F_SETFD, fcntl.FD_CLOEXEC)
        os.write(status_w, b"S")
        argv = [sys.executable, "-I", "-S", "-B", path, *req["argv"][1:]]  # as the keeper runs
        try:
            os.execve(sys.executable, argv, env)
        except OSError as err:
            os.write(status_w, f"E{err}".encode())
            os._exit(127)
    run_python(req, status_w, code, stdio)


def python_stdio():
    """The program's sys.stdin, stdout and stderr, on descriptors 0, 1 and 2 (whatever file they
    hold when the program starts: the objects keep no position or state of their own until used)."""
    return (
        io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False), STDIO_BUFFER)),
        io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False), STDIO_BUFFER)),
        io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)), line_buffering=True),
    )


def _compile(req, status_w, code):
    """The program's code object (compiled once by its zygote, or here); a syntax error ends the run."""
    try:
        return code if code is not None else compile(req["code"], "solution.py", "exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as err:
        # the message quotes the source: it goes to the run's stderr file, never through the keeper
        os.write(2, "".join(_format_exc(err)).encode("utf-8", "replace"))
        os.write(status_w, b"C")
        os._exit(1)


def run_python(req, status_w, code=None, stdio=None):
    code = _compile(req, status_w, code)
    os.write(status_w, b"S")
    os.close(status_w)
    os._exit(exec_program(code, req["argv"], stdio or python_stdio())[0])


def exec_program(code, argv, stdio):
    """Run the program once as __main__ on descriptors 0, 1 and 2; its exit status and module."""
    sys.stdin, sys.stdout, sys.stderr = stdio
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
    sys.argv = argv or ["solution.py"]
    main = types.ModuleType("__main__")
    main.__dict__["__file__"] = "solution.py"
    sys.modules["__main__"] = main
    status = 0
    try:
        exec(code, main.__dict__)
    except SystemExit as ex:
        if ex.code is None:
            status = 0
        elif isinstance(ex.code, int):
            status = ex.code & 0xFF
        else:
            print(ex.code, file=sys.stderr)
            status = 1
    except BaseException as err:  # noqa: BLE001 - the program's own failure, reported as RE
        # a functional submission runs inside the driver as "<solution>": only its frames are its own
        own = "<solution>" if "__fc_function__" in main.__dict__ else "solution.py"
        sys.stderr.write("".join(_format_exc(err, own)))
        status = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 - e.g. output limit hit while flushing
        status = status or 1
    return status, main


def run_shared(req, status_w, code, stdio):
    """A shared runner (docs/spec.md 4.8): one process that serves a submission's tests in turn, each
    in a child forked from it, so that every test starts from the same snapshot.

    The runner is the snapshot: the submission compiled, in the cgroup, at the test's uid, under the
    filter and the limits, with its Python stdio objects made, taken before the first test. The
    engine sends each test over RUNNER_FD as b"G" + (generation, sequence) with three descriptors (the
    test's input, output and error files: never their names); the runner forks, and the child puts
    them on 0, 1 and 2, closes every other descriptor (the socket too), lowers its CPU rlimit to one
    test's and runs the program in a fresh __main__, exactly as a forked test does. The runner waits
    for it and answers b"D" + (sequence, status, clean): status is the exit code, or minus the signal
    that ended the child. The program never runs in the runner: whatever it keeps in memory (a cache
    on an existing object, a thread, a hook, a changed module) ends with its process, and the next
    test is forked from the unchanged snapshot. What can outlive a process is checked after each
    test: the working directory must be as it was (empty; mode, owner, times and extended attributes
    unchanged) and no System V IPC object may be left, else the answer says clean=0 and the runner
    exits, so that the next test starts a fresh one; the engine counts the cgroup's tasks itself for
    processes left behind, and measures each test's CPU time, memory and OOM kills in the cgroup.
    A message of another generation was meant for an earlier runner that died: it is dropped.
    b"Q" + its generation ends it.
    """
    code = _compile(req, status_w, code)
    os.write(status_w, b"S")
    os.close(status_w)
    devnull = os.open(os.devnull, os.O_RDWR)  # the runner holds no file of any test (its own 0-2 were)
    for target in (0, 1, 2):
        os.dup2(devnull, target)
    os.close(devnull)
    # a child runs as the runner's uid: it must not read or write the runner (/proc/<pid>/mem)
    _check(_libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "dumpable")
    sock = socket.socket(fileno=RUNNER_FD)
    stdio = stdio or python_stdio()  # never used here: each child uses its own copy of them
    work = _work_state()
    import gc

    gc.freeze()  # what the runner holds stays out of each child's collections (and its pages shared)
    while _shared_test(sock, req["shared"], code, req["argv"], _cpu_limit_s(req, False), stdio, work):
        pass
    os._exit(0)


def _shared_test(sock, gen, code, argv, cpu_s, stdio, work):
    """Serve one message of the engine; False once the runner is to end. Everything of a test lives
    in this call's frame, gone before the next test's child is forked."""
    try:
        msg, fds, _, _ = socket.recv_fds(sock, 64, 3)
    except InterruptedError:
        return True
    if not msg or msg == b"Q" + struct.pack("!I", gen):
        return False
    try:
        if len(msg) != 9 or msg[:1] != b"G" or len(fds) != 3 or struct.unpack("!II", msg[1:])[0] != gen:
            return True
        pid = os.fork()
        if pid == 0:
            _shared_child(fds, code, argv, cpu_s, stdio)
    finally:
        for fd in fds:
            os.close(fd)
    _, wstatus = os.waitpid(pid, 0)
    status = os.WEXITSTATUS(wstatus) if os.WIFEXITED(wstatus) else -os.WTERMSIG(wstatus)
    clean = _work_state() == work and not _ipc_left()
    sock.send(b"D" + struct.pack("!IiB", struct.unpack("!II", msg[1:])[1], status, clean))
    return clean


def _shared_child(fds, code, argv, cpu_s, stdio):
    """A test's process, forked from its runner: the test's files on 0-2 and nothing else open."""
    status = 126
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(3, 1 << 20)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
        status = exec_program(code, argv, stdio)[0]
    finally:
        os._exit(status)


def _work_state():
    """The working directory as far as a test could leave anything in it (read after listing it,
    so that the listing's own access time update is already done); unequal to any other when it
    cannot be read (a test may have taken its permissions away)."""
    try:
        entries = os.listdir(WORK)
        st = os.stat(WORK)
        attrs = sorted(os.listxattr(WORK))
    except OSError:
        return object()
    return (entries, st.st_mode, st.st_uid, st.st_gid, st.st_atime_ns, st.st_mtime_ns, st.st_ctime_ns, attrs)


def _ipc_left():
    return any(_read_small(f"/proc/sysvipc/{kind}").count("\n") > 1 for kind in ("shm", "sem", "msg"))


def _format_exc(err, own="solution.py"):
    """The exception as Python prints it, with only the program's own frames (file `own`; never the
    keeper's or the functional driver's), their lines not read from any file, a repeated frame shown
    three times as Python does, at most 20 lines of frames: what a feedback shows."""
    import traceback

    lines, last, repeats = [], None, 0
    for f in traceback.StackSummary.extract(traceback.walk_tb(err.__traceback__), lookup_lines=False):
        if f.filename != own:
            continue
        line = f'  File "{f.filename}", line {f.lineno}, in {f.name}\n'
        repeats = repeats + 1 if line == last else 0
        last = line
        if repeats < 3:
            lines.append(line)
        elif repeats == 3:
            lines.append("")  # where "[Previous line repeated ...]" goes
        if repeats >= 3:
            lines[-1] = f"  [Previous line repeated {repeats - 2} more times]\n"
    if len(lines) > 20:
        lines = [*lines[:3], f"  ... ({len(lines) - 19} more lines)\n", *lines[-16:]]
    head = ["Traceback (most recent call last):\n", *lines] if lines else []
    return head + traceback.format_exception_only(type(err), err)[-3:]


def _setup_failed(status_w, err):
    try:
        os.write(status_w, f"X{type(err).__name__}: {err}".encode())
    finally:
        os._exit(126)


def prefork_spare(uid, pair):
    """In a zygote, right after a test's reply: fork the next test's child now, while the engine
    checks the last output, so the fork and the child's set-up are off the path from a test's
    request to its start.

    The spare sets its signals, session and limits and opens (empties) the output files of `pair`,
    the pair the last test did not write (the engine reads the other), then waits on a pipe for the
    rest: it joins the cgroup after the engine has reset the counters, and opens its input only
    then. Every process of the last test is reaped before the fork, so the spare, like any test, is
    a copy of the zygote and nothing else; a spare that is not used is told to exit (discard_spare).
    """
    global SPARE
    limits = ZYGOTE["limits"].get(uid)
    if limits is None:  # the same for every test of the zygote: made once
        limits = ZYGOTE["limits"][uid] = rlimits({**ZYGOTE["req"], "uid": uid})
    status_r, status_w = os.pipe()
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(status_r)
            os.close(go_w)
            base = ZYGOTE["req"]
            prepare_child()
            _set_limits(base, limits)
            outputs = open_outputs(pair)
            data = b""
            while chunk := os.read(go_r, 65536):
                data += chunk
            if not data:  # discarded
                os._exit(0)
            msg = {"uid": uid, "shared": int(data[1:]) if len(data) > 1 else None}
            child(msg, status_w, base, ZYGOTE["code"], ZYGOTE["stdio"], outputs=outputs)
        except BaseException as err:  # noqa: BLE001 - set-up failed: a judge error, not a verdict
            _setup_failed(status_w, err)
    os.close(status_w)
    os.close(go_r)
    SPARE = {"pid": pid, "uid": uid, "pair": pair, "status_r": status_r, "go_w": go_w}


def discard_spare():
    global SPARE
    if SPARE is None:
        return
    spare, SPARE = SPARE, None
    os.close(spare["go_w"])  # end of file before any input: it exits
    os.waitpid(spare["pid"], 0)
    os.close(spare["status_r"])


def handle_run(req, base=None, code=None):
    """Run one program: a run of its own (`base` None) or a test of the zygote, from its spare
    where one waits for this uid and output pair."""
    global SPARE
    spare = SPARE
    if (
        base is not None
        and spare is not None
        and (spare["uid"], spare["pair"]) == (req["uid"], req.get("pair"))
    ):
        SPARE = None
        pid, status_r = spare["pid"], spare["status_r"]
        start = time.monotonic()
        # "G" and a shared runner's generation, if any: no JSON for the spare to decode
        shared = req.get("shared")
        os.write(spare["go_w"], b"G" if shared is None else b"G%d" % shared)
        os.close(spare["go_w"])
    else:
        discard_spare()
        fresh_workdir(req["uid"])
        pipes = receive_pipes() if req.get("pipes") else None
        status_r, status_w = os.pipe()
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(status_r)
                stdio = ZYGOTE["stdio"] if base is not None else None
                child(req, status_w, base, code, stdio, pipes=pipes)
            except BaseException as err:  # noqa: BLE001 - set-up failed: a judge error, not a verdict
                _setup_failed(status_w, err)
        os.close(status_w)
        for fd in pipes or ():  # the child's alone now: its end of file is the run's own
            os.close(fd)
    if base is None or not CONFIG["isolate"]:  # a zygote's test in a slot is stopped by its cgroup
        send_msg({"event": "started", "pid": pid})
    _, wstatus, rusage = os.wait4(pid, 0)
    wall_ms = (time.monotonic() - start) * 1000
    reap_all(pid)
    status = b""
    while chunk := os.read(status_r, 65536):
        status += chunk
    os.close(status_r)
    reply = {
        "event": "exited",
        "exit_code": os.WEXITSTATUS(wstatus) if os.WIFEXITED(wstatus) else None,
        "signal": os.WTERMSIG(wstatus) if os.WIFSIGNALED(wstatus) else None,
        "wall_ms": wall_ms,
        "rusage_cpu_ms": (rusage.ru_utime + rusage.ru_stime) * 1000,
        "rusage_maxrss_kb": rusage.ru_maxrss,
        "started": status[:1] == b"S",
        "compile_error": status[:1] == b"C",
        "setup_error": status[1:].decode("utf-8", "replace") if status[:1] in (b"X", b"") else None,
        "exec_error": status[2:].decode("utf-8", "replace") if status[:2] == b"SE" else None,
    }
    if base is not None and req.get("spare"):
        # a zygote's test with another to follow: cleaned up before the reply (what the test left in
        # /tmp/run or in IPC objects is charged memory until it is removed, and the engine resets
        # the counters for the next test once it has the reply), the working directory made anew
        # for the next one, whose spare is forked while the engine checks this test's output
        if CONFIG["isolate"]:
            clean_ipc()
        fresh_workdir(req["uid"])
        send_msg(reply)
        prefork_spare(req["uid"], 1 - (req.get("pair") or 0))
        return
    if CONFIG["isolate"]:  # the slot's own IPC namespace; never the host's
        clean_ipc()
    if req.get("fetch"):  # before the wipe: the files the run's caller asked back
        reply["fetched"] = copy_out(req["fetch"])
    move = req.get("keep")
    if move and reply["exit_code"] == 0 and os.path.exists(os.path.join(WORK, move[0])):
        dest = _path(move[1])
        tmp = f"{dest}.{os.getpid()}.tmp"
        copy_file(os.path.join(WORK, move[0]), tmp)
        os.chmod(tmp, 0o755)
        os.replace(tmp, dest)
    wipe(WORK)
    send_msg(reply)


def handle_zygote(msg):
    """Fork a submission's zygote and wait until the engine ends it.

    The zygote reads the submission's request once (and compiles a Python program once), then
    serves the engine's requests itself: each test ("test") is forked from it, exactly as a run is
    forked from the keeper; other runs ("run": a checker, a compile) read their own request as
    usual. It is a subreaper, so a test's orphans come back to it to be reaped. It holds submission
    data, so it is thrown away with the zygote: nothing of it flows back to this process.
    """
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            status = zygote(msg)
        except BaseException as err:  # noqa: BLE001 - the engine sees the zygote end early
            try:
                send_msg({"event": "zygote_error", "error": f"{type(err).__name__}: {err}"})
            except OSError:
                pass
        os._exit(status)
    _, wstatus = os.waitpid(pid, 0)
    reap_all(pid)
    if CONFIG["isolate"]:
        clean_ipc()
    wipe(WORK)
    send_msg({"event": "closed", "clean": os.WIFEXITED(wstatus) and os.WEXITSTATUS(wstatus) == 0})


def zygote(msg):
    global ZYGOTE
    if CONFIG["isolate"]:
        _check(_libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "subreaper")
    req = load_request(msg)
    code = None
    if req["kind"] == "python" and len(req["code"]) <= COMPILE_ONCE_MAX_BYTES:
        try:
            code = compile(req["code"], "solution.py", "exec")
        except Exception:  # noqa: BLE001 - each test compiles it again and reports the error (CE)
            code = None
    zygote_defaults()
    # the program's Python stdio objects, made once: each test's fork has its own copy of them
    ZYGOTE = {
        "req": req,
        "code": code,
        "stdio": python_stdio() if req["kind"] == "python" else (),
        "limits": {},
    }
    send_msg({"event": "zygote"})
    return serve()


def serve():
    """The request loop: the keeper's, and a zygote's while it lasts. Returns an exit status."""
    while True:
        try:
            req = read_msg()
        except OSError as err:
            if err.errno == errno.EINTR:
                continue
            raise
        if req is None:
            return 0
        op = req["op"]
        if op != "test":
            discard_spare()
        if op == "run":
            handle_run(req)
        elif op == "test" and ZYGOTE is not None:
            handle_run(req, ZYGOTE["req"], ZYGOTE["code"])
        elif op == "end" and ZYGOTE is not None:
            return 0
        elif op == "zygote" and ZYGOTE is None:
            handle_zygote(req)
        elif op == "ping":
            send_msg({"event": "pong"})
        else:
            send_msg({"event": "refused", "op": op})


def main():
    global CONFIG, WORK, REQ_FD, RESP_FD, RUNNER_FD, NO_NEW_PRIVS
    CONFIG = json.loads(sys.argv[1])
    STARTUP_OBJECTS.extend((sys.stdin, sys.stdout, sys.stderr, sys.argv))
    REQ_FD, RESP_FD, RUNNER_FD = CONFIG["req_fd"], CONFIG["resp_fd"], CONFIG["runner_fd"]
    # the mmap layout is fixed at exec from the stack limit: re-exec once with room for deep recursion
    stack = CONFIG["stack_limit_bytes"]
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    if soft != resource.RLIM_INFINITY and soft < stack and (hard == resource.RLIM_INFINITY or hard >= stack):
        resource.setrlimit(resource.RLIMIT_STACK, (stack, hard))
        os.execv(sys.executable, [sys.executable, "-I", "-S", "-B", *sys.argv])
    if not CONFIG["isolate"]:
        WORK = os.path.join(CONFIG["io_dir"], "run")
    OUTPUT_FILES.extend(tuple(_path(p) for p in pair) for pair in OUTPUT_PAIRS)
    for path in CONFIG["cgroup_procs"]:
        CGROUP_FDS.append(os.open(path, os.O_WRONLY))
    if CONFIG["isolate"]:
        ipc_calls()
        socket.sethostname("sandbox")
        build_root(CONFIG)
        loopback_up()
    for name in PRELOAD:
        __import__(name)
    # `python -S` skips site, which is what defines exit() and quit(); programs use them
    import builtins

    def _exit(code=None):
        raise SystemExit(code)

    builtins.exit = builtins.quit = _exit
    # everything loaded so far lives as long as the keeper: keep the collector away from it, so a
    # test's garbage collections do not touch (and copy-on-write) every page the keeper owns
    import gc

    gc.collect()
    gc.freeze()
    # a signal from a program cannot reach us (other uid), but be explicit about the ones we ignore
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    # the environment a program starts with; the keeper itself needs none of its own
    PROGRAM_ENV.update({"PATH": "/usr/bin:/bin", "HOME": WORK, "TMPDIR": WORK, "LANG": "C.UTF-8"})
    os.environ.clear()
    os.environ.update(PROGRAM_ENV)
    if CONFIG.get("seccomp_bpf"):  # last: the set-up above mounts, which the filter denies
        install_seccomp(bytes.fromhex(CONFIG["seccomp_bpf"]))
        NO_NEW_PRIVS = True
    send_msg({"event": "ready", "pid": os.getpid()})
    serve()


if __name__ == "__main__":
    try:
        main()
    except BaseException as err:  # noqa: BLE001 - tell the engine why the slot could not start
        try:
            send_msg({"event": "fatal", "error": f"{type(err).__name__}: {err}"})
        except OSError:
            pass
        os._exit(1)
