"""Code extraction from a model's completion: the last fenced block in the target language.

A block tagged with another language is never taken; an untagged block is taken only when no block
is tagged with the target language. No block at all gives None (the judge's `format_error`).
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.M | re.S)

_ALIASES = {
    "python": {"python", "py", "python3", "py3"},
    "cpp": {"cpp", "c++", "cxx", "cc", "hpp"},
    "c": {"c", "h"},
    "java": {"java"},
    "go": {"go", "golang"},
    "rust": {"rust", "rs"},
    "javascript": {"javascript", "js", "node", "nodejs", "mjs"},
}


def extract_code(completion: str, language: str) -> str | None:
    tags = _ALIASES.get(language, {language})
    tagged, untagged = None, None
    for match in _FENCE.finditer(completion):
        tag, body = match.group(2).lower(), match.group(3)
        if not body.strip():
            continue
        if tag in tags:
            tagged = body
        elif tag == "":
            untagged = body
    return tagged if tagged is not None else untagged
