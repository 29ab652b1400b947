"""Cross-check of `frontier rejudge` against the judge itself (docs/performance.md's figure, docs/spec.md 12.8).

For each problem below: its reference program, its zoo's Python programs, `print(0)`, and a
completion whose only block is not Python, each as a fenced completion; `frontier judge-set` judges
them on this machine's slots; the results become a run directory's samples.jsonl (the judge's
recorded outcomes), which `frontier rejudge` then judges again, every record drawn.

    python scripts/rejudge_crosscheck.py [OUT_DIR]      (default /tmp/rejudge_crosscheck)
"""

from __future__ import annotations

import collections
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = ROOT / "problems" / "bundled"
PROBLEMS = [
    # replicate_paper.toml's sixteen, then a functional problem and a second checker-program problem
    "anagram_groups", "chain_letters", "frequency_sort", "line_failures", "network_connectivity",
    "parcel_totals", "pattern_count", "prefix_range_sums", "prime_tally", "window_maximums",
    "any_pair_with_sum", "best_average_window", "bracket_depth", "cheapest_routes", "closest_pair",
    "coprime_runs", "count_smaller_right", "echo_phrase",
]  # fmt: skip


def main(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    inputs = []
    for pid in PROBLEMS:
        d = BUNDLED / pid
        programs = [(d / "ref.py").read_text()] + [f.read_text() for f in sorted((d / "zoo").glob("*.py"))]
        programs.append("print(0)\n")
        for code in programs:
            inputs.append({"problem_id": pid, "completion": f"```python\n{code.strip()}\n```\n"})
        inputs.append({"problem_id": pid, "completion": "I would sort it.\n```text\nsorted\n```\n"})
    completions = out / "completions.jsonl"
    completions.write_text("".join(json.dumps(r) + "\n" for r in inputs))
    judged = out / "judged.jsonl"
    cli = [sys.executable, "-m", "services.cli"]
    subprocess.run(
        [*cli, "judge-set", str(BUNDLED), str(completions), "--out", str(judged)], cwd=ROOT, check=True
    )
    run = out / "run"
    run.mkdir(exist_ok=True)
    (run / "config.json").write_text(json.dumps({"benchmark": "bundled"}))
    index: collections.Counter = collections.Counter()
    with (run / "samples.jsonl").open("w") as f:
        for line in judged.read_text().splitlines():
            result = json.loads(line)
            source = inputs[int(result["line"].rsplit(":", 1)[1]) - 1]
            pid = source["problem_id"]
            record = {
                "problem_id": pid,
                "checkpoint": "zoo",
                "alpha": None,
                "sample_index": index[pid],
                "status": result["status"],
                "completion": source["completion"],
                "outcome": result.get("outcome"),
                "rewards": result.get("rewards"),
                "first_failure": result.get("first_failure"),
            }
            index[pid] += 1
            f.write(json.dumps(record) + "\n")
    return subprocess.run([*cli, "rejudge", str(run), "--per-class", str(len(inputs))], cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("/tmp/rejudge_crosscheck")))
