"""Episodes and what agents send them: ``episode`` (a step, its diff and rewards), ``actions`` (one parser for
every way agents speak), ``submit`` (the ``submit_answer`` action) and ``chat`` (the system prompt).
"""
