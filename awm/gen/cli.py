"""``awm gen``: generate environments with any OpenAI-compatible LLM (``awm gen scenarios``: ideas only).

Only typer is imported at module level; the pipeline is imported when a command runs, so ``awm``
starts fast.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

if TYPE_CHECKING:
    from awm.gen.llm import LLMClient

app = typer.Typer(
    help="Generate new environments with any OpenAI-compatible LLM; only sound ones are written.",
    add_completion=False,
    invoke_without_command=True,
)

DEFAULT_BASE_URL = "https://api.openai.com/v1"

BaseUrl = Annotated[
    str | None,
    typer.Option(
        "--base-url", help=f"OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (default: {DEFAULT_BASE_URL})"
    ),
]
Model = Annotated[str | None, typer.Option("--model", help="model name as the endpoint knows it")]
ApiKeyEnv = Annotated[
    str, typer.Option("--api-key-env", help="environment variable holding the API key (never printed or stored)")
]
ApiKey = Annotated[
    str | None, typer.Option("--api-key", help="the API key itself (prefer --api-key-env: flags show up in `ps`)")
]
PriceIn = Annotated[
    float | None, typer.Option("--price-in", help="USD per 1M input tokens (default: built-in table, else 0)")
]
PriceOut = Annotated[float | None, typer.Option("--price-out", help="USD per 1M output tokens")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="no progress bars")]
ExtraBody = Annotated[
    str | None,
    typer.Option(
        "--extra-body",
        help='JSON merged into every request body, e.g. \'{"chat_template_kwargs": {"enable_thinking": false}}\'',
    ),
]


@app.callback(invoke_without_command=True)
def gen(
    ctx: typer.Context,
    scenarios: Annotated[
        str | None,
        typer.Option(
            "--scenarios", help="';'-separated scenario ideas, e.g. 'a veterinary clinic; a bike-sharing service'"
        ),
    ] = None,
    from_: Annotated[
        Path | None, typer.Option("--from", help='JSONL of {"name", "description"} scenario ideas')
    ] = None,
    count: Annotated[int | None, typer.Option("--count", help="use at most this many ideas from --from")] = None,
    out: Annotated[
        Path, typer.Option("--out", help="output root (holds envs/ and verifiers/) or its envs/ folder")
    ] = Path("."),
    base_url: BaseUrl = None,
    model: Model = None,
    api_key_env: ApiKeyEnv = "OPENAI_API_KEY",
    api_key: ApiKey = None,
    concurrency: Annotated[int, typer.Option("--concurrency", help="LLM requests in flight")] = 8,
    jobs: Annotated[int | None, typer.Option("--jobs", help="environments in flight (default: --concurrency)")] = None,
    attempts: Annotated[int, typer.Option("--attempts", help="attempts per stage (error feedback in between)")] = 5,
    profile: Annotated[
        str,
        typer.Option(
            "--profile",
            help="catalog: templates + world builder at the catalog's bar (scenario -> schema -> world -> tools -> "
            "templates); compact: AWM-sized fixed tasks (scenario -> tasks -> schema -> seed -> tools -> verifiers)",
        ),
    ] = "catalog",
    templates: Annotated[int, typer.Option("--templates", help="task templates per environment (catalog)")] = 14,
    tasks: Annotated[int, typer.Option("--tasks", help="tasks per environment (compact)")] = 6,
    min_tasks: Annotated[
        int, typer.Option("--min-tasks", help="keep an env after dropping unverifiable tasks if this many remain")
    ] = 3,
    seed: Annotated[int, typer.Option("--seed", help="sent to the endpoint and recorded in provenance")] = 0,
    temperature: Annotated[float, typer.Option("--temperature")] = 0.7,
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", help="completion limit per request")] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="seconds per request before a retry")] = 300.0,
    retries: Annotated[int, typer.Option("--retries", help="retries on 429/5xx/timeouts/network errors")] = 5,
    json_mode: Annotated[
        bool, typer.Option("--json-mode/--no-json-mode", help="ask for response_format=json_object")
    ] = True,
    extra_body: ExtraBody = None,
    price_in: PriceIn = None,
    price_out: PriceOut = None,
    cache_dir: Annotated[
        Path | None, typer.Option("--cache-dir", help="response cache (default: OUT/.awm-gen/cache)")
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="neither read nor write the response cache")] = False,
    resume: Annotated[
        bool, typer.Option("--resume", help="continue the last batch in --out; no paid call is repeated")
    ] = False,
    sandbox_timeout: Annotated[
        float, typer.Option("--sandbox-timeout", help="seconds per check of generated code")
    ] = 60.0,
    retry_rejected: Annotated[
        bool, typer.Option("--retry-rejected", help="run again the scenarios an earlier run rejected")
    ] = False,
    no_dedup: Annotated[bool, typer.Option("--no-dedup", help="do not skip near-duplicate scenarios")] = False,
    prompts: Annotated[
        Path | None, typer.Option("--prompts", help="prompt templates folder (default: generators/)")
    ] = None,
    quiet: Quiet = False,
) -> None:
    """Generate environments, every stage checked: scenario -> schema -> world -> tools -> templates (--profile compact:
    scenario -> tasks -> schema -> seed -> tools -> verifiers)."""
    if ctx.invoked_subcommand is not None:
        return
    from awm.gen.stages import PROFILES

    if profile not in PROFILES:
        _fail(f"--profile must be one of {', '.join(PROFILES)}, not {profile!r}")
    from awm.gen.workspace import Workspace, resolve_root

    root = resolve_root(out)
    workspace = Workspace(root)
    given = {k for k in ctx.params if _given(ctx, k)}
    settings: dict[str, Any] = {
        "base_url": base_url or DEFAULT_BASE_URL,
        "model": model,
        "api_key_env": api_key_env,
        "concurrency": concurrency,
        "jobs": jobs or concurrency,
        "attempts": attempts,
        "profile": profile,
        "templates": templates,
        "tasks": tasks,
        "min_tasks": min_tasks,
        "seed": seed,
        "temperature": temperature,
        "max_tokens": max_tokens,
        "timeout": timeout,
        "retries": retries,
        "json_mode": json_mode,
        "extra_body": _json_object(extra_body, "--extra-body"),
        "price_in": price_in,
        "price_out": price_out,
        "sandbox_timeout": sandbox_timeout,
        "dedup": not no_dedup,
    }
    if resume:
        if scenarios or from_:
            _fail("--resume continues the saved batch; do not pass --scenarios or --from with it")
        batch = workspace.load_batch()
        if batch is None:
            _fail(f"nothing to resume: no batch in {workspace.dir}")
        aliases = {"jobs": ("jobs", "concurrency"), "dedup": ("no_dedup",)}
        saved = dict(batch.get("settings", {}))
        saved.update({k: v for k, v in settings.items() if given & set(aliases.get(k, (k,)))})
        settings = saved
        from awm.gen.records import ScenarioIdea

        ideas = [ScenarioIdea.model_validate(i) for i in batch.get("ideas", [])]
    else:
        ideas = _ideas(scenarios, from_, count)
    if not settings.get("model"):
        _fail("--model is required (the model name as your endpoint knows it)")
    key = api_key or os.environ.get(str(settings["api_key_env"])) or None
    if key is None and "api.openai.com" in str(settings["base_url"]):
        _fail(f"no API key: set {settings['api_key_env']} (or pass --api-key-env NAME)")
    batch = {"version": 1, "settings": settings, "ideas": [i.model_dump() for i in ideas]}
    code = _run_generate(root, settings, ideas, batch, key, cache_dir, no_cache, prompts, quiet, retry_rejected)
    raise typer.Exit(code)


def _given(ctx: typer.Context, name: str) -> bool:

    source = ctx.get_parameter_source(name)  # typer bundles its own click: compare by name
    return source is not None and source.name == "COMMANDLINE"


def _fail(message: str) -> NoReturn:
    typer.echo(f"awm gen: {message}", err=True)
    raise typer.Exit(2)


def _json_object(text: str | None, flag: str) -> dict[str, Any] | None:
    if text is None:
        return None
    import json

    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        _fail(f"{flag} is not JSON: {e}")
    if not isinstance(value, dict):
        _fail(f"{flag} must be a JSON object")
    return value


def _ideas(scenarios: str | None, from_: Path | None, count: int | None) -> list[Any]:
    from awm.gen.ideas import ideas_from_text, read_ideas

    ideas = ideas_from_text(scenarios) if scenarios else []
    if from_ is not None:
        try:
            ideas += read_ideas(from_)
        except (OSError, ValueError) as e:
            _fail(f"cannot read --from: {e}")
    if count is not None:
        ideas = ideas[:count]
    if not ideas:
        _fail("give --scenarios, --from or --resume")
    return ideas


def _client(settings: dict[str, Any], key: str | None, cache: Path | None) -> LLMClient:
    from awm.gen.cache import ResponseCache
    from awm.gen.llm import LLMClient, price_for

    return LLMClient(
        str(settings["base_url"]),
        str(settings["model"]),
        api_key=key,
        concurrency=int(settings.get("concurrency") or 8),
        timeout=float(settings.get("timeout") or 300.0),
        retries=int(settings.get("retries", 5)),
        temperature=settings.get("temperature"),
        max_tokens=settings.get("max_tokens"),
        seed=settings.get("seed"),
        json_mode=bool(settings.get("json_mode", True)),
        extra_body=settings.get("extra_body"),
        cache=ResponseCache(cache) if cache is not None else None,
        price=price_for(str(settings["model"]), settings.get("price_in"), settings.get("price_out")),
    )


def _run_generate(
    root: Path,
    settings: dict[str, Any],
    ideas: list[Any],
    batch: dict[str, Any],
    key: str | None,
    cache_dir: Path | None,
    no_cache: bool,
    prompts: Path | None,
    quiet: bool,
    retry_rejected: bool = False,
) -> int:
    import asyncio

    from awm.console import make_console
    from awm.gen.pipeline import GenConfig, Generator
    from awm.gen.stages import Limits
    from awm.gen.workspace import Workspace, WorkspaceError

    console = make_console()
    workspace = Workspace(root)
    cache = None if no_cache else (cache_dir or workspace.cache)
    config = GenConfig(
        root=root,
        max_attempts=int(settings["attempts"]),
        limits=Limits(
            tasks=int(settings["tasks"]),
            min_tasks=int(settings["min_tasks"]),
            templates=int(settings.get("templates") or Limits.templates),
            min_templates=min(Limits.min_templates, int(settings.get("templates") or Limits.templates)),
        ),
        profile=str(settings.get("profile") or "compact"),  # a batch saved before profiles existed was compact
        seed=int(settings["seed"]),
        jobs=int(settings.get("jobs") or settings["concurrency"]),
        sandbox_timeout=float(settings["sandbox_timeout"]),
        prompts_dir=prompts,
        dedup_threshold=None if not settings.get("dedup", True) else GenConfig.dedup_threshold,
        retry_rejected=retry_rejected,
    )

    async def main() -> Any:
        async with _client(settings, key, cache) as llm:
            generator = Generator(llm, config, console=console, show_progress=not quiet)
            return await generator.run(ideas, batch=batch)

    try:
        report = asyncio.run(main())
    except KeyboardInterrupt:
        console.print(f"[yellow]interrupted[/yellow]: continue with `awm gen --resume --out {root}`")
        return 130
    except WorkspaceError as e:
        console.print(f"[red]{e}[/red]")
        return 2
    report.print(console)
    if not report.did_anything:
        console.print(
            f"nothing to generate: every scenario was done in an earlier run in {root} "
            "(--retry-rejected runs the rejected ones again); the report is unchanged",
            highlight=False,
        )
    console.print(f"report: {workspace.report_file}", highlight=False)
    if any(j.status == "error" for j in report.jobs) or not report.written:
        return 1
    return 0


@app.command("scenarios")
def scenarios_cmd(
    count: Annotated[int, typer.Option("--count", help="new scenarios wanted")] = 50,
    from_: Annotated[
        Path | None, typer.Option("--from", help="seed examples, JSONL (default: generators/seed_scenarios.jsonl)")
    ] = None,
    out: Annotated[
        Path, typer.Option("--out", help="JSONL to append new scenarios to (de-duplicated against it)")
    ] = Path("generators/scenarios.jsonl"),
    base_url: BaseUrl = None,
    model: Model = None,
    api_key_env: ApiKeyEnv = "OPENAI_API_KEY",
    api_key: ApiKey = None,
    per_request: Annotated[int, typer.Option("--per-request", help="scenarios asked for per request")] = 10,
    concurrency: Annotated[int, typer.Option("--concurrency", help="requests per round")] = 3,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    temperature: Annotated[float, typer.Option("--temperature")] = 1.0,
    threshold: Annotated[
        float | None, typer.Option("--threshold", help="lexical similarity that counts as duplicate")
    ] = None,
    embeddings: Annotated[
        str | None, typer.Option("--embeddings", help="embedding model on the same endpoint (optional dedup)")
    ] = None,
    focus: Annotated[str | None, typer.Option("--focus", help="steer towards a domain, e.g. 'healthcare'")] = None,
    timeout: Annotated[float, typer.Option("--timeout")] = 300.0,
    json_mode: Annotated[bool, typer.Option("--json-mode/--no-json-mode")] = True,
    extra_body: ExtraBody = None,
    price_in: PriceIn = None,
    price_out: PriceOut = None,
    cache_dir: Annotated[
        Path | None, typer.Option("--cache-dir", help="response cache (default: .awm-gen/cache next to --out)")
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache")] = False,
) -> None:
    """Stage 1 alone: new, de-duplicated scenario ideas, appended to --out as JSONL."""
    import asyncio
    import json

    from awm.gen.dedup import LEXICAL_THRESHOLD
    from awm.gen.ideas import generate_ideas, read_ideas
    from awm.gen.prompts import GENERATORS_DIR
    from awm.gen.workspace import WORKDIR

    if not model:
        _fail("--model is required")
    source = from_ or GENERATORS_DIR / "seed_scenarios.jsonl"
    if out.resolve() == source.resolve():
        _fail("--out must differ from --from (the input file is never modified)")
    try:
        seeds = read_ideas(source)
        existing = read_ideas(out) if out.is_file() else []
    except (OSError, ValueError) as e:
        _fail(str(e))
    base = base_url or DEFAULT_BASE_URL
    key = api_key or os.environ.get(api_key_env) or None
    if key is None and "api.openai.com" in base:
        _fail(f"no API key: set {api_key_env} (or pass --api-key-env NAME)")
    settings = {
        "base_url": base,
        "model": model,
        "concurrency": concurrency,
        "timeout": timeout,
        "retries": 5,
        "temperature": temperature,
        "seed": seed,
        "json_mode": json_mode,
        "extra_body": _json_object(extra_body, "--extra-body"),
        "price_in": price_in,
        "price_out": price_out,
    }
    cache = None if no_cache else (cache_dir or out.resolve().parent / WORKDIR / "cache")
    out.parent.mkdir(parents=True, exist_ok=True)

    async def main() -> Any:
        with open(out, "a", encoding="utf-8") as fh:

            def write(idea: Any) -> None:
                fh.write(json.dumps(idea.model_dump(), ensure_ascii=False) + "\n")
                fh.flush()

            async with _client(settings, key, cache) as llm:
                result = await generate_ideas(
                    llm,
                    seeds=seeds,
                    existing=existing,
                    count=count,
                    per_request=per_request,
                    parallel=concurrency,
                    threshold=threshold if threshold is not None else LEXICAL_THRESHOLD,
                    embed_model=embeddings,
                    focus=focus,
                    seed=seed,
                    on_accept=write,
                )
                return result, llm.ledger.total()

    try:
        result, total = asyncio.run(main())
    except KeyboardInterrupt:
        typer.echo("interrupted; the scenarios accepted so far are in " + str(out), err=True)
        raise typer.Exit(130) from None
    typer.echo(
        f"{len(result.accepted)} new scenario(s) -> {out} ({len(result.duplicates)} near-duplicates skipped, "
        f"{result.malformed} malformed answers, {result.rounds} round(s); {total.prompt_tokens:,} tokens in, "
        f"{total.completion_tokens:,} out, ${total.cost:.4f})"
    )
    if len(result.accepted) < count:
        raise typer.Exit(1)
