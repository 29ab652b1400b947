"""Rust: the distribution's `rustc -O` (edition 2021), one crate from one file, a native binary."""

from __future__ import annotations

from services.judge.core.languages.base import Language, TestProgram

LANGUAGE = Language(
    name="rust",
    extensions=(".rs",),
    fences=("rust", "rs"),
    judge0_ids=(73, 108),
    judge0_name="Rust (rustc -O)",
    sandboxfusion=("rust",),
    # one codegen unit: no codegen threads beyond the pids limit, and the faster code contests want
    compiler=("/usr/bin/rustc", "-O", "--edition=2021", "-C", "codegen-units=1"),
    source="main.rs",
    test_program=TestProgram(
        "use std::io::Read;\nfn main() {\n    let mut s = String::new();\n"
        "    std::io::stdin().read_to_string(&mut s).unwrap();\n"
        "    let n: Vec<i64> = s.split_whitespace().map(|w| w.parse().unwrap()).collect();\n"
        '    println!("{}", n[0] + n[1]);\n}\n',
        "2 40\n",
        "42\n",
    ),
)
