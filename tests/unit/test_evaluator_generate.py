"""Generation (issue 6, item 1): LiveCodeBench-style prompts, the backend choice, and seeded sampling on the
transformers backend with a tiny local checkpoint."""

from __future__ import annotations

import pytest

from services.evaluator.generate import (
    GenerationError,
    SampleRequest,
    Sampling,
    TransformersGenerator,
    request_seed,
    select_backend,
    vllm_unavailable,
)
from services.evaluator.pipeline import resolve_benchmark
from services.problems.prompts import ProblemPrompt, prompt_messages, render_prompt, starter_code
from services.testing.checkpoints import byte_tokenizer, make_tiny_checkpoint
from tests.support import BUNDLED


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return make_tiny_checkpoint(tmp_path_factory.mktemp("ckpt") / "tiny", seed=3)


# -- prompts ----------------------------------------------------------------------------------------
def test_a_stdin_problem_asks_for_a_program_reading_standard_input():
    messages = prompt_messages(ProblemPrompt("p", "Add two numbers."))
    assert [m["role"] for m in messages] == ["system", "user"]
    user = messages[1]["content"]
    assert user.startswith("### Question:\nAdd two numbers.")
    assert "standard input" in user and "```python\n# YOUR CODE HERE\n```" in user
    assert user.endswith("### Answer: (use the format above, with the backticks)\n\n")


def test_a_functional_problem_gets_the_starter_class_solution_signature_from_its_statement():
    (problem,) = resolve_benchmark("bundled", ["bracket_depth"])
    user = prompt_messages(problem.prompt)[1]["content"]
    assert "class Solution:\n    def maxDepth(self, s: str) -> int:" in user
    assert "standard input" not in user


@pytest.mark.parametrize(
    ("function", "statement", "signature"),
    [
        (
            "countPairs",
            "Implement `countPairs(self, nums: List[int], k: int) -> int`.",
            "def countPairs(self, nums: List[int], k: int) -> int:",
        ),
        ("solve", "No signature is given here.", "def solve(self, *args):"),
    ],
    ids=["from-the-statement", "unstated"],
)
def test_starter_code_states_the_method(function, statement, signature):
    assert starter_code(function, statement).startswith(f"class Solution:\n    {signature}")


def test_a_benchmark_starter_code_is_used_as_given():
    starter = "class Solution:\n    def twoSum(self, nums: List[int]) -> List[int]:\n        "
    user = prompt_messages(ProblemPrompt("p", "Two sum.", "twoSum", starter))[1]["content"]
    assert starter.rstrip() in user


def test_the_chat_template_is_used_where_the_tokenizer_has_one_else_plain_text():
    messages = prompt_messages(ProblemPrompt("p", "Add two numbers."))
    plain = byte_tokenizer()
    assert render_prompt(messages, plain) == messages[0]["content"] + "\n\n" + messages[1]["content"]
    chat = byte_tokenizer()
    chat.chat_template = "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}<assistant>"
    rendered = render_prompt(messages, chat)
    assert rendered.startswith("<system>") and rendered.endswith("<assistant>")


def test_request_seeds_are_stable_and_differ_by_problem_and_first_index():
    assert request_seed(0, "p", 0) == request_seed(0, "p", 0)
    seeds = {request_seed(s, p, i) for s in (0, 1) for p in ("p", "q") for i in (0, 8)}
    assert len(seeds) == 8 and all(0 <= s < 2**31 for s in seeds)


# -- backends ---------------------------------------------------------------------------------------
def test_auto_takes_vllm_only_where_it_can_run():
    expected = "vllm" if vllm_unavailable() is None else "transformers"
    assert select_backend("auto") == expected
    assert select_backend("transformers") == "transformers"


def test_asking_for_vllm_where_it_cannot_run_says_why():
    why = vllm_unavailable()
    if why is None:  # a GPU machine with vllm: the request is granted
        assert select_backend("vllm") == "vllm"
        return
    with pytest.raises(GenerationError, match="backend 'vllm' was asked for, but"):
        select_backend("vllm")


def test_an_unknown_backend_is_refused():
    with pytest.raises(GenerationError, match="unknown backend"):
        select_backend("tensorrt")


def test_sampling_is_reproducible_from_the_seed(tiny):
    gen = TransformersGenerator(tiny)
    prompt = gen.prompt(ProblemPrompt("p", "Add two numbers."))
    sampling = Sampling(temperature=1.0, max_tokens=8)
    first = gen.sample([SampleRequest(prompt, 3, seed=11)], sampling)
    assert len(first) == 1 and len(first[0]) == 3
    assert gen.sample([SampleRequest(prompt, 3, seed=11)], sampling) == first
    assert gen.sample([SampleRequest(prompt, 3, seed=12)], sampling) != first
    assert len(set(first[0])) > 1  # the rows of one request are distinct samples


def test_temperature_zero_is_greedy(tiny):
    gen = TransformersGenerator(tiny)
    prompt = gen.prompt(ProblemPrompt("p", "Add two numbers."))
    (texts,) = gen.sample([SampleRequest(prompt, 2, seed=1)], Sampling(temperature=0.0, max_tokens=6))
    assert texts[0] == texts[1]
    assert gen.sample([SampleRequest(prompt, 1, seed=99)], Sampling(temperature=0.0, max_tokens=6)) == [
        [texts[0]]
    ]


def test_bundled_is_the_repository_problems_directory():
    assert {p.problem_id for p in resolve_benchmark("bundled", ["bracket_depth"])} == {"bracket_depth"}
    assert (BUNDLED / "bracket_depth" / "problem.json").is_file()
