"""Problems as the product defines them (docs/spec.md section 2): the format (spec.py), validation and
the content-addressed test store (store.py), discovery on disk (discovery.py), the bundled problems'
builder and solution zoo (bundled.py), benchmark importers (importers.py), prompts (prompts.py) and the
`frontier problems` commands (cli.py). The judge runs problems; nothing here runs a submission."""
