"""Runs: every background job (ping, key and connector tests, TRACER, SENSEI, check, bench, security campaigns,
profile drafts, shrink) as one row with a state machine.

The Run row is the single record of a job. Tasks carry only its id; one bookkeeping module moves it through
`queued → running → succeeded | failed | cancelled`; the API and the UI read the row, never Celery. The package has
two halves: `runs.http` (what a request reads and starts) and `runs.worker` (what a worker does with a run); they
share `models`, `selectors` and `services`, and `tests/test_layers.py` keeps them apart.
"""
