"""The SFT corpus of the miniature replication: the bundled problems' prompts (the evaluator's format)
paired with fenced programs from each problem's solution zoo and variants derived from them.

Every problem contributes programs of four kinds, the raw material of the frontier:

- `efficient`: the reference and renamings of it (`ref.py`, pass everything);
- `slow`: the zoo's naive programs and renamings (right on small inputs, too slow on large ones);
- `wrong` / `crash`: the zoo's wrong and crashing programs and renamings;
- `mutant`: the reference with one small bug planted (a flipped comparison, an off-by-one constant,
  min/max swapped): usually wrong, sometimes still correct; the judge decides, not this module.

Variants are made on the syntax tree (`ast`), so they always parse: renamings change every name the
program binds (never builtins, imported names, attributes or a functional problem's method), and
`ast.unparse` gives them one uniform layout. Everything is seeded, so a corpus is the same bytes on
every machine.
"""

from __future__ import annotations

import ast
import builtins
import json
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from services.judge.core.build import load_zoo, read_spec
from services.problems.discovery import problem_dirs
from services.problems.prompts import ProblemPrompt, prompt_messages, render_prompt

KINDS = ("efficient", "slow", "wrong", "crash", "mutant")
# the zoo's labels, by the kind of program they are
_ZOO_KIND = {"naive": "slow", "naive_mle": "slow", "wrong": "wrong", "crash": "crash"}
# names a renaming draws from: short, common in competitive programming, none a builtin
NAME_POOL = (
    "a b c d e f g h i j k m n p q r s t u v w x y z arr nums vals xs ys cnt res ans out best cur acc "
    "total lo hi mid left right seen freq memo dp pre suf idx pos val key node nxt prev stack queue "
    "data tokens parts items buf tmp acc2 size limit start end step"
).split()
_BUILTINS = frozenset(dir(builtins)) | {"self", "cls", "Solution", "__name__"}


@dataclass(frozen=True)
class CorpusExample:
    problem_id: str
    kind: str
    source: str  # where it came from: ref.py, zoo/naive.py, ...
    prompt: str
    completion: str


def fence(code: str) -> str:
    """A program as the model writes it: one fenced python block (what the judge's extractor reads)."""
    return f"```python\n{code.strip()}\n```"


# -- variants on the syntax tree (pure) -------------------------------------------------------------
def bound_names(tree: ast.AST) -> list[str]:
    """Names the program itself binds (assignments, loop and comprehension targets, functions it defines
    at module level or nested, their parameters), in first-seen order; never imported names."""
    imported: set[str] = set()
    bound: dict[str, None] = {}
    method_names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                imported.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ClassDef):
            method_names.update(n.name for n in node.body if isinstance(n, ast.FunctionDef))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.setdefault(node.id)
        elif isinstance(node, ast.arg):
            bound.setdefault(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name not in method_names:
            bound.setdefault(node.name)
    return [n for n in bound if n not in imported and n not in _BUILTINS and not n.startswith("__")]


class _Renamer(ast.NodeTransformer):
    def __init__(self, mapping: dict[str, str]):
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self.mapping.get(node.id, node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg = self.mapping.get(node.arg, node.arg)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        node.name = self.mapping.get(node.name, node.name)
        self.generic_visit(node)
        return node

    def visit_keyword(self, node: ast.keyword) -> ast.keyword:
        # a keyword argument naming a renamed parameter of the program's own function follows it
        if node.arg in self.mapping:
            node.arg = self.mapping[node.arg]
        self.generic_visit(node)
        return node

    def visit_Global(self, node: ast.Global) -> ast.Global:
        node.names = [self.mapping.get(n, n) for n in node.names]
        return node

    def visit_Nonlocal(self, node: ast.Nonlocal) -> ast.Nonlocal:
        node.names = [self.mapping.get(n, n) for n in node.names]
        return node


def rename(code: str, rng: random.Random) -> str:
    """The same program with every name it binds renamed (consistently), laid out by `ast.unparse`."""
    tree = ast.parse(code)
    names = bound_names(tree)
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        a.attr for a in ast.walk(tree) if isinstance(a, ast.Attribute)
    }
    free = [n for n in NAME_POOL if n not in taken]
    rng.shuffle(free)
    mapping = {}
    for name in names:
        if not free:
            break
        mapping[name] = free.pop()
    return ast.unparse(_Renamer(mapping).visit(tree))


def program_shape(code: str) -> str:
    """The program up to the names it binds: every bound name made `v0`, `v1`, ... in first-seen order,
    laid out by `ast.unparse`; two programs that differ only by a renaming have the same shape."""
    tree = ast.parse(code)
    mapping = {name: f"v{i}" for i, name in enumerate(bound_names(tree))}
    return ast.unparse(_Renamer(mapping).visit(tree))


_FLIP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}


