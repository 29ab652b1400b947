"""C++: `g++ -O2 -std=c++17`, compiled inside the sandbox once per distinct source; a native binary.

`bits/stdc++.h`, the header most contest programs include, is precompiled once per flag set inside
the sandbox (runners.py, CompiledRunner.pch_dir): a compile that includes it first reads the
precompiled header, for about a fifth of the compile's CPU time; GCC itself falls back to the header
wherever the precompiled one does not apply (a macro or pragma before the include, other flags).

The options a caller may add are an RE2 pattern (the option is untrusted text: RE2 matches in time
linear in it for any pattern), each matched whole: nothing that names a file (-o, -include, @file,
-B, -specs), a plugin or the linker.
"""

from __future__ import annotations

import re2

from services.judge.core.languages.base import Language, TestProgram

CPP_FLAGS = re2.compile(
    r"-O[0-3sg]|-Ofast|-std=(c|gnu)\+\+(98|03|11|14|17|20|23|26|2a|2b|2c)"
    r"|-[DU][A-Za-z_][A-Za-z0-9_]*(=[A-Za-z0-9_.+-]*)?|-w|-W[a-z][a-z0-9-]*|-g[0-3]?"
    r"|-pedantic(-errors)?|-pthread|-lm"
    r"|-f(no-)?(exceptions|rtti|strict-aliasing|unroll-loops|omit-frame-pointer|wrapv|trapv|inline)"
)


def cpp_allowed(flag: str) -> bool:
    return CPP_FLAGS.fullmatch(flag) is not None


LANGUAGE = Language(
    name="cpp",
    extensions=(".cpp", ".cc", ".cxx", ".c++"),
    fences=("cpp", "c++", "cxx", "cc", "hpp"),
    judge0_ids=(52, 53, 54, 105),
    judge0_name="C++ (GCC, -O2 -std=c++17)",
    sandboxfusion=("cpp",),
    compiler=("/usr/bin/g++", "-O2", "-std=c++17", "-pipe"),
    source="main.cpp",
    allow_flag=cpp_allowed,
    precompiled_header="bits/stdc++.h",
    test_program=TestProgram(
        "#include <iostream>\nint main() { long long a, b; std::cin >> a >> b; std::cout << a + b << '\\n'; }\n",
        "2 40\n",
        "42\n",
    ),
)
