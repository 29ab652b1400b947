"""Drop-in compatibility with the sandboxes RL code already calls: SandboxFusion's `/run_code` and
Judge0's API under `/judge0` (docs/spec.md, section "Compatibility APIs").

`routes` is the HTTP side (mounted in the judge API), `runs` the queue contract of a run, `execute`
its worker side, `notify` a finished run's callback."""
