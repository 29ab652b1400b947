"""Assert tests (HumanEval, MBPP, EvalPlus; docs/spec.md 2.5): test code that calls the submission's
function, run so that the submission cannot forge the test's outcome.

A test's input is Python source: setup code (imports, helpers, the prompt) and either module-level
`assert` statements or a `check(candidate)` function. The driver below runs in the sandbox as two
processes of the run's cgroup:

- the *candidate* process, forked first, before anything of the test is read: it puts /dev/null on
  descriptor 0 and its stderr on 1, keeps only its two pipe ends, runs the submission and then
  answers calls to the entry point: arguments arrive encoded from the check side, the result (or
  the name and text of the exception it raised) goes back encoded (CODEC_SOURCE: JSON with every
  value tagged by its exact builtin type);
- the *check* process, which made itself non-dumpable before the fork (so the candidate cannot open
  its /proc files, descriptors or memory; ptrace and process_vm_readv are denied by the seccomp
  filter anyway), reads the test's code, binds `candidate` and the entry point's name to a proxy that
  calls across the pipe, and runs the test. Results are decoded into plain data only (numbers,
  strings, bytes, containers of them and a few standard-library types), so
  `==`, `is True` and truthiness in the test are Python's own on those values, never the
  submission's `__eq__`.

Only the check process holds the run's stdout: it writes `ok` there when the test completed. A test
that raised (its assert failed, or it compared values it could not) writes nothing: the answer is
wrong. An exception raised by the submission and not caught by the test, or a candidate process that
died, is a runtime error (exit 1). The submission's process can print, exit, patch builtins or raise
SystemExit: none of it reaches the check's namespace or its stdout.

A submission's tests usually run in one run of the *batch driver* (BATCH_SOURCE; engine._judge_batched):
for each test it forks the same two processes (the check reading its own test from the job file by
offset, so the driver, and any candidate forked from it, never holds a test), watches their CPU and
wall time, and writes one record per test, behind a nonce, on the stdout no other process holds;
`batch_records` reads them. What it cannot judge as a run of its own would, it gives back to one.

The drivers are plain source text, compiled once per engine process and shipped as marshal's bytes
(`_frozen`): the sandbox's warm interpreter runs them without this package.
"""

from __future__ import annotations

import binascii
import functools
import json
import marshal
import sys

# a passing test writes services.problems.spec.ASSERT_PASSED to stdout: every assert test's expected output

