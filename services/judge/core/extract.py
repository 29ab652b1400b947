"""Code extraction from a model's completion: the last fenced block in the target language.

A block tagged with another language is never taken; an untagged block is taken only when no block
is tagged with the target language. No block at all gives None (the judge's `format_error`).

A block opens on a line of three or more backticks (or tildes), indented by spaces or tabs at most,
whose tag follows it; it closes at the next line holding the same fence alone (spaces and tabs
around it allowed). An opening line with no closing line after it is not a block. The completion is
untrusted text: it is read line by line, never by a backtracking pattern (one regex took about 35
minutes on 512 KB of unclosed fences), in O(n log n) time.
"""

from __future__ import annotations

from bisect import bisect_right

from services.judge.core.languages import LANGUAGES

# a language's fence tags (its declaration's `fences`)
_ALIASES = {name: frozenset(language.fences) for name, language in LANGUAGES.items()}
_TAG_PUNCT = frozenset("_+#.-")


def _fence(line: str) -> tuple[str, str] | None:
    """The fence a line opens with (three or more of one of ` and ~) and the rest of the line, or None."""
    body = line.lstrip(" \t")
    mark = body[:1]
    if mark not in ("`", "~"):
        return None
    n = len(body) - len(body.lstrip(mark))
    if n < 3:
        return None
    return body[:n], body[n:]


def _tag(rest: str) -> str:
    rest = rest.lstrip(" \t")
    n = 0
    while n < len(rest) and (rest[n].isalnum() or rest[n] in _TAG_PUNCT):
        n += 1
    return rest[:n]


def fenced_blocks(completion: str) -> list[tuple[str, str]]:
    """(tag, body) of each fenced block, in order."""
    lines = completion.split("\n")
    fences = [_fence(line) for line in lines]
    closers: dict[str, list[int]] = {}  # fence -> the lines that can close it, ascending
    for i, f in enumerate(fences):
        if f is not None and not f[1].strip(" \t"):
            closers.setdefault(f[0], []).append(i)
    blocks = []
    i = 0
    while i < len(lines) - 1:  # an opening line needs a newline after it
        f = fences[i]
        if f is not None:
            ends = closers.get(f[0], [])
            k = bisect_right(ends, i)
            if k < len(ends):
                j = ends[k]
                body = "\n".join(lines[i + 1 : j]) + "\n" if j > i + 1 else ""
                blocks.append((_tag(f[1]), body))
                i = j + 1
                continue
        i += 1
    return blocks


def extract_code(completion: str, language: str) -> str | None:
    tags = _ALIASES.get(language, {language})
    tagged, untagged = None, None
    for tag, body in fenced_blocks(completion):
        tag = tag.lower()
        if not body.strip():
            continue
        if tag in tags:
            tagged = body
        elif tag == "":
            untagged = body
    return tagged if tagged is not None else untagged
