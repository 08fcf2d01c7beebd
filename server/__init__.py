"""Warfield: a web virtual tabletop for miniature wargames that knows the rules."""

__version__ = "0.1.0"