# Runs with `__ac_source__` (the submission) and `__ac_entry__` (the function's name) bound.
DRIVER_SOURCE = r"""
def __ac_main(source, entry, numpy_subset):
    import ctypes, os, sys
    sys.set_int_max_str_digits(0)
    out = sys.stdout
    # before the fork: the candidate can never open this process's /proc files (fd/0 included)
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
    call_r, call_w = os.pipe()
    back_r, back_w = os.pipe()
    out.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        # the candidate: no stdin, stdout is stderr, nothing but its own pipe ends
        null = os.open("/dev/null", os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(2, 1)
        _keep_only(0, 1, 2, call_r, back_w)
        __ac_candidate(source, entry, call_r, back_w)
    os.close(call_r)
    os.close(back_w)
    test = sys.stdin.read()
    status, passed = __ac_check(test, source, entry, numpy_subset, call_w, back_r)
    if passed:
        out.write("ok\n")
    out.flush()
    sys.stderr.flush()
    try:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    except OSError:
        pass
    raise SystemExit(status)


def __ac_candidate(source, entry, call_r, back_w, code=None):
    # the candidate's process, its descriptors set: runs the submission (`code`, its text compiled
    # already, or compiled here), then answers calls; never returns
    import builtins, json, os, sys
    encode, decode = __ac_encode, __ac_decode  # CODEC_SOURCE, compiled with the program
    sys.stdin = open(os.devnull)
    sys.stdout = sys.__stdout__ = sys.stderr

    def send(msg):
        _write(back_w, json.dumps(msg).encode())

    def report(err):
        import traceback
        sys.stderr.write("".join(traceback.format_exception(err)))
        sys.stderr.flush()
        try:
            text = str(err)[:2000]
        except BaseException:
            text = ""
        send(["raise", type(err).__name__, text])

    ns = {"__name__": "__solution__", "__builtins__": builtins}
    try:
        exec(code if code is not None else compile(source, "<solution>", "exec"), ns)
        fn = ns.get(entry)
        if not callable(fn):
            raise NameError(f"the program defines no function {entry}")
        send(["ready"])
    except BaseException as err:
        report(err)
        os._exit(1)
    while True:
        data = _read_msg(call_r)
        if data is None:
            os._exit(0)
        args, kwargs = decode(json.loads(data))
        try:
            value = fn(*args, **kwargs)
        except BaseException as err:
            report(err)
            continue
        try:
            data = json.dumps(["ok", encode(value)]).encode()
        except BaseException as err:
            send(["opaque", str(type(value).__qualname__), type(err).__name__])
            continue
        _write(back_w, data)


def __ac_check(test, source, entry, numpy_subset, call_w, back_r, imports=None):
    # the check: runs the test's code against a proxy of the candidate; (exit status, passed).
    # `imports`: _imports(source), when the caller made them already
    import builtins, json, os, sys
    encode, decode = __ac_encode, __ac_decode
    # what the test prints is neither its verdict nor shown: it may quote hidden expected values
    sys.stdout = open(os.devnull, "w")

    class Dead(Exception):
        pass

    def dead():
        err = Dead("the submission's process ended during a call")
        err.__ac_candidate__ = True
        return err

    def candidate_error(kind, text):
        cls = getattr(builtins, kind, None)
        # a StopIteration would end the test's map()/iterator early (`all(map(candidate, xs))` true)
        if cls in (StopIteration, StopAsyncIteration) or not (
            isinstance(cls, type) and issubclass(cls, Exception)
        ):
            cls = RuntimeError
            text = f"{kind}: {text}"
        try:
            err = cls(text)
        except BaseException:
            err = RuntimeError(f"{kind}: {text}")
        err.__ac_candidate__ = True
        return err

    def reply():
        data = _read_msg(back_r)
        if data is None:
            raise dead()
        # the submission's bytes: JSON (the C decoder), then plain values of builtin types only
        try:
            msg = json.loads(data)
        except (ValueError, RecursionError, MemoryError):
            raise TypeError("the submission's process answered out of protocol") from None
        if not isinstance(msg, list) or not msg or not isinstance(msg[0], str):
            raise TypeError("the submission's process answered out of protocol")
        return msg

    def call(*args, **kwargs):
        try:
            _write(call_w, json.dumps(encode((args, kwargs))).encode())
        except OSError:
            raise dead() from None
        msg = reply()
        if msg[0] == "ok" and len(msg) == 2:
            try:
                return decode(msg[1])
            except Exception as err:
                raise TypeError(f"the submission returned a value the judge does not compare ({err})") from None
        if msg[0] == "raise" and len(msg) == 3 and isinstance(msg[1], str) and isinstance(msg[2], str):
            raise candidate_error(msg[1], msg[2])
        if msg[0] == "opaque" and len(msg) == 3:
            raise TypeError(f"the submission returned a value the judge does not compare ({str(msg[1])[:200]})")
        raise TypeError("the submission's process answered out of protocol")

    call.__name__ = call.__qualname__ = entry
    try:
        first = reply()
        if first[0] == "raise" and len(first) == 3:
            raise candidate_error(str(first[1]), str(first[2]))
        if "numpy" in test:
            try:
                import numpy  # noqa: F401
            except ImportError:  # the sandbox's interpreter has none: numpy's formulas for EvalPlus
                import types
                mod = types.ModuleType("numpy")
                exec(compile(numpy_subset, "<numpy subset>", "exec"), mod.__dict__)
                sys.modules["numpy"] = mod
                sys.modules["numpy.testing"] = mod.testing
        ns = {"__name__": "__test__", "__builtins__": builtins}
        # MBPP's and HumanEval's harnesses run the solution and its tests in one namespace: a module
        # the solution imports at its top level is a name the tests may use (`math.isclose(...)`)
        for imported in _imports(source) if imports is None else imports:
            try:
                exec(imported, ns)
            except Exception:
                pass
        ns.update({"candidate": call, entry: call})
        exec(compile(test, "<test>", "exec"), ns)
        # a `check(candidate)` the test code defined (not the candidate itself, when the entry point
        # is named check, as MBPP's asserts may call it)
        check = ns.get("check")
        ns[entry] = call  # the prompt's stub, if the setup defines one, is not the candidate
        if callable(check) and check is not call:
            check(call)
    except BaseException as err:
        # stderr becomes an RE's message: it names the submission's own exception, never the test's
        # (whose text may quote a hidden expected value)
        if getattr(err, "__ac_candidate__", False):
            sys.stderr.write(f"the submission failed: {type(err).__name__}: {str(err)[:2000]}\n")
            return 1, False
        if isinstance(err.__context__, Dead):
            sys.stderr.write("the submission failed: its process ended during a call\n")
            return 1, False
        return 0, False
    return 0, True


def _keep_only(*keep):
    # close every descriptor but `keep`
    import os
    keep = sorted(set(keep))
    for lo, hi in zip([0] + [fd + 1 for fd in keep], [*keep, 65536]):
        if lo < hi:
            os.closerange(lo, hi)


def _imports(source):
    # the solution's top-level import statements, compiled one by one (parsed, never run, here: each
    # imports a module of the sandbox's own interpreter into the test's namespace)
    import ast
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found = []
    for node in tree.body:
        # never the driver's own module (its names are the check's) nor a relative one
        if isinstance(node, ast.Import) and all(a.name != "__main__" for a in node.names) or (
            isinstance(node, ast.ImportFrom) and not node.level and node.module not in ("__future__", "__main__")
        ):
            found.append(compile(ast.Module([node], []), "<solution's imports>", "exec"))
    return found


def _write(fd, data):
    import os
    view = memoryview(len(data).to_bytes(8, "big") + data)
    while view:
        view = view[os.write(fd, view):]


def _read_msg(fd):
    head = _read(fd, 8)
    if len(head) < 8:
        return None
    n = int.from_bytes(head, "big")
    data = _read(fd, n)
    return data if len(data) == n else None


def _read(fd, n):
    import os
    parts, got = [], 0
    while got < n:
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


"""

