"""Two GRPO steps on CPU through ``examples/train_grpo.py``'s ``build_trainer``: a tiny random Qwen2, a
tokenizer trained here whose own chat template cannot render tool calls (``--chat-template qwen3`` replaces
it), and a scripted ``generate()`` that emits real tool calls (the gold solution on even rows, an immediate wrong answer on odd rows), so each group has
different outcomes, the advantages and gradients are non-zero, and every reward comes from our verifier."""

from __future__ import annotations

import importlib.util
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch", reason="needs the train extra: pip install -e '.[train]'")
pytest.importorskip("trl", reason="needs the train extra: pip install -e '.[train]'")
pytest.importorskip("datasets", reason="needs the train extra: pip install -e '.[train]'")

import awm  # noqa: E402
from awm.runtime.actions import observation_text  # noqa: E402
from awm.runtime.chat import system_prompt  # noqa: E402

pytestmark = [pytest.mark.train, pytest.mark.filterwarnings("ignore::FutureWarning")]  # TRL sets deprecated args

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_grpo.py"
TASKS = {"online_store": "t04_boots_sold_out", "clinic": "t09_record_payment"}  # an answer task, a write task


def load_example() -> Any:
    spec = importlib.util.spec_from_file_location("train_grpo_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# a ChatML template without tool support, as many small models ship: TRL refuses it for tool training
PLAIN_CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def tiny_tokenizer(vocab_size: int = 8000) -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    from transformers.utils import get_json_schema

    from awm.train import environment_class

    special = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>"]
    special += ["<tool_response>", "</tool_response>", "<think>", "</think>"]
    corpus = []
    for env, task_id in TASKS.items():
        world = awm.load(env)
        cls = environment_class(world, task_id)
        corpus.append(system_prompt(world, task=world.task(task_id).task))
        corpus += [json.dumps(get_json_schema(getattr(cls, s.name))) for s in world.tool_specs()]
        corpus.append(json.dumps(get_json_schema(cls.submit_answer)))
        answer = world.task(task_id).verifier.gold.answer
        corpus.append(json.dumps({"name": "submit_answer", "arguments": {"answer": answer}}))
        ep = world.episode(task_id)
        for call in world.task(task_id).verifier.gold.calls:
            corpus.append(json.dumps({"name": call.tool, "arguments": call.arguments}))
            corpus.append(observation_text(ep.call(call.tool, call.arguments)))
        corpus.append(world.task(task_id).task.instruction)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=special, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(corpus * 3, trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>", padding_side="left"
    )
    tokenizer.chat_template = PLAIN_CHATML
    return tokenizer


def scripted_model(tokenizer: Any) -> Any:
    from transformers import Qwen2Config, Qwen2ForCausalLM

    golds = {awm.load(env).task(t).task.instruction: awm.load(env).task(t).verifier.gold for env, t in TASKS.items()}

    class ScriptedQwen2(Qwen2ForCausalLM):
        """A random tiny Qwen2 whose ``generate`` plays a script: the gold solution on even rows of the
        first turn (and every later turn, only those rows call tools), a wrong answer on odd rows."""

        calls = 0

        def generate(self, input_ids: Any = None, attention_mask: Any = None, **kw: Any) -> Any:
            ScriptedQwen2.calls += 1
            rows = []
            for i, ids in enumerate(input_ids):
                text = tokenizer.decode(ids[attention_mask[i].bool()])
                gold = next(g for instr, g in golds.items() if instr in text)
                done = len(re.findall(r"<tool_response>", text))
                if done == 0 and i % 2 == 1:
                    reply = "I am not sure."
                elif done < len(gold.calls):
                    call = gold.calls[done]
                    reply = (
                        "<tool_call>\n"
                        + json.dumps({"name": call.tool, "arguments": call.arguments})
                        + "\n</tool_call>"
                    )
                elif done == len(gold.calls):  # the typed answer through the submit_answer tool
                    submit = {"answer": gold.answer, "explanation": "from the gold solution"}
                    reply = (
                        "<tool_call>\n" + json.dumps({"name": "submit_answer", "arguments": submit}) + "\n</tool_call>"
                    )
                else:
                    reply = "Done."
                completion = [*tokenizer.encode(reply, add_special_tokens=False), tokenizer.eos_token_id]
                rows.append(ids.tolist() + completion)
            width = max(map(len, rows))
            padded = [r + [tokenizer.pad_token_id] * (width - len(r)) for r in rows]
            return torch.tensor(padded, dtype=torch.long, device=input_ids.device)

    torch.manual_seed(0)
    cfg = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=16384,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
    )
    return ScriptedQwen2(cfg)


