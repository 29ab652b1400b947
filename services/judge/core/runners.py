"""Runners. A runner turns source into something a slot can run once per test.

One runner per language of services/judge/core/languages (its declaration says how it compiles and
runs): Python forks the slot's warm interpreter; a compiled language compiles once per distinct
source (cached by hash) and execs the cached artifact.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from services.judge.core.flags import COMPILE_TIMED_OUT, check_flags
from services.judge.core.functional import wrap
from services.judge.core.languages import LANGUAGES, Language
from services.judge.core.sandbox.slot import HostStarved, RunSpec, Slot
from services.settings import Settings


@dataclass(frozen=True)
class Prepared:
    kind: str  # "python" | "exec" (see RunSpec)
    code: str | None = None
    argv: tuple[str, ...] = ()
    # a compiled language's runner and pinned artifact: its argv may depend on the memory limit
    runner: Runner | None = field(default=None, compare=False)
    artifact: str | None = None

    def command(self, memory_limit_mb: int) -> tuple[str, ...]:
        """The argv of a run under `memory_limit_mb` (a JVM sizes its heap from it)."""
        if self.runner is not None and self.artifact is not None:
            return self.runner.command(self.artifact, memory_limit_mb)
        return self.argv


@dataclass(frozen=True)
class CompileFailed:
    message: str


class Runner:
    definition: Language

    @property
    def language(self) -> str:
        return self.definition.name

    def prepare(
        self,
        slot: Slot,
        code: str,
        settings: Settings,
        function: str | None = None,
        *,
        time_limit_ms: int | None = None,
        flags: Sequence[str] = (),
    ) -> Prepared | CompileFailed:
        """What to run for `code`. A compiled language compiles under `time_limit_ms` (default
        FRONTIER_COMPILE_TIME_LIMIT_MS) with `flags` after its own (checked by `check_flags`)."""
        raise NotImplementedError

    def check_flags(self, flags: Sequence[str]) -> None:
        """ValueError unless every compiler flag is one this language lets a caller add (core/flags.py)."""
        check_flags(self.language, flags)


@dataclass(frozen=True)
class PythonRunner(Runner):
    """Forks the slot's warm interpreter; syntax errors surface on the first run as CE."""

    definition: Language

    def prepare(self, slot, code, settings, function=None, *, time_limit_ms=None, flags=()):
        return Prepared(kind="python", code=wrap(code, function) if function else code)


PINS_PER_SLOT = 4  # a submission's program and its checker, with room to spare
_evicting = threading.Lock()
# precompiled headers (CompiledRunner.pch_dir): how many a binary cache keeps (bits/stdc++.h's is
# about 100 MB), how large one may be, and the file its build compiles (the judge's own text)
PCH_MAX = 4
PCH_OUTPUT_LIMIT_BYTES = 1 << 30
PCH_SOURCE = "pch.hpp"


def _pin(slot: Slot, digest: str) -> str | None:
    """Give the slot its own hard link to a cached binary and return the link as the sandbox sees it;
    None when the binary is no longer in the cache.

    A run execs the slot's link, never the cache's name: evicting the name (here or in another judge
    process on the same state dir) leaves the file to the runs that use it.
    """
    link = slot.pin_dir / digest
    if digest in slot.pinned:
        slot.pinned.remove(digest)
    else:
        try:
            os.link(Path(slot.bin_dir) / digest, link)
        except FileExistsError:
            pass
        except FileNotFoundError:
            return None
    slot.pinned.append(digest)
    while len(slot.pinned) > PINS_PER_SLOT:
        (slot.pin_dir / slot.pinned.pop(0)).unlink(missing_ok=True)
    try:
        os.utime(Path(slot.bin_dir) / digest)  # the cache's notion of "recently used"
    except FileNotFoundError:
        pass
    return f"/bincache/{slot.pin_dir.name}/{digest}"


