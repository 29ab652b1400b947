"""Assert tests (docs/spec.md 2.5) on the real engine: Python's own semantics, one verdict per test,
and a submission that cannot forge a pass."""

from __future__ import annotations

import pytest

from services.judge.core.verdicts import Outcome, Verdict
from services.problems.spec import ASSERT_PASSED as PASSED
from tests.support.problems import make_problem, sub

SETUP = "from typing import List\n\n"


def assert_problem(store, tests: list[str], pid: str = "ap", entry: str = "f", **spec):
    cases = [(f"{i + 1:02d}", SETUP + t + "\n", PASSED) for i, t in enumerate(tests)]
    return make_problem(store, cases, pid=pid, entry_point=entry, **spec)


def verdicts(result):
    """The verdicts in the order the tests were listed (they run smallest first)."""
    return [t.verdict for t in sorted(result.tests, key=lambda t: t.name)]


GOOD = "def f(x):\n    return x * 2\n"


def test_each_assert_is_a_test_with_its_own_verdict(engine, store):
    p = assert_problem(store, ["assert f(1) == 2", "assert f(2) == 5", "assert f(3) == 6"])
    r = engine.judge(p, sub(GOOD, problem_id="ap"), mode="full")
    assert verdicts(r) == [Verdict.AC, Verdict.WA, Verdict.AC]
    assert r.outcome == Outcome.CORRECTNESS_FAILURE
    # R_k comes from the per-test verdicts like any test's
    assert r.rewards is not None and min(r.rewards.values()) < 1.0
    ok = engine.judge(assert_problem(store, ["assert f(1) == 2"], pid="ap1"), sub(GOOD, problem_id="ap1"))
    assert ok.outcome == Outcome.CORRECT and set(ok.rewards.values()) == {1.0}


def test_python_semantics_tuples_sets_truthiness(engine, store):
    code = (
        "def f(x):\n"
        "    if x == 0: return (1, 2)\n"
        "    if x == 1: return {3, 1, 2}\n"
        "    if x == 2: return []\n"
        "    if x == 3: return 1.0\n"
        "    return {1: 'a', (2, 3): 'b'}\n"
    )
    tests = [
        "assert f(0) == (1, 2)",
        "assert f(0) != [1, 2]",  # a tuple is not a list
        "assert f(1) == {1, 2, 3}",
        "assert not f(2)",
        "assert f(3) == 1 and f(3) is not True",
        "assert f(4) == {(2, 3): 'b', 1: 'a'}",  # non-string keys
        "def check(candidate):\n    for i in range(5):\n        assert candidate(i) is not None\n",
        "import math\nassert math.isclose(f(3), 1.0000000001)",
    ]
    p = assert_problem(store, tests, pid="apsem")
    r = engine.judge(p, sub(code, problem_id="apsem"), mode="full")
    assert verdicts(r) == [Verdict.AC] * len(tests), [t.message for t in r.tests]


def test_candidate_exception_is_re_and_expected_exception_passes(engine, store):
    code = "def f(x):\n    if x < 0:\n        raise ValueError('negative')\n    return x\n"
    tests = [
        "assert f(-1) == 0",
        "try:\n    f(-1)\nexcept ValueError:\n    pass\nelse:\n    assert False\n",
        "assert f(2) == 2",
    ]
    p = assert_problem(store, tests, pid="apexc")
    r = engine.judge(p, sub(code, problem_id="apexc"), mode="full")
    assert verdicts(r) == [Verdict.RE, Verdict.AC, Verdict.AC]


def test_syntax_error_is_ce_and_missing_function_is_re(engine, store):
    p = assert_problem(store, ["assert f(1) == 2", "assert f(2) == 4"], pid="apce")
    r = engine.judge(p, sub("def f(x):\n    return (x\n", problem_id="apce"))
    assert r.tests[0].verdict == Verdict.CE and r.compile_output
    r = engine.judge(p, sub("def g(x):\n    return 2 * x\n", problem_id="apce"))
    assert r.tests[0].verdict == Verdict.RE
    # a future import is legal at the top of the submission
    r = engine.judge(p, sub("from __future__ import annotations\n" + GOOD, problem_id="apce"))
    assert r.outcome == Outcome.CORRECT, r


def test_time_limit_in_the_candidate_is_tle(engine, store):
    p = assert_problem(store, ["assert f(1) == 2"], pid="aptle", time_limit_ms=500)
    r = engine.judge(p, sub("def f(x):\n    while True:\n        pass\n", problem_id="aptle"))
    assert r.tests[0].verdict == Verdict.TLE


