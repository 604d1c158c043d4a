"""Runs: every background job (TRACER, SENSEI, check, ping) as one row with a state machine.

The Run row is the single record of a job. Tasks carry only its id; one bookkeeping module moves it through
`queued → running → succeeded | failed | cancelled`; the API and the UI read the row, never Celery.
"""
