"""docs/configuration.md, written from `Settings`: every `FRONTIER_*` variable with its type, default and
meaning (each field's docstring), a table per group, then the variables read outside `Settings`.

    python -m services.settings_doc           # rewrite docs/configuration.md
    python -m services.settings_doc --check   # exit 1 when docs/configuration.md is stale

Pure but for `main`: `render()` builds the page in memory (tests/unit/test_docs.py compares it with the
file). A field joins the group of the field before it, so a new field needs only its docstring.
"""

from __future__ import annotations

import sys
import types
import typing
from pathlib import Path

from pydantic import SecretStr
from pydantic.fields import FieldInfo

from services.settings import REPO_ROOT, Settings

PAGE = REPO_ROOT / "docs" / "configuration.md"
COMMAND = "python -m services.settings_doc"
PREFIX = "FRONTIER_"

# (title, the group's first field, a line about it)
GROUPS: tuple[tuple[str, str, str], ...] = (
    ("Storage and Redis", "state_dir", "Where the stack keeps its state."),
    (
        "Ports and addresses",
        "judge_port",
        "Where each service listens and where its clients reach it ([Deploy](deploy.md)).",
    ),
    (
        "Sandbox, limits and results",
        "sandbox_mode",
        "How programs run and what a result shows ([Judging rules](judging.md)).",
    ),
    (
        "HTTP and queue",
        "max_body_mb",
        "What the judge API accepts and how its queue behaves ([The judge API](judge-api.md)).",
    ),
    (
        "Deadlines",
        "deadline_margin_s",
        "When a caller is answered 504 and what is started for it ([Deadlines and fair share](deadlines.md)).",
    ),
    ("Compat APIs", "compat_fetch_file_mb", "SandboxFusion and Judge0 ([Compat APIs](compat.md))."),
    (
        "Sessions and memory admission",
        "session_max_per_worker",
        "Persistent sandboxes and the host's memory budget ([Sessions](sessions.md)).",
    ),
    ("Evaluator and merger", "eval_queue", "[Merger and evaluator](merger-evaluator.md)."),
    (
        "Security",
        "api_token",
        "Tokens, data roots and upload limits ([Security](security.md)).",
    ),
)

# FRONTIER_* variables read outside `Settings` (scripts, compose, a child process, an environment
# factory): (name, default, meaning, where it is read)
OTHER_VARIABLES: tuple[tuple[str, str, str, str], ...] = (
    (
        "FRONTIER_COMPOSE",
        "`docker compose`, else `docker-compose`",
        "The compose command the scripts run (e.g. `docker-compose` to force v1).",
        "scripts/compose_lib.sh",
    ),
    (
        "FRONTIER_COMPOSE_ADDRESS",
        "`127.0.0.1`",
        "The host address compose publishes the services' ports on; beyond loopback the services refuse "
        "to start without a token (it becomes FRONTIER_PUBLISHED_ADDRESS inside the containers).",
        "docker-compose.yml",
    ),
    (
        "FRONTIER_COMPOSE_JUDGE_PORT",
        "`8100`",
        "The judge's host port under compose (apart from `make up`'s 8000, so both run on one machine).",
        "docker-compose.yml, scripts/compose_*.sh",
    ),
    (
        "FRONTIER_COMPOSE_MERGER_PORT",
        "`8101`",
        "The merger's host port under compose.",
        "docker-compose.yml, scripts/compose_*.sh",
    ),
    (
        "FRONTIER_COMPOSE_EVALUATOR_PORT",
        "`8102`",
        "The evaluator's host port under compose.",
        "docker-compose.yml, scripts/compose_*.sh",
    ),
    (
        "FRONTIER_ENV_SETTING",
        "`tool`",
        "The session setting (`tool` or `agentic`) of the step-style environments for SkyRL-gym and "
        "OpenRLHF's agent functions.",
        "trainer/envs/step.py",
    ),
    (
        "FRONTIER_ENV_K",
        "`inf`",
        "The `k` of the reward `R_k` those environments give the final submission.",
        "trainer/envs/step.py",
    ),
    (
        "FRONTIER_ENV_MAX_TURNS",
        "`4`",
        "The most turns of one episode of those environments.",
        "trainer/envs/step.py",
    ),
    (
        "FRONTIER_LEASE_REDIS_URL",
        "set by the worker",
        "Internal: the Redis URL a judge worker hands its lease keeper process (in its environment, "
        "never in argv where `ps` shows it); not for users to set.",
        "the judge worker's lease keeper",
    ),
)


