"""The families miniature's generator (services/problems/families.py, docs/spec.md 12.9): twelve
families, seeded instances in the bundled format, and the in-process label checks that refuse a family
whose programs do not behave as labelled."""

from __future__ import annotations

import json
import textwrap

import pytest

from services.problems.discovery import resolve_benchmark
from services.problems.families import (
    FamilyError,
    build_families,
    family_files,
    load_family,
    make_instance,
)
from tests.support.cli import invoke


def test_twelve_families_each_an_idea_with_slow_efficient_and_mistaken_programs():
    files = family_files()
    assert len(files) == 12
    for path in files:
        module = load_family(path)
        inst = make_instance(module, 0)
        assert inst.efficient != inst.slow and len(inst.mistakes) >= 2
        sizes = sorted(len(text.encode()) for _, text in inst.tests)
        assert sizes[0] <= 20 and 40_000 <= sizes[-1] <= 120_000, (path.stem, sizes[0], sizes[-1])


def test_instances_differ_in_their_parameters_and_are_the_same_bytes_for_a_seed(tmp_path):
    module = load_family(next(p for p in family_files() if p.stem == "prefix_sums"))
    params = [make_instance(module, i, check=False).params for i in range(8)]
    assert len({json.dumps(p, sort_keys=True) for p in params}) >= 6
    a = build_families(tmp_path / "a", 3, families=["prefix_sums"], instances=[5])
    b = build_families(tmp_path / "b", 3, families=["prefix_sums"], instances=[5])
    files_a = sorted(p.relative_to(a[0]) for p in a[0].rglob("*") if p.is_file())
    assert files_a == sorted(p.relative_to(b[0]) for p in b[0].rglob("*") if p.is_file())
    for rel in files_a:
        assert (a[0] / rel).read_bytes() == (b[0] / rel).read_bytes()
    other = build_families(tmp_path / "c", 4, families=["prefix_sums"], instances=[5])
    assert (other[0] / "tests" / "07_random.in").read_bytes() != (
        a[0] / "tests" / "07_random.in"
    ).read_bytes()


def test_a_built_instance_is_a_problem_directory_with_family_and_instance(tmp_path):
    (d,) = build_families(tmp_path, 0, families=["window_extreme"], instances=[6])
    spec = json.loads((d / "problem.json").read_text())
    assert spec["id"] == "window_extreme_6" == d.name
    assert spec["metadata"]["family"] == "window_extreme" and spec["metadata"]["instance"] == 6
    mod = str(spec["metadata"]["params"]["mod"])
    assert mod in (d / "statement.md").read_text() and mod in (d / "ref.py").read_text()
    (found,) = resolve_benchmark(str(tmp_path))
    assert found.problem_id == "window_extreme_6"
    labels = {v["label"] for v in json.loads((d / "zoo" / "zoo.json").read_text())["variants"]}
    assert labels == {"naive", "wrong"}


def _family(tmp_path, mistake: str):
    (tmp_path / "fam").mkdir(exist_ok=True)
    (tmp_path / "fam" / "toy.py").write_text(
        textwrap.dedent(
            f"""
            FAMILY = "toy"
            TITLE = "Toy"
            def params(rng, index):
                return {{"m": rng.randint(5, 9)}}
            STATEMENT = "Print the sum modulo $m."
            EFFICIENT = "import sys\\nprint(sum(map(int, sys.stdin.read().split())) % $m)\\n"
            SLOW = "import sys\\ns = 0\\nfor x in sys.stdin.read().split():\\n    s += int(x)\\nprint(s % $m)\\n"
            MISTAKES = {{"bad": {mistake!r}}}
            def generate(rng, p):
                return [("a", "40 2\\n"), ("b", "3 " * 600 + "\\n")]
            """
        )
    )
    return tmp_path / "fam"


def test_a_mistake_that_answers_right_is_refused(tmp_path):
    root = _family(tmp_path, "import sys\nprint(sum(map(int, sys.stdin.read().split())) % $m + 0)\n")
    with pytest.raises(FamilyError, match="answers every test under 1000 bytes right"):
        build_families(tmp_path / "out", 0, root=root, instances=[0])
    root = _family(tmp_path, "import sys\nprint(sum(map(int, sys.stdin.read().split())))\n")
    assert len(build_families(tmp_path / "out", 0, root=root, instances=[0, 1])) == 2


def test_the_command_writes_instances_and_refuses_an_unknown_family_with_exit_2(tmp_path):
    invoke(["problems", "families", str(tmp_path / "out"), "--family", "stairs_dp", "--instances", "2"], 0)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["stairs_dp_0", "stairs_dp_1"]
    bad = invoke(["problems", "families", str(tmp_path / "x"), "--family", "nope"], 2)
    assert "unknown families: nope" in bad.output
