"""GRPO on AWM Gym environments with TRL: the model calls our tools, our verifier scores the outcome.

    python examples/train_grpo.py --model Qwen/Qwen3-0.6B --envs online_store,clinic --max-steps 200

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
import os
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
    p.add_argument("--output-dir", default="runs/grpo", help="checkpoints and logs")
    p.add_argument("--save-steps", type=int, default=0, help="save every N steps (0: only at the end)")
    p.add_argument("--report-to", default="none", help="none, wandb, tensorboard, ...")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def build_trainer(args: argparse.Namespace, model: Any = None, tokenizer: Any = None) -> Any:
    """The GRPOTrainer for ``args``; ``model``/``tokenizer`` override loading ``args.model``."""
    import torch
    from datasets import Dataset
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
    reward_funcs: list[Any] = [REWARDS[n] for n in names]
    factories: Any = environment_factories(worlds, max_observation_chars=args.max_observation_chars)
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
