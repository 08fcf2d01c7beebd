"""Reliability: crash, restart, SIGTERM, fuzzing (issue 8)."""