# the batch driver: one run for all of a submission's tests (engine._judge_batched, docs/spec.md 2.7)
BATCH_SOURCE = r"""
def __ab_main(source, entry, numpy_subset):
    # the job on stdin: the nonce (32 bytes), the header's length (8) and the header (JSON: the limits
    # and each test's place in the file), then the tests. This process never reads a test: each
    # test's check reads its own, so a candidate forked from here holds none
    import ctypes, gc, json, mmap, os, sys
    sys.set_int_max_str_digits(0)
    libc = ctypes.CDLL(None)
    libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: no process of the run opens our /proc files
    libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: a candidate's orphans come back here, seen
    job_prctl = libc.prctl
    # the nonce lives in a page that no forked process gets (MADV_WIPEONFORK), never in an object
    secret = mmap.mmap(-1, mmap.PAGESIZE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    try:
        secret.madvise(getattr(mmap, "MADV_WIPEONFORK", 18))
    except OSError:
        pass  # before Linux 4.14: the nonce is in the candidates' memory; our stdout is still ours
    nonce = memoryview(secret)[:32]
    if os.readv(0, [nonce]) != 32:
        return
    size = int.from_bytes(_read(0, 8), "big")
    job = json.loads(_read(0, size))
    places, offset = [], 40 + size
    for size in job["tests"]:  # each test's bytes, in order, after the header
        places.append((offset, size))
        offset += size
    # compiled once (it runs nothing; what cannot be, each candidate compiles and reports), its
    # imports parsed once: their CPU time counts in every test, as each test's processes do it
    import time
    before = time.process_time()
    try:
        compiled = compile(source, "<solution>", "exec")
    except BaseException:
        compiled = None
    imports = _imports(source)
    job["once_ms"] = (time.process_time() - before) * 1000
    job["prctl"] = job_prctl
    work = _ab_work_state()
    sys.stdout.flush()
    sys.stderr.flush()
    gc.freeze()  # what this process holds stays out of each child's collections (and its pages shared)
    job["rss_kb"] = _ab_rss_kb("VmRSS")  # at most what a child forked from here starts with
    for i, place in enumerate(places):
        rec = __ab_test(place, source, entry, numpy_subset, compiled, imports, job)
        if rec["v"] != "X" and (_ab_work_state() != work or _ab_ipc_left()):
            rec = {"v": "X", "why": "the test left a file or an IPC object"}
        rec["i"] = i
        # the run's stdout is this process's alone: no other process of the run holds it
        os.writev(1, [nonce, (" " + json.dumps(rec) + "\n").encode()])
        if rec["v"] == "X" or (rec["v"] != "AC" and job["first_failure"]):
            break


def __ab_test(place, source, entry, numpy_subset, compiled, imports, job):
    # one test: its candidate and its check forked from here, as a run of its own has them, both
    # watched; its record
    import json, os, select, sys, time
    call_r, call_w = os.pipe()
    back_r, back_w = os.pipe()
    res_r, res_w = os.pipe()
    err = os.memfd_create("stderr")  # the test's own stderr, both processes': an RE's message
    t0 = time.monotonic()
    cpid = os.fork()
    if cpid == 0:
        try:
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(err, 1)
            os.dup2(err, 2)
            _keep_only(0, 1, 2, call_r, back_w)
            # dumpable again (it holds nothing of the test's, nor the nonce): under /proc's hidepid
            # this process sees its schedstat, how long it waited for a CPU; the check stays hidden
            job["prctl"](4, 1, 0, 0, 0)
            __ac_candidate(source, entry, call_r, back_w, compiled)
        finally:
            os._exit(1)
    os.close(call_r)
    os.close(back_w)
    kpid = os.fork()
    if kpid == 0:
        status = 3
        try:
            rss = _ab_rss_kb("VmRSS")
            offset, size = place
            test = _pread(0, size, offset).decode("utf-8")
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(null, 1)
            os.dup2(err, 2)
            _keep_only(0, 1, 2, call_w, back_r, res_w)
            status, passed = __ac_check(test, source, entry, numpy_subset, call_w, back_r, imports)
            sys.stderr.flush()
            # its memory: what its peak resident set grew by since the fork; and what it started with,
            # which the candidate, forked from the same process a moment before, started with too
            grew = max(0, _ab_rss_kb("VmHWM") - rss)
            os.write(res_w, (b"ok %d %d" if passed else b"no %d %d") % (grew, rss))
        finally:
            os._exit(status)
    os.close(call_w)
    os.close(back_r)
    os.close(res_w)
    kill_ns = (job["kill_ms"] - job["once_ms"]) * 1e6
    wall_s = job["wall_ms"] / 1000
    # the wall time a run of its own and its rerun when starved have (engine._run_fed): past it, a
    # test the host starved goes back to a run of its own (which says STARVED)
    last = t0 + job["wall_max_ms"] / 1000
    got, stopped = b"", None
    while True:
        used = _ab_cpu_ns(kpid) + _ab_cpu_ns(cpid)
        now = time.monotonic()
        elapsed = now - t0
        # until the next look: no stop can come before the wall or CPU limit in wall time
        left = t0 + min(wall_s, kill_ns / 1e9) - now
        if used > kill_ns:
            stopped = "cpu"
        elif now >= last:
            stopped = "wall"
        elif elapsed >= wall_s or elapsed * 1e9 >= kill_ns:
            # its own wall time: what it did not spend waiting for a CPU (the host's doing, not the
            # program's). At its wall limit, or past its CPU limit at a pace that reaches the wall
            # limit first (idle: sleeping, blocked), a run of its own decides, the sooner the
            # cheaper; a busy test the host starves goes on to its CPU limit
            own = elapsed - _ab_waited_ns(cpid) / 1e9  # the check's is hidden: counted as its own
            if own >= wall_s or (own * 1e9 >= kill_ns and used * wall_s / own < kill_ns):
                stopped = "wall"
            elif elapsed * 1e9 >= kill_ns and used * (last - t0) / elapsed < kill_ns:
                # starved at a pace that reaches its CPU limit after twice its wall limit: no sooner
                # in runs of its own (each starved at its wall limit), to which it goes back now
                stopped = "wall"
            left = min(last - now, wall_s - own)
        if stopped:
            os.kill(kpid, 9)
            os.kill(cpid, 9)
            break
        # CPU time grows no faster than the wall clock on each of the two processes
        ready, _, _ = select.select([res_r], [], [], max(min((kill_ns - used) / 2e9, left), 0.001))
        if ready:
            chunk = os.read(res_r, 64)
            if not chunk:
                break
            got += chunk
    _, kstatus, kru = os.wait4(kpid, 0)
    wall_ms = (time.monotonic() - t0) * 1000
    os.close(res_r)
    # the candidate: gone by itself, or ended here now that its check is done
    done, cstatus, cru = os.wait4(cpid, os.WNOHANG)
    own_end = done == 0 or stopped is not None
    if done == 0:
        os.kill(cpid, 9)
        _, cstatus, cru = os.wait4(cpid, 0)
    strays = 0
    while True:  # orphans of the candidate (this process is their subreaper)
        try:
            found, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        strays += 1
        if found == 0:
            break
    text = os.pread(err, job["keep_bytes"], 0).decode("utf-8", "replace")[-1000:] or None
    os.close(err)
    if stopped == "wall":
        return {"v": "X", "why": "at the wall limit"}
    # a signal of its own: any but our SIGKILL (one that was exiting when we sent it keeps its own;
    # an OOM kill's SIGKILL the engine sees in the cgroup's counter)
    if strays or (os.WIFSIGNALED(cstatus) and not (own_end and os.WTERMSIG(cstatus) == 9)):
        return {"v": "X", "why": "the candidate left a process or ended by a signal"}
    fields = got.split()
    start = int(fields[2]) if len(fields) == 3 and fields[2].isdigit() else None
    # the candidate's memory: its peak over what the check started with (a check stopped at a limit
    # said nothing: over what this process holds, then)
    cmem = max(0, cru.ru_maxrss - (job["rss_kb"] if start is None else start))
    cpu = (kru.ru_utime + kru.ru_stime + cru.ru_utime + cru.ru_stime) * 1000 + job["once_ms"]
    rec = {"cpu": cpu, "wall": wall_ms, "mem": cmem + (int(fields[1]) if start is not None else 0)}
    if stopped == "cpu" or cpu > job["kill_ms"]:
        return {**rec, "v": "TLE"}
    if cpu >= job["near_ms"]:
        return {"v": "X", "why": "a CPU time near the limit"}
    if not (os.WIFEXITED(kstatus) and start is not None and fields[0] in (b"ok", b"no")):
        return {"v": "X", "why": "the check ended out of its protocol"}
    if os.WEXITSTATUS(kstatus) == 0:
        return {**rec, "v": "AC" if fields[0] == b"ok" else "WA"}
    if os.WEXITSTATUS(kstatus) == 1 and fields[0] == b"no":
        if rec["mem"] >= job["mem_kb"]:
            return {"v": "X", "why": "a failure with a memory peak near the limit"}
        return {**rec, "v": "RE", "msg": text}
    return {"v": "X", "why": "the check ended out of its protocol"}


def _pread(fd, n, offset):
    import os
    parts, got = [], 0
    while got < n:
        chunk = os.pread(fd, min(n - got, 1 << 20), offset + got)
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def _ab_rss_kb(field):
    # this process's resident set now (VmRSS) or at its peak (VmHWM), in KiB
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _ab_cpu_ns(pid):
    # the CPU time of a live (or unreaped) process: its process CPU clock, CPUCLOCK_SCHED
    import time
    try:
        return time.clock_gettime_ns((~pid << 3) | 2)
    except OSError:
        return 0


def _ab_waited_ns(pid):
    # how long a live (or unreaped) process's threads waited for a CPU: schedstat's run_delay
    # (runnable, not running); 0 where the kernel keeps none
    import os
    waited = 0
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                waited += int(f.read(256).split()[1])
        except (OSError, ValueError, IndexError):
            continue  # a thread that just exited
    return waited


def _ab_work_state():
    # the working directory as far as a test could leave anything in it (as the keeper's shared runner)
    import os
    try:
        entries = os.listdir(".")
        st = os.stat(".")
        attrs = sorted(os.listxattr("."))
    except OSError:
        return object()
    return (entries, st.st_mode, st.st_uid, st.st_gid, st.st_atime_ns, st.st_mtime_ns, st.st_ctime_ns, attrs)


def _ab_ipc_left():
    for kind in ("shm", "sem", "msg"):
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                if f.read().count("\n") > 1:
                    return True
        except OSError:
            return True
    return False
"""


