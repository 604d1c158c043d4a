"""Parley's engines: plain Python with no Django or Celery import.

Everything an engine needs is passed in by its caller — the `parley` CLI or a Celery worker — so the same code
runs on a laptop, in CI and on a server: a job object (what to run: profiles, campaign, LLM clients, connector
factory, budget) and a run context (`engine.context`: reporter, cancel token, usage sink).
"""
