"""Render a Helm chart without helm: the subset of Go templates and Sprig functions that
deploy/helm/codefrontier uses, so the tests can validate its manifests where no helm binary is
installable (tests/e2e/test_deploy.py). The chart stays standard Helm: `helm template` renders the same.

Supported: text with `{{ }}` actions and `{{-`/`-}}` trimming, comments, pipelines with parentheses,
`.Field.Path`, `$`, `$var`, `$var := ...`, `if`/`else`/`end`, `with`, `range` over lists and maps (with
`$k, $v :=`), `define` and `include`, and the functions listed in FUNCS. Anything else raises
TemplateError, so the chart cannot silently drift outside what this renderer checks.
"""

from __future__ import annotations

import base64
import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import re2
import yaml


class TemplateError(ValueError):
    """A template this renderer cannot parse, or one that fails (`required`, `fail`)."""


# -- lexing -----------------------------------------------------------------------------------------
_ACTION = re2.compile(r"(?s)\{\{(-\s)?(.*?)(\s-)?\}\}")
_TOKEN = re2.compile(
    r'\s*(?:("(?:[^"\\]|\\.)*")|(:=)|(\$[A-Za-z_]\w*(?:\.\w+)*|\$(?:\.\w+)*)|(\.(?:\w+(?:\.\w+)*)?)'
    r"|(-?\d+(?:\.\d+)?)|([A-Za-z_]\w*)|([|(),]))"
)


