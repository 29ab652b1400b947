"""Issue 28 items 3-4 for sessions, on real session sandboxes (no API: `SessionSandbox` itself): sizes
counted in real bytes (file reads stop at the cap, the reply pipe is capped, exec output is counted as
the answer carries it) and budgets (the CPU quota between execs, the OOM killer's first choice)."""

from __future__ import annotations

import base64
import json
import time

import pytest

from services.judge.core.sandbox.cgroups import detect
from services.judge.core.sandbox.seccomp import filter_bpf
from services.judge.core.sandbox.session import FileOpError, SessionSandbox, _json_size, encode_output


@pytest.fixture(scope="module")
def host():
    return detect(), filter_bpf()


@pytest.fixture
def box(host, tmp_path):
    made = []

    def make(kind: str = "python", output_kb: int = 64, **kw) -> SessionSandbox:
        cgroups, bpf = host
        b = SessionSandbox(
            kind,
            state_dir=tmp_path,
            cgroup_host=cgroups,
            seccomp_bpf=bpf,
            memory_limit_mb=kw.pop("memory_mb", 256),
            cpu_limit_s=kw.pop("cpu_s", 10.0),
            output_limit_kb=output_kb,
            **kw,
        )
        made.append(b)
        b.start()
        return b

    yield make
    for b in made:
        b.close()


def answer_size(result) -> int:
    """What stdout and stderr take in the JSON answer (the API writes UTF-8, not ASCII escapes)."""
    return sum(len(json.dumps(s, ensure_ascii=False).encode()) - 2 for s in (result.stdout, result.stderr))


# -- file reads stop at the cap -------------------------------------------------------------------
def test_a_file_whose_size_lies_is_read_only_to_the_cap_plus_one_byte(box):
    """A procfs file stats as 0 bytes and reads as more: the read stops one byte past the cap (413)."""
    b = box()
    assert b.exec("import os; os.symlink('/proc', 'p')", 10).status == "ok"
    assert len(b.get_file("p/self/status", 1 << 20)) > 200  # it is readable, and longer than 200
    with pytest.raises(FileOpError) as err:
        b.get_file("p/self/status", 100)
    assert err.value.errno_name == "EFBIG"


def test_a_file_that_grows_while_read_never_comes_back_over_the_cap(box):
    b = box(memory_mb=512)
    cap = 4 << 20
    code = (
        "import subprocess, sys\n"
        "open('grow', 'wb').write(b'x' * (3 << 20))\n"
        "w = subprocess.Popen([sys.executable, '-c', "
        "\"f = open('grow', 'ab')\\nwhile f.tell() < (200 << 20): f.write(b'y' * (1 << 16)); f.flush()\"])"
    )
    assert b.exec(code, 10).status == "ok"
    refused = 0
    for _ in range(20):
        try:
            assert len(b.get_file("grow", cap)) <= cap
        except FileOpError as err:
            assert err.errno_name == "EFBIG"
            refused += 1
    assert refused >= 1  # the file passed the cap at some point while it was read


# -- the reply pipe ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "junk",
    [b"x" * 100_000, b"not json\n", b'{"exit_code": "0"}\n', b"[1, 2]\n"],
    ids=["long-line", "not-json", "bad-exit-code", "not-an-object"],
)
def test_junk_on_the_reply_pipe_restarts_the_shell_and_the_session_goes_on(box, junk):
    b = box()
    r = b.exec(f"import os, time; os.write(201, {junk!r}); time.sleep(5)", 20)
    assert r.restarted and r.exit_code is None
    assert r.wall_ms < 4000  # cut short, not waited out
    r = b.exec("6 * 7", 10)
    assert (r.status, r.stdout, r.restarted) == ("ok", "42\n", False)


def test_a_reply_left_on_the_pipe_after_an_exec_does_not_answer_the_next(box):
    b = box()
    code = (
        "import os, subprocess; subprocess.Popen(['sh', '-c', 'sleep 0.3; echo junk >&201'], pass_fds=[201])"
    )
    assert b.exec(code, 10).status == "ok"
    time.sleep(1.0)
    r = b.exec("import time; time.sleep(0.3); print('done')", 10)
    assert (r.status, r.stdout, r.restarted, r.exit_code) == ("ok", "done\n", False, 0)


# -- exec output, counted as the answer carries it ---------------------------------------------------
@pytest.mark.parametrize(
    "code",
    [
        "import sys; sys.stdout.buffer.write(b'\\xff' * 200_000)",
        "import sys; sys.stdout.write('\\x01' * 200_000)",
        "import sys; sys.stdout.write('\\U0001F600' * 50_000); sys.stderr.buffer.write(b'\\x80' * 50_000)",
    ],
    ids=["invalid-utf8", "control-chars", "emoji-and-invalid-stderr"],
)
def test_exec_output_takes_at_most_output_kb_in_the_answer(box, code):
    b = box(output_kb=16)
    r = b.exec(code, 10)
    assert r.status == "output_limit"
    assert answer_size(r) <= 16 << 10
    assert answer_size(r) > 8 << 10  # what fits is returned, not nothing


