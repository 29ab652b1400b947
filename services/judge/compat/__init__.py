"""Drop-in compatibility with the sandboxes RL code already calls: SandboxFusion's `/run_code` and
Judge0's API under `/judge0` (docs/spec.md, section "Compatibility APIs")."""

from services.judge.compat.routes import router

__all__ = ["router"]
