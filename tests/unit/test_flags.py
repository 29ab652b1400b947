"""The caller's compiler options (services/judge/core/flags.py) are untrusted text: checked in work
linear in them, at most MAX_FLAGS_CHARS of them, and a larger value refused with a clear message (the
Judge0 field as the core check). Pure: no stack, no compiler."""

from __future__ import annotations

import time

import pytest
from pydantic import ValidationError

from services.judge.compat import judge0
from services.judge.core.flags import MAX_FLAGS_CHARS, check_flags
from services.judge.core.languages.c import c_allowed
from services.judge.core.languages.cpp import CPP_FLAGS

# options of exactly MAX_FLAGS_CHARS characters together, every one on both allow-lists
AT_THE_LIMIT = [
    ["-D" + "A" * (MAX_FLAGS_CHARS - 2)],  # one long macro name
    ["-W" + "a-" * ((MAX_FLAGS_CHARS - 2) // 2)],  # one long warning name
    ["-DX=" + "1.+-" * ((MAX_FLAGS_CHARS - 4) // 4)],  # one long macro value
    ["-O2", "-lm"] * (MAX_FLAGS_CHARS // 6) + ["-w"] * ((MAX_FLAGS_CHARS % 6) // 2),  # many short ones
]

# within the limit, each a long run of what the allow-lists take, then one character they do not:
# a backtracking matcher retries the run; a linear one reads it once
NEAR_MISSES = [
    ["-D" + "A" * (MAX_FLAGS_CHARS - 3) + "!"],
    ["-D" + "A" * 200 + "=" + "-" * (MAX_FLAGS_CHARS - 204) + "!"],
    ["-W" + "a-" * ((MAX_FLAGS_CHARS - 4) // 2) + "A"],
    ["-fno-" * (MAX_FLAGS_CHARS // 5)],
    ["-std=c++2" + "0" * (MAX_FLAGS_CHARS - 9)],
    ["-O2"] * (MAX_FLAGS_CHARS // 3 - 2) + ["-O"],
    ["-D" + "_" * (MAX_FLAGS_CHARS - 3) + "\u00e9"],
]

# what all the checks below cost, generously: each is some microseconds (about 20 us for a C++ option
# of 512 characters, measured); a bound of 100x over the whole set (and more) leaves room for any load
REPEATS = 50
CPU_BOUND_S = 5.0


def test_the_cpp_allow_list_is_an_re2_pattern():
    # RE2 matches in time linear in the text whatever the pattern; `re` backtracks
    assert type(CPP_FLAGS).__module__.startswith("re2"), type(CPP_FLAGS)


@pytest.mark.parametrize("language", ["cpp", "c"])
def test_options_at_the_size_limit_are_accepted(language):
    for flags in AT_THE_LIMIT:
        assert sum(map(len, flags)) == MAX_FLAGS_CHARS, flags[:2]
        check_flags(language, flags)


@pytest.mark.parametrize("language", ["cpp", "c"])
def test_near_misses_are_refused_each_by_name(language):
    for flags in NEAR_MISSES:
        assert sum(map(len, flags)) <= MAX_FLAGS_CHARS
        with pytest.raises(ValueError, match="is not allowed") as err:
            check_flags(language, flags)
        assert repr(flags[-1]) in str(err.value)  # the option refused: in each case the last


def test_the_checks_cost_is_bounded_in_cpu_time():
    """Every case above, REPEATS times, for both languages: well inside CPU_BOUND_S (a bound, not a
    measurement: linear checks take milliseconds for all of it)."""
    start = time.process_time()
    for _ in range(REPEATS):
        for language in ("cpp", "c"):
            for flags in AT_THE_LIMIT:
                check_flags(language, flags)
            for flags in NEAR_MISSES:
                with pytest.raises(ValueError):
                    check_flags(language, flags)
    assert time.process_time() - start < CPU_BOUND_S


@pytest.mark.parametrize("language", ["cpp", "c", "python"])
def test_options_over_the_size_limit_are_refused_before_matching(language):
    over = ["-O2"] * (MAX_FLAGS_CHARS // 3 + 1)
    with pytest.raises(ValueError, match=f"at most {MAX_FLAGS_CHARS} together") as err:
        check_flags(language, over)
    assert f"of {3 * len(over)} characters" in str(err.value)
    # a huge value costs no more than its length to refuse
    start = time.process_time()
    with pytest.raises(ValueError, match=f"at most {MAX_FLAGS_CHARS}"):
        check_flags(language, ["-D" + "A" * (1 << 20)])
    assert time.process_time() - start < CPU_BOUND_S


def test_c_allowed_agrees_with_the_cpp_pattern_on_the_shared_options():
    for flag in ("-O2", "-Ofast", "-DX=1", "-UX", "-Wall", "-w", "-g", "-g3", "-pthread", "-lm", "-fwrapv"):
        assert c_allowed(flag) and CPP_FLAGS.fullmatch(flag), flag
    for flag in ("-o", "-O4", "-D9", "-W", "-Wé", "-fno-no-rtti", "-include", "@file", "-B/tmp", ""):
        assert not c_allowed(flag) and not CPP_FLAGS.fullmatch(flag), flag


def test_judge0s_compiler_options_field_holds_the_limit_and_refuses_more_clearly():
    sub = judge0.SubmissionIn(source_code="int main(){}", language_id=54, compiler_options="-O2 " * 128)
    assert len(sub.compiler_options) == MAX_FLAGS_CHARS
    run = judge0.to_run(sub, base64_encoded=False)
    assert run.compiler_flags == ["-O2"] * 128
    with pytest.raises(ValidationError, match=f"at most {MAX_FLAGS_CHARS} characters") as err:
        judge0.SubmissionIn(source_code="x", language_id=54, compiler_options="-O2 " * 129)
    assert [e["loc"] for e in err.value.errors()] == [("compiler_options",)]
    # within the field's limit, a near miss is Judge0's 422 for the field, naming the option
    near = judge0.SubmissionIn(source_code="x", language_id=54, compiler_options=NEAR_MISSES[0][0])
    with pytest.raises(judge0.SubmissionRefused) as refused:
        judge0.to_run(near, base64_encoded=False)
    assert list(refused.value.errors) == ["compiler_options"]
    assert "is not allowed" in refused.value.errors["compiler_options"][0]