# each test calls f once: a forgery writes its "ok" exactly once, in the call
FORGERIES = {
    "prints passed": "import sys\ndef f(x):\n    print('ok')\n    return 0\n",
    "writes sys.__stdout__": "import sys\ndef f(x):\n    sys.__stdout__.write('ok\\n')\n    sys.__stdout__.flush()\n"
    "    return 0\n",
    "writes fd 1": "import os\ndef f(x):\n    os.write(1, b'ok\\n')\n    return 0\n",
    "exits 0 at import": "import os\nos._exit(0)\ndef f(x):\n    return 0\n",
    "exits 0 in the call": "import os\ndef f(x):\n    os.write(1, b'ok\\n')\n    os._exit(0)\n",
    "raises SystemExit": "def f(x):\n    raise SystemExit(0)\n",
    "patches AssertionError and builtins": (
        "import builtins\n"
        "class Never(BaseException):\n    pass\n"
        "builtins.AssertionError = Never\n"
        "builtins.print = lambda *a, **k: None\n"
        "def f(x):\n    return 0\n"
    ),
    "always-equal object": (
        "class Eq:\n    def __eq__(self, other):\n        return True\n    def __bool__(self):\n        return True\n"
        "def f(x):\n    return Eq()\n"
    ),
    "always-equal subclass of int": (
        "class I(int):\n    def __eq__(self, other):\n        return True\ndef f(x):\n    return I(0)\n"
    ),
    "reduce to a callable": (
        "import os\n"
        "class R:\n    def __reduce__(self):\n        return (os.system, ('echo ok',))\n"
        "def f(x):\n    return R()\n"
    ),
    "patches the check's globals through frames": (
        "import sys, gc\n"
        "def f(x):\n"
        "    for o in gc.get_objects():\n"
        "        if isinstance(o, dict) and 'check' in o:\n"
        "            o['check'] = lambda c: None\n"
        "    fr = sys._getframe()\n"
        "    while fr is not None:\n"
        "        fr.f_globals['AssertionError'] = KeyError\n"
        "        fr = fr.f_back\n"
        "    return 0\n"
    ),
    "opens the parent's stdout": (
        "import os\n"
        "def f(x):\n"
        "    for path in ('/proc/%d/fd/1' % os.getppid(), '/dev/stdout', '/io/stdout'):\n"
        "        try:\n"
        "            with open(path, 'w') as out:\n"
        "                out.write('ok\\n')\n"
        "            return 0\n"
        "        except OSError:\n"
        "            pass\n"
        "    return 0\n"
    ),
    "reads the test from the parent": (
        "import os, re\n"
        "def f(x):\n"
        "    try:\n"
        "        text = open('/proc/%d/fd/0' % os.getppid()).read()\n"
        "    except OSError:\n"
        "        return 0\n"
        "    return int(re.findall(r'== (\\d+)', text)[0])\n"
    ),
    "kills the check process": "import os, signal\ndef f(x):\n    os.kill(os.getppid(), signal.SIGKILL)\n",
    "stops the check process": "import os, signal\ndef f(x):\n    os.kill(os.getppid(), signal.SIGSTOP)\n",
}


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_a_submission_cannot_forge_a_pass(engine, store, name):
    p = assert_problem(
        store,
        ["assert f(3) == 6", "def check(candidate):\n    assert candidate(4) == 8\n"],
        pid="apforge",
        time_limit_ms=1000,
    )
    r = engine.judge(p, sub(FORGERIES[name], problem_id="apforge"), mode="full")
    assert r.status == "ok"
    assert all(t.verdict != Verdict.AC for t in r.tests), (name, r.tests)
    assert r.outcome != Outcome.CORRECT


def test_a_stop_iteration_from_the_submission_does_not_end_the_tests_loop(engine, store):
    # in one process, a StopIteration raised by the candidate ends map() early: all([]) is True
    p = assert_problem(store, ["assert all(map(f, [1, 2, 3]))"], pid="apstop")
    forged = "def f(x):\n    raise StopIteration\n"
    r = engine.judge(p, sub(forged, problem_id="apstop"))
    assert r.tests[0].verdict == Verdict.RE, r.tests
    assert engine.judge(p, sub(GOOD, problem_id="apstop")).outcome == Outcome.CORRECT


def test_messages_never_quote_the_test(engine, store):
    """An RE's message is stderr: the submission's own exception, never the test's prints or its
    assertion text (which may quote a hidden expected value)."""
    tests = [
        "print('SECRET1')\nassert f(-1) == 1, 'SECRET2'",
        "try:\n    f(-1)\nexcept ValueError:\n    raise AssertionError('SECRET3')",
        "import sys\nsys.stderr.write('')\nassert f(0) == 'SECRET4', 'SECRET5'",
    ]
    # public: a hidden test's message may be withheld altogether; a public one shows stderr
    p = assert_problem(store, tests, pid="apquote", public_tests=["01", "02", "03"])
    code = "import os\ndef f(x):\n    if x == 0:\n        os._exit(3)\n    raise ValueError('mine')\n"
    r = engine.judge(p, sub(code, problem_id="apquote"), mode="full")
    assert verdicts(r) == [Verdict.RE, Verdict.WA, Verdict.RE], r.tests
    assert "ValueError: mine" in ({t.name: t for t in r.tests}["01"].message or "")
    assert not any("SECRET" in (t.message or "") for t in r.tests), r.tests


