"""The viewer's errors, a branch of the package's one tree (``awm.errors``)::

    AwmError
    └── ViewError                 the viewer cannot show what was asked for
        ├── RunPathError          a path given as a run is not a run directory or a JSONL file
        ├── UnknownRunError       no run of that id               (HTTP 404 unknown_run)
        ├── UnknownEpisodeError   no episode of that key in a run (HTTP 404 unknown_episode)
        └── UnknownTableError     no table of that name           (HTTP 404 unknown_table)

Unknown environments and tasks are ``awm.errors.UnknownEnvironmentError`` / ``UnknownTaskError``.
"""

from __future__ import annotations

from awm.errors import AwmError


class ViewError(AwmError):
    """The viewer cannot show what was asked for."""


class RunPathError(ViewError):
    """A path given as a run is neither a run directory nor a JSONL file of episodes."""


class _Missing(ViewError, KeyError):
    def __str__(self) -> str:  # KeyError would quote the message otherwise
        return str(self.args[0])


class UnknownRunError(_Missing):
    """No run of that id."""


class UnknownEpisodeError(_Missing):
    """No episode of that (env, task, trial) in a run."""


class UnknownTableError(_Missing):
    """No table of that name in an environment."""
