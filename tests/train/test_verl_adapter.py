"""The veRL adapter through veRL's own code: its tool-config loader, create/execute/release as its ToolAgentLoop
calls them (and the loop itself, with a scripted server), its reward-function call, its RLHFDataset and its hydra
trainer config. Every reward must equal awm's own verdict for the same actions."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("verl", reason="needs veRL: pip install -e '.[train]' verl==0.9.1")

import awm
from awm.train.verl_env import (
    CALLS_KEY,
    AwmTool,
    EpisodeSpec,
    compute_score,
    task_rows,
    tool_config,
    write_rows,
    write_tool_config,
)

pytestmark = [pytest.mark.train, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

TASKS = {  # an answer task and a write task of two environments, and a third environment's answer task
    "online_store": ["t04_boots_sold_out", "t09_approve_priya_return"],
    "clinic": ["t02_outstanding_balance", "t09_record_payment"],
}


class Trajectory:
    """What veRL's ToolAgentLoop hands a tool as ``agent_data``: one object per trajectory, ``extra_fields``."""

    def __init__(self) -> None:
        self.extra_fields: dict[str, Any] = {}
        self.request_id = "det-0"  # full_determinism ids repeat: the adapter must not key on them


def quiet_tools(path: Path) -> dict[str, Any]:
    """veRL's own loader (BaseTool.__init__ prints every schema)."""
    from verl.tools.tool_registry import initialize_tools_from_config

    with contextlib.redirect_stdout(io.StringIO()):
        return {t.name: t for t in initialize_tools_from_config(str(path))}


@pytest.fixture(scope="module")
def worlds() -> list[awm.World]:
    return [awm.load(env) for env in TASKS]