def test_grpo_two_steps_on_cpu_with_rewards_from_our_verifier(tmp_path: Path) -> None:
    started = time.perf_counter()
    example = load_example()
    tokenizer = tiny_tokenizer()
    model = scripted_model(tokenizer)
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    argv = ["--cpu", "--envs", ",".join(TASKS), "--task-ids", ",".join(TASKS.values()), "--repeats", "4"]
    argv += ["--chat-template", "qwen3"]  # the tokenizer's own template has no tool support
    argv += ["--max-steps", "2", "--batch-size", "4", "--num-generations", "4", "--lr", "1e-2"]
    argv += ["--max-completion-length", "2048", "--max-tool-calls", "4", "--rewards", "outcome,gated_process"]
    argv += ["--reward-weights", "1.0,0.5", "--output-dir", str(tmp_path)]
    args = example.parse_args(argv)
    trainer = example.build_trainer(args, model=model, tokenizer=tokenizer)
    trainer.train()
    seconds = time.perf_counter() - started

    logs = [h for h in trainer.state.log_history if "loss" in h]
    assert len(logs) == 2
    for h in logs:
        # half of each group solved the task through real tool calls, half did not
        assert h["rewards/outcome_reward/mean"] == pytest.approx(0.5)
        assert h["rewards/gated_process_reward/mean"] == pytest.approx(0.5)
        assert h["reward_std"] > 0 and h["frac_reward_zero_std"] == 0
        assert h["tools/call_frequency"] > 0 and h["tools/failure_frequency"] == 0
        assert h["grad_norm"] > 0
    changed = [n for n, p in model.named_parameters() if not torch.equal(p.detach(), before[n])]
    assert changed, "the optimizer step changed nothing"

    # the rewards are our verifier's: each rollout's episode was submitted and judged by the SQL checks
    envs = [e for pool in trainer._environment_pool.values() for e in pool]
    judged = [e for e in envs if e.final is not None]
    assert len(judged) >= 4
    for env in judged:
        ep = env.episode
        assert ep is not None and ep.done
        gold = ep.world.task(ep.task.id).verifier.gold
        solved = len(env.channels) == len(gold.calls) and all(c.valid and not c.tool_error for c in env.channels)
        assert env.final.outcome == (1.0 if solved else 0.0)
        assert env.final.checks or ep.task.verifier.answer is not None
    assert {type(e).__name__ for e in judged} <= {"OnlineStoreT04BootsSoldOutEnv", "ClinicT09RecordPaymentEnv"}
    # the solved rollouts submitted through submit_answer, typed per task; the others fell back to their text
    solved = [e for e in judged if e.final.outcome == 1.0]
    assert solved and all(e.final.answer_correct is not False for e in solved)
    assert any(e.final.answer_correct is True for e in solved)  # the list-typed answer of t04_boots_sold_out
    print(f"GRPO smoke test: 2 steps in {seconds:.1f} s (generate called {type(model).calls} times)")


def test_a_chat_template_without_tools_is_refused_with_the_option_that_fixes_it(tmp_path: Path) -> None:
    example = load_example()
    tokenizer = tiny_tokenizer(vocab_size=600)
    args = example.parse_args(["--cpu", "--envs", "clinic", "--output-dir", str(tmp_path)])
    with pytest.raises(SystemExit, match=r"cannot render tool calls.*--chat-template"):
        example.build_trainer(args, model=object(), tokenizer=tokenizer)


# loads two tokenizers (~10 s): under -m slow (CI runs it); the GRPO smoke test runs by default
@pytest.mark.slow
def test_chat_template_option_takes_a_file_or_a_name_bundled_with_trl(tmp_path: Path) -> None:
    import importlib.resources as ir

    example = load_example()
    qwen3 = (ir.files("trl") / "chat_templates" / "qwen3.jinja").read_text()
    template = tmp_path / "tools.jinja"
    template.write_text(qwen3)
    for spec in ("qwen3", str(template)):
        tokenizer = tiny_tokenizer(vocab_size=600)
        example.prepare_tokenizer(tokenizer, example.parse_args(["--chat-template", spec]))
        assert tokenizer.chat_template == qwen3
        assert getattr(tokenizer, "response_template", None) or getattr(tokenizer, "response_schema", None)
    with pytest.raises(SystemExit, match=r"no template of that name.*qwen3"):
        example.load_chat_template("no_such_template")
    # a tool-capable template TRL cannot parse tool calls from: refused with the same hint
    template.write_text(qwen3.replace("<tool_call>", "<call>").replace("</tool_call>", "</call>"))
    with pytest.raises(SystemExit, match=r"no parser for tool calls.*--chat-template"):
        example.prepare_tokenizer(
            tiny_tokenizer(vocab_size=600), example.parse_args(["--chat-template", str(template)])
        )