def test_bytes_that_are_not_utf8_come_back_exactly_in_base64(box):
    b = box()
    r = b.exec("import sys; sys.stdout.buffer.write(bytes(range(256))); print('err', file=sys.stderr)", 10)
    assert (r.status, r.stdout_encoding, r.stderr_encoding) == ("ok", "base64", "utf-8")
    assert base64.b64decode(r.stdout) == bytes(range(256))
    assert r.stderr == "err\n"


def test_utf8_output_cut_by_the_limit_stays_text():
    data = "é".encode() * 1000
    out, enc, err, enc_e, cut = encode_output(data[:1001], b"", 4096, truncated=True)
    assert (enc, cut, out) == ("utf-8", False, "é" * 500)
    out, enc, _, _, cut = encode_output(data, b"", 101)
    assert (enc, cut, out) == ("utf-8", True, "é" * 50)


def test_json_size_is_what_json_writes():
    samples = [bytes(range(128)), '"\\ü€😀'.encode(), b"plain", b""]
    for data in samples:
        assert _json_size(data) == len(json.dumps(data.decode(), ensure_ascii=False).encode()) - 2


# -- the CPU quota between execs ----------------------------------------------------------------------
def _quota_file(b: SessionSandbox):
    cg = b.cgroup
    return cg.dirs["cpu"] / "cpu.cfs_quota_us" if cg.version == 1 else cg.path / "cpu.max"


def test_a_process_left_spinning_between_execs_is_held_to_the_idle_quota(box):
    b = box(idle_cpus=0.02)
    assert b.cgroup.has_cpu_quota, "this host has a cpu cgroup controller (v1 cpu, or v2 cpu delegated)"
    spin = "import subprocess, sys; subprocess.Popen([sys.executable, '-c', 'while True: pass'])"
    assert b.exec(spin, 10).status == "ok"
    throttled0, cpu0, t0 = b.cgroup.throttled(), b.cgroup.cpu_ns(), time.monotonic()
    time.sleep(2.0)
    used_s, wall_s = (b.cgroup.cpu_ns() - cpu0) / 1e9, time.monotonic() - t0
    assert b.cgroup.throttled() > throttled0  # the quota held it back
    # at most 2% of one CPU, plus a period's slack: never a whole CPU however idle the host is
    assert used_s <= 0.02 * wall_s + 0.15, used_s


def test_an_exec_and_a_file_call_run_without_the_quota(box):
    import threading

    b = box(idle_cpus=0.02)
    idle = _quota_file(b).read_text().split()[0]
    assert idle in ("2000",), idle
    seen = []
    t = threading.Timer(0.5, lambda: seen.append(_quota_file(b).read_text().split()[0]))
    t.start()
    r = b.exec("import time; time.sleep(1.5)", 10)
    t.join()
    assert r.status == "ok"
    assert seen == ["-1" if b.cgroup.version == 1 else "max"]
    assert _quota_file(b).read_text().split()[0] == idle  # back once the exec answered
    b.put_file("f", b"x" * 1000)
    assert b.get_file("f", 1000) == b"x" * 1000
    assert _quota_file(b).read_text().split()[0] == idle


def test_encode_output_keeps_a_prefix_within_the_limit_for_any_bytes():
    """Seeded random streams (mixes of ASCII, control characters, multi-byte UTF-8 and stray bytes):
    what comes back is a prefix of each stream, exactly decodable, and within the limit as carried."""
    import random

    rng = random.Random(28)
    pieces = [b"a", b"\n", b"\x01", b'"', b"\\", "é".encode(), "😀".encode(), b"\xff", b"\x80", b"\xe2\x82"]
    for _ in range(300):
        out = b"".join(rng.choice(pieces) for _ in range(rng.randrange(0, 400)))
        err = b"".join(rng.choice(pieces) for _ in range(rng.randrange(0, 100)))
        limit = rng.randrange(8, 600)
        so, enc_o, se, enc_e, cut = encode_output(out, err, limit)
        carried = [len(json.dumps(x, ensure_ascii=False).encode()) - 2 for x in (so, se)]
        assert sum(carried) <= limit
        for text, enc, data in ((so, enc_o, out), (se, enc_e, err)):
            raw = base64.b64decode(text) if enc == "base64" else text.encode()
            assert data.startswith(raw)
        whole = encode_output(out, err, 1 << 20)
        assert cut == ((so, se) != (whole[0], whole[2]))  # cut says whether anything was left out


def test_the_trainer_environments_read_base64_output_as_text():
    from trainer.envs.core import render_output

    result = {"stdout": base64.b64encode(b"hi\xff\n").decode(), "stdout_encoding": "base64", "stderr": ""}
    assert render_output(result, 1000) == "<output>\nhi\ufffd\n</output>\n"
