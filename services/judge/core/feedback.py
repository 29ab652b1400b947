"""Feedback on a failing result (docs/spec.md section 5.1): what a repair policy is shown. Pure.

The engine keeps, for each failing *public* test, the heads of its input, expected and actual output
and its stderr (`Kept`); `build` turns a result, the problem's limits and those into a `Feedback`
(every failing test's verdict, size and statistics; content for public tests only), and `render`
writes the next user turn from it with a `Template`.

A hidden test never contributes content: `build` reads only the verdict, size and statistics of a
test that is not public, whatever was kept, and `attach` also drops a hidden test's `message` (a
program's stderr or a checker's text, which can quote the test) from the result itself.

Sizes, all in characters of the decoded text:

- each shown text of `Feedback` (input, expected, actual, stderr, compile output) is cut to
  `SHOW_CHARS`, marked `truncated`;
- in the rendered text, each test's error text (the wrong-answer line, the traceback, ...) is cut to
  `template.error_chars` (512): a traceback keeps its first line and its tail; the input shown is cut
  to `template.input_chars`;
- the whole text is cut to `template.max_chars`, 4,096 characters: 1,024 tokens at the usual four
  characters a token. Whole tests are dropped from the end, and a line says how many.
"""

from __future__ import annotations

import math
import string
from dataclasses import dataclass, field, replace

import re2

from services.judge.core.functional import PRELUDE
from services.judge.core.models import Feedback, FirstDiff, JudgeResult, TestFeedback
from services.judge.core.verdicts import Outcome, Verdict

SHOW_CHARS = 2048  # each text shown in a TestFeedback
KEEP_BYTES = 64 << 10  # what the engine reads of a public test's files (first_diff looks this far)
FAILING = frozenset(v for v in Verdict if v not in (Verdict.AC, Verdict.SKIPPED))


@dataclass(frozen=True)
class Kept:
    """What the engine read of one failing public test before its slot was reused: file heads, with
    the full sizes, and the stderr (head and tail when it was long)."""

    input: bytes = b""
    input_total: int = 0
    expected: bytes = b""
    expected_total: int = 0
    actual: bytes = b""
    actual_total: int = 0
    stderr: str = ""


# -- building -----------------------------------------------------------------------------------------
def attach(
    result: JudgeResult,
    *,
    public: frozenset[str] | set[str],
    time_limit_ms: int,
    memory_limit_mb: int,
    kept: dict[str, Kept],
    checker: str = "exact",
    language: str = "python",
    template: Template | None = None,
) -> JudgeResult:
    """`result` with `feedback` and `feedback_text` filled in where it failed, and with no text of a
    hidden test left anywhere in it (`withhold_hidden`)."""
    result = withhold_hidden(result, public)
    feedback = build(
        result,
        public=public,
        time_limit_ms=time_limit_ms,
        memory_limit_mb=memory_limit_mb,
        kept=kept,
        checker=checker,
    )
    if feedback is None:
        return result
    text = render(feedback, result, template, language)
    return result.model_copy(update={"feedback": feedback, "feedback_text": text})


WITHHELD = "(withheld: hidden test)"


def withhold_hidden(result: JudgeResult, public: frozenset[str] | set[str]) -> JudgeResult:
    """The result without the `message` of its hidden tests (a program's stderr or a checker's text on
    them can quote the test), and with those texts cut out of a judge error's message."""
    hidden = [t for t in result.tests if t.message and t.name not in public]
    if not hidden:
        return result
    message = result.message
    for t in hidden:
        if message:
            message = message.replace(t.message, WITHHELD)
    tests = [t.model_copy(update={"message": None}) if t in hidden else t for t in result.tests]
    return result.model_copy(update={"tests": tests, "message": message})


def withhold_hidden_stderr(result: JudgeResult, public: frozenset[str] | set[str]) -> JudgeResult:
    """The result without the program's stderr on its hidden tests (a runtime error's `message`): a
    program that prints its input to stderr and fails would otherwise read the hidden tests back."""
    hidden = [t for t in result.tests if t.message and t.verdict == Verdict.RE and t.name not in public]
    if not hidden:
        return result
    tests = [t.model_copy(update={"message": WITHHELD}) if t in hidden else t for t in result.tests]
    return result.model_copy(update={"tests": tests})


