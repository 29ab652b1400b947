"""`make demo`: the families miniature (`frontier replicate configs/replicate_families_demo.toml`,
docs/spec.md 12.9, revision 1 in 12.10): the difficulty pilot (SFT-only policies on the ladder, each
trained until its samples on the training prompts parse or its epoch cap, measured on tier 1), then a
policy trained here by SFT and lax and strict GRPO runs with the judge's rewards on the training
instances, the alpha sweep through the merger and evaluator services on the held-out tiers, and the
report (runs/families_demo/).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO_CONFIG = ROOT / "configs" / "replicate_families_demo.toml"


def main() -> int:
    """`make demo`: `frontier replicate configs/replicate_families_demo.toml` (exit 1 when a stage fails, or a
    check with the config's `require_checks`)."""
    from trainer.replication.replicate import ReplicationCheckFailed, load_config, replicate

    try:
        replicate(load_config(DEMO_CONFIG))
    except ReplicationCheckFailed as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
