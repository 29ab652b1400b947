"""Rust: the distribution's `rustc -O` (edition 2021), one crate from one file, a native binary."""

from __future__ import annotations

from dataclasses import dataclass

from services.judge.core.runners import CompiledRunner


@dataclass
class RustRunner(CompiledRunner):
    language: str = "rust"
    # one codegen unit: no codegen threads beyond the pids limit, and the faster code contests want
    compiler: tuple[str, ...] = ("/usr/bin/rustc", "-O", "--edition=2021", "-C", "codegen-units=1")
    source: str = "main.rs"


RUNNER = RustRunner()
