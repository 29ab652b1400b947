"""The paper run: the miniature replication of the paper's findings through the stack's services
(`frontier replicate CONFIG`, docs/spec.md section 12), apart from the trainer library it uses.

    config       the replicate TOML's model (`configs/replicate_*.toml`), one section per stage
    replicate    the stages, resumable: corpus, policy, SFT, GRPO lax and strict, merges, evaluation
    corpus       the SFT corpus built from the training problems' programs
    policy       the from-scratch tokenizer and Qwen2 policy, its SFT, the repair warm-up's examples
    session_arm  the tool-use and agentic settings' arm, in real judge sessions
    report       report.md and summary.json from a run directory
    claims       the claims table: the paper's findings as checked statements
    plots        the report's figures
    rejudge      the independent re-judge of a run's recorded outcomes (`frontier rejudge`)

The library a user trains with (rewards, envs, adapters, the GRPO loop in trainer/train.py and the
repair rollout) lies beside this package in trainer/; imports run one way: this package imports the
trainer library, never the reverse.
"""
