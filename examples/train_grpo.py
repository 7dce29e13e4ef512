"""GRPO on AWM Gym environments with TRL: the model calls our tools, our verifier scores the outcome.

    .venv/bin/python examples/train_grpo.py --model Qwen/Qwen3-0.6B --envs online_store,clinic --max-steps 200

TRL trains tool calling only with a chat template it can render tool calls with and parse them back from
(it recognises templates by their exact text). For a model whose own template has no tool support, pass
``--chat-template qwen3`` (or another template bundled with TRL, or a Jinja file) whose special tokens
the model's tokenizer has.

One environment instance per rollout (TRL's ``environment_factory``; one class per task, its methods
generated from the registry's tool schemas plus ``submit_answer`` with the task's answer schema, so the
model submits a typed answer), the outcome reward from the SQL verifier, and
optional step-level channels as extra reward functions (``--rewards outcome,gated_process``). Needs the
``train`` extra (torch, trl, transformers, datasets, accelerate) and, for ``--vllm``, vLLM on a GPU.
See examples/README.md for the GPU recipe. ``tests/train`` runs this same ``build_trainer`` on CPU with a
tiny random model.
"""

from __future__ import annotations

import argparse
import importlib.resources
import os
from pathlib import Path
from typing import Any

import awm
from awm.train import REWARDS, environment_factories, task_rows


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default="Qwen/Qwen3-0.6B", help="a Hugging Face model id or a local path")
    p.add_argument("--envs", default="online_store,clinic", help="comma-separated environments")
    p.add_argument("--task-ids", default=None, help="comma-separated task ids (default: every task of the envs)")
    p.add_argument("--repeats", type=int, default=64, help="times each task appears in the dataset")
    p.add_argument("--max-steps", type=int, default=200, help="optimizer steps")
    p.add_argument("--batch-size", type=int, default=8, help="per-device rollouts per step")
    p.add_argument("--num-generations", type=int, default=8, help="rollouts per prompt (the GRPO group)")
    p.add_argument("--grad-accum", type=int, default=1, help="gradient accumulation steps")
    p.add_argument("--lr", type=float, default=1e-6, help="learning rate")
    p.add_argument("--beta", type=float, default=0.0, help="KL coefficient (0: no reference model)")
    p.add_argument("--temperature", type=float, default=1.0, help="sampling temperature of rollouts")
    p.add_argument("--max-completion-length", type=int, default=6144, help="tokens per rollout, tool results included")
    p.add_argument("--max-tool-calls", type=int, default=16, help="tool-calling iterations per rollout")
    p.add_argument("--max-observation-chars", type=int, default=4000, help="cut longer tool results")
    p.add_argument("--rewards", default="outcome", help=f"reward functions, comma-separated: {', '.join(REWARDS)}")
    p.add_argument("--reward-weights", default=None, help="one weight per reward function (default: all 1)")
    p.add_argument(
        "--chat-template",
        default=None,
        help="replace the model's chat template: a Jinja file, or the name of one bundled with TRL "
        "(qwen3, qwen2_5, llama3_1, ...); needed when the model's own template cannot render tool calls",
    )
    p.add_argument("--thinking", action="store_true", help="let Qwen3 think (chat_template_kwargs enable_thinking)")
    p.add_argument(
        "--vllm", action=argparse.BooleanOptionalAction, default=None, help="vLLM colocate (default: on GPU)"
    )
    p.add_argument("--vllm-gpu-memory", type=float, default=0.35, help="GPU memory fraction vLLM may use")
    p.add_argument("--vllm-max-model-length", type=int, default=16384, help="vLLM context: prompt + completion")
    p.add_argument("--bf16", action=argparse.BooleanOptionalAction, default=None, help="bf16 (default: on GPU)")
    p.add_argument("--cpu", action="store_true", help="train on CPU (the smoke test)")
    p.add_argument(
        "--gradient-checkpointing", action=argparse.BooleanOptionalAction, default=True, help="trade compute for memory"
    )
    p.add_argument(
        "--openenv-url",
        default=None,
        help="step the environments through an OpenEnv server at this URL (python -m awm.train.openenv_env; "
        "the openenv extra) instead of in this process",
    )
    p.add_argument("--output-dir", default="runs/grpo", help="checkpoints and logs")
    p.add_argument("--save-steps", type=int, default=0, help="save every N steps (0: only at the end)")
    p.add_argument("--report-to", default="none", help="none, wandb, tensorboard, ...")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def bundled_chat_templates() -> dict[str, Any]:
    """TRL's bundled chat templates by name (``trl/chat_templates/<name>.jinja``, training variants left out)."""
    folder = importlib.resources.files("trl") / "chat_templates"
    return {
        f.name.removesuffix(".jinja"): f
        for f in folder.iterdir()
        if f.name.endswith(".jinja") and not f.name.endswith("_training.jinja")
    }


def load_chat_template(spec: str) -> str:
    """``--chat-template``: the text of a Jinja file, or of a template bundled with TRL named ``spec``."""
    path = Path(spec).expanduser()
    if path.is_file():
        return path.read_text(encoding="utf-8")
    bundled = bundled_chat_templates()
    if spec in bundled:
        return str(bundled[spec].read_text(encoding="utf-8"))
    raise SystemExit(
        f"--chat-template {spec!r}: no such file, and no template of that name is bundled with TRL "
        f"(bundled: {', '.join(sorted(bundled))})"
    )


