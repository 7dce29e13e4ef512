"""SQLite mechanics every layer above shares: row diffs (``diff``), static checks of SQL text (``checks``) and
loading seed rows (``seeding``).
"""
