"""Our environments as OpenEnv environments (``openenv-core``), served by OpenEnv's own HTTP/WebSocket server.

One process serves any number of sessions (OpenEnv's factory and ``SUPPORTS_CONCURRENT_SESSIONS``): each
WebSocket session gets its own ``AwmOpenEnv`` and each ``reset`` its own isolated ``Episode`` (microseconds: the
worlds are compiled once per process), so no session ever starts a process or a server of its own.

- ``reset(env=..., task_id=..., seed=..., reward=...)``: the observation carries the instruction and the tools
  (OpenAI function schemas, ``submit_answer`` typed for the task).
- ``step(AwmAction(tool_name=..., arguments=...))``: a tool call, or the final answer as the ``submit_answer`` tool
  (``{"answer": ..., "explanation": ...}``); ``AwmAction(type="list_tools")`` lists the tools. OpenEnv's MCP
  actions have the same fields (``tool_name``, ``arguments``, ``type``).
- The observation: ``text`` is what the policy sees (the tool's result or a clear error, as JSON text);
  ``reward``/``done`` and ``rewards`` (the step's scalar reward channels) are for the trainer. The per-check
  vector, the gold solution and the verdict's reasons never leave the server; nor does ``state``, which holds
  the episode id, the step count, the environment and the task.

Run it: ``python -m awm.train.openenv_env --env online_store --env clinic --port 8010`` (``--help``), or
``uvicorn --factory awm.train.openenv_env:asgi_app`` (``AWM_OPENENV_ENVS=online_store,clinic``); talk to it
with ``AwmEnvClient(base_url).sync()``. ``openenv_environment_factories`` gives TRL ``environment_factory``
classes whose tool calls go through that client, so the reward functions of ``awm.train`` apply unchanged.
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import os
import threading
import uuid
from collections.abc import Sequence
from dataclasses import fields
from typing import Any, ClassVar, Literal

from pydantic import Field

from awm.bundle.records import Task
from awm.judge.rewards import RewardChannels
from awm.model.registry import default_registry
from awm.model.world import World
from awm.runtime.actions import agent_tools, apply_action, observation_text
from awm.runtime.episode import Episode, StepResult
from awm.runtime.submit import SUBMIT
from awm.train.trl_env import AwmToolEnv, env_key, environment_class

try:  # the library is an optional dependency: everything below needs it at run time only
    from openenv.core.client_types import StepResult as ClientStep
    from openenv.core.env_client import EnvClient
    from openenv.core.env_server.http_server import create_app
    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.types import Action, Observation, State
except ImportError as e:  # pragma: no cover - exercised where openenv-core is missing
    raise ImportError("awm.train.openenv_env needs openenv-core: pip install 'awm-gym' openenv-core") from e

# the scalar channels a trainer gets with each step; ``checks`` (names and verdicts of the verifier's checks)
# stays on the server
CHANNELS = tuple(f.name for f in fields(RewardChannels) if f.name != "checks")
RESET_KEYS = frozenset({"env", "task_id", "reward"})


class AwmAction(Action):
    """A tool call (``submit_answer`` ends the episode), or ``type="list_tools"``."""

    type: Literal["call_tool", "list_tools"] = Field("call_tool", description="call_tool, or list_tools")
    tool_name: str = Field("", description="the tool to call; submit_answer gives the final answer")
    arguments: dict[str, Any] | str = Field(
        default_factory=dict, description="the tool's arguments: an object, or its JSON text as a model wrote it"
    )


class AwmObservation(Observation):
    """``text`` is the policy's view; ``reward``, ``done`` and ``rewards`` are the trainer's."""

    text: str = Field(description="the instruction (reset), else the tool's result or error as JSON text")
    ok: bool = True
    tool: str | None = None
    error_code: str | None = Field(None, description="malformed_action, unknown_tool, invalid_arguments, ...")
    env: str | None = None
    task_id: str | None = None
    instruction: str | None = Field(None, description="reset only")
    tools: list[dict[str, Any]] | None = Field(None, description="reset only: OpenAI function schemas")
    rewards: dict[str, Any] = Field(default_factory=dict, description="this step's scalar reward channels")


class AwmState(State):
    """What a session may ask about itself: never checks, gold or verdict internals."""

    env: str | None = None
    task_id: str | None = None
    seed: int | None = None
    done: bool = False


def _channels(ch: RewardChannels) -> dict[str, Any]:
    return {name: getattr(ch, name) for name in CHANNELS}


class AwmOpenEnv(Environment[AwmAction, AwmObservation, AwmState]):
    """One session: one isolated episode at a time of one of ``envs`` (default: every registered one)."""

    SUPPORTS_CONCURRENT_SESSIONS: ClassVar[bool] = True  # nothing mutable is shared between sessions

    def __init__(
        self,
        envs: Sequence[str] | None = None,
        reward: str | None = None,
        max_observation_chars: int | None = None,
    ) -> None:
        super().__init__()
        self.envs = tuple(envs) if envs else tuple(default_registry().names())
        self.reward = reward
        self.max_observation_chars = max_observation_chars
        self.episode: Episode | None = None
        self._state = AwmState()

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        env: str | None = None,
        task_id: str | None = None,
        reward: str | None = None,
        **kwargs: Any,
    ) -> AwmObservation:
        """A fresh episode; bad arguments raise (OpenEnv answers the client with the message)."""
        if kwargs:
            raise ValueError(f"reset takes env, task_id, seed, episode_id and reward, not {sorted(kwargs)}")
        if env is None:
            if len(self.envs) != 1:
                raise ValueError(f"reset needs env=...: this server runs {', '.join(self.envs)}")
            env = self.envs[0]
        if env not in self.envs:
            raise ValueError(f"this server does not run {env!r}; it runs {', '.join(self.envs)}")
        world = default_registry().load(env)
        s = int(seed or 0)
        if task_id is None:
            ct = world.task(None, s)
        else:  # a fixed task, or a template instance on its own built world
            world, ct = world.resolve(task_id)
        if self.episode is not None:
            self.episode.close()
        self.episode = world.episode(ct.id, seed=s, reward=reward if reward is not None else self.reward)
        task = ct.task
        self._state = AwmState(episode_id=episode_id or str(uuid.uuid4()), env=world.id, task_id=task.id, seed=s)
        return AwmObservation(
            text=task.instruction,
            env=world.id,
            task_id=task.id,
            instruction=task.instruction,
            tools=agent_tools(world, task),
            reward=0.0,
        )

    def step(self, action: AwmAction, timeout_s: float | None = None, **kwargs: Any) -> AwmObservation:
        """Run one action; every agent mistake is an observation (each tool keeps its own time limit)."""
        ep = self.episode
        if ep is None:
            return self._refusal("no_episode", "no episode: reset(env=..., task_id=...) first")
        if ep.done:
            return self._refusal("episode_ended", "the episode has ended; reset() starts a new one")
        if action.type == "list_tools":
            res = apply_action(ep, {"tool": "list_tools"})
        elif not action.tool_name:
            res = ep.reject('an action needs "tool_name" (a tool, or submit_answer) or type "list_tools"')
        else:
            res = apply_action(ep, {"tool": action.tool_name, "arguments": action.arguments})
        self._state.step_count = ep.steps
        self._state.done = ep.done
        return self._observe(res)

    def _observe(self, res: StepResult) -> AwmObservation:
        text = observation_text(res)
        limit = self.max_observation_chars
        if limit is not None and len(text) > limit:
            text = text[:limit] + f"... [{len(text) - limit} more characters cut; narrow the request]"
        return AwmObservation(
            text=text,
            ok=res.ok,
            tool=SUBMIT if res.done else res.tool,
            error_code=res.error.code if res.error else None,
            env=self._state.env,
            task_id=self._state.task_id,
            rewards=_channels(res.rewards),
            reward=float(res.reward),
            done=res.done,
        )

    def _refusal(self, code: str, message: str) -> AwmObservation:
        text = json.dumps({"ok": False, "error": {"code": code, "message": message}})
        return AwmObservation(text=text, ok=False, error_code=code, reward=0.0, done=True)

    @property
    def state(self) -> AwmState:
        return self._state

    def close(self) -> None:
        if self.episode is not None:
            self.episode.close()
            self.episode = None


def create_openenv_app(
    envs: Sequence[str] | None = None,
    *,
    reward: str | None = None,
    max_concurrent_envs: int = 1024,
    max_observation_chars: int | None = None,
) -> Any:
    """OpenEnv's FastAPI app over ``envs`` (compiled here, once), up to ``max_concurrent_envs`` sessions."""
    names = tuple(envs) if envs else tuple(default_registry().names())
    for name in names:
        default_registry().load(name)  # unknown names fail here, with suggestions; sessions start warm
    factory = functools.partial(AwmOpenEnv, names, reward, max_observation_chars)
    return create_app(factory, AwmAction, AwmObservation, env_name="awm", max_concurrent_envs=max_concurrent_envs)