# Values between the two processes: JSON (the sandbox's interpreter has json loaded already, and its
# C decoder is safe on any bytes), with every value tagged by its exact builtin type, so that what the
# check process builds from the submission's answer is plain data of the same types: a tuple stays a
# tuple, a set a set, a dict keeps non-string keys and its order, 1 and 1.0 and True stay apart. A
# value of any other type (a class of the submission's, a subclass of int) cannot be encoded.
CODEC_SOURCE = r"""
import collections as _c
import decimal as _dec
import fractions as _fr
import re as _re

_FACTORIES = {"list": list, "int": int, "set": set, "str": str, "dict": dict, "float": float, "tuple": tuple}


def encode(v):
    t = type(v)
    if v is None or t is bool or t is int or t is str:
        return v
    if t is float:
        return ["F", repr(v)]
    if t is list:
        return ["l", [encode(x) for x in v]]
    if t is tuple:
        return ["t", [encode(x) for x in v]]
    if t is dict:
        return ["d", [[encode(k), encode(x)] for k, x in v.items()]]
    if t is set:
        return ["s", [encode(x) for x in v]]
    if t is frozenset:
        return ["fs", [encode(x) for x in v]]
    if t is bytes:
        return ["b", v.hex()]
    if t is bytearray:
        return ["ba", v.hex()]
    if t is complex:
        return ["c", [repr(v.real), repr(v.imag)]]
    if t is _c.OrderedDict:
        return ["od", [[encode(k), encode(x)] for k, x in v.items()]]
    if t is _c.Counter:
        return ["ct", [[encode(k), encode(x)] for k, x in v.items()]]
    if t is _c.defaultdict:
        name = next((n for n, f in _FACTORIES.items() if v.default_factory is f), None)
        if v.default_factory is not None and name is None:
            raise TypeError("a defaultdict of another factory")
        return ["dd", [name, [[encode(k), encode(x)] for k, x in v.items()]]]
    if t is _c.deque:
        return ["dq", [v.maxlen, [encode(x) for x in v]]]
    if t is _dec.Decimal:
        return ["dec", str(v)]
    if t is _fr.Fraction:
        return ["fr", [v.numerator, v.denominator]]
    if t is range:
        return ["r", [v.start, v.stop, v.step]]
    if t is slice:
        return ["sl", [encode(v.start), encode(v.stop), encode(v.step)]]
    if v is Ellipsis:
        return ["e", None]
    if t is _re.Match:  # rebuilt on the check side by running its pattern again (decode)
        regs = [list(r) for r in v.regs]
        return ["rm", [encode(v.re.pattern), v.re.flags, encode(v.string), v.endpos, regs]]
    raise TypeError(f"a value of type {t.__qualname__}")


def _int(v):
    if type(v) is not int:
        raise ValueError("not an integer")
    return v


def _str(v):
    if type(v) is not str:
        raise ValueError("not a string")
    return v


def _pairs(p):
    return [(decode(k), decode(x)) for k, x in p]


def decode(v):
    if v is None or type(v) in (bool, int, str):
        return v
    if type(v) is not list or len(v) != 2 or type(v[0]) is not str:
        raise ValueError("not a tagged value")
    tag, p = v
    if tag == "F":
        return float(_str(p))
    if tag == "l":
        return [decode(x) for x in p]
    if tag == "t":
        return tuple(decode(x) for x in p)
    if tag == "d":
        return dict(_pairs(p))
    if tag == "s":
        return {decode(x) for x in p}
    if tag == "fs":
        return frozenset(decode(x) for x in p)
    if tag == "b":
        return bytes.fromhex(_str(p))
    if tag == "ba":
        return bytearray.fromhex(_str(p))
    if tag == "c":
        return complex(float(_str(p[0])), float(_str(p[1])))
    if tag == "od":
        return _c.OrderedDict(_pairs(p))
    if tag == "ct":
        return _c.Counter(dict(_pairs(p)))
    if tag == "dd":
        name, items = p
        d = _c.defaultdict(None if name is None else _FACTORIES[_str(name)])
        d.update(_pairs(items))
        return d
    if tag == "dq":
        maxlen, items = p
        return _c.deque([decode(x) for x in items], None if maxlen is None else _int(maxlen))
    if tag == "dec":
        return _dec.Decimal(_str(p))
    if tag == "fr":
        return _fr.Fraction(_int(p[0]), _int(p[1]))
    if tag == "r":
        return range(_int(p[0]), _int(p[1]), _int(p[2]))
    if tag == "sl":
        return slice(decode(p[0]), decode(p[1]), decode(p[2]))
    if tag == "e":
        return Ellipsis
    if tag == "rm":
        return _match(*p)
    raise ValueError(f"unknown tag {tag[:20]!r}")


def _match(pattern, flags, string, endpos, regs):
    # a real re.Match (compared by identity, true, with its groups and spans, as Python's own): the
    # pattern run again where the submission's match began, kept only when it gives the same spans;
    # the pattern is the submission's, and its run counts in the test's own CPU time
    pattern, string = decode(pattern), decode(string)
    if type(pattern) not in (str, bytes) or type(string) is not type(pattern):
        raise ValueError("a match of another pattern or text type")
    regs = tuple((_int(a), _int(b)) for a, b in regs)
    compiled = _re.compile(pattern, _int(flags))
    start, end = regs[0]
    for m in (compiled.match(string, start, _int(endpos)), compiled.fullmatch(string, start, end)):
        if m is not None and m.regs == regs:
            return m
    raise ValueError("a match its pattern does not give")
"""

