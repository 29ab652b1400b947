"""JavaScript: Node.js. Compiling is a syntax check (`node --check`, a CE when it fails); the source
itself is the cached artifact, and each test runs `node` on it with V8's heap sized from the memory
limit (the cgroup still decides MLE)."""

from __future__ import annotations

from dataclasses import dataclass

from services.judge.core.runners import CompiledRunner


@dataclass
class JavaScriptRunner(CompiledRunner):
    language: str = "javascript"
    compiler: tuple[str, ...] = ("/usr/bin/node", "--check")
    source: str = "main.js"
    artifact: str = "main.js"

    def build(self, compiler, source):
        return [*compiler, source]

    def command(self, pinned, memory_limit_mb):
        heap = [f"--max-old-space-size={memory_limit_mb}"] if memory_limit_mb else []
        return ("/usr/bin/node", *heap, "--stack-size=65500", pinned)


RUNNER = JavaScriptRunner()
