"""Tests that need the ``train`` extra (torch, trl, transformers, datasets; marker ``train``). No hub
access: everything these tests use is built locally."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
