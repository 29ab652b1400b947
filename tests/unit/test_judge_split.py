"""The judge is a library beside its service (docs/architecture.md): its core (services/judge/core) imports
no web framework, queue or Redis client, and the API process imports nothing that runs a program.

Each check imports in a fresh interpreter (a subprocess), so what another test loaded cannot hide a
module or add one."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support import ROOT

# what runs programs: the sandbox, the engine, the runners, the worker side of the judge (its Engine,
# the judge jobs, a run's execution, the sessions' manager). The language declarations
# (services.judge.core.languages) are data the API reads to validate a submission's language.
RUNS_PROGRAMS = (
    "services.judge.core.sandbox",
    "services.judge.core.engine",
    "services.judge.core.runners",
    "services.judge.worker",
)
SERVICE_LIBRARIES = ("fastapi", "starlette", "rq", "redis", "httpx", "uvicorn")


def _loaded_after(code: str) -> list[str]:
    """The modules in sys.modules after running `code` in a fresh interpreter at the repository root."""
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _under(loaded: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return [m for m in loaded if any(m == p or m.startswith(p + ".") for p in prefixes)]


def test_the_api_process_imports_no_sandbox_and_no_engine():
    loaded = _loaded_after(
        "from services.judge.api import create_app\nfrom services.settings import Settings\n"
        "create_app(Settings(redis_url='redis://127.0.0.1:6379/15'))"
    )
    assert "services.judge.api" in loaded and "services.judge.queue.batches" in loaded  # the probe ran
    assert _under(loaded, RUNS_PROGRAMS) == []


def test_the_core_imports_no_web_framework_queue_or_redis():
    core = sorted(
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for p in (ROOT / "services" / "judge" / "core").rglob("*.py")
        if p.name not in ("keeper.py", "session_keeper.py")  # scripts run inside the sandbox, not imported
    )
    assert "services.judge.core.engine" in core and "services.judge.core.sandbox.slot" in core
    loaded = _loaded_after("import importlib\n" + "".join(f"importlib.import_module({m!r})\n" for m in core))
    assert set(core) <= set(loaded)
    assert _under(loaded, SERVICE_LIBRARIES) == []
    # nor anything of the service around it
    service = [
        m for m in loaded if m.startswith("services.judge.") and not m.startswith("services.judge.core")
    ]
    assert service == []
