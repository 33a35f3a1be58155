"""Lemmata: a git-backed proof network for open mathematics in Lean 4."""

__version__ = "0.1.0"
