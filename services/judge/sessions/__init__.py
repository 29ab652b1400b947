"""Sessions (docs/spec.md section 6.6): sandboxes that keep a Python interpreter or a bash shell alive
between calls, for the tool-use and agentic settings.

A session lives in one judge worker process (`manager.SessionManager`, in a `sandbox.session`
sandbox); the API reaches it through Redis (`bus`), so sessions work with workers on any number of
hosts, like judging. `routes` is the HTTP side, `models` the bodies.
"""
