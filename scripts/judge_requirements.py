"""Print the pinned requirements of the judge's container image, taken from pyproject.toml.

The image needs only the judge's share of the project's dependencies (no torch); reading the pins
from pyproject.toml keeps one list of versions.   python scripts/judge_requirements.py [pyproject.toml]
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

JUDGE_PACKAGES = {
    "fastapi",
    "uvicorn",
    "redis",
    "rq",
    "httpx",
    "pydantic",
    "pydantic-settings",
    "prometheus-client",
    "typer",
    "rich",
    "pyseccomp",
}


def judge_requirements(pyproject: Path) -> list[str]:
    deps = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
    name = re.compile(r"^[A-Za-z0-9_.\-]+")
    return [d for d in deps if name.match(d).group(0).lower().replace("_", "-") in JUDGE_PACKAGES]


if __name__ == "__main__":
    path = (
        Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "pyproject.toml"
    )
    print("\n".join(judge_requirements(path)))