def build(
    result: JudgeResult,
    *,
    public: frozenset[str] | set[str],
    time_limit_ms: int,
    memory_limit_mb: int,
    kept: dict[str, Kept],
    checker: str = "exact",
) -> Feedback | None:
    """The feedback of a result: None when it passed or is a judge error. `checker` is the problem's
    checker type ("exact", "tokens", "float", "program", or "json" for a functional problem)."""
    if result.status != "ok" or result.outcome == Outcome.CORRECT:
        return None
    compile_output = None
    if result.compile_output:
        compile_output, _ = cut(rewrite_paths(result.compile_output), SHOW_CHARS)
    tests = []
    if result.compile_output is None:
        for t in result.tests:
            if t.verdict not in FAILING:
                continue
            item = TestFeedback(
                name=t.name,
                public=t.name in public,
                verdict=t.verdict,
                input_bytes=t.input_bytes,
                cpu_ms=t.cpu_ms,
                wall_ms=t.wall_ms,
                time_limit_ms=time_limit_ms,
                memory_kb=t.memory_kb,
                memory_limit_kb=memory_limit_mb * 1024,
            )
            if item.public and t.name in kept:
                item = _with_content(item, kept[t.name], t.message, checker)
            tests.append(item)
    return Feedback(tests=tests, compile_output=compile_output)


def _with_content(item: TestFeedback, k: Kept, message: str | None, checker: str) -> TestFeedback:
    shown = {}
    truncated = False
    for name, data, total in (
        ("input", k.input, k.input_total),
        ("expected", k.expected, k.expected_total),
        ("actual", k.actual, k.actual_total),
    ):
        text, cut_here = cut(data.decode("utf-8", "replace"), SHOW_CHARS)
        shown[name] = text
        truncated = truncated or cut_here or total > len(data)
    stderr = None
    if k.stderr:
        stderr, cut_here = cut_traceback(rewrite_paths(k.stderr), SHOW_CHARS)
        truncated = truncated or cut_here
    diff = None
    if item.verdict == Verdict.WA and k.expected_total <= len(k.expected) and k.actual_total <= len(k.actual):
        diff = first_diff(k.expected, k.actual, checker)
    if message and item.verdict == Verdict.WA:  # a program checker's verdict text
        message, _ = cut(message, SHOW_CHARS)
    else:
        message = None
    return item.model_copy(
        update={**shown, "truncated": truncated, "first_diff": diff, "stderr": stderr, "message": message}
    )


# -- text helpers ---------------------------------------------------------------------------------------
def cut(text: str, limit: int) -> tuple[str, bool]:
    """`text` cut to `limit` characters (the last three being "..."), and whether it was cut."""
    if len(text) <= limit:
        return text, False
    return text[: max(0, limit - 3)] + "...", True