def asgi_app() -> Any:
    """For ``uvicorn --factory awm.train.openenv_env:asgi_app``: the environments in ``AWM_OPENENV_ENVS``."""
    envs = [e.strip() for e in os.environ.get("AWM_OPENENV_ENVS", "").split(",") if e.strip()]
    return create_openenv_app(envs or None, reward=os.environ.get("AWM_OPENENV_REWARD") or None)


class AwmEnvClient(EnvClient[AwmAction, AwmObservation, AwmState]):
    """OpenEnv's WebSocket client for our types (``.sync()`` for the blocking wrapper); one session each."""

    def _step_payload(self, action: AwmAction) -> dict[str, Any]:
        return action.model_dump(exclude={"metadata"})

    def _parse_result(self, payload: dict[str, Any]) -> ClientStep[AwmObservation]:
        obs = AwmObservation(**payload.get("observation", {}), reward=payload.get("reward"), done=payload["done"])
        return ClientStep(observation=obs, reward=payload.get("reward"), done=bool(payload.get("done")))

    def _parse_state(self, payload: dict[str, Any]) -> AwmState:
        return AwmState.model_validate(payload)


# -- TRL: environment_factory classes whose episodes run on an OpenEnv server -------------------------------
class OpenEnvToolEnv(AwmToolEnv):
    """``AwmToolEnv`` (one method per tool, typed ``submit_answer``) over an OpenEnv session instead of a local
    episode: ``channels`` and ``final`` come from the server, so ``outcome_reward`` and the others apply."""

    base_url: ClassVar[str]

    def __init__(self) -> None:
        super().__init__()
        self.client: Any = None  # a SyncEnvClient: one session, reused by every reset of this instance
        self.last: AwmObservation | None = None

    def reset(self, task_id: str | None = None, seed: int = 0, **row: Any) -> str | None:
        bound = type(self).task_id
        if bound is not None and task_id is not None and task_id != bound:
            raise ValueError(f"{type(self).__name__} runs task {bound!r}, not {task_id!r}; route rows with task_rows")
        if self.client is None:
            self.client = AwmEnvClient(type(self).base_url).sync()
            self.client.connect()
        tid = task_id if task_id is not None else bound
        self.last = self.client.reset(env=self.world.id, task_id=tid, seed=int(seed or 0)).observation
        self.channels, self.final, self.truncated = [], None, False
        return None

    def _step(self, name: str, arguments: Any) -> AwmObservation:
        if self.client is None:
            raise RuntimeError("reset() was not called")
        obs: AwmObservation = self.client.step(AwmAction(tool_name=name, arguments=arguments)).observation
        if obs.error_code != "episode_ended":
            ch = RewardChannels(**obs.rewards)
            if obs.done:
                self.final = ch
            else:
                self.channels.append(ch)
        self.last = obs
        return obs

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        text = self._step(name, arguments).text
        limit = self.max_observation_chars
        if limit is not None and len(text) > limit:
            text = text[:limit] + f"... [{len(text) - limit} more characters cut; narrow the request]"
        return text

    def _submit(self, arguments: dict[str, Any]) -> str:
        return self._step(SUBMIT, arguments).text

    def _finish(self, answer: Any, truncated: bool = False, explanation: str | None = None) -> RewardChannels:
        if self.final is None:
            self.truncated = truncated
            args: dict[str, Any] = {"answer": answer}
            if explanation is not None:
                args["explanation"] = explanation
            if not self._step(SUBMIT, args).done:  # never of the type: over, with no answer
                self._step(SUBMIT, {"answer": None})
            assert self.final is not None
        return self.final

    def _close(self) -> None:
        """Ends the session (not public: TRL would offer every public method to the model as a tool)."""
        if self.client is not None:
            self.client.close()
            self.client = None