def _mutation_sites(tree: ast.AST) -> list[tuple[str, ast.AST]]:
    sites: list[tuple[str, ast.AST]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and type(node.ops[0]) in _FLIP:
            sites.append(("flip_comparison", node))
        elif isinstance(node, ast.BinOp) and isinstance(node.right, ast.Constant):
            if type(node.right.value) is int and isinstance(node.op, ast.Add | ast.Sub):
                sites.append(("off_by_one", node.right))
        elif isinstance(node, ast.Name) and node.id in ("min", "max") and isinstance(node.ctx, ast.Load):
            sites.append(("swap_min_max", node))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
            if len(node.args) >= 2:
                sites.append(("range_end", node))
    return sites


def mutate(code: str, rng: random.Random) -> tuple[str, str] | None:
    """The program with one small bug planted, and its name; None where there is nowhere to plant one."""
    tree = ast.parse(code)
    sites = _mutation_sites(tree)
    if not sites:
        return None
    kind, node = rng.choice(sites)
    if kind == "flip_comparison":
        node.ops[0] = _FLIP[type(node.ops[0])]()
    elif kind == "off_by_one":
        node.value += rng.choice((-1, 1))
    elif kind == "swap_min_max":
        node.id = "max" if node.id == "min" else "min"
    else:  # range_end: one fewer iteration at the end
        node.args[1] = ast.BinOp(left=node.args[1], op=ast.Sub(), right=ast.Constant(1))
    return ast.unparse(ast.fix_missing_locations(tree)), kind


# -- the corpus ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CorpusShape:
    """How many programs of each kind a problem contributes: each a distinct renaming where it can, or,
    with `renamings` off (docs/spec.md 12.11), the kind's programs as written, repeated in turn."""

    efficient: int = 6
    slow: int = 5
    wrong: int = 2
    crash: int = 1
    mutant: int = 3
    renamings: bool = True


def problem_prompt(problem_dir: Path) -> tuple[str, str]:
    """(problem id, the evaluator's prompt text for it)."""
    spec = read_spec(problem_dir)
    statement = (problem_dir / spec.statement).read_text()
    messages = prompt_messages(ProblemPrompt(problem_id=spec.id, statement=statement, function=spec.function))
    return spec.id, render_prompt(messages, tokenizer=None)  # the corpus's tokenizer has no chat template


def _sources(problem_dir: Path) -> dict[str, list[tuple[str, str]]]:
    """The problem's Python programs by kind: [(source name, code)]."""
    out: dict[str, list[tuple[str, str]]] = {k: [] for k in KINDS}
    out["efficient"].append(("ref.py", (problem_dir / "ref.py").read_text()))
    for v in load_zoo(problem_dir):
        kind = _ZOO_KIND.get(v.label)
        if kind and v.language == "python":
            out[kind].append((f"zoo/{v.file}", v.code))
    return out


def _draw(
    sources: list[tuple[str, str]], count: int, rng: random.Random, renamings: bool = True
) -> list[tuple[str, str]]:
    """`count` programs from `sources`: each original once (as written), then distinct renamings; or,
    without `renamings`, the originals as written in turn, repeated until there are `count`."""
    if not sources or count <= 0:
        return []
    if not renamings:
        return [(sources[i % len(sources)][0], sources[i % len(sources)][1].strip()) for i in range(count)]
    picked: list[tuple[str, str]] = []
    seen: set[str] = set()
    attempts = 0
    while len(picked) < count and attempts < 20 * count:
        name, code = sources[attempts % len(sources)]
        text = code.strip() if attempts < len(sources) else rename(code, rng)
        attempts += 1
        if text not in seen:
            seen.add(text)
            picked.append((name if attempts <= len(sources) else f"{name}~renamed", text))
    return picked


def problem_examples(problem_dir: Path, shape: CorpusShape, seed: int) -> list[CorpusExample]:
    pid, prompt = problem_prompt(problem_dir)
    rng = random.Random(f"{seed}:{pid}")
    sources = _sources(problem_dir)
    programs: list[tuple[str, str, str]] = []
    for kind in ("efficient", "slow", "wrong", "crash"):
        drawn = _draw(sources[kind], getattr(shape, kind), rng, shape.renamings)
        programs += [(kind, s, c) for s, c in drawn]
    ref_code = sources["efficient"][0][1]
    made: set[str] = set()
    for _ in range(8 * shape.mutant):
        if len(made) >= shape.mutant:
            break
        renamed = shape.renamings and rng.random() < 0.5
        mutated = mutate(rename(ref_code, rng) if renamed else ref_code, rng)
        if mutated and mutated[0] not in made:
            made.add(mutated[0])
            programs.append(("mutant", f"ref.py~{mutated[1]}", mutated[0]))
    return [CorpusExample(pid, kind, src, prompt, fence(code)) for kind, src, code in programs]


def build_corpus(
    root: Path, shape: CorpusShape, *, problems: Sequence[str] | None = None, seed: int = 0
) -> list[CorpusExample]:
    """The corpus over the bundled problems under `root` (or the named subset), problem by problem."""
    dirs = [d for d in problem_dirs(root) if not problems or d.name in problems]
    if problems:
        missing = sorted(set(problems) - {d.name for d in dirs})
        if missing:
            raise ValueError(f"unknown problems under {root}: {', '.join(missing)}")
    return [ex for d in dirs for ex in problem_examples(d, shape, seed)]


def write_corpus(examples: Sequence[CorpusExample], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(asdict(e)) + "\n" for e in examples))
    return path


def read_corpus(path: Path) -> list[CorpusExample]:
    return [CorpusExample(**json.loads(line)) for line in path.read_text().splitlines() if line.strip()]
