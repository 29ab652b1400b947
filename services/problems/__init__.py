"""Problems as the product defines them: for now their prompts (prompts.py); the problem model, store,
discovery and importers are to move here from services/judge/ (docs/spec.md section 2)."""