# EvalPlus's `assertion` helpers call numpy (isinstance(x, np.ndarray), np.allclose,
# np.testing.assert_allclose). The check process uses the real numpy when the sandbox's interpreter
# has it; when it has none, it gets this module instead, which judges as numpy does and refuses what
# numpy refuses: an operand is a number (bool, int, float, complex) or a nested list, tuple
# or range of them of one rectangular shape; strings or bytes among numbers are refused outright (numpy
# makes them an array of strings, which it never subtracts), any other value (None, a dict, a set, a
# Decimal, a Fraction) when it is compared, a ragged list always: TypeError or ValueError, as numpy's
# own, so a string answer never passes for a number. Shapes broadcast by numpy's rule (trailing axes equal or 1), and
# each pair is numpy's |a - b| <= atol + rtol * |b| with b finite, or a == b (infinities equal only to
# themselves), NaN equal to NaN only with equal_nan; ints of int64's range are compared as float64,
# as numpy converts them. numpy's defaults: allclose rtol 1e-05, atol 1e-08; assert_allclose rtol
# 1e-07, atol 0, equal_nan, shapes equal unless one side is a scalar (tests/sandbox/test_asserts.py checks
# the stand-in against numpy).
NUMPY_SUBSET = r"""
import cmath as _cmath
import itertools as _itertools
import math as _math
import types as _types


class ndarray:
    pass


float64 = float32 = float
int64 = int32 = int
inf, nan, pi, e = _math.inf, _math.nan, _math.pi, _math.e
_SEQUENCES = (list, tuple, range)


def _number(x):
    if type(x) is bool:
        return float(x)
    if type(x) is int:
        return float(x) if -(2**63) <= x < 2**63 else x  # numpy: int64 as float64, larger as objects
    if type(x) in (float, complex):
        return x
    raise TypeError(f"numpy does not compare a value of type {type(x).__name__} as a number")


def _array(x):
    # (shape, flat values) of an operand, built one level at a time (no recursion on its depth)
    shape, level = [], [x]
    while level and all(isinstance(v, _SEQUENCES) for v in level):
        n = len(level[0])
        if any(len(v) != n for v in level):
            raise ValueError("setting an array element with a sequence: the shape is inhomogeneous")
        shape.append(n)
        level = [w for v in level for w in v]
    if any(isinstance(v, _SEQUENCES) for v in level):
        raise ValueError("setting an array element with a sequence: the shape is inhomogeneous")
    kinds = {type(v) for v in level}
    if kinds & {str, bytes} and kinds <= {str, bytes, bool, int, float, complex}:
        # numpy makes it an array of strings, which it never subtracts (even when it is empty)
        raise TypeError("numpy does not compare strings as numbers")
    # any other value makes it an array of objects, refused when an element is compared
    return tuple(shape), level, not kinds <= {bool, int, float, complex}


def _broadcast(sa, sb):
    n = max(len(sa), len(sb))
    sa, sb = (1,) * (n - len(sa)) + sa, (1,) * (n - len(sb)) + sb
    out = []
    for x, y in zip(sa, sb):
        if x != y and 1 not in (x, y):
            raise ValueError(f"operands could not be broadcast together with shapes {sa} {sb}")
        out.append(y if x == 1 else x)
    return sa, sb, tuple(out)


def _strides(shape, out):
    strides, step = [], 1
    for n, m in zip(reversed(shape), reversed(out)):
        strides.append(0 if n == 1 and m != 1 else step)
        step *= n
    return strides[::-1]


def _pairs(a, b):
    (sa, fa, _), (sb, fb, objects) = _array(a), _array(b)
    if objects:  # numpy asks whether the second operand is finite first: never for objects
        raise TypeError("numpy does not compare an array of objects as the desired value")
    sa, sb, out = _broadcast(sa, sb)
    ta, tb = _strides(sa, out), _strides(sb, out)
    pairs = []
    for index in _itertools.product(*(range(n) for n in out)):
        i = sum(k * t for k, t in zip(index, ta))
        j = sum(k * t for k, t in zip(index, tb))
        pairs.append((fa[i], fb[j]))
    return out, pairs


def _isnan(x):
    return _cmath.isnan(x) if type(x) is complex else type(x) is float and _math.isnan(x)


def _finite(x):
    return _cmath.isfinite(x) if type(x) is complex else type(x) is not float or _math.isfinite(x)


def _close(x, y, rtol, atol, equal_nan):
    x, y = _number(x), _number(y)
    if _isnan(x) or _isnan(y):
        return bool(equal_nan and _isnan(x) and _isnan(y))
    if x == y:
        return True
    if not (_finite(x) and _finite(y)):
        return False
    return bool(abs(x - y) <= atol + rtol * abs(y))


def _nest(flat, shape):
    # the flat values as nested lists of `shape`, innermost axis first (no recursion on its depth)
    for k in range(len(shape) - 1, 0, -1):
        n = shape[k]
        flat = [flat[i * n : (i + 1) * n] for i in range(_math.prod(shape[:k]))]
    return flat


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    out, pairs = _pairs(a, b)
    values = [_close(x, y, rtol, atol, equal_nan) for x, y in pairs]
    return values[0] if not out else _nest(values, out)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    # every pair compared, as numpy does, before the answer: a value it refuses is never skipped
    return all([_close(x, y, rtol, atol, equal_nan) for x, y in _pairs(a, b)[1]])


def _assert_allclose(actual, desired, rtol=1e-07, atol=0, equal_nan=True, err_msg="", verbose=True):
    (sa, _, objects_a), (sd, _, objects_d) = _array(actual), _array(desired)
    if sa and sd and sa != sd:
        raise AssertionError(f"shapes {sa}, {sd} mismatch {err_msg}".rstrip())
    if objects_a or objects_d:
        raise TypeError("numpy does not compare an array of objects")
    if not allclose(actual, desired, rtol=rtol, atol=atol, equal_nan=equal_nan):
        raise AssertionError(f"Not equal to tolerance rtol={rtol}, atol={atol} {err_msg}".rstrip())


testing = _types.ModuleType("numpy.testing")
testing.assert_allclose = _assert_allclose
"""