def openenv_environment_class(
    world: World, task: str | Task | None, base_url: str, *, max_observation_chars: int | None = None
) -> type[OpenEnvToolEnv]:
    """``environment_class(world, task)`` whose episodes run on the OpenEnv server at ``base_url``."""
    local = environment_class(world, task, max_observation_chars=max_observation_chars)
    attrs = {"base_url": base_url, "__module__": __name__}
    return type(local.__name__, (OpenEnvToolEnv, local), attrs)


def openenv_environment_factories(
    worlds: Sequence[World], base_url: str, *, max_observation_chars: int | None = None
) -> dict[str, type[OpenEnvToolEnv]]:
    """``environment_factories(worlds)`` (one class per task, keyed ``env_key``) over an OpenEnv server."""
    return {
        env_key(w, tid): openenv_environment_class(w, tid, base_url, max_observation_chars=max_observation_chars)
        for w in worlds
        for tid in w.task_ids
    }


# -- running it ---------------------------------------------------------------------------------------------
def _closed_by_client(record: logging.LogRecord) -> bool:
    """Drop the traceback OpenEnv 0.3.0's ``/ws`` logs when a client closes its session as its own client does
    (the server answers the ``close`` message by closing a socket the client already closed)."""
    exc = record.exc_info[1] if record.exc_info else None
    return type(exc).__name__ != "WebSocketDisconnect"


