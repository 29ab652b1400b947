"""Per-test cost of each language in the judge, next to a plain subprocess run of the same artifact.

For every language a trivial A+B program is judged (full mode, one slot) on a problem of `--tests`
tests; its first judging compiles it, and the figure is the per-test wall and CPU time of the later
judgings (the cached artifact). The baseline runs the very artifact the judge cached (same argv: the
JVM's heap flags, Go's GOMAXPROCS), with `subprocess.run` on the host, no sandbox, the same number of
times, measured in alternation with ours. The ratio is ours / baseline: what the sandbox, the cgroup
accounting and the checker add to one run of the language's own start-up.

C++ compiles, with and without the precompiled `bits/stdc++.h` (runners.py, CompiledRunner.pch_dir):
the C++ reference solutions of `--compiles` bundled problems (zoo/ref.cpp, real programs), as written
(they include the standard headers they use, one by one: the precompiled header does not apply) and
in contest style (the same program with its includes replaced by `#include <bits/stdc++.h>`, as most
contest submissions begin), each compiled once per side per round with a comment of the round's (so
nothing comes from the binary cache), the sides in alternation; the figure is the compile run's CPU
time (its cgroup's) and wall time, medians, with the ratio. The header is built first, once, and its
build time printed on its own.

    python bench/lang_bench.py [--tests 100] [--repeats 3] [--languages cpp,c,java,go,rust,javascript]
                               [--compiles 6]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from baselines import contest_style, cpp_problem_dirs, load_now  # noqa: E402

from services.judge.core.engine import Engine  # noqa: E402
from services.judge.core.models import Submission  # noqa: E402
from services.judge.core.runners import RUNNERS  # noqa: E402
from services.judge.core.verdicts import Outcome  # noqa: E402
from services.problems.spec import ProblemSpec  # noqa: E402
from services.problems.store import build_problem  # noqa: E402
from services.settings import Settings  # noqa: E402

MEMORY_MB = 256
SUM = {
    "cpp": '#include <cstdio>\nint main(){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a+b);}\n',
    "c": '#include <stdio.h>\nint main(void){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a+b);return 0;}\n',
    "java": "import java.io.*;\npublic class Main { public static void main(String[] x) throws IOException {\n"
    'String[] p = new BufferedReader(new InputStreamReader(System.in)).readLine().trim().split(" ");\n'
    "System.out.println(Long.parseLong(p[0]) + Long.parseLong(p[1])); } }\n",
    "go": 'package main\nimport "fmt"\nfunc main() { var a, b int64; fmt.Scan(&a, &b); fmt.Println(a + b) }\n',
    "rust": "fn main() { let mut s = String::new(); std::io::stdin().read_line(&mut s).unwrap();\n"
    "let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();\n"
    'println!("{}", v[0] + v[1]); }\n',
    "javascript": 'const [a, b] = require("fs").readFileSync(0, "utf8").trim().split(/\\s+/).map(Number);\n'
    "console.log(a + b);\n",
}


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def newest_artifact(bin_dir: Path) -> Path:
    files = [p for p in bin_dir.iterdir() if p.is_file() and "." not in p.name]
    return max(files, key=lambda p: p.stat().st_mtime)


def compiles(engine: Engine, count: int, repeats: int) -> None:
    """C++ compile time with the precompiled header and without it, side by side (see the docstring)."""
    written = [(d / "zoo" / "ref.cpp").read_text() for d in cpp_problem_dirs(count)]
    if not written:
        print("compiles: no bundled problem has a zoo/ref.cpp: run `make problems` first")
        return
    runs: list = []
    slot = engine._all[0]
    real_run = slot.run

    def run(spec):
        result = real_run(spec)
        runs.append((spec, result))
        return result

    slot.run = run
    try:
        engine.settings.precompiled_headers = True
        t0 = time.perf_counter()
        for i in range(2):  # a flag set's header is built on its second compile
            assert engine.compile("cpp", f"{contest_style(written[0])}\n// warm {i}\n") is None
        build = [r for s, r in runs if "c++-header" in s.argv]
        if not build:
            print("compiles: the precompiled header was not built (FRONTIER_PRECOMPILED_HEADERS?)")
            return
        print(
            f"compiles: bits/stdc++.h precompiled in {build[0].cpu_ms / 1000:.2f} s CPU, "
            f"{build[0].wall_ms / 1000:.2f} s wall (once per binary cache and flag set; "
            f"{time.perf_counter() - t0:.1f} s with the two warm-up compiles)"
        )
        styles = {"as written": written, "contest style (bits/stdc++.h)": [contest_style(c) for c in written]}
        sides = {(style, on): {"cpu": [], "wall": []} for style in styles for on in (True, False)}
        for r in range(repeats):
            for on in (True, False):
                engine.settings.precompiled_headers = on
                for style, sources in styles.items():
                    for i, code in enumerate(sources):
                        runs.clear()
                        assert engine.compile("cpp", f"{code}\n// round {r} side {on} source {i}\n") is None
                        ((spec, result),) = runs
                        # only a source that names the header is compiled with it
                        assert ("-I" in spec.argv) == (on and "bits/stdc++.h" in code), spec.argv
                        sides[style, on]["cpu"].append(result.cpu_ms)
                        sides[style, on]["wall"].append(result.wall_ms)
    finally:
        del slot.run
        engine.settings.precompiled_headers = True
    for style in styles:
        on, off = ({k: statistics.median(v) for k, v in sides[style, x].items()} for x in (True, False))
        print(
            f"compiles, {style} ({len(written)} real C++ sources x {repeats} rounds, median): with the "
            f"precompiled header {on['cpu']:.0f} ms CPU {on['wall']:.0f} ms wall | without {off['cpu']:.0f} ms "
            f"CPU {off['wall']:.0f} ms wall | without/with {off['cpu'] / on['cpu']:.2f}x CPU, "
            f"{off['wall'] / on['wall']:.2f}x wall"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tests", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3, help="alternating rounds of each side (median)")
    ap.add_argument("--languages", default="cpp,c,java,go,rust,javascript")
    ap.add_argument(
        "--compiles", type=int, default=6, help="C++ sources compiled with and without the header"
    )
    args = ap.parse_args()
    print(f"before: {load_now()}")
    languages = args.languages.split(",")
    tests = [(f"t{i:03d}", f"{i} {i * 7}\n".encode(), f"{i * 8}\n".encode()) for i in range(args.tests)]
    with tempfile.TemporaryDirectory(prefix="lang-bench-") as tmp:
        settings = Settings(state_dir=Path(tmp), slots=1)
        engine = Engine(settings)
        try:
            spec = ProblemSpec.model_validate(
                {
                    "id": "ab",
                    "time_limit_ms": 5000,
                    "memory_limit_mb": MEMORY_MB,
                    "checker": {"type": "tokens"},
                }
            )
            problem = build_problem(spec, tests, engine.store)
            print(f"lang_bench: {args.tests} tests of A+B per judging, {args.repeats} rounds, one slot")
            print(
                f"{'language':>10} | ours wall/test  cpu/test | subprocess wall/test  cpu/test | ratio (wall)"
            )
            for language in languages:
                sub = Submission(id="s", problem_id="ab", language=language, code=SUM[language])
                t0 = time.perf_counter()
                first = engine.judge(problem, sub, mode="full")
                compile_s = time.perf_counter() - t0
                assert first.outcome == Outcome.CORRECT, (language, first.compile_output)
                runner = RUNNERS[language]
                artifact = newest_artifact(Path(tmp) / "bin")
                argv = list(runner.command(str(artifact), MEMORY_MB))
                ours, base, ours_cpu, base_cpu = [], [], [], []
                for _ in range(args.repeats):
                    t0 = time.perf_counter()
                    r = engine.judge(problem, sub, mode="full")
                    ours.append((time.perf_counter() - t0) / args.tests)
                    # the programs' own CPU as the cgroup counted it
                    ours_cpu.append(sum(t.cpu_ms or 0 for t in r.tests) / 1000 / args.tests)
                    assert r.outcome == Outcome.CORRECT
                    t0, c0 = time.perf_counter(), children_cpu()
                    for _, stdin, want in tests:
                        out = subprocess.run(argv, input=stdin, capture_output=True, check=True)
                        assert out.stdout.split() == want.split()
                    base.append((time.perf_counter() - t0) / args.tests)
                    base_cpu.append((children_cpu() - c0) / args.tests)
                w, bw = statistics.median(ours), statistics.median(base)
                print(
                    f"{language:>10} | {w * 1000:9.1f} ms {statistics.median(ours_cpu) * 1000:8.1f} ms"
                    f" | {bw * 1000:14.1f} ms {statistics.median(base_cpu) * 1000:8.1f} ms"
                    f" | {w / bw:5.2f}x   (first judging with compile {compile_s:.1f} s)"
                )
            if args.compiles:
                compiles(engine, args.compiles, args.repeats)
        finally:
            engine.close()
    print(f"cpus: {os.cpu_count()}; after: {load_now()}")


if __name__ == "__main__":
    main()
