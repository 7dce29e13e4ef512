"""One error tree for the whole package.

AwmError
├── BundleError              a bundle on disk is malformed (bad JSON, DDL, seed, tools.py, verifier SQL)
│   └── UnsafeSqlError       verifier SQL that is not a single read-only SELECT
├── ToolDefinitionError      a @tool function whose signature cannot become a schema
├── ImportedCodeError        an imported environment's code (AWM's awm_app.py) fails the static check,
│                            does not import, or sqlalchemy is missing (awm.importers.runtime)
├── UnknownEnvironmentError  no such environment in the registry (with "did you mean")
├── UnknownTaskError         no such task in an environment
├── WorldBuildError          a world builder (world.py) is missing, fails, or breaks the schema (awm.worldgen)
├── TemplateError            a template has no instance in a world, or a bad slot (awm.model.templates)
├── DistributionError        impossible task-distribution options (awm.model.distribution)
├── ExportError              nothing to export, or an instance whose gold does not score (awm.data.export)
├── ReportError              a run's results cannot be read (awm.eval.report)
│   └── EmptyRunError        nothing scored in a run
├── ViewError                the viewer's unknown run, episode or table; a bad run path (awm.view.errors)
├── EpisodeError             misuse of an episode
│   └── EpisodeClosedError   a call or submit after the episode ended
├── IsolationError           code we did not write could not run in its sandbox (awm.isolation)
│   ├── WorkerCrashed        its worker died or broke the protocol, and was killed
│   └── WorkerTimeout        its worker did not answer in time, and was killed
└── ToolError                raised by environment code: the agent did something wrong;
    │                        it becomes an observation, never an exception out of a step
    ├── ToolArgumentsError   a sandboxed tool's own validation refused the arguments (``invalid_arguments``)
    └── ToolTimeout          the call ran past its time limit and was stopped (the ``timeout`` channel)
"""

from __future__ import annotations


class AwmError(Exception):
    """Base class of every error this package raises on purpose."""


class BundleError(AwmError):
    """A bundle on disk cannot be loaded; ``problems`` lists every reason found."""

    def __init__(self, env: str, problems: list[str]):
        self.env = env
        self.problems = problems
        super().__init__(f"environment {env!r} is malformed: " + "; ".join(problems))


class UnsafeSqlError(BundleError):
    """Verifier SQL that is not a single read-only SELECT."""


class ToolDefinitionError(AwmError):
    """A tool function that cannot be turned into a tool (bad signature, missing docstring)."""


class ImportedCodeError(AwmError):
    """An imported environment's generated code cannot run: it fails the static check or does not import."""


class UnknownEnvironmentError(AwmError, KeyError):
    """No environment of that name; ``suggestions`` holds the closest names."""

    def __init__(self, name: str, suggestions: list[str], available: list[str]):
        self.name = name
        self.suggestions = suggestions
        hint = f" Did you mean {', '.join(repr(s) for s in suggestions)}?" if suggestions else ""
        avail = ", ".join(available) if available else "none"
        super().__init__(f"unknown environment {name!r}.{hint} Available: {avail}.")

    def __str__(self) -> str:  # KeyError would quote the message otherwise
        return str(self.args[0])


class UnknownTaskError(AwmError, KeyError):
    """No task of that id in the environment."""

    def __init__(self, env: str, task_id: str, suggestions: list[str]):
        hint = f" Did you mean {', '.join(repr(s) for s in suggestions)}?" if suggestions else ""
        super().__init__(f"environment {env!r} has no task {task_id!r}.{hint}")

    def __str__(self) -> str:
        return str(self.args[0])


class EpisodeError(AwmError):
    """Misuse of an episode by the caller (not by the agent)."""


class EpisodeClosedError(EpisodeError):
    """The episode has ended (answer submitted or closed); start a new one."""


class IsolationError(AwmError):
    """Code we did not write could not be run in its sandbox (no bubblewrap, or its worker failed)."""


class WorkerCrashed(IsolationError):
    """A sandboxed worker died, or sent something that is not a valid message; it was killed."""


class WorkerTimeout(IsolationError):
    """A sandboxed worker did not answer within its time limit; it was killed."""


class ToolError(AwmError):
    """Raised by a tool when the agent asked for something wrong. The message is shown to the agent.

    ``keeps_writes``: the call failed, but what it had written stands (an imported AWM app that
    committed before its response failed: AWM keeps that commit, so the episode keeps it too).
    """

    keeps_writes = False

    def keep_writes(self) -> ToolError:
        self.keeps_writes = True
        return self


class ToolArgumentsError(ToolError):
    """Arguments a sandboxed tool's own validation refused (reported as ``invalid_arguments``)."""


class ToolTimeout(ToolError):
    """A call that ran past its time limit and was stopped; nothing it did is kept."""