def evict(bin_dir: Path, cap_bytes: int) -> int:
    """Remove the least recently used binaries until the cache holds at most `cap_bytes`; also the
    pins of slots whose judge process is gone. Returns the bytes removed."""
    with _evicting:
        binaries, total = [], 0
        for entry in os.scandir(bin_dir):
            if entry.name.startswith(".pins-"):
                pid = entry.name.split("-")[1]
                if pid.isdigit() and int(pid) != os.getpid() and not os.path.exists(f"/proc/{pid}"):
                    shutil.rmtree(entry.path, ignore_errors=True)
                continue
            if "." in entry.name or not entry.is_file(follow_symlinks=False):
                continue  # a binary being written (`<digest>.<pid>.tmp`)
            st = entry.stat(follow_symlinks=False)
            binaries.append((st.st_mtime, st.st_blocks * 512, entry.name))
            total += st.st_blocks * 512
        removed = 0
        for _, size, name in sorted(binaries):
            if total - removed <= cap_bytes:
                break
            try:
                os.unlink(bin_dir / name)
                removed += size
            except FileNotFoundError:
                pass
        return removed


@dataclass
class CompiledRunner(Runner):
    """A language compiled inside the sandbox once per distinct source (cached by hash, docs/spec.md 3.1),
    as its declaration (`definition`) says: the build argv, the artifact, the run's argv."""

    definition: Language
    _failures: OrderedDict = field(default_factory=OrderedDict)
    # precompiled headers: compiles asked for per binary cache and flag set (its key), sets whose
    # build failed, and sets being built by another slot right now
    _pch_uses: OrderedDict = field(default_factory=OrderedDict)
    _pch_failed: set = field(default_factory=set)
    _pch_building: set = field(default_factory=set)
    _pch_lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def compiler(self) -> tuple[str, ...]:
        return self.definition.compiler or ()

    def build(self, compiler: Sequence[str], source: str) -> list[str]:
        return self.definition.build(compiler, source)

    def command(self, pinned: str, memory_limit_mb: int) -> tuple[str, ...]:
        """The argv of one run of the cached artifact, as the sandbox sees it."""
        return self.definition.command(pinned, memory_limit_mb)

    def prepared(self, pinned: str) -> Prepared:
        return Prepared(kind="exec", argv=self.command(pinned, 0), runner=self, artifact=pinned)

    def cache_key(self, compiler: Sequence[str], source: str, code: str) -> str:
        """The name of `code`'s binary in the cache (and of its compile failure): a digest of a JSON
        array of everything the compile depends on (the language, the whole build argv with its flags,
        the source's file name, the source), so no two compiles share a key whatever bytes the source
        or a flag holds (a separator-joined string could be split two ways)."""
        fields = ["compile/1", self.language, self.build(tuple(compiler), source), source, code]
        encoded = json.dumps(fields, ensure_ascii=True, separators=(",", ":"))  # lone surrogates escaped
        return hashlib.sha256(encoded.encode("ascii")).hexdigest()

    def pch_key(self, compiler: Sequence[str]) -> str:
        """The name of the precompiled header of a compile with `compiler` (the whole argv before the
        output and the source: the toolchain, its fixed options and the caller's): a digest of that
        argv, of the compiler binary as it is now (its real path, size and modification time, so an
        upgrade builds anew) and of the header's name. GCC checks the rest itself: a precompiled
        header made by another compiler, or under other options or macros, is not used."""
        binary = os.path.realpath(compiler[0])
        st = os.stat(binary)
        fields = [
            "pch/1",
            self.language,
            list(compiler),
            binary,
            st.st_size,
            st.st_mtime_ns,
            self.definition.precompiled_header,
        ]
        encoded = json.dumps(fields, ensure_ascii=True, separators=(",", ":"))
        return hashlib.sha256(encoded.encode("ascii")).hexdigest()

    def pch_dir(self, slot: Slot, compiler: Sequence[str], settings: Settings) -> str | None:
        """The include directory, as the sandbox sees it, that holds the precompiled header of this
        flag set (`<dir>/bits/stdc++.h.gch`), or None: the language has none, they are off, or none is
        built yet. Asked only for a source that names the header. A flag set's header is built on its
        second such compile (a one-off set costs no build),
        once per binary cache: in the sandbox like any compile, from the system header alone (the
        judge's one-line source, never a submission's), under the compile's limits; the compiler
        writes it to its stdout file (too large for /tmp), which the host then moves, as root and
        read-only to every run, to <bin>/pch-<key>/. Past PCH_MAX the least recently used go.

        Given with -I, the directory comes before the system's: a source whose first include is the
        header reads the precompiled one; GCC parses the header itself wherever the precompiled one
        does not apply (a macro or pragma before the include), and the binary is the same."""
        header = self.definition.precompiled_header
        if header is None or not settings.precompiled_headers:
            return None
        key = self.pch_key(compiler)
        final = Path(slot.bin_dir) / f"pch-{key}"
        if final.is_dir():
            try:
                os.utime(final)  # the least recently used go first
            except FileNotFoundError:
                return None
            return f"/bincache/{final.name}"
        with self._pch_lock:
            if key in self._pch_failed or key in self._pch_building:
                return None
            seen = (str(slot.bin_dir), key)  # per binary cache: each builds its own
            uses = self._pch_uses.pop(seen, 0) + 1
            self._pch_uses[seen] = uses
            while len(self._pch_uses) > 1024:
                self._pch_uses.popitem(last=False)
            if uses < 2:
                return None
            self._pch_building.add(key)
        try:
            return self._build_pch(slot, compiler, settings, header, key, final)
        finally:
            with self._pch_lock:
                self._pch_building.discard(key)

    def _build_pch(
        self, slot: Slot, compiler: Sequence[str], settings: Settings, header: str, key: str, final: Path
    ) -> str | None:
        limit_ms = settings.compile_time_limit_ms
        spec = RunSpec(
            kind="exec",
            argv=[*compiler, "-x", "c++-header", PCH_SOURCE, "-o", "/dev/fd/1"],
            source_file=(PCH_SOURCE, f"#include <{header}>\n"),
            time_limit_ms=limit_ms,
            memory_limit_mb=settings.compile_memory_limit_mb,
            wall_limit_ms=limit_ms * 2,
            output_limit_bytes=PCH_OUTPUT_LIMIT_BYTES,
            pids_max=settings.pids_max,
            open_files_max=settings.open_files_max,
            own_stdout=True,
        )
        result = slot.run(spec)
        out = result.stdout_path
        tmp = Path(slot.bin_dir) / f".pch-{key}.{os.getpid()}.{threading.get_ident()}.tmp"
        try:
            if result.starved:  # the host's doing: no verdict on the flag set, tried again later
                return None
            if result.exit_code != 0 or result.stdout_bytes == 0:
                with self._pch_lock:
                    self._pch_failed.add(key)
                return None
            gch = tmp / f"{header}.gch"
            gch.parent.mkdir(parents=True)
            shutil.move(out, gch)
            if os.geteuid() == 0:  # the build's uid owned it: root's now, read-only to every run
                os.chown(gch, 0, 0)
            os.chmod(gch, 0o644)
            for d in (gch.parent, *gch.parent.parents):
                os.chmod(d, 0o755)
                if d == tmp:
                    break
            try:
                os.rename(tmp, final)
            except OSError:  # another judge on this cache built it first
                pass
        finally:
            # never leave a file the build's uid owns where later runs write their output
            out.unlink(missing_ok=True)
            shutil.rmtree(tmp, ignore_errors=True)
        evict_pch(Path(slot.bin_dir), keep=final)
        return f"/bincache/{final.name}" if final.is_dir() else None

    def prepare(self, slot, code, settings, function=None, *, time_limit_ms=None, flags=()):
        if function:
            return CompileFailed("functional (class Solution) problems take Python submissions")
        self.check_flags(flags)
        missing = [t for t in self.definition.tools() if not os.path.exists(t)]
        if missing:  # the judge's own failure (judge_error), never the program's CE
            raise FileNotFoundError(f"{self.language} is not installed on this judge: no {missing[0]}")
        compiler = (*self.compiler, *flags)
        source = self.definition.source_name(code)
        limit_ms = settings.compile_time_limit_ms if time_limit_ms is None else time_limit_ms
        digest = self.cache_key(compiler, source, code)
        binary = Path(slot.bin_dir) / digest
        if binary.exists() and (pinned := _pin(slot, digest)):
            return self.prepared(pinned)
        failed = self._failures.get(digest)
        # a compile that ran out of time is tried again under a longer limit
        if failed is not None and (failed[1] is None or limit_ms <= failed[1]):
            return CompileFailed(failed[0])
        # only for a source that names the header (nor is one built for a flag set whose sources never
        # do); the cache key stays that of the plain compile: the binary is the same with the header
        header = self.definition.precompiled_header
        pch = self.pch_dir(slot, compiler, settings) if header is not None and header in code else None
        spec = RunSpec(
            kind="exec",
            argv=self.build((*compiler, "-I", pch) if pch else compiler, source),
            source_file=(source, code),
            keep=(self.definition.artifact, f"/bincache/{digest}"),
            time_limit_ms=limit_ms,
            memory_limit_mb=settings.compile_memory_limit_mb,
            wall_limit_ms=limit_ms * 2,
            output_limit_bytes=64 << 20,
            pids_max=settings.pids_max,
            open_files_max=settings.open_files_max,
        )
        result = slot.run(spec)
        if result.starved:  # the host's doing, not the source's (docs/spec.md 4.1): once more
            result = slot.run(spec)
            if result.starved:
                raise HostStarved(
                    f"the host starved the {self.language} compile twice ({round(result.cpu_ms)} ms of CPU "
                    f"in {round(result.wall_ms)} ms): the host is oversubscribed"
                )
        if result.exit_code == 0 and binary.exists() and (pinned := _pin(slot, digest)):
            evict(Path(slot.bin_dir), settings.bin_cache_mb << 20)  # pinned first: never our own
            return self.prepared(pinned)
        timed_out = result.cpu_killed or result.wall_killed
        if timed_out:
            message = f"{COMPILE_TIMED_OUT} ({limit_ms} ms)"
        elif result.oom_killed:
            message = "compilation exceeded its memory limit"
        else:
            message = result.stderr_text(settings.stderr_keep_bytes) or f"compiler exit {result.exit_code}"
        self._failures[digest] = (message, limit_ms if timed_out else None)
        while len(self._failures) > 1024:
            self._failures.popitem(last=False)
        return CompileFailed(message)


def evict_pch(bin_dir: Path, keep: Path) -> None:
    """Keep the PCH_MAX most recently used precompiled headers of a binary cache (`keep` among them);
    a compile that has one open reads on, and one that looks for a removed one parses the header."""
    found, others = 0, []
    for entry in os.scandir(bin_dir):
        if entry.name.startswith("pch-") and entry.is_dir(follow_symlinks=False):
            found += 1
            if Path(entry.path) != keep:
                others.append((entry.stat(follow_symlinks=False).st_mtime, entry.path))
    for _, path in sorted(others)[: max(0, found - PCH_MAX)]:
        shutil.rmtree(path, ignore_errors=True)


def runner(definition: Language) -> Runner:
    """The runner of one language's declaration."""
    return PythonRunner(definition) if definition.compiler is None else CompiledRunner(definition)


RUNNERS: dict[str, Runner] = {name: runner(definition) for name, definition in LANGUAGES.items()}