def env_name(field: str) -> str:
    return PREFIX + field.upper()


def description(info: FieldInfo) -> str:
    """A field's docstring on one line."""
    return " ".join((info.description or "").split())


def _escape(text: str) -> str:
    """Markdown table text: `|` escaped everywhere, `<` and `>` outside code spans (else HTML tags)."""
    parts = text.replace("|", "\\|").split("`")
    for i in range(0, len(parts), 2):
        parts[i] = parts[i].replace("<", "&lt;").replace(">", "&gt;")
    return "`".join(parts)


def type_name(annotation) -> str:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return " or ".join(f"`{a}`" for a in args)
    if origin is typing.Annotated:
        return type_name(args[0])
    if origin in (typing.Union, types.UnionType):
        named = [type_name(a) for a in args if a is not type(None)]
        return " or ".join(named) + (", optional" if type(None) in args else "")
    if origin is list:
        return f"list of {type_name(args[0])}"
    if annotation is SecretStr:
        return "secret string"
    if annotation is Path:
        return "path"
    return getattr(annotation, "__name__", str(annotation))


def bounds(info: FieldInfo) -> str:
    marks = []
    for meta in info.metadata:
        for attr, sign in (("ge", "at least"), ("gt", "above"), ("le", "at most"), ("lt", "below")):
            value = getattr(meta, attr, None)
            if value is not None:
                marks.append(f"{sign} {value}")
    return f" ({', '.join(marks)})" if marks else ""


def default_text(info: FieldInfo) -> str:
    value = info.get_default(call_default_factory=True)
    if value is None or value == []:
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if value == "":
        return "empty"
    return f"`{value}`"


def grouped() -> list[tuple[str, str, list[str]]]:
    """The groups in order, each with its fields in declaration order."""
    firsts = {first: (title, line) for title, first, line in GROUPS}
    unknown = set(firsts) - set(Settings.model_fields)
    if unknown:
        raise ValueError(f"GROUPS names fields Settings lacks: {sorted(unknown)}")
    out: list[tuple[str, str, list[str]]] = []
    for name in Settings.model_fields:
        if name in firsts:
            out.append((*firsts[name], []))
        elif not out:
            raise ValueError(f"Settings' first field {name!r} starts no group of GROUPS")
        out[-1][2].append(name)
    return out


def undocumented() -> list[str]:
    """Fields of Settings without a docstring."""
    return [env_name(n) for n, info in Settings.model_fields.items() if not description(info)]


def render() -> str:
    lines = [
        "# Configuration",
        "",
        f"<!-- generated from services/settings.py by `{COMMAND}`: edit the fields' docstrings there, "
        "not this page -->",
        "",
        "Every setting of the stack is an environment variable `FRONTIER_<NAME>`, read once per process "
        "by one object, `Settings` in `services/settings.py` (pydantic-settings; an unknown `FRONTIER_*` "
        "variable is ignored, a malformed value stops the process with the variable's name). The "
        f"tables below are generated from it (`{COMMAND}`; a test fails when this page is stale). "
        "Compose passes them from the shell or `.env`, the Helm chart from its values "
        "([Deploy](deploy.md)).",
    ]
    for title, line, names in grouped():
        lines += [
            "",
            f"## {title}",
            "",
            line,
            "",
            "| variable | type | default | meaning |",
            "| --- | --- | --- | --- |",
        ]
        for name in names:
            info = Settings.model_fields[name]
            lines.append(
                f"| `{env_name(name)}` | {_escape(type_name(info.annotation) + bounds(info))} "
                f"| {_escape(default_text(info))} | {_escape(description(info))} |"
            )
    lines += [
        "",
        "## Read outside `Settings`",
        "",
        "Variables of the scripts, the compose file and the trainer's step environments, read where "
        "they are used (listed in `services/settings_doc.py`).",
        "",
        "| variable | default | meaning | read by |",
        "| --- | --- | --- | --- |",
    ]
    for name, default, meaning, where in OTHER_VARIABLES:
        lines.append(f"| `{name}` | {_escape(default)} | {_escape(meaning)} | {_escape(where)} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    missing = undocumented()
    if missing:
        print(f"settings without a docstring: {', '.join(missing)}", file=sys.stderr)
        return 1
    text = render()
    if "--check" in args:
        if not PAGE.exists() or PAGE.read_text() != text:
            print(f"{PAGE} is stale: run `{COMMAND}`", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text)
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
