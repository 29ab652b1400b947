"""Problems as the product defines them (docs/spec.md section 2): the format (spec.py), validation and
the content-addressed test store (store.py), discovery on disk (discovery.py), benchmark importers
(importers.py), prompts (prompts.py) and the `frontier problems` commands (cli.py). The judge runs
problems (the bundled problems' builder and solution zoo are its: services/judge/core/build.py); nothing
here imports the judge, which imports this."""
