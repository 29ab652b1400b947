"""C: `gcc -O2 -std=gnu17 -lm`, a native binary run as C++'s is."""

from __future__ import annotations

import string
from dataclasses import dataclass

from services.judge.core.runners import CompiledRunner, flag_refused

_IDENT = set(string.ascii_letters + string.digits + "_")
_VALUE = _IDENT | set(".+-")
_STDS = {f"-std={d}{v}" for d in ("c", "gnu") for v in ("89", "90", "99", "11", "17", "18", "2x", "23")}
_F = {"strict-aliasing", "unroll-loops", "omit-frame-pointer", "wrapv", "trapv", "inline"}
_EXACT = {"-Ofast", "-w", "-g", "-pedantic", "-pedantic-errors", "-pthread", "-lm"} | _STDS


def allowed(flag: str) -> bool:
    """A compiler option a caller may add (the compat APIs' compiler_options), matched whole, as
    C++'s allow-list: nothing that names a file (-o, -include, @file, -B, -specs), a plugin or the
    linker. Plain string tests, no pattern engine, linear in the flag."""
    if flag in _EXACT:
        return True
    head, rest = flag[:2], flag[2:]
    if head == "-O":
        return len(rest) == 1 and rest in "0123sg"
    if head == "-g":
        return len(rest) == 1 and rest in "0123"
    if head in ("-D", "-U"):
        name, eq, value = rest.partition("=")
        return (
            bool(name)
            and name[0] not in string.digits
            and set(name) <= _IDENT
            and (not eq or set(value) <= _VALUE)
        )
    if head == "-W":
        return (
            bool(rest)
            and rest[0] in string.ascii_lowercase
            and set(rest) <= set(string.ascii_lowercase + string.digits + "-")
        )
    if head == "-f":
        return rest.removeprefix("no-") in _F
    return False


@dataclass
class CRunner(CompiledRunner):
    language: str = "c"
    compiler: tuple[str, ...] = ("/usr/bin/gcc", "-O2", "-std=gnu17", "-pipe")
    source: str = "main.c"

    def check_flags(self, flags):
        for flag in flags:
            if not allowed(flag):
                raise flag_refused(flag)

    def build(self, compiler, source):
        return [*compiler, "-o", self.artifact, source, "-lm"]  # libraries after the objects


RUNNER = CRunner()
