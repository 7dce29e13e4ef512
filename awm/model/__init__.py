"""The environment model: a bundle compiled into a ``World`` (``world``), cached on disk (``worldcache``), its
random worlds (``builders``) and task templates (``templates``), found by name (``registry``) and drawn for
training (``distribution``).
"""