def _tokens(expr: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    expr = expr.strip()
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if m is None or m.end() == pos:
            raise TemplateError(f"cannot parse {expr[pos:]!r} in {{{{ {expr} }}}}")
        kinds = ("str", "assign", "var", "field", "num", "ident", "punct")
        for kind, value in zip(kinds, m.groups(), strict=True):
            if value is not None:
                out.append((kind, value))
                break
        pos = m.end()
        while pos < len(expr) and expr[pos].isspace():
            pos += 1
    return out


# -- parsing ----------------------------------------------------------------------------------------
@dataclass
class _Node:
    kind: str  # text, out, assign, if, with, range, define
    value: Any = None
    body: list = field(default_factory=list)
    orelse: list = field(default_factory=list)
    names: tuple = ()


def _parse(source: str) -> list[_Node]:
    pieces: list[tuple[str, str]] = []
    pos = 0
    for m in _ACTION.finditer(source):
        text = source[pos : m.start()]
        if m.group(1):
            text = text.rstrip(" \t\r\n")
        pieces.append(("text", text))
        pieces.append(("action", m.group(2).strip()))
        pos = m.end()
        if m.group(3):
            while pos < len(source) and source[pos] in " \t\r\n":
                pos += 1
    pieces.append(("text", source[pos:]))

    root: list[_Node] = []
    stack: list[tuple[_Node | None, list]] = [(None, root)]
    for kind, value in pieces:
        target = stack[-1][1]
        if kind == "text":
            if value:
                target.append(_Node("text", value))
            continue
        if value.startswith("/*"):
            if not value.endswith("*/"):
                raise TemplateError(f"unterminated comment {value!r}")
            continue
        word, _, rest = value.partition(" ")
        if word in ("if", "with", "range", "define"):
            node = _Node(word)
            if word == "define":
                node.value = json.loads(rest.strip())
            elif word == "range" and ":=" in rest:
                names, _, pipe = rest.partition(":=")
                node.names = tuple(n.strip() for n in names.split(","))
                node.value = _tokens(pipe)
            else:
                node.value = _tokens(rest)
            target.append(node)
            stack.append((node, node.body))
        elif word == "else":
            node = stack[-1][0]
            if node is None or node.kind not in ("if", "with", "range") or rest.strip():
                raise TemplateError(f"unsupported {{{{ {value} }}}}")
            stack[-1] = (node, node.orelse)
        elif word == "end":
            if len(stack) == 1:
                raise TemplateError("{{ end }} without a block")
            stack.pop()
        else:
            toks = _tokens(value)
            if len(toks) > 2 and toks[0][0] == "var" and toks[1] == ("assign", ":="):
                target.append(_Node("assign", toks[2:], names=(toks[0][1],)))
            else:
                target.append(_Node("out", toks))
    if len(stack) != 1:
        raise TemplateError("a block is not closed with {{ end }}")
    return root


# -- evaluation -------------------------------------------------------------------------------------
def _truthy(v: Any) -> bool:
    return not (v is None or v is False or v == 0 and not isinstance(v, bool) or v in ("", [], {}))


def _text(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _quote(*args: Any) -> str:
    return " ".join(json.dumps(_text(a)) for a in args)


def _to_yaml(v: Any) -> str:
    if v is None or v == {} or v == []:
        return "{}" if v == {} else ("[]" if v == [] else "null")
    return yaml.safe_dump(v, default_flow_style=False, sort_keys=True).rstrip("\n")


def _indent(n: int, s: str) -> str:
    return "\n".join(" " * n + line for line in _text(s).split("\n"))


def _printf(fmt: str, *args: Any) -> str:
    py = fmt.replace("%v", "%s").replace("%d", "%s")
    return py % tuple(_text(a) for a in args)


def _required(msg: str, v: Any) -> Any:
    if not _truthy(v):
        raise TemplateError(msg)
    return v


def _fail(msg: str) -> None:
    raise TemplateError(msg)


def _index(v: Any, *keys: Any) -> Any:
    for k in keys:
        v = v.get(k) if isinstance(v, dict) else v[int(k)]
    return v


def _and(*args: Any) -> Any:
    for a in args:
        if not _truthy(a):
            return a
    return args[-1]


def _or(*args: Any) -> Any:
    for a in args:
        if _truthy(a):
            return a
    return args[-1]


FUNCS = {
    "quote": _quote,
    "toYaml": _to_yaml,
    "nindent": lambda n, s: "\n" + _indent(n, s),
    "indent": _indent,
    "default": lambda d, v=None: v if _truthy(v) else d,
    "printf": _printf,
    "trunc": lambda n, s: _text(s)[:n],
    "trimSuffix": lambda suf, s: _text(s)[: -len(suf)] if suf and _text(s).endswith(suf) else _text(s),
    "required": _required,
    "fail": _fail,
    "b64enc": lambda s: base64.b64encode(_text(s).encode()).decode(),
    "list": lambda *a: list(a),
    "index": _index,
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "not": lambda v: not _truthy(v),
    "and": _and,
    "or": _or,
}


class _Renderer:
    def __init__(self, defines: dict[str, list[_Node]], root: dict):
        self.defines = defines
        self.root = root

    def render(self, nodes: list[_Node], dot: Any, scope: dict[str, Any]) -> str:
        out: list[str] = []
        scope = dict(scope)
        for node in nodes:
            if node.kind == "text":
                out.append(node.value)
            elif node.kind == "out":
                out.append(_text(self.pipeline(node.value, dot, scope)))
            elif node.kind == "assign":
                scope[node.names[0]] = self.pipeline(node.value, dot, scope)
            elif node.kind == "if":
                branch = node.body if _truthy(self.pipeline(node.value, dot, scope)) else node.orelse
                out.append(self.render(branch, dot, scope))
            elif node.kind == "with":
                v = self.pipeline(node.value, dot, scope)
                out.append(
                    self.render(node.body, v, scope) if _truthy(v) else self.render(node.orelse, dot, scope)
                )
            elif node.kind == "range":
                v = self.pipeline(node.value, dot, scope)
                items = sorted(v.items()) if isinstance(v, dict) else list(enumerate(v or []))
                if not items:
                    out.append(self.render(node.orelse, dot, scope))
                for k, item in items:
                    inner = dict(scope)
                    if len(node.names) == 2:
                        inner[node.names[0]], inner[node.names[1]] = k, item
                    elif len(node.names) == 1:
                        inner[node.names[0]] = item
                    out.append(self.render(node.body, item, inner))
            elif node.kind == "define":
                continue  # collected beforehand
        return "".join(out)

    def include(self, name: str, dot: Any) -> str:
        if name not in self.defines:
            raise TemplateError(f"include of undefined template {name!r}")
        return self.render(self.defines[name], dot, {"$": dot})

    def pipeline(self, toks: list[tuple[str, str]], dot: Any, scope: dict[str, Any]) -> Any:
        commands: list[list] = [[]]
        depth = 0
        for tok in toks:
            if tok == ("punct", "|") and depth == 0:
                commands.append([])
                continue
            if tok == ("punct", "("):
                depth += 1
            elif tok == ("punct", ")"):
                depth -= 1
            commands[-1].append(tok)
        value, piped = None, False
        for cmd in commands:
            value = self.command(cmd, dot, scope, value if piped else _NOTHING)
            piped = True
        return value

    def command(self, toks: list, dot: Any, scope: dict[str, Any], piped: Any) -> Any:
        operands = self.operands(toks, dot, scope)
        head = toks[0]
        if head[0] == "ident" and head[1] not in ("true", "false", "nil"):
            args = operands[1:] + ([] if piped is _NOTHING else [piped])
            if head[1] == "include":
                return self.include(*args)
            if head[1] not in FUNCS:
                raise TemplateError(f"function {head[1]!r} is not supported by this renderer")
            return FUNCS[head[1]](*args)
        if len(operands) != 1 or piped is not _NOTHING:
            raise TemplateError(f"cannot call a value: {toks}")
        return operands[0]

    def operands(self, toks: list, dot: Any, scope: dict[str, Any]) -> list:
        out: list = []
        i = 0
        while i < len(toks):
            kind, value = toks[i]
            if (kind, value) == ("punct", "("):
                depth, j = 1, i + 1
                while depth:
                    depth += {"(": 1, ")": -1}.get(toks[j][1], 0) if toks[j][0] == "punct" else 0
                    j += 1
                out.append(self.pipeline(toks[i + 1 : j - 1], dot, scope))
                i = j
                continue
            if kind == "str":
                out.append(json.loads(value))
            elif kind == "num":
                out.append(float(value) if "." in value else int(value))
            elif kind == "ident":
                out.append({"true": True, "false": False, "nil": None}.get(value, value))
            elif kind == "field":
                out.append(_path(dot, value[1:]))
            elif kind == "var":
                name, _, rest = value.partition(".")
                if name not in scope:
                    raise TemplateError(f"undefined variable {name}")
                out.append(_path(scope[name], rest))
            else:
                raise TemplateError(f"unexpected {value!r}")
            i += 1
        return out


_NOTHING = object()


def _path(v: Any, path: str) -> Any:
    for part in filter(None, path.split(".")):
        v = v.get(part) if isinstance(v, dict) else None
    return v


def _merge(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def render_chart(
    chart_dir: Path, values: dict | None = None, release: str = "cf", namespace: str = "default"
) -> list[dict]:
    """The chart's manifests (one dict per YAML document) as `helm template <release> <chart>` gives them."""
    chart_dir = Path(chart_dir)
    meta = yaml.safe_load((chart_dir / "Chart.yaml").read_text())
    vals = _merge(yaml.safe_load((chart_dir / "values.yaml").read_text()) or {}, values or {})
    root = {
        "Values": vals,
        "Chart": {k[:1].upper() + k[1:]: v for k, v in meta.items()},
        "Release": {"Name": release, "Namespace": namespace, "Service": "Helm"},
    }
    templates = sorted((chart_dir / "templates").glob("*"))
    parsed = {t.name: _parse(t.read_text()) for t in templates if t.suffix in (".yaml", ".tpl")}
    defines: dict[str, list[_Node]] = {}
    for nodes in parsed.values():
        for node in nodes:
            if node.kind == "define":
                defines[node.value] = node.body
    renderer = _Renderer(defines, root)
    docs: list[dict] = []
    for name, nodes in parsed.items():
        if name.startswith("_"):
            continue
        text = renderer.render(nodes, root, {"$": root})
        try:
            docs += [d for d in yaml.safe_load_all(text) if d]
        except yaml.YAMLError as err:
            raise TemplateError(f"{name} does not render to YAML: {err}\n{text}") from None
    return docs