def _compile_copy(source: str) -> str:
    """The submission's text as appended after the driver for the sandbox's compile to see: its
    `from __future__` lines blanked (they are legal only at the top of a file; the candidate process
    compiles the real text)."""
    lines = source.split("\n")
    return "\n".join("" if line.lstrip().startswith("from __future__") else line for line in lines)


def wrap(source: str, entry_point: str) -> str:
    """The full program the sandbox runs for a submission to an assert problem.

    The submission's text also follows the driver, which exits before reaching it: the sandbox
    compiles the whole program first, so a syntax error in the submission is CE, as for any Python
    program, not a failure of every test."""
    return (
        _head(source, entry_point)
        + _frozen(DRIVER_SOURCE)
        + "__ac_main(__ac_source__, __ac_entry__, __ac_numpy__)\n"
        + _compile_copy(source)
        + "\n"
    )


def wrap_batch(source: str, entry_point: str) -> str:
    """The program of the batch driver (BATCH_SOURCE): one run for all of a submission's tests, its
    stdin the job (engine._judge_batched), its stdout one record per test; CE as `wrap`'s."""
    return (
        _head(source, entry_point)
        + _frozen(DRIVER_SOURCE + BATCH_SOURCE)
        + "__ab_main(__ac_source__, __ac_entry__, __ac_numpy__)\n"
        + _compile_copy(source)
        + "\n"
    )


