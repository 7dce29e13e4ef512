"""Escape tests of imported AWM code (apps and verifiers): every probe tries to break out and must fail."""
