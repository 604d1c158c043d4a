"""Tasks only the test worker imports (`--include tests.worker_tasks`): they misbehave on purpose so the
bookkeeping can be tested through a real worker."""

import os
import time

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from engine.errors import ParleyError
from runs.worker.bookkeeping import run_task


class ChatbotUnreachable(ParleyError):
    code = "chatbot_unreachable"


@shared_task(name="tests.sleep_past_soft_limit", soft_time_limit=1, time_limit=20)
@run_task
def sleep_past_soft_limit(run):
    time.sleep(10)
    return {"slept": True}


@shared_task(name="tests.sleep_past_hard_limit", soft_time_limit=1, time_limit=3)
@run_task
def sleep_past_hard_limit(run):
    # A body that ignores the soft limit: only the hard limit (the pool process is killed) can stop it.
    try:
        time.sleep(10)
    except SoftTimeLimitExceeded:
        time.sleep(10)
    return {"slept": True}


@shared_task(name="tests.die")
@run_task
def die(run):
    os._exit(1)


@shared_task(name="tests.raise_user_error")
@run_task
def raise_user_error(run):
    raise ChatbotUnreachable("The chatbot at http://bot.example did not answer.")
