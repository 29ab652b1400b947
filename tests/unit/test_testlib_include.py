"""The testlib include rule (services/problems/spec.py) reads uploaded checker sources, which are
untrusted: it finds and replaces the include line by line, in time linear in the source."""

from __future__ import annotations

import time

import pytest

from services.problems.spec import TESTLIB_INCLUDE_RE, is_testlib_checker

SIZE = 16 << 20  # an upload's source at the size of the largest test file a problem may hold


@pytest.mark.parametrize(
    ("rule", "source", "testlib"),
    [
        ("the plain include", '#include "testlib.h"\nint main() {}\n', True),
        ("angle brackets and spaces", "  #  include <testlib.h> // ours\n", True),
        ("after a byte order mark", '\ufeff#include "testlib.h"\n', True),
        ("another header", "#include <stdio.h>\n", False),
        ("the name in a comment", '// #include "testlib.h" is not used\n', False),
    ],
)
def test_a_testlib_checker_is_one_that_includes_testlib_h(rule, source, testlib):
    assert is_testlib_checker(source) is testlib, rule


@pytest.mark.parametrize(
    "source",
    [
        " " * SIZE,  # one line of spaces: each start of the pattern fails at once
        (" " * 1000 + "\n") * (SIZE // 1001),
        (" # include " * 100 + "\n") * (SIZE // 1101),  # near misses on every line
        '#include "testlib.h"\n' * (SIZE // 21),  # every line matches
    ],
    ids=["spaces", "space-lines", "near-misses", "every-line"],
)
def test_the_include_rule_is_linear_on_a_16_mib_source(source):
    """Measured at about 0.25 s for search and sub together at this size: bounded at 100x that."""
    start = time.process_time()
    TESTLIB_INCLUDE_RE.search(source)
    TESTLIB_INCLUDE_RE.sub("", source)
    assert time.process_time() - start < 25.0
