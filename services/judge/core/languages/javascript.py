"""JavaScript: Node.js. Compiling is a syntax check (`node --check`, a CE when it fails); the source
itself is the cached artifact, and each test runs `node` on it with V8's heap sized from the memory
limit (the cgroup still decides MLE)."""

from __future__ import annotations

from services.judge.core.languages.base import Language, TestProgram


class JavaScript(Language):
    def build(self, compiler, source):
        return [*compiler, source]

    def command(self, pinned, memory_limit_mb):
        heap = [f"--max-old-space-size={memory_limit_mb}"] if memory_limit_mb else []
        return ("/usr/bin/node", *heap, "--stack-size=65500", pinned)


LANGUAGE = JavaScript(
    name="javascript",
    extensions=(".js", ".mjs"),
    fences=("javascript", "js", "node", "nodejs", "mjs"),
    judge0_ids=(63, 93, 97, 102),
    judge0_name="JavaScript (Node.js)",
    sandboxfusion=("nodejs", "javascript"),
    compiler=("/usr/bin/node", "--check"),
    source="main.js",
    artifact="main.js",
    test_program=TestProgram(
        'const [a, b] = require("fs").readFileSync(0, "utf8").trim().split(/\\s+/).map(Number);\n'
        "console.log(a + b);\n",
        "2 40\n",
        "42\n",
    ),
)
