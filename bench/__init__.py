"""Benchmarks of the mini participant; run as `python -m bench.<name>` from the repository root."""
