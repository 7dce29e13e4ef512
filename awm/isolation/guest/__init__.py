"""Code that runs INSIDE the sandbox (``awm.isolation``): the worker's side of the protocol.

Everything here imports only the standard library at module level, so the worker can be started by
path (``python -I -B guest/main.py``) with nothing of ``awm`` on its path; the parent imports
``protocol`` from here too, so both sides frame messages the same way.
"""