def _subset():
    import types

    from services.judge.core.asserts import NUMPY_SUBSET

    mod = types.ModuleType("numpy_subset")
    exec(compile(NUMPY_SUBSET, "<numpy subset>", "exec"), mod.__dict__)
    return mod


def test_the_numpy_subset_agrees_with_numpy():
    """The check process's stand-in for numpy (no numpy in the sandbox) against the real one."""
    import numpy as np
    from hypothesis import given, settings
    from hypothesis import strategies as st

    sub_np = _subset()
    floats = st.floats(allow_nan=True, allow_infinity=True, width=64) | st.integers(-(10**6), 10**6)
    values = floats | st.lists(floats, min_size=1, max_size=5)
    tol = st.sampled_from([0.0, 1e-9, 1e-6, 1e-3, 0.5])

    @settings(max_examples=400, deadline=None)
    @given(values, values, tol, tol)
    def agree(a, b, rtol, atol):
        try:
            want = bool(np.allclose(a, b, rtol=rtol, atol=atol))
        except ValueError:
            want = ValueError
        try:
            got = sub_np.allclose(a, b, rtol=rtol, atol=atol)
        except ValueError:
            got = ValueError
        assert got == want, (a, b, rtol, atol)
        try:
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
            want = True
        except AssertionError:
            want = False
        except ValueError:
            want = ValueError
        try:
            sub_np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
            got = True
        except AssertionError:
            got = False
        except ValueError:
            got = ValueError
        if want is not ValueError:
            assert got == want, (a, b, rtol, atol)

    agree()


def _outcome(f, *args, **kw):
    """What numpy (or the stand-in) makes of a call: its value as plain data, or "refused" when it
    raised (numpy's conversion errors are TypeError and ValueError subclasses; an assert's failure is
    AssertionError)."""
    try:
        value = f(*args, **kw)
    except AssertionError:
        return "unequal"
    except (TypeError, ValueError):
        return "refused"
    return value.tolist() if hasattr(value, "tolist") else value


def test_the_numpy_stand_in_refuses_what_numpy_refuses_and_agrees_on_the_rest():
    """Any operand the submission could return (a number, a string, None, bytes, a container,
    ragged or rectangular lists of any of them) against the test's: the stand-in's allclose, isclose
    and assert_allclose give numpy's value, or raise where numpy raises. (A Fraction, which numpy
    compares as an object, the stand-in refuses.)"""
    import numpy as np
    from hypothesis import given, settings
    from hypothesis import strategies as st

    sub_np = _subset()
    scalars = (
        st.floats(allow_nan=True, allow_infinity=True, width=64)
        | st.integers(-(10**6), 10**6)
        | st.booleans()
        | st.complex_numbers(max_magnitude=1e6, allow_nan=False, allow_infinity=False)
        | st.sampled_from(["1.0", "0", "", b"1", None, {1: 2}, frozenset({1.0})])
    )
    values = st.recursive(
        scalars, lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner), max_leaves=8
    )
    tol = st.sampled_from([0.0, 1e-9, 1e-6, 1e-3, 0.5])

    @settings(max_examples=600, deadline=None)
    @given(values, values, tol, tol)
    def agree(a, b, rtol, atol):
        for name in ("allclose", "isclose"):
            want = _outcome(getattr(np, name), a, b, rtol=rtol, atol=atol)
            got = _outcome(getattr(sub_np, name), a, b, rtol=rtol, atol=atol)
            assert got == want or (got != got and want != want), (name, a, b, rtol, atol, got, want)
        # an assert passes or fails the test (numpy checks shapes before it converts the values, so
        # which failure comes first may differ)
        want = _outcome(np.testing.assert_allclose, a, b, rtol=rtol, atol=atol) is None
        got = _outcome(sub_np.testing.assert_allclose, a, b, rtol=rtol, atol=atol) is None
        assert got == want, ("assert_allclose", a, b, rtol, atol, got, want)

    agree()
    # EvalPlus's inputs, as its `assertion` helper calls allclose (rtol 1e-07, atol 1e-06 for floats)
    for a, b in [
        ("1.0", 1.0),
        ([1.0, "2.0"], [1.0, 2.0]),
        (None, 0.0),
        ([[1.0], [2.0]], [1.0, 2.0]),
        ([1.0, 2.0], (1.0, 2.0000001)),
        (3, 3.0000001),
        ([], []),
        ([True, 2], [1.0, 2.0]),
    ]:
        assert _outcome(sub_np.allclose, a, b, rtol=1e-07, atol=1e-06) == _outcome(
            np.allclose, a, b, rtol=1e-07, atol=1e-06
        ), (a, b)


