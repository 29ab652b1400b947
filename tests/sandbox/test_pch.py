"""C++'s precompiled `bits/stdc++.h` (runners.py, CompiledRunner.pch_dir): built once per flag set and
binary cache, in the sandbox, from the system header alone; read by the compiles that include it, with
the same binary as without it; out of every program's reach; rebuilt when the flags or the compiler
change; and a flag set whose build fails compiles as before.
"""

from __future__ import annotations

import os
import stat
import textwrap

import pytest

from services.judge.core.engine import Engine
from services.judge.core.languages import LANGUAGES
from services.judge.core.runners import PCH_MAX, CompileFailed, Prepared, evict_pch, runner
from services.judge.core.sandbox.slot import RunSpec
from services.judge.core.verdicts import Verdict
from services.settings import Settings
from tests.support.problems import make_problem, sub

SOURCE = "#include <bits/stdc++.h>\nusing namespace std;\nint main() {{ long long a, b; cin >> a >> b; cout << a + b + {k} << '\\n'; }}\n"


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    eng = Engine(Settings(state_dir=tmp_path_factory.mktemp("pch"), slots=1))
    yield eng
    eng.close()


@pytest.fixture(scope="module")
def built(engine):
    """A fresh C++ runner after two compiles of the default flag set (the second builds the
    header), the runs the slot was asked for, and the header's directory on the host."""
    cpp = runner(LANGUAGES["cpp"])
    runs: list[list[str]] = []
    with engine._slot() as slot:
        real_run = slot.run

        def run(spec):
            runs.append(list(spec.argv))
            return real_run(spec)

        slot.run = run
        try:
            first = cpp.prepare(slot, SOURCE.format(k=0), engine.settings)
            dirs_after_first = sorted(p.name for p in (engine.state_dir / "bin").glob("pch-*"))
            second = cpp.prepare(slot, SOURCE.format(k=1), engine.settings)
        finally:
            del slot.run
    assert isinstance(first, Prepared) and isinstance(second, Prepared)
    assert dirs_after_first == []  # a one-off flag set costs no build
    (pch,) = (engine.state_dir / "bin").glob("pch-*")
    return cpp, runs, pch


def test_the_header_is_built_on_the_second_compile_root_owned_and_read_only(engine, built):
    _, runs, pch = built
    builds = [argv for argv in runs if "c++-header" in argv]
    assert len(builds) == 1
    # from the judge's own one-line source, never a submission's, under the compile's own flags
    assert builds[0][: len(LANGUAGES["cpp"].compiler)] == list(LANGUAGES["cpp"].compiler)
    assert builds[0][-4:] == ["c++-header", "pch.hpp", "-o", "/dev/fd/1"]
    # the compile after the build names the header's directory, the one before does not
    compiles = [argv for argv in runs if "c++-header" not in argv]
    assert "-I" not in compiles[0]
    assert compiles[1][compiles[1].index("-I") + 1] == f"/bincache/{pch.name}"
    gch = pch / "bits" / "stdc++.h.gch"
    st = gch.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (0, 0, 0o644)
    assert st.st_size > 1 << 20
    for d in (pch, pch / "bits"):
        assert (d.stat().st_uid, stat.S_IMODE(d.stat().st_mode)) == (0, 0o755)
    # the build's stdout file, which its uid owned, is gone from where later runs write
    slot = engine._all[0]
    assert all(p.stat().st_uid == 0 for p in slot.io_dir.iterdir())


def test_gcc_in_the_sandbox_reads_the_precompiled_header(engine, built):
    _, _, pch = built
    s = engine.settings
    with engine._slot() as slot:
        # -H lists the headers a compile reads: "! <file>.gch" is a precompiled one it used
        result = slot.run(
            RunSpec(
                kind="exec",
                argv=[
                    *LANGUAGES["cpp"].compiler,
                    "-I",
                    f"/bincache/{pch.name}",
                    "-H",
                    "-fsyntax-only",
                    "main.cpp",
                ],
                source_file=("main.cpp", SOURCE.format(k=2)),
                time_limit_ms=s.compile_time_limit_ms,
                memory_limit_mb=s.compile_memory_limit_mb,
                wall_limit_ms=s.compile_time_limit_ms * 2,
                output_limit_bytes=1 << 20,
                pids_max=s.pids_max,
                open_files_max=s.open_files_max,
            )
        )
    assert result.exit_code == 0, result.stderr_text()
    assert result.stderr_text().splitlines()[0] == f"! /bincache/{pch.name}/bits/stdc++.h.gch"