@pytest.fixture(scope="module")
def tools(worlds: list[awm.World], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return quiet_tools(write_tool_config(worlds, tmp_path_factory.mktemp("verl") / "tools.yaml"))


async def call(tools: dict[str, Any], row: dict, traj: Trajectory, name: str, args: Any) -> tuple[dict, float]:
    """One tool call exactly as ToolAgentLoop._call_tool makes it: create → execute(agent_data) → release."""
    tool = tools[name]
    instance_id, _ = await tool.create(create_kwargs=row["extra_info"]["tools_kwargs"][name].get("create_kwargs", {}))
    try:
        response, reward, _ = await tool.execute(instance_id, args, agent_data=traj)
    finally:
        await tool.release(instance_id)
    return json.loads(response.text), reward


def score(row: dict, traj: Trajectory, solution: str = "") -> dict[str, float]:
    """compute_score called as veRL's NaiveRewardManager calls it (extra_info updated with tool_extra_fields)."""
    extra_info = {**row["extra_info"], **traj.extra_fields, "num_turns": 3, "rollout_reward_scores": {}}
    return compute_score(
        data_source=row["data_source"],
        solution_str=solution,
        ground_truth=row["reward_model"]["ground_truth"],
        extra_info=extra_info,
    )


def wrong(answer: Any) -> Any:
    """A wrong answer of the right type (a write task takes none: its wrong policy is skip_write)."""
    if isinstance(answer, bool):
        return not answer
    if isinstance(answer, int | float):
        return answer + 1
    if isinstance(answer, list):
        return answer[:-1] or ["nobody"]
    return None if answer is None else "definitely not it"


def awm_verdict(env: str, task_id: str, seed: int, calls: list[tuple[str, Any]], answer: Any, submit: bool) -> float:
    """The same actions straight on awm's episode."""
    ep = awm.load(env).episode(task_id, seed=seed)
    for tool, args in calls:
        ep.call(tool, args)
    res = ep.submit(answer) if submit else ep.submit(None)
    return float(res.rewards.outcome or 0.0)


def test_tool_config_loads_through_verls_loader(worlds: list[awm.World], tools: dict[str, Any]) -> None:
    assert set(tools) == {s.name for w in worlds for s in w.tool_specs()} | {"submit_answer"}
    assert all(isinstance(t, AwmTool) for t in tools.values())
    # verl keeps only type/description/enum per parameter: nested details are in the description
    schema = tools["submit_answer"].tool_schema.model_dump(exclude_unset=True, exclude_none=True)
    assert schema["function"]["parameters"]["properties"]["answer"]["type"][0] == "string"
    # names shared by two environments are refused unless namespaced
    with pytest.raises(ValueError, match="namespace=True"):
        tool_config([awm.load("online_store"), awm.load("online_store")])
    spaced = tool_config(worlds, namespace=True)["tools"]
    assert {t["tool_schema"]["function"]["name"] for t in spaced} >= {"clinic__list_clinics", "submit_answer"}


@pytest.mark.parametrize("policy", ["gold", "wrong_answer", "skip_write", "text_fallback", "truncated"])
def test_rewards_equal_awm_verdicts(worlds: list[awm.World], tools: dict[str, Any], policy: str) -> None:
    async def run() -> None:
        for row in task_rows(worlds, [t for ts in TASKS.values() for t in ts]):
            env, task_id, seed = (row["extra_info"][k] for k in ("env", "task_id", "seed"))
            gold = awm.load(env).task(task_id).verifier.gold
            calls = [(c.tool, c.arguments) for c in gold.calls]
            writes = [c for c in calls if awm.load(env).tools[c[0]].write]
            if policy == "skip_write" and writes:
                calls = [c for c in calls if c is not writes[-1]]
            answer = gold.answer
            if policy == "wrong_answer":
                answer = wrong(gold.answer)
            traj = Trajectory()
            for tool, args in calls:
                out, reward = await call(tools, row, traj, tool, json.loads(json.dumps(args)))
                assert out["ok"] and reward == 0.0, out
            submit = policy not in ("text_fallback", "truncated")
            solution = ""
            if submit:
                out, reward = await call(tools, row, traj, "submit_answer", {"answer": answer})
                assert out.get("submitted") or out["error"]["code"] == "malformed_action", out
            elif policy == "text_fallback":
                text = "Done." if answer is None else json.dumps(answer) if not isinstance(answer, str) else answer
                solution = f'<tool_call>{{"name": "x"}}</tool_call>\n<tool_response>\n{{}}\n</tool_response>\nassistant\n<think>ok</think>{text}'
                answer, submit = text, True
            else:
                solution = '</tool_response>\nassistant\n<tool_call>{"name": "list_clinics"}</tool_call>'
            # cut off while still calling tools: a failure, as awm eval's "truncated" status and the TRL reward
            expected = 0.0 if policy == "truncated" else awm_verdict(env, task_id, seed, calls, answer, submit)
            result = score(row, traj, solution)
            assert result["score"] == expected, (policy, env, task_id, result)
            if policy == "gold":
                assert expected == 1.0 and reward == 1.0  # the submit step's reward is the verdict too
            if (policy == "wrong_answer" and gold.answer is not None) or (policy == "skip_write" and writes):
                assert expected == 0.0, (policy, env, task_id)
            if policy == "truncated":
                assert result["truncated"] == 1.0 and result["score"] == 0.0

    asyncio.run(run())


def test_one_episode_per_trajectory_and_bad_input_is_an_observation(tools: dict[str, Any]) -> None:
    world = awm.load("online_store")
    row = task_rows([world], ["t09_approve_priya_return"])[0]

    async def run() -> None:
        a, b = Trajectory(), Trajectory()
        first = world.task("t09_approve_priya_return").verifier.gold.calls[0]
        for traj in (a, b):  # same request id, same task: still two isolated episodes
            out, _ = await call(tools, row, traj, first.tool, first.arguments)
            assert out["ok"]
        assert len(a.extra_fields[CALLS_KEY]) == len(b.extra_fields[CALLS_KEY]) == 1
        # wrong types, unknown arguments, a non-object: error observations the model can act on
        out, _ = await call(tools, row, a, "approve_return", {"rma": ["nope"]})
        assert out["error"]["code"] == "invalid_arguments"
        out, _ = await call(tools, row, a, "approve_return", [1, 2])
        assert not out["ok"]
        out, _ = await call(tools, row, a, "submit_answer", {"value": 1})
        assert out["error"]["code"] == "malformed_action"
        out, _ = await call(tools, row, a, "submit_answer", {"answer": None})
        assert out == {"ok": True, "submitted": True}
        out, _ = await call(tools, row, a, first.tool, first.arguments)  # after the end
        assert out["error"]["code"] == "episode_ended"
        # an unknown instance id, and a row whose create_kwargs name no task
        response, reward, _ = await tools["submit_answer"].execute("nope", {"answer": 1})
        assert json.loads(response.text)["error"]["code"] == "unknown_instance" and reward == 0.0
        bad = {"extra_info": {"tools_kwargs": {"submit_answer": {"create_kwargs": {"env": "online_store"}}}}}
        out, _ = await call(tools, bad, Trajectory(), "submit_answer", {"answer": 1})
        assert out["error"]["code"] == "no_episode" and "task_id" in out["error"]["message"]
        # the explicit lifecycle: one instance id shared by the tools, calc_reward, release
        tool = tools["submit_answer"]
        iid, _ = await tool.create(
            "traj-1", create_kwargs=row["extra_info"]["tools_kwargs"]["submit_answer"]["create_kwargs"]
        )
        for c in world.task("t09_approve_priya_return").verifier.gold.calls:
            await tools[c.tool].create(
                "traj-1", **EpisodeSpec.model_validate_json(row["reward_model"]["ground_truth"]).model_dump()
            )
            await tools[c.tool].execute("traj-1", c.arguments)
        assert await tool.calc_reward(iid) == 0.0
        await tool.execute(iid, {"answer": None})
        assert await tool.calc_reward(iid) == 1.0
        await tool.release(iid)
        assert "traj-1" not in AwmTool._by_instance
        # veRL dropping a trajectory (its AgentData) closes its episode, submitted or not
        open_episode = AwmTool._by_trajectory[b].episode
        assert open_episode is not None and not open_episode.done
        del a, b, traj
        assert open_episode.done

    asyncio.run(run())


# -- veRL's dataset, config and agent loop -------------------------------------------------------
def tiny_tokenizer(texts: list[str]) -> Any:
    """A byte-level BPE trained here with Qwen's special tokens and TRL's bundled Qwen3 chat template
    (it renders tools and <tool_call> turns): no download."""
    import importlib.resources

    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    special = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>"]
    special += ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400, special_tokens=special, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(texts, trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    tokenizer.chat_template = (importlib.resources.files("trl") / "chat_templates" / "qwen3.jinja").read_text()
    return tokenizer


def trainer_config(tool_path: Path, data_path: Path, reward_path: str) -> Any:
    """veRL's own ppo_trainer config composed with the overrides of the GPU command (README), on CPU."""
    import verl
    from hydra import compose, initialize_config_dir

    config_dir = Path(verl.__file__).parent / "trainer" / "config"
    overrides = [
        "algorithm.adv_estimator=grpo",
        f"data.train_files={data_path}",
        f"data.val_files={data_path}",
        "data.train_batch_size=32",
        "data.max_prompt_length=4096",
        "data.max_response_length=4096",
        "data.return_raw_chat=True",
        f"data.tool_config_path={tool_path}",
        "actor_rollout_ref.model.path=Qwen/Qwen3-1.7B",
        "actor_rollout_ref.rollout.name=sglang",
        "actor_rollout_ref.rollout.mode=async",
        "actor_rollout_ref.rollout.n=8",
        "actor_rollout_ref.rollout.multi_turn.enable=True",
        "actor_rollout_ref.rollout.multi_turn.format=hermes",
        "actor_rollout_ref.rollout.multi_turn.max_assistant_turns=16",
        "actor_rollout_ref.rollout.multi_turn.max_tool_response_length=4096",
        f"actor_rollout_ref.rollout.multi_turn.tool_config_path={tool_path}",
        "actor_rollout_ref.rollout.agent.default_agent_loop=tool_agent",
        f"reward.custom_reward_function.path={reward_path}",
        "reward.custom_reward_function.name=compute_score",
        "trainer.n_gpus_per_node=1",
    ]
    with initialize_config_dir(config_dir=str(config_dir), version_base=None):
        return compose(config_name="ppo_trainer", overrides=overrides)


def test_verl_dataset_config_reward_loader_and_tool_agent_loop(worlds: list[awm.World], tmp_path: Path) -> None:
    from omegaconf import OmegaConf, open_dict
    from verl.experimental.agent_loop.agent_loop import DictConfigWrap, ToolListWrap
    from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop
    from verl.trainer.ppo.reward import get_custom_reward_fn
    from verl.utils.dataset.rl_dataset import RLHFDataset
    from verl.workers.rollout.replica import TokenOutput

    rows = task_rows(worlds, ["t04_boots_sold_out", "t09_record_payment"])
    data = write_rows(rows, tmp_path / "train.parquet")
    tool_path = write_tool_config(worlds, tmp_path / "tools.yaml")
    config = trainer_config(tool_path, data, "pkg://awm.train.verl_env")
    assert config.algorithm.adv_estimator == "grpo" and config.actor_rollout_ref.rollout.multi_turn.enable
    assert OmegaConf.select(config, "reward.custom_reward_function.name") == "compute_score"
    reward_fn = get_custom_reward_fn(config)  # veRL's loader of our reward function
    assert reward_fn is not None

    golds = {
        row["prompt"][1]["content"]: awm.load(row["extra_info"]["env"]).task(row["extra_info"]["task_id"]).verifier.gold
        for row in rows
    }
    tokenizer = tiny_tokenizer([r["prompt"][0]["content"] + r["prompt"][1]["content"] for r in rows] * 2)
    data_config = copy.deepcopy(config.data)
    with open_dict(data_config):
        data_config.filter_overlong_prompts_workers = 1
        data_config.cache_dir = str(tmp_path)
    dataset = RLHFDataset(str(data), tokenizer, data_config)
    assert len(dataset) == len(rows)
    item = dataset[0]
    assert item["agent_name"] == "tool_agent" and item["raw_prompt"][1]["role"] == "user"
    assert set(item["tools_kwargs"]) >= {"submit_answer"} and item["index"] == 0

    class ScriptedServer:
        """Plays the gold solution as Hermes <tool_call> turns (what a Qwen model emits), then submit_answer."""

        async def generate(self, request_id: str, *, prompt_ids: list[int], **_: Any) -> TokenOutput:
            text = tokenizer.decode(prompt_ids)
            gold = next(g for instr, g in golds.items() if instr in text)
            done = text.count("<tool_response>")
            if done < len(gold.calls):
                call = {"name": gold.calls[done].tool, "arguments": gold.calls[done].arguments}
            else:
                call = {"name": "submit_answer", "arguments": {"answer": gold.answer}}
            reply = f"<tool_call>\n{json.dumps(call)}\n</tool_call>" if done <= len(gold.calls) else "Done."
            return TokenOutput(token_ids=[*tokenizer.encode(reply, add_special_tokens=False), tokenizer.eos_token_id])

    with contextlib.redirect_stdout(io.StringIO()):
        tools = quiet_tools(tool_path)
    config.actor_rollout_ref.rollout.prompt_length = 4096
    config.actor_rollout_ref.rollout.response_length = 4096

    async def rollouts() -> list[Any]:
        """Each dataset item through ToolAgentLoop.run, as AgentLoopWorker runs it (the loop binds the running loop)."""
        loop = ToolAgentLoop(
            trainer_config=DictConfigWrap(config),
            server_manager=ScriptedServer(),
            tokenizer=tokenizer,
            processor=None,
            dataset_cls=RLHFDataset,
            data_config=DictConfigWrap(config.data),
            tools=ToolListWrap(list(tools.values())),
        )
        items = [{k: v for k, v in dataset[i].items() if k != "dummy_tensor"} for i in range(len(rows))]
        return list(await asyncio.gather(*(loop.run({"temperature": 1.0}, **item) for item in items)))

    for row, out in zip(rows, asyncio.run(rollouts()), strict=True):
        extra = {**row["extra_info"], **out.extra_fields}
        solution = tokenizer.decode(out.response_ids, skip_special_tokens=True)
        result = reward_fn(
            data_source=row["data_source"],
            solution_str=solution,
            ground_truth=row["reward_model"]["ground_truth"],
            extra_info=extra,
        )
        gold = golds[row["prompt"][1]["content"]]
        assert len(extra[CALLS_KEY]) == len(gold.calls) + 1
        assert extra["tool_rewards"][-1] == 1.0 and result["score"] == 1.0 and result["submitted"] == 1.0
