"""``awm gen``: writes new environments with any OpenAI-compatible LLM, validates each, keeps only sound ones.

Stages (one module each in ``awm.gen.stages``, one prompt template each in ``generators/``):
scenario -> tasks -> schema -> seed -> tools -> verifiers (+ gold solutions). Every stage's output is
parsed into a typed record, checked, and fed back to the LLM with a short error summary on failure.
Generated code runs only after a static safety check, in a child process with a scrubbed
environment (``awm.gen.sandbox``). A finished environment is validated in full in a staging folder
and only then renamed into ``envs/`` and ``verifiers/`` (``awm.gen.workspace``).

Modules: ``llm`` (client, accounting), ``cache``, ``jsonparse``, ``prompts``, ``records`` (stage
outputs), ``stages/``, ``safety``, ``samples``, ``sandbox``, ``dedup``, ``ideas`` (``awm gen
scenarios``), ``pipeline``, ``workspace`` (staging, atomic commits, resume state), ``report``, ``cli``.
This package imports nothing heavy at import time so ``awm --help`` stays fast.
"""