def prepare_tokenizer(tokenizer: Any, args: argparse.Namespace) -> Any:
    """Apply ``--chat-template`` and check, before TRL does, that the template can render tool calls and
    that TRL can parse them back; say which option fixes it when it cannot."""
    from trl.chat_template_utils import (
        add_response_schema,
        get_training_chat_template,
        is_chat_template_prefix_preserving,
        supports_tool_calling,
    )

    if args.chat_template:
        tokenizer.chat_template = load_chat_template(args.chat_template)
    source = f"--chat-template {args.chat_template}" if args.chat_template else f"the chat template of {args.model}"
    hint = (
        "pass --chat-template with a tool-capable template whose special tokens the model knows: qwen3 for "
        "ChatML models (<|im_start|>), llama3_1 for Llama 3, or a Jinja file"
    )
    if not supports_tool_calling(tokenizer):
        raise SystemExit(f"{source} cannot render tool calls, so TRL refuses it: {hint}")
    if getattr(tokenizer, "response_template", None) is None and getattr(tokenizer, "response_schema", None) is None:
        try:
            add_response_schema(tokenizer)
        except ValueError as e:
            raise SystemExit(
                f"TRL has no parser for tool calls written in {source} (it recognises only the templates it "
                f"bundles, by their exact text): {hint}, or set tokenizer.response_template ({e})"
            ) from None
    if not is_chat_template_prefix_preserving(tokenizer):
        try:
            get_training_chat_template(tokenizer)
        except ValueError as e:
            raise SystemExit(f"{source} is not prefix-preserving and TRL cannot patch it: {hint} ({e})") from None
    return tokenizer


def build_trainer(args: argparse.Namespace, model: Any = None, tokenizer: Any = None) -> Any:
    """The GRPOTrainer for ``args``; ``model``/``tokenizer`` override loading ``args.model``."""
    import torch
    from datasets import Dataset
    from transformers import AutoProcessor
    from trl import GRPOConfig, GRPOTrainer

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    worlds = [awm.load(name.strip()) for name in args.envs.split(",") if name.strip()]
    task_ids = [t.strip() for t in args.task_ids.split(",")] if args.task_ids else None
    rows = task_rows(worlds, task_ids, repeats=args.repeats, seed=args.seed)
    if not rows:
        raise SystemExit(f"no task matches --task-ids {args.task_ids} in {args.envs}")
    names = [r.strip() for r in args.rewards.split(",") if r.strip()]
    unknown = [n for n in names if n not in REWARDS]
    if unknown:
        raise SystemExit(f"unknown reward function(s) {unknown}; choose from {list(REWARDS)}")
    weights = [float(w) for w in args.reward_weights.split(",")] if args.reward_weights else None
    gpu = torch.cuda.is_available() and not args.cpu
    use_vllm = gpu if args.vllm is None else args.vllm
    config = GRPOConfig(
        output_dir=args.output_dir,
        max_steps=args.max_steps,
        per_device_train_batch_size=args.batch_size,
        num_generations=args.num_generations,
        gradient_accumulation_steps=args.grad_accum,
        learning_rate=args.lr,
        beta=args.beta,
        temperature=args.temperature,
        max_completion_length=args.max_completion_length,
        max_tool_calling_iterations=args.max_tool_calls,
        reward_weights=weights,
        chat_template_kwargs={"enable_thinking": args.thinking},
        use_vllm=use_vllm,
        vllm_mode="colocate",
        vllm_gpu_memory_utilization=args.vllm_gpu_memory,
        vllm_max_model_length=args.vllm_max_model_length,
        bf16=gpu if args.bf16 is None else args.bf16,
        use_cpu=not gpu,
        activation_checkpointing=args.gradient_checkpointing,
        logging_steps=1,
        save_strategy="steps" if args.save_steps else "no",
        save_steps=args.save_steps or 500,
        report_to=args.report_to,
        seed=args.seed,
        log_completions=False,
    )
    if tokenizer is None:  # what TRL would load, loaded here to check and fix its chat template first
        source = args.model if model is None else model.config._name_or_path
        tokenizer = AutoProcessor.from_pretrained(source, truncation_side="left", padding_side="left")
    tokenizer = prepare_tokenizer(tokenizer, args)
    reward_funcs: list[Any] = [REWARDS[n] for n in names]
    if args.openenv_url:  # the same generated classes, their tool calls sent to OpenEnv's server
        from awm.train.openenv_env import openenv_environment_factories

        factories: Any = openenv_environment_factories(
            worlds, args.openenv_url, max_observation_chars=args.max_observation_chars
        )
    else:
        factories = environment_factories(worlds, max_observation_chars=args.max_observation_chars)
    return GRPOTrainer(
        model=model if model is not None else args.model,
        reward_funcs=reward_funcs,
        args=config,
        train_dataset=Dataset.from_list(rows),
        processing_class=tokenizer,
        environment_factory=factories,
    )


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    trainer = build_trainer(args)
    trainer.train()
    trainer.save_model(args.output_dir)


if __name__ == "__main__":
    main()
