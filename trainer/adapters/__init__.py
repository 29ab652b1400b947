"""Thin adapters of the judge for other RL frameworks (verl); each goes through the one judge client."""
