"""The problem format (docs/spec.md section 2): problem.json's fields, checkers and stored tests.

Pure data models and the rules of the format the judge shares (run order, testlib sources, the assert
driver's line): nothing here runs programs or touches files.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

PROBLEM_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}$")
# the languages of a problem's own programs (checker, interactor): Python or a testlib-style C++; a
# submission's languages are the judge's (services/judge/core/languages), checked where it is judged
CheckerLanguage = Literal["python", "cpp"]
# a problem directory's testlib validator (registerValidation), which every test input must pass
VALIDATOR_NAME = "validator.cpp"
# what an assert problem's test expects: the assert driver's line when every assertion held
ASSERT_PASSED = b"ok\n"
TESTLIB_INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]testlib\.h[">][^\n]*$', re.M)


def is_testlib_checker(source: str) -> bool:
    """A C++ source that includes testlib.h (a byte order mark before its first line allowed): a
    testlib checker, interactor or validator (docs/spec.md 2.4)."""
    return TESTLIB_INCLUDE_RE.search(source.removeprefix("\ufeff")) is not None


def run_order(tests: Iterable[tuple[str, int]]) -> list[tuple[str, int]]:
    """Tests are run in ascending input length, ties broken by name (SPEC section 2)."""
    return sorted(tests, key=lambda t: (t[1], t[0]))


# a program checker's language when problem.json does not name it: from its file's extension
CHECKER_EXTENSIONS = {".py": "python", ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".c++": "cpp"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExactChecker(_Strict):
    type: Literal["exact"]


class TokensChecker(_Strict):
    type: Literal["tokens"]


class FloatChecker(_Strict):
    type: Literal["float"]
    abs_tol: float = Field(default=1e-6, ge=0)
    rel_tol: float = Field(default=1e-6, ge=0)


class _ProgramFile(_Strict):
    """A program of the problem's own: `path` inside a problem directory, or `source` when uploaded
    over HTTP, in `language`."""

    path: str | None = None
    source: str | None = None
    # None in problem.json: taken from the extension of `path` (.py python; .cpp, .cc, .cxx, .c++ cpp),
    # else python; a language that contradicts the extension is refused
    language: CheckerLanguage | None = None

    @field_validator("path")
    @classmethod
    def _relative(cls, v: str | None) -> str | None:
        if v is not None and (v.startswith("/") or ".." in v.split("/")):
            raise ValueError("checker path must be relative to the problem directory")
        return v

    @model_validator(mode="after")
    def _language(self):
        suffix = "." + self.path.rsplit(".", 1)[-1].lower() if self.path and "." in self.path else ""
        implied = CHECKER_EXTENSIONS.get(suffix)
        if self.language is None:
            self.language = implied or "python"
        elif implied is not None and implied != self.language:
            raise ValueError(
                f"checker.language {self.language!r} contradicts checker.path {self.path!r}, "
                f"a {implied} file; name the language of the file or leave 'language' out"
            )
        return self


class ProgramChecker(_ProgramFile):
    """A checker program: `path` inside a problem directory, or `source` when uploaded over HTTP."""

    type: Literal["program"]


class Interactor(_ProgramFile):
    """An interactive problem's interactor (docs/spec.md 2.8): it talks with the program through the
    program's stdin and stdout and gives the test's verdict; a C++ one is a testlib interactor."""


Checker = Annotated[ExactChecker | TokensChecker | FloatChecker | ProgramChecker, Field(discriminator="type")]


class ProblemSpec(_Strict):
    """problem.json (SPEC section 2). `function` makes it a functional (LeetCode-style) problem."""

    id: str
    title: str = ""
    time_limit_ms: int = Field(gt=0, le=60_000)
    memory_limit_mb: int = Field(gt=0, le=16_384)
    checker: Checker = Field(default_factory=lambda: ExactChecker(type="exact"))
    statement: str = "statement.md"
    function: str | None = None
    # an assert problem (docs/spec.md 2.5): each test is Python code (asserts, or a `check(candidate)`
    # function) that calls the submission's top-level function of this name; Python submissions only
    entry_point: str | None = None
    difficulty: Literal["easy", "medium", "hard"] | None = None
    # an interactive problem (docs/spec.md 2.8): the program talks with this program instead of
    # reading a test's input; the checker, if a program, then reads the interactor's output file
    interactor: Interactor | None = None
    # the tests whose content a feedback may show (docs/spec.md section 2.3), the rest being hidden: their
    # names, or a count n for the first n in run order (a loaded problem always holds the names)
    public_tests: list[str] | Annotated[int, Field(ge=0)] = Field(default_factory=list)
    # extra fields a benchmark carries along (platform, contest_date, tags); never interpreted by the judge
    metadata: dict = Field(default_factory=dict)

    @field_validator("id")
    @classmethod
    def _id_ok(cls, v: str) -> str:
        if not PROBLEM_ID_RE.match(v):
            raise ValueError(
                "id must be 1-128 characters of letters, digits, '_', '-', '.', starting with a letter or digit"
            )
        return v

    @field_validator("public_tests")
    @classmethod
    def _public_unique(cls, v: list[str] | int) -> list[str] | int:
        if isinstance(v, int):
            return v
        dupes = sorted({n for n in v if v.count(n) > 1})
        if dupes:
            raise ValueError(f"public_tests names a test more than once: {dupes}")
        return v

    @field_validator("function")
    @classmethod
    def _function_ok(cls, v: str | None) -> str | None:
        if v is not None and not v.isidentifier():
            raise ValueError("function must be a Python identifier (a method of class Solution)")
        return v

    @field_validator("entry_point")
    @classmethod
    def _entry_point_ok(cls, v: str | None) -> str | None:
        if v is not None and not v.isidentifier():
            raise ValueError("entry_point must be a Python identifier (a top-level function)")
        return v

    @model_validator(mode="after")
    def _one_form(self) -> ProblemSpec:
        if self.function is not None and self.entry_point is not None:
            raise ValueError("a problem has either function (class Solution) or entry_point (assert tests)")
        if self.entry_point is not None and not isinstance(self.checker, ExactChecker):
            raise ValueError("an assert problem's checker is exact (a passing test prints ok)")
        if self.interactor is not None:
            if self.function is not None or self.entry_point is not None:
                raise ValueError("an interactive problem has no function or entry_point: the program talks")
            if not isinstance(self.checker, ExactChecker | ProgramChecker):
                raise ValueError(
                    "an interactive problem's checker is a program (it reads the interactor's output "
                    "file) or left out (the interactor's verdict stands)"
                )
        return self


class TestCase(BaseModel):
    """One stored test: content hashes of its input and expected output."""

    model_config = ConfigDict(frozen=True)
    __test__ = False  # not a pytest class

    name: str
    input_bytes: int
    input_sha256: str
    output_sha256: str
