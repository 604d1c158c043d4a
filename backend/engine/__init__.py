"""Parley's engines: plain Python with no Django or Celery import.

Everything an engine needs (LLM client, connector, reporter, budget, cancellation) is passed in by its caller —
the `parley` CLI or a Celery worker — so the same code runs on a laptop, in CI and on a server. Sub-packages
(llm, connectors, tracer, sensei, check, bots) arrive with their issues.
"""
