"""The judge's primitives: typed answers (``answers``, ``answer_text``, ``normal``), the write frame (``frame``),
the read-only check engine (``verify``) and the reward channels and presets (``rewards``).
"""
