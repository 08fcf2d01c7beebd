"""Benchmarks that print JSON (never timed assertions in tests)."""