EVALPLUS_ASSERT = (
    "import numpy as np\n"
    "def is_floats(x):\n"
    "    if isinstance(x, float):\n        return True\n"
    "    if isinstance(x, (list, tuple)):\n        return all(isinstance(i, float) for i in x)\n"
    "    if isinstance(x, np.ndarray):\n        return x.dtype == np.float64 or x.dtype == np.float32\n"
    "    return False\n"
    "def assertion(out, exp, atol):\n"
    "    exact_match = out == exp\n"
    "    if atol == 0 and is_floats(exp):\n        atol = 1e-6\n"
    "    if not exact_match and atol != 0:\n        assert np.allclose(out, exp, rtol=1e-07, atol=atol)\n"
    "    else:\n        assert exact_match\n"
    "assertion(candidate(2), 0.5, 0)\n"
)


def test_a_string_answer_fails_an_evalplus_float_test(engine, store):
    p = assert_problem(store, [EVALPLUS_ASSERT], pid="apnumpy")
    assert verdicts(engine.judge(p, sub("def f(x):\n    return 1 / x\n", problem_id="apnumpy"))) == [
        Verdict.AC
    ]
    for answer in ("'0.5'", "'0.50000001'", "[0.5, '0.5']", "None"):
        r = engine.judge(p, sub(f"def f(x):\n    return {answer}\n", problem_id="apnumpy"))
        assert verdicts(r) == [Verdict.WA], (answer, r.tests)


def test_the_value_codec_keeps_exact_types_and_refuses_the_rest():
    """What crosses between the two processes (CODEC_SOURCE): a round trip keeps the value and the
    exact type of every part; a subclass or an object of the submission's own cannot be encoded, and
    bytes that are not a tagged value do not decode."""
    import collections
    import decimal
    import fractions
    import json

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from services.judge.core.asserts import CODEC_SOURCE

    codec: dict = {}
    exec(compile(CODEC_SOURCE, "<codec>", "exec"), codec)
    encode, decode = codec["encode"], codec["decode"]

    def shape(v):
        if isinstance(v, dict):
            return (type(v), [(shape(k), shape(x)) for k, x in v.items()])
        if isinstance(v, list | tuple | collections.deque):
            return (type(v), [shape(x) for x in v])
        if isinstance(v, set | frozenset):
            return (type(v), sorted(repr(shape(x)) for x in v))
        return (type(v), repr(v))

    keys = st.none() | st.booleans() | st.integers() | st.text(max_size=5) | st.floats(allow_nan=False)
    leaves = keys | st.floats() | st.binary(max_size=5) | st.complex_numbers(allow_nan=False)
    values = st.recursive(
        leaves,
        lambda c: (
            st.lists(c, max_size=4)
            | st.tuples(c, c)
            | st.dictionaries(keys, c, max_size=3)
            | st.frozensets(keys, max_size=3)
            | st.sets(keys, max_size=3)
        ),
        max_leaves=12,
    )

    @settings(max_examples=300, deadline=None)
    @given(values)
    def round_trip(v):
        back = decode(json.loads(json.dumps(encode(v))))
        assert shape(back) == shape(v)

    round_trip()
    extras = [
        collections.OrderedDict([(2, "b"), (1, "a")]),
        collections.Counter("abca"),
        collections.defaultdict(list, {1: [2]}),
        collections.deque([1, 2], maxlen=3),
        decimal.Decimal("1.10"),
        fractions.Fraction(3, 7),
        range(1, 10, 2),
        slice(1, None, 2),
        bytearray(b"xy"),
        Ellipsis,
        float("nan"),
        -0.0,
        10**4000,
    ]
    for v in extras:
        back = decode(json.loads(json.dumps(encode(v))))
        assert type(back) is type(v) and repr(back) == repr(v)

    class Sub(int):
        pass

    class Eq:
        def __eq__(self, other):
            return True

    for v in (Sub(1), Eq(), [1, Eq()], {1: Sub(2)}, True.__class__, lambda: 0, iter([])):
        with pytest.raises(TypeError):
            encode(v)
    for raw in ([1, 2], ["zz", 1], ["F", 1], ["r", ["a", 1, 1]], {"a": 1}, ["dd", ["eval", []]]):
        with pytest.raises((ValueError, KeyError, TypeError)):
            decode(raw)
