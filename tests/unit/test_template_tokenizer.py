"""The composing tokenizer (trainer/replication/policy.py, docs/spec.md 12.9): trained on the corpus of
training instances of two families, it writes a held-out instance's efficient program with tokens the
training programs all used, round-trips it to the same text, and gives a statement's parameter the
same digit tokens as the program's."""

from __future__ import annotations

import json

import pytest

from services.problems.families import build_families
from trainer.replication.corpus import CorpusShape, build_corpus, fence, problem_prompt
from trainer.replication.policy import PolicyShape, init_policy, template_of

FAMILIES = ["prefix_sums", "window_extreme"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("families")
    build_families(root, 0, families=FAMILIES, instances=range(7))
    train = [f"{f}_{i}" for f in FAMILIES for i in range(5)]
    examples = build_corpus(
        root, CorpusShape(efficient=2, slow=1, wrong=1, crash=0, mutant=1), problems=train
    )
    return root, examples


def _tokenizer(tmp_path, examples, tokens):
    from transformers import AutoTokenizer

    shape = PolicyShape(
        vocab_size=400,
        hidden_size=16,
        num_layers=1,
        num_heads=2,
        num_kv_heads=1,
        intermediate_size=32,
        tokens=tokens,
    )
    return AutoTokenizer.from_pretrained(init_policy(tmp_path / tokens, examples, shape, seed=0))


def test_template_of_takes_out_numbers_and_identifiers():
    pieces, holes = template_of("    out.append((pre[r] - pre[l - 1]) % 1009)\n", ["out", "pre", "r", "l"])
    assert holes == ["out", "pre", "r", "pre", "l", "1", "1009"]
    assert pieces[0] == "    " and pieces[1] == ".append((" and pieces[-1] == ")\n"
    assert "".join(p + h for p, h in zip(pieces, [*holes, ""], strict=True)) == (
        "    out.append((pre[r] - pre[l - 1]) % 1009)\n"
    )
    assert template_of("if x:\n", ["i"]) == (["if x:\n"], [])  # a name only as a whole word


def test_a_held_out_instance_is_written_with_known_tokens_and_round_trips(tmp_path, built):
    root, examples = built
    tok = _tokenizer(tmp_path, examples, "templates")
    seen = {t for e in examples for t in tok(e.completion).input_ids}
    for held_out in ("prefix_sums_5", "prefix_sums_6", "window_extreme_5", "window_extreme_6"):
        code = fence((root / held_out / "ref.py").read_text())
        ids = tok(code).input_ids
        unknown = [tok.convert_ids_to_tokens(i) for i in ids if i not in seen]
        assert not unknown, (held_out, unknown)
        assert tok.decode(ids) == code
        assert len(ids) < 200
    # the statement's modulus is the program's digit tokens
    pid, prompt = problem_prompt(root / "prefix_sums_5")
    mod = str(json.loads((root / pid / "problem.json").read_text())["metadata"]["params"]["mod"])
    digits = tok(mod).input_ids
    assert [tok.convert_ids_to_tokens(i) for i in digits] == list(mod)
    prompt_ids = tok(prompt).input_ids
    assert any(prompt_ids[i : i + len(digits)] == digits for i in range(len(prompt_ids)))


def test_the_line_tokenizer_cannot_write_the_held_out_program_with_known_tokens(tmp_path, built):
    """The contrast the composing tokenizer exists for: whole lines as tokens leave a held-out
    instance's lines with another modulus or name to tokens no training program used."""
    root, examples = built
    tok = _tokenizer(tmp_path, examples, "lines")
    seen = {t for e in examples for t in tok(e.completion).input_ids}
    code = fence((root / "prefix_sums_5" / "ref.py").read_text())
    assert any(i not in seen for i in tok(code).input_ids)


def test_template_of_is_linear_on_16_mib_lines():
    """`template_of` reads program lines (the corpus's; a policy's completions pass through the same
    tokenizer): its pattern has no nested or overlapping quantifier. On 16 MiB lines of one long word,
    digits, blanks and a dense mix, each takes well under 1 s of CPU (measured 0.02-0.7 s; the bound is
    a 100x margin over the slowest)."""
    import time

    from trainer.replication.policy import template_of

    size = 16 << 20
    for line in ("a" * size, "7" * size, " " * size, "a1 " * (size // 3)):
        t0 = time.process_time()
        pieces, holes = template_of(line, frozenset({"a"}))
        assert "".join(p + h for p, h in zip(pieces, [*holes, ""], strict=True)) == line
        assert time.process_time() - t0 < 70


def test_the_numbers_tokenizer_keeps_names_in_its_templates_and_numbers_apart(tmp_path, built):
    """docs/spec.md 12.11: only integer literals are holes; a line's names stay in its template, so a
    program is a few tokens a line, and the statement's modulus is the program's digit tokens."""
    root, examples = built
    tok = _tokenizer(tmp_path, examples, "numbers")
    templates = _tokenizer(tmp_path, examples, "templates")
    code = fence((root / "prefix_sums_0" / "ref.py").read_text())
    ids = tok(code).input_ids
    assert tok.decode(ids) == code
    assert len(ids) < len(templates(code).input_ids)  # names are not tokens of their own
    pieces = tok.convert_ids_to_tokens(ids)
    line = "    out.append((pre[r] - pre[l - "
    assert line in pieces  # the names of a line are inside its template token
    mod = str(json.loads((root / "prefix_sums_0" / "problem.json").read_text())["metadata"]["params"]["mod"])
    at = pieces.index("]) % ")
    assert pieces[at + 1 : at + 1 + len(mod)] == list(mod)


def test_a_corpus_without_renamings_repeats_each_kinds_programs_as_written(built):
    root, _ = built
    shape = CorpusShape(efficient=3, slow=2, wrong=3, crash=0, mutant=2, renamings=False)
    examples = build_corpus(root, shape, problems=["prefix_sums_0"])
    by_kind = {
        k: [e for e in examples if e.problem_id == "prefix_sums_0" and e.kind == k] for k in shape.__dict__
    }
    ref = fence((root / "prefix_sums_0" / "ref.py").read_text())
    assert [e.completion for e in by_kind["efficient"]] == [ref] * 3
    assert len(by_kind["slow"]) == 2 and len({e.completion for e in by_kind["slow"]}) == 1
    wrong = [e.completion for e in by_kind["wrong"]]  # the two mistakes in turn, the first again
    assert len(wrong) == 3 and wrong[0] == wrong[2] != wrong[1]
    # a mutant is the reference as written with one planted bug: every line but one is the reference's
    for e in by_kind["mutant"]:
        diff = [a for a, b in zip(e.completion.splitlines(), ref.splitlines(), strict=True) if a != b]
        assert len(diff) == 1
    renamed = build_corpus(
        root, CorpusShape(efficient=3, slow=2, wrong=3, crash=0, mutant=2), problems=["prefix_sums_0"]
    )
    assert len({e.completion for e in renamed if e.kind == "efficient"}) == 3  # the default renames
