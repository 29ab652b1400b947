"""Drop-in compatibility with the sandboxes RL code already calls: SandboxFusion's `/run_code` and
Judge0's API under `/judge0` (docs/spec.md, section "Compatibility APIs").

Only the two foreign wire formats live here (`sandboxfusion`, `judge0`: pure translation to and from
a run). Their routes are services/judge/api/compat.py, a run's queue contract
services/judge/queue/runs.py, its worker side services/judge/worker/runs.py."""
