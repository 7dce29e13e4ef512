"""A bundle on disk: its records (``records``), reading it with every problem collected (``loader``), and
schema-valid sample arguments drawn from its seed (``samples``).
"""
