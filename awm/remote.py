"""``awm.remote(url, env)``: a Gymnasium env whose episodes live on an ``awm serve`` server.

``url`` is the server's control plane (the trainer's API: ``awm serve --port 8000`` puts it on port 8001
by default) and ``token`` its bearer token (``--control-token-env``), if it has one. The agent plane alone
cannot create episodes or report rewards."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import gymnasium as gym
import httpx

from awm.errors import AwmError
from awm.gym.spaces import AnyText
from awm.runtime.actions import MAX_ACTION, MAX_OBSERVATION


class RemoteError(AwmError):
    """The server answered with an error (``code`` is its stable error code)."""

    def __init__(self, code: str, message: str, status: int):
        self.code, self.status = code, status
        super().__init__(f"{code}: {message}")


class RemoteEnv(gym.Env[str, str]):
    """Same observations, rewards and info as ``gym.make("awm/<env>-v0")``, over HTTP.

    Actions travel as they are (a typed ``{"answer": <value>}`` stays typed); ``info["tools"]`` holds the
    episode's ``submit_answer`` with its task's answer schema, as the server lists it."""

    metadata = {"render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        url: str,
        env: str,
        task_id: str | None = None,
        reward: str | None = None,
        token: str | None = None,
        timeout: float = 30.0,
        client: httpx.Client | None = None,
    ):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.client = client or httpx.Client(base_url=url.rstrip("/"), headers=headers, timeout=timeout)
        self.env_name, self.task_id, self.reward_spec = env, task_id, reward
        self.action_space = AnyText(MAX_ACTION)
        self.observation_space = AnyText(MAX_OBSERVATION)
        self.episode_id: str | None = None
        try:
            info = self._request("GET", f"/envs/{env}")
        except RemoteError as e:
            if e.code != "not_found":
                raise
            raise RemoteError(
                "not_found",
                f"{url} has no control plane: awm.remote needs the control plane's address "
                "(awm serve --control-port; by default the agent port + 1)",
                e.status,
            ) from None
        self._tools = [
            {
                "type": "function",
                "function": {"name": t["name"], "description": t["description"], "parameters": t["parameters"]},
            }
            for t in info["tools"]
        ]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        options = options or {}
        task_seed = seed if seed is not None else int(self.np_random.integers(2**31))
        self._drop()
        view = self._request(
            "POST",
            "/episodes",
            json={
                "env": self.env_name,
                "seed": task_seed,
                "task_id": options.get("task_id", self.task_id),
                "reward": options.get("reward", self.reward_spec),
            },
        )
        self.episode_id = view["episode_id"]
        task = view["task"]
        return task["instruction"], {
            "env_id": view["env_id"],
            "task_id": task["id"],
            "task_kind": task["kind"],
            "instruction": task["instruction"],
            "tools": self._tools_of(view),
            "seed": task_seed,
            "episode_id": self.episode_id,
        }

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self.episode_id is None:
            raise AwmError("call reset() before step()")
        try:
            out = self._request("POST", f"/episodes/{self.episode_id}/step", json={"action": action})
        except RemoteError as e:
            if e.code != "episode_ended":
                raise
            obs = json.dumps({"ok": False, "error": {"code": "episode_ended", "message": str(e)}})
            return obs, 0.0, True, False, {"error": {"code": "episode_ended", "message": str(e)}}
        return out["observation"], float(out["reward"]), out["terminated"], out["truncated"], out["info"]

    def _tools_of(self, view: dict[str, Any]) -> list[dict[str, Any]]:
        """The episode's tools as the server lists them (its submit_answer is typed per task)."""
        if isinstance(view.get("tools"), list):
            return view["tools"]
        submit = view.get("submit")  # an older server: the env's tools plus submit_answer if it names one
        return self._tools + ([{"type": "function", "function": submit}] if isinstance(submit, dict) else [])

    def close(self) -> None:
        self._drop()
        self.client.close()

    def _drop(self) -> None:
        if self.episode_id is not None:
            with contextlib.suppress(RemoteError, httpx.HTTPError):
                self._request("DELETE", f"/episodes/{self.episode_id}")
            self.episode_id = None

    def _request(self, method: str, path: str, **kw: Any) -> Any:
        r = self.client.request(method, path, **kw)
        if r.status_code >= 400:
            try:
                err = r.json()["error"]
            except (ValueError, KeyError, TypeError):
                err = {"code": "http_error", "message": r.text[:300]}
            raise RemoteError(err["code"], err["message"], r.status_code)
        return r.json()


def remote(url: str, env: str, **kwargs: Any) -> RemoteEnv:
    return RemoteEnv(url, env, **kwargs)
