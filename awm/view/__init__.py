"""``awm view``: a web page to browse environments (schema, seed rows, tools, tasks) and replay the
episodes of runs step by step, with the judge's reasons for every failure (see ``awm.view.app``)."""

from awm.view.app import create_view_app

__all__ = ["create_view_app"]