class Served:
    """An OpenEnv server of ours on a loopback port, in a daemon thread (tests, benchmarks, ``train``)."""

    def __init__(self, envs: Sequence[str] | None = None, *, port: int = 0, **kwargs: Any) -> None:
        import socket
        import time

        import uvicorn

        if port == 0:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
        app = create_openenv_app(envs, **kwargs)
        logging.getLogger("uvicorn.error").addFilter(_closed_by_client)
        cfg = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error")
        self.server = uvicorn.Server(cfg)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the OpenEnv server did not start")
            time.sleep(0.01)
        self.url = f"http://127.0.0.1:{port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m awm.train.openenv_env", description=__doc__.split("\n")[0])
    p.add_argument("--env", action="append", default=None, help="an environment to serve (repeat; default: all)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8010)
    p.add_argument("--max-sessions", type=int, default=1024, help="concurrent WebSocket sessions")
    p.add_argument("--reward", default=None, help="reward preset: outcome (default), shaped, dense")
    p.add_argument("--max-observation-chars", type=int, default=None, help="cut longer tool results")
    args = p.parse_args(argv)
    import uvicorn

    app = create_openenv_app(
        args.env,
        reward=args.reward,
        max_concurrent_envs=args.max_sessions,
        max_observation_chars=args.max_observation_chars,
    )
    logging.getLogger("uvicorn.error").addFilter(_closed_by_client)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