def test_the_binary_is_the_same_with_and_without_the_header_and_judged_alike(engine, built, tmp_path):
    cpp, _, _ = built
    code = SOURCE.format(k=1)  # compiled with the header by `built`
    digest = cpp.cache_key(cpp.compiler, "main.cpp", code)
    with_pch = ((engine.state_dir / "bin") / digest).read_bytes()
    plain = Engine(Settings(state_dir=tmp_path / "plain", slots=1, precompiled_headers=False))
    try:
        assert plain.compile("cpp", code) is None
        assert not list((plain.state_dir / "bin").glob("pch-*"))
        assert ((plain.state_dir / "bin") / digest).read_bytes() == with_pch
    finally:
        plain.close()
    p = make_problem(engine.store, [("a", "1 2\n", "4\n"), ("b", "5 5\n", "11\n")], pid="pch-ab")
    result = engine.judge(p, sub(code, language="cpp", problem_id="pch-ab"), mode="full")
    assert [t.verdict for t in result.tests] == [Verdict.AC, Verdict.AC]


def test_a_program_cannot_change_the_precompiled_header(engine, built):
    _, _, pch = built
    code = textwrap.dedent(
        f"""
        import os
        d = "/bincache/{pch.name}"
        tries = [
            lambda: open(d + "/bits/stdc++.h.gch", "r+b"),
            lambda: open(d + "/bits/x.gch", "wb"),
            lambda: os.rename(d + "/bits", d + "/old"),
            lambda: os.unlink(d + "/bits/stdc++.h.gch"),
            lambda: os.mkdir("/bincache/pch-" + "0" * 64),
        ]
        for t in tries:
            try:
                t()
                print("changed")
            except PermissionError:
                print("denied")
        """
    )
    run = engine.run(
        "python", code, time_limit_ms=2000, wall_limit_ms=4000, memory_limit_mb=64, output_limit_bytes=1 << 16
    )
    assert run.stdout.decode().split() == ["denied"] * 5, run
    assert (pch / "bits" / "stdc++.h.gch").stat().st_uid == 0


def test_a_flag_set_whose_build_fails_compiles_without_it_and_builds_once(engine):
    # the macro breaks the header, not a program that never includes it (its comment names the
    # header, which is what asks for one); a source that does not name it never asks
    cpp = runner(LANGUAGES["cpp"])
    flags = ("-Dvector=int",)
    program = '// no bits/stdc++.h here\n#include <cstdio>\nint main() {{ std::printf("%d\\n", {k}); }}\n'
    plain = '#include <cstdio>\nint main() {{ std::printf("%d\\n", {k}); }}\n'
    runs: list[list[str]] = []
    with engine._slot() as slot:
        real_run = slot.run

        def run(spec):
            runs.append(list(spec.argv))
            return real_run(spec)

        slot.run = run
        try:
            unnamed = [
                cpp.prepare(slot, plain.format(k=k), engine.settings, flags=("-DX",)) for k in range(3)
            ]
            assert len(runs) == 3 and not any("-I" in argv for argv in runs)
            done = [cpp.prepare(slot, program.format(k=k), engine.settings, flags=flags) for k in range(4)]
        finally:
            del slot.run
    assert all(isinstance(p, Prepared) for p in unnamed + done), [
        p for p in unnamed + done if isinstance(p, CompileFailed)
    ]
    assert sum("c++-header" in argv for argv in runs) == 1
    assert not any("-I" in argv for argv in runs)
    for f in (flags, ("-DX",)):
        assert not ((engine.state_dir / "bin") / f"pch-{cpp.pch_key((*cpp.compiler, *f))}").exists()


def test_the_key_changes_with_the_flags_and_with_the_compiler_binary(tmp_path):
    cpp = runner(LANGUAGES["cpp"])
    compiler = tmp_path / "g++"
    compiler.write_bytes(b"a compiler")
    os.utime(compiler, ns=(10**18, 10**18))
    base = cpp.pch_key((str(compiler), "-O2", "-std=c++17"))
    assert cpp.pch_key((str(compiler), "-O2", "-std=c++17")) == base
    assert cpp.pch_key((str(compiler), "-O2", "-std=c++20")) != base
    assert cpp.pch_key((str(compiler), "-O2", "-std=c++17", "-DX")) != base
    os.utime(compiler, ns=(10**18, 10**18 + 1))  # an upgrade in place
    assert cpp.pch_key((str(compiler), "-O2", "-std=c++17")) != base


def test_past_its_cap_the_least_recently_used_headers_go(tmp_path):
    dirs = [tmp_path / f"pch-{i}" for i in range(PCH_MAX + 2)]
    for i, d in enumerate(dirs):
        (d / "bits").mkdir(parents=True)
        os.utime(d, (1000 + i, 1000 + i))
    (tmp_path / "abc123").write_bytes(b"a binary")
    evict_pch(tmp_path, keep=dirs[0])  # the one just built stays, whatever its time
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(["abc123", dirs[0].name, *(d.name for d in dirs[-(PCH_MAX - 1) :])])
