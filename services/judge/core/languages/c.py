"""C: `gcc -O2 -std=gnu17 -lm`, a native binary run as C++'s is.

The options a caller may add are C++'s allow-list in plain string tests (no pattern engine, linear in
the option), each matched whole: nothing that names a file (-o, -include, @file, -B, -specs), a plugin
or the linker.
"""

from __future__ import annotations

import string

from services.judge.core.languages.base import Language, TestProgram

_IDENT = set(string.ascii_letters + string.digits + "_")
_VALUE = _IDENT | set(".+-")
_STDS = {f"-std={d}{v}" for d in ("c", "gnu") for v in ("89", "90", "99", "11", "17", "18", "2x", "23")}
_F = {"strict-aliasing", "unroll-loops", "omit-frame-pointer", "wrapv", "trapv", "inline"}
_EXACT = {"-Ofast", "-w", "-g", "-pedantic", "-pedantic-errors", "-pthread", "-lm"} | _STDS


def c_allowed(flag: str) -> bool:
    """A compiler option a caller may add (the compat APIs' compiler_options), matched whole."""
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


class C(Language):
    def build(self, compiler, source):
        return [*compiler, "-o", self.artifact, source, "-lm"]  # libraries after the objects


LANGUAGE = C(
    name="c",
    extensions=(".c",),
    fences=("c", "h"),
    judge0_ids=(48, 49, 50, 103),
    judge0_name="C (GCC, -O2 -std=gnu17)",
    sandboxfusion=("c",),
    compiler=("/usr/bin/gcc", "-O2", "-std=gnu17", "-pipe"),
    source="main.c",
    allow_flag=c_allowed,
    test_program=TestProgram(
        '#include <stdio.h>\nint main(void) { long a, b; scanf("%ld %ld", &a, &b); printf("%ld\\n", a + b); }\n',
        "2 40\n",
        "42\n",
    ),
)