def _head(source: str, entry_point: str) -> str:
    return f"__ac_source__ = {source!r}\n__ac_entry__ = {entry_point!r}\n__ac_numpy__ = {NUMPY_SUBSET!r}\n"


@functools.lru_cache(maxsize=4)
def _frozen(driver: str) -> str:
    """A line that defines the codec and `driver`'s functions: their code compiled once here, as
    marshal's bytes in base64 (a literal the sandbox's compile of each submission's program reads in
    a fraction of a millisecond, where compiling the source took about ten). The sandbox's interpreter
    is this process's own (Slot._spawn_keeper starts it); on any other version the line runs the
    source instead."""
    text = CODEC_SOURCE + "\n__ac_encode, __ac_decode = encode, decode\n" + driver
    code = marshal.dumps(compile(text, "<assert driver>", "exec"))
    frozen = binascii.b2a_base64(code, newline=False).decode()
    return (
        f"exec(__import__('marshal').loads(__import__('binascii').a2b_base64({frozen!r})) "
        f"if __import__('sys').hexversion == {sys.hexversion} else compile({text!r}, '<assert driver>', 'exec'))\n"
    )


BATCH_VERDICTS = ("AC", "WA", "RE", "TLE")


def batch_records(stdout: bytes, nonce: str, n: int) -> tuple[list[dict], str | None]:
    """The batch driver's records, in test order, read as data: a line counts only when it carries
    the run's nonce, is whole (its newline written), names the next test and a verdict with its
    numbers. The first line that does not, or a record "X" (the driver gave the test back to a run
    of its own), ends them: (records, why they ended early; None when every test has one or the
    driver stopped at a failure)."""
    out: list[dict] = []
    lines = stdout.split(b"\n")
    head = nonce.encode() + b" "
    for line in lines[:-1]:  # the last piece has no newline: never a record
        if len(out) >= n or not line.startswith(head):
            return out, "a line out of protocol"
        try:
            rec = json.loads(line[len(head) :])
        except ValueError:
            return out, "a line out of protocol"
        if not isinstance(rec, dict) or rec.get("i") != len(out):
            return out, "a line out of protocol"
        if rec.get("v") == "X":
            return out, str(rec.get("why"))[:200]
        numbers = [rec.get(k) for k in ("cpu", "wall", "mem")]
        if rec.get("v") not in BATCH_VERDICTS or not all(
            type(x) in (int, float) and 0 <= x < 1e12 for x in numbers
        ):
            return out, "a line out of protocol"
        msg = rec.get("msg")
        if msg is not None and not isinstance(msg, str):
            return out, "a line out of protocol"
        out.append(rec)
    stopped = bool(out) and out[-1]["v"] != "AC"
    return out, None if len(out) == n or stopped else "the driver ended early"
