"""The reward service: the judge's R_k behind OpenRLHF's remote reward model protocol (port 8003)."""