def cut_traceback(text: str, limit: int) -> tuple[str, bool]:
    """A traceback cut to `limit` characters keeping its first line and its tail (where the error is)."""
    if len(text) <= limit:
        return text, False
    first, _, _ = text.partition("\n")
    first, _ = cut(first, limit // 3)
    gap = "\n...\n"
    tail = text[-max(0, limit - len(first) - len(gap)) :] if limit > len(first) + len(gap) else ""
    return (first + gap + tail)[:limit], True


_PRELUDE_LINES = PRELUDE.count("\n")
# compile output and stderr are the program's: re2 (linear time), never a backtracking engine (the
# path pattern was cubic in Python's re on a long line of repeated path segments)
_PATHS = [
    # a functional submission is compiled as "<solution>" after the prelude's lines
    (
        re2.compile(r'File "<solution>", line (\d{1,9})\b'),
        lambda m: f'File "solution.py", line {max(1, int(m.group(1)) - _PRELUDE_LINES)}',
    ),
    (re2.compile(r"<solution>"), lambda m: "solution.py"),
    # a compiled binary, run from the sandbox's binary cache
    (re2.compile(r"(?:/[\w.\-]+)*/bincache/[\w.\-/]*[0-9a-f]{64}"), lambda m: "./solution"),
    # any absolute path to the program's file, and the sandbox's working directory
    (re2.compile(r"(?:/[\w.\-]+)+/(solution\.py|main\.cpp)\b"), lambda m: m.group(1)),
    (re2.compile(r"\bmain\.cpp\b"), lambda m: "solution.cpp"),
    (re2.compile(r"/tmp/run/"), lambda m: ""),
]


def rewrite_paths(text: str) -> str:
    """Sandbox paths as the program's author knows them: `solution.py`, `solution.cpp`, `./solution`."""
    for pattern, repl in _PATHS:
        text = pattern.sub(repl, text)
    return text


# -- first difference -----------------------------------------------------------------------------------
def first_diff(expected: bytes, actual: bytes, checker: str = "exact") -> FirstDiff | None:
    """Where the answer first departs from the expected output, as the checker sees it.

    `exact`: line by line after removing trailing blanks of each line and trailing newlines;
    `tokens`, `float` and functional (`json`) answers: the first token that differs (for `float`, one
    not within 1e-6), or the end of the shorter answer. None when no difference is found (a program
    checker's own judgement, or texts that only differ where the checker does not look)."""
    if checker == "exact":
        exp_lines = _exact_lines(expected)
        act_lines = _exact_lines(actual)
        offset = 0
        raw_lines = actual.split(b"\n")
        for i in range(max(len(exp_lines), len(act_lines))):
            e = exp_lines[i] if i < len(exp_lines) else None
            a = act_lines[i] if i < len(act_lines) else None
            if e != a:
                col = _common_prefix(e or b"", a or b"") if a is not None else 0
                if a is None:  # the answer ended early: point just past its last line
                    return FirstDiff(line=i + 1, column=1, offset=min(offset, len(actual)))
                return FirstDiff(line=i + 1, column=col + 1, offset=offset + col)
            offset += len(raw_lines[i]) + 1 if i < len(raw_lines) else 0
        return None
    if checker in ("tokens", "float", "json"):
        exp_tokens = [t for t, _ in _tokens(expected)]
        act_tokens = list(_tokens(actual))
        for i in range(max(len(exp_tokens), len(act_tokens))):
            e = exp_tokens[i] if i < len(exp_tokens) else None
            a, pos = act_tokens[i] if i < len(act_tokens) else (None, len(actual))
            if e is None or a is None or not _same_token(e, a, checker):
                line = actual.count(b"\n", 0, pos) + 1
                column = pos - (actual.rfind(b"\n", 0, pos) + 1) + 1
                return FirstDiff(line=line, column=column, offset=pos)
        return None
    return None


def _exact_lines(data: bytes) -> list[bytes]:
    lines = [line.rstrip(b" \t\r\v\f") for line in data.split(b"\n")]
    while lines and lines[-1] == b"":
        lines.pop()
    return lines


def _common_prefix(a: bytes, b: bytes) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


_TOKEN = re2.compile(rb"[^ \t\n\r\v\f]+")


def _tokens(data: bytes):
    for m in _TOKEN.finditer(data):
        yield m.group(), m.start()


def _same_token(e: bytes, a: bytes, checker: str) -> bool:
    if e == a:
        return True
    if checker in ("float", "json"):
        e, a = e.strip(b",[]{}"), a.strip(b",[]{}")
        ei, ai = _integer(e), _integer(a)
        if ei is not None and ai is not None:  # integers exactly, as the checkers compare them
            return ei == ai
        try:
            x, y = float(e), float(a)
        except ValueError:
            return False
        tol = 1e-6 if checker == "float" else 0.0  # functional answers: no tolerance by default
        return (math.isnan(x) and math.isnan(y)) or math.isclose(x, y, rel_tol=tol, abs_tol=tol)
    return False


def _integer(tok: bytes) -> bytes | None:
    sign, body = (b"-", tok[1:]) if tok[:1] == b"-" else (b"", tok[1:] if tok[:1] == b"+" else tok)
    if not body.isdigit():  # bytes.isdigit: ASCII digits only
        return None
    body = body.lstrip(b"0")
    return sign + body if body else b"0"


# -- rendering ------------------------------------------------------------------------------------------
RLEF_PARTS = {
    "header": "Your code failed the following tests:\n",
    "public_test": "\n- input `{input}` failed:\n{error}{stats}\n",
    "hidden_test": "\n- a hidden test ({input_bytes} bytes of input) failed:\n{error}{stats}\n",
    "wrong_answer": "Expected output `{expected}` but got `{actual}`",
    "wrong_answer_hidden": "Wrong answer.",
    "runtime_error": "{stderr}",
    "crash": "The program crashed (runtime error).",
    "time_limit": "Execution took too long.",
    "memory_limit": "Out of memory.",
    "output_limit": "The program printed too much output.",
    "stats": "",
    "compile_error": "\nThe code does not compile:\n{compile_output}\n",
    "format_error": "\nNo {language} code block was found in the answer.\n",
    "omitted": "\n({n} more failing tests not shown)\n",
    "footer": "\nFix the program and give the whole corrected program in one ```{language} code block.",
}
STYLES = {
    "rlef": RLEF_PARTS,
    # the same turn with each test's CPU time and peak memory against the problem's limits
    "stats": {
        **RLEF_PARTS,
        "stats": "\n(CPU {cpu_ms} ms of {time_limit_ms} ms; peak memory {memory_mb} MB of {memory_limit_mb} MB)",
    },
}
# the placeholders each part may use
_TEST_FIELDS = {
    "name",
    "verdict",
    "input",
    "input_bytes",
    "expected",
    "actual",
    "stderr",
    "message",
    "error",
    "stats",
    "cpu_ms",
    "wall_ms",
    "time_limit_ms",
    "memory_kb",
    "memory_mb",
    "memory_limit_kb",
    "memory_limit_mb",
    "language",
}
# what a hidden test may show: no content
_STATS_FIELDS = _TEST_FIELDS - {"input", "expected", "actual", "stderr", "message", "error", "stats"}
FIELDS = {
    "header": {"language", "n"},
    "public_test": _TEST_FIELDS,
    "hidden_test": _STATS_FIELDS | {"error", "stats"},
    "wrong_answer": _TEST_FIELDS - {"error", "stats"},
    "wrong_answer_hidden": _STATS_FIELDS,
    "runtime_error": _TEST_FIELDS - {"error", "stats"},
    "crash": _STATS_FIELDS,
    "time_limit": _TEST_FIELDS - {"error", "stats"},
    "memory_limit": _TEST_FIELDS - {"error", "stats"},
    "output_limit": _TEST_FIELDS - {"error", "stats"},
    "stats": _STATS_FIELDS,
    "compile_error": {"compile_output", "language"},
    "format_error": {"language"},
    "omitted": {"n", "language"},
    "footer": {"language"},
}
_NUMBERS = {"max_chars": (256, 100_000), "error_chars": (32, 100_000), "input_chars": (16, 100_000)}


@dataclass(frozen=True)
class Template:
    """How `render` writes the turn: the parts (format strings over FIELDS) and the text limits."""

    parts: dict[str, str] = field(default_factory=lambda: dict(RLEF_PARTS))
    max_chars: int = 4096
    error_chars: int = 512
    input_chars: int = 256


def parse_template(value: str | dict | None, base: Template | None = None) -> Template:
    """A style name ("rlef", "stats"), or an object: `style` (optional), part overrides (strings) and
    `max_chars`, `error_chars`, `input_chars`. ValueError naming what is wrong."""
    template = base or Template()
    if value is None:
        return template
    if isinstance(value, str):
        if value not in STYLES:
            raise ValueError(f"unknown feedback style {value!r}; known: {', '.join(sorted(STYLES))}")
        return replace(template, parts=dict(STYLES[value]))
    if not isinstance(value, dict):
        raise ValueError("a feedback template is a style name or an object of parts")
    value = dict(value)
    if "style" in value:
        template = parse_template(value.pop("style"), template)
    parts = dict(template.parts)
    numbers = {}
    for key, v in value.items():
        if key in _NUMBERS:
            lo, hi = _NUMBERS[key]
            if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
                raise ValueError(f"feedback template: {key} must be an integer in {lo}..{hi}")
            numbers[key] = v
        elif key in FIELDS:
            if not isinstance(v, str):
                raise ValueError(f"feedback template: part {key!r} must be a string")
            _check_placeholders(key, v)
            parts[key] = v
        else:
            known = ", ".join(sorted([*FIELDS, *_NUMBERS, "style"]))
            raise ValueError(f"feedback template: unknown key {key!r}; known: {known}")
    return replace(template, parts=parts, **numbers)


def _check_placeholders(part: str, text: str) -> None:
    try:
        names = [f for _, f, spec, conv in string.Formatter().parse(text) if f is not None]
        specs = [(spec, conv) for _, f, spec, conv in string.Formatter().parse(text) if f is not None]
    except ValueError as err:
        raise ValueError(f"feedback template: part {part!r}: {err}") from None
    for name in names:
        if name not in FIELDS[part]:
            allowed = ", ".join(sorted(FIELDS[part])) or "none"
            raise ValueError(
                f"feedback template: part {part!r} uses {{{name}}}; its placeholders are: {allowed}"
            )
    if any(spec or conv for spec, conv in specs):
        raise ValueError(f"feedback template: part {part!r}: placeholders take no format spec or conversion")


def render(
    feedback: Feedback,
    result: JudgeResult,
    template: Template | None = None,
    language: str = "python",
) -> str:
    """The next user turn for a failing result (RLEF's style by default)."""
    t = template or Template()
    p = t.parts
    footer = p["footer"].format(language=language)
    if result.outcome == Outcome.FORMAT_ERROR:
        body = p["format_error"].format(language=language)
        return _fit(body + footer, t.max_chars)
    if feedback.compile_output is not None:
        output, _ = cut_traceback(feedback.compile_output.rstrip(), t.error_chars)
        body = p["compile_error"].format(compile_output=output, language=language)
        return _fit(body + footer, t.max_chars)
    header = p["header"].format(language=language, n=len(feedback.tests))
    blocks = [_test_block(item, t, language) for item in feedback.tests]
    budget = t.max_chars - len(header) - len(footer)
    shown = []
    used = 0
    for i, block in enumerate(blocks):
        rest = len(blocks) - i - 1
        note = p["omitted"].format(n=rest, language=language) if rest else ""
        if used + len(block) + len(note) > budget and shown:
            break
        shown.append(block)
        used += len(block)
    omitted = len(blocks) - len(shown)
    tail = p["omitted"].format(n=omitted, language=language) if omitted else ""
    return _fit(header + "".join(shown) + tail + footer, t.max_chars)


def _fit(text: str, limit: int) -> str:
    return cut(text, limit)[0]


def _test_block(item: TestFeedback, t: Template, language: str) -> str:
    p = t.parts
    values = {
        "name": item.name,
        "verdict": str(item.verdict),
        "input_bytes": item.input_bytes,
        "cpu_ms": item.cpu_ms if item.cpu_ms is not None else "?",
        "wall_ms": item.wall_ms if item.wall_ms is not None else "?",
        "time_limit_ms": item.time_limit_ms,
        "memory_kb": item.memory_kb if item.memory_kb is not None else "?",
        "memory_mb": round(item.memory_kb / 1024, 1) if item.memory_kb is not None else "?",
        "memory_limit_kb": item.memory_limit_kb,
        "memory_limit_mb": item.memory_limit_kb // 1024,
        "language": language,
    }
    stats = p["stats"].format(**values)
    if not item.public:
        error = _error_text(item, values, t, hidden=True)
        return p["hidden_test"].format(**values, error=error, stats=stats)
    half = max(8, (t.error_chars - 40) // 2)
    content = {
        "input": cut(_one_line(item.input or ""), t.input_chars)[0],
        "expected": cut((item.expected or "").rstrip("\n"), half)[0],
        "actual": cut((item.actual or "").rstrip("\n"), half)[0],
        "stderr": (item.stderr or "").rstrip(),
        "message": item.message or "",
    }
    error = _error_text(item, {**values, **content}, t, hidden=False)
    return p["public_test"].format(**values, **content, error=error, stats=stats)


def _one_line(text: str) -> str:
    """An input as RLEF shows it: its lines joined by a visible newline escape."""
    return text.rstrip("\n").replace("\n", "\\n")


def _error_text(item: TestFeedback, values: dict, t: Template, hidden: bool) -> str:
    p = t.parts
    v = item.verdict
    if v == Verdict.WA:
        text = p["wrong_answer_hidden"].format(**values) if hidden else p["wrong_answer"].format(**values)
        return cut(text, t.error_chars)[0]
    if v == Verdict.TLE:
        text = p["time_limit"].format(**values)
    elif v == Verdict.MLE:
        text = p["memory_limit"].format(**values)
    elif v == Verdict.OLE:
        text = p["output_limit"].format(**values)
    elif v == Verdict.RE:
        if hidden or not values.get("stderr"):
            text = p["crash"].format(**values)
        else:
            return cut_traceback(p["runtime_error"].format(**values), t.error_chars)[0]
    else:  # CE on one test (a syntax error shows as compile_output instead), CHECKER_ERROR never here
        text = f"Verdict {v}."
    return cut(text, t.error_chars)[0]
