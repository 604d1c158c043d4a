"""Building what the engines need, inside a worker: the egress guard and decrypted credentials.

This is the only place where stored secrets are decrypted, and it runs in Celery workers, never in a web
request. Nothing built here is logged or written back to the run.
"""

from __future__ import annotations

from django.conf import settings

from engine.connectors import ConnectorConfig
from engine.egress import EgressGuard, EgressPolicy
from workspace.models import Connector


def egress_guard() -> EgressGuard:
    return EgressGuard(EgressPolicy.parse(settings.EGRESS_ALLOW))


def connector_config(connector: Connector) -> ConnectorConfig:
    return ConnectorConfig(technology=connector.technology, params=connector.full_params())
