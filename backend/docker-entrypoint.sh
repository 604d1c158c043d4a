#!/bin/sh
# Entrypoint of the backend image, for every role it plays (gunicorn, celery worker, celery beat, migrate):
#   1. in production, refuse to start on a configuration that `manage.py check --deploy` finds fault with
#      (a warning is enough: a missing https URL or secure-cookie setting is a real hole, not noise);
#   2. wait until the database accepts TCP connections, when DATABASE_URL names a host;
#   3. exec the command, so that it runs as PID 1 and receives the container's stop signal itself.
#
# Knobs (environment):
#   PARLEY_DB_WAIT_TIMEOUT      seconds to wait for the database (default 60; 0 skips the wait)
#   PARLEY_SKIP_DEPLOY_CHECK=1  skip step 1, e.g. for `docker compose run --rm backend sh` to debug a
#                               configuration that the check rejects
set -eu

log() {
    printf 'docker-entrypoint: %s\n' "$*" >&2
}

if [ "${PARLEY_ENV:-production}" = "production" ] && [ "${PARLEY_SKIP_DEPLOY_CHECK:-0}" != "1" ]; then
    # Checks need no database (none of ours is tagged `database`), so a bad configuration fails fast here
    # instead of after the wait below.
    if ! python manage.py check --deploy --fail-level WARNING; then
        log "the deployment checks above failed; fix the configuration (.env) and start again."
        exit 1
    fi
fi

if [ -n "${DATABASE_URL:-}" ] && [ "${PARLEY_DB_WAIT_TIMEOUT:-60}" != "0" ]; then
    python - <<'EOF'
"""Wait until DATABASE_URL's host accepts TCP connections (compose's healthchecks cover the rest)."""

import os
import socket
import sys
import time
from urllib.parse import urlsplit

DEFAULT_PORTS = {"postgres": 5432, "postgresql": 5432, "pgsql": 5432, "postgis": 5432}

url = urlsplit(os.environ["DATABASE_URL"])
try:
    host, port = url.hostname, url.port
except ValueError:
    sys.exit(
        "docker-entrypoint: DATABASE_URL is not a valid URL; percent-encode special characters in the password."
    )
if url.scheme not in DEFAULT_PORTS or not host:
    sys.exit(0)  # SQLite, or a Unix socket: nothing to wait for
port = port or DEFAULT_PORTS[url.scheme]
timeout = float(os.environ.get("PARLEY_DB_WAIT_TIMEOUT", "60"))
deadline = time.monotonic() + timeout
while True:
    try:
        socket.create_connection((host, port), timeout=3).close()
        break
    except OSError as exc:
        if time.monotonic() >= deadline:
            sys.exit(f"docker-entrypoint: the database at {host}:{port} did not answer within {timeout:g}s: {exc}")
        time.sleep(1)
EOF
fi

exec "$@"
