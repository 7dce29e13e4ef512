"""Datasets and schemas for trainers: ``export`` (JSONL and Parquet rows), ``schema_export`` (JSON Schemas of
the records) and the ``awm dataset`` commands (``cli``).
"""
