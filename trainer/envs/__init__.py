"""Environments for trainers over judge sessions (docs/spec.md section 13.5): `core.SessionEnv` (one
session per rollout, the two settings' formats and reward), and thin adapters for TRL (`trl`), verl
(`verl`), SkyRL-gym and OpenRLHF (`step`), and multi-turn GRPO rollouts (`rollout`)."""
