"""Django settings, read from the environment with typed parsers (see parsers.py and .env.example).

PARLEY_ENV chooses the posture: `production` (the default: TLS settings on, real secrets required), `local`
(what `make run` uses over plain http on localhost) and `test` (pytest). Production is the default so that a
forgotten variable fails closed instead of shipping development conveniences.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from dotenv import load_dotenv

from common.parsers import Env

BACKEND_DIR = Path(__file__).resolve().parent.parent
REPO_DIR = BACKEND_DIR.parent

env = Env()
ENVIRONMENTS = ("production", "local", "test")
PARLEY_ENV = env.choice("PARLEY_ENV", "production", ENVIRONMENTS)
if PARLEY_ENV != "test":
    # `make run` writes .env on first start; real environment variables always win over it.
    load_dotenv(env.path("PARLEY_ENV_FILE", REPO_DIR / ".env"), override=False)
    PARLEY_ENV = env.choice("PARLEY_ENV", "production", ENVIRONMENTS)
PRODUCTION = PARLEY_ENV == "production"

# --- secrets -------------------------------------------------------------------------------------------------
_secret_key = env.secret("PARLEY_SECRET_KEY", required=PRODUCTION)
# Outside production a fixed, clearly-labelled key keeps `manage.py` usable before `make run` wrote .env.
SECRET_KEY = _secret_key or "django-insecure-parley-local-only-never-use-in-production-0123456789"
_fernet_keys = env.secret("PARLEY_FERNET_KEYS", required=PRODUCTION)
# Comma-separated, newest first: MultiFernet encrypts with the first key and decrypts with any (key rotation).
FERNET_KEYS = [key.strip() for key in (_fernet_keys or "").split(",") if key.strip()]

DEBUG = env.bool("PARLEY_DEBUG", default=False)
if PRODUCTION and DEBUG:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("PARLEY_DEBUG must be off when PARLEY_ENV=production.")

PUBLIC_URL = env.str("PARLEY_PUBLIC_URL", "http://localhost:8080")
_public_host = urlsplit(PUBLIC_URL).hostname or "localhost"
ALLOWED_HOSTS = env.list("PARLEY_ALLOWED_HOSTS", [_public_host, "localhost", "127.0.0.1"])
# The one endpoint that honours a cookie (accounts/remember.py) is CSRF-checked, and Django compares a request's
# Origin with its own host: nginx forwards `Host` without the port, so the public URL is trusted by name. On a
# loopback address (`make run`, the e2e stack) a browser may use either name for the same server.
CSRF_TRUSTED_ORIGINS = [PUBLIC_URL.rstrip("/")]
_public = urlsplit(PUBLIC_URL)
if _public.hostname in ("localhost", "127.0.0.1"):
    _port = f":{_public.port}" if _public.port else ""
    CSRF_TRUSTED_ORIGINS += [
        f"{_public.scheme}://{name}{_port}" for name in ("localhost", "127.0.0.1") if name != _public.hostname
    ]

# --- paths ---------------------------------------------------------------------------------------------------
DATA_DIR = env.path("PARLEY_DATA_DIR", REPO_DIR / "var")
STATIC_URL = "/static/"
STATIC_ROOT = env.path("PARLEY_STATIC_ROOT", DATA_DIR / "static")
SPA_DIST_DIR = env.path("PARLEY_SPA_DIST_DIR", REPO_DIR / "frontend" / "dist")
# When nginx is missing, `make run` asks Django to serve the built SPA itself (see parley/spa.py).
SERVE_SPA = env.bool("PARLEY_SERVE_SPA", default=False)

# --- embedded mode -------------------------------------------------------------------------------------------
# Without PostgreSQL/RabbitMQ installed, the platform still runs on one machine: SQLite and Celery's
# filesystem transport. Good for a first look; not for a shared server.
EMBEDDED = env.bool("PARLEY_EMBEDDED", default=False)

# --- applications --------------------------------------------------------------------------------------------
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "parley",
    "accounts",
    "runs",
    "workspace",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "common.requests.HostileQueryMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "parley.urls"
WSGI_APPLICATION = "parley.wsgi.application"
AUTH_USER_MODEL = "accounts.User"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- database and cache --------------------------------------------------------------------------------------
_default_db = (
    f"sqlite:///{DATA_DIR / 'parley.sqlite3'}" if EMBEDDED else "postgres://postgres@127.0.0.1:5432/parley"
)
DATABASES = {
    "default": dj_database_url.parse(
        env.str("DATABASE_URL", _default_db),
        conn_max_age=env.int("PARLEY_DB_CONN_MAX_AGE", 60, minimum=0),
        conn_health_checks=True,
    )
}

# Throttle counters must be shared by every gunicorn worker: the database cache needs no extra service.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "parley_cache",
    }
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 10}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- REST API ------------------------------------------------------------------------------------------------
# DRF's defaults are AllowAny and no pagination; we deny by default and open endpoints one by one.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["accounts.authentication.TokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 25,
    "EXCEPTION_HANDLER": "common.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["common.requests.GuardedJSONParser"],
    "DEFAULT_THROTTLE_RATES": {
        "login": env.str("PARLEY_LOGIN_THROTTLE", "10/min"),
        "signup": env.str("PARLEY_SIGNUP_THROTTLE", "20/hour"),
        # Changing a password proves the old one: as guessable as a login, so counted like one.
        "password": env.str("PARLEY_PASSWORD_THROTTLE", "10/hour"),
        # Key tests, connector tests and model lists started per user.
        "jobs": env.str("PARLEY_JOBS_THROTTLE", "30/min"),
        # "Keep me signed in": every new tab of a remembered browser asks once for a token.
        "resume": env.str("PARLEY_RESUME_THROTTLE", "30/min"),
        # The Transcripts page: chunks of an upload (about 1 MiB each), the overview, calibration.
        "transcripts": env.str("PARLEY_TRANSCRIPTS_THROTTLE", "600/min"),
    },
    # nginx is the one proxy in front of gunicorn; its X-Forwarded-For entry identifies the client. When Django
    # is reached directly (no nginx), `make run` sets this to 0 so a client cannot choose its own address.
    "NUM_PROXIES": env.int("PARLEY_NUM_PROXIES", 1, minimum=0),
}
# Only a request from one of these addresses (nginx) may name the client in X-Forwarded-For; anyone else who
# reaches gunicorn directly is known by their own address, whatever header they send.
TRUSTED_PROXIES = env.list("PARLEY_TRUSTED_PROXIES", ["127.0.0.1", "::1"])
# Django's admin: off unless asked for (`PARLEY_ADMIN=true`); its login is throttled like the API's.
ADMIN_ENABLED = env.bool("PARLEY_ADMIN", False)

REST_KNOX = {
    "TOKEN_TTL": timedelta(hours=env.int("PARLEY_TOKEN_TTL_HOURS", 10, minimum=1)),
    "AUTO_REFRESH": True,
    "MIN_REFRESH_INTERVAL": 60,
    "AUTH_HEADER_PREFIX": "Token",
}
# "Keep me signed in" (accounts/remember.py): the HttpOnly cookie's token lasts this long from the login, however
# often it is used. The cookie is Secure in production (TLS ends in front of nginx) and on any https request.
REMEMBER_DAYS = env.int("PARLEY_REMEMBER_DAYS", 30, minimum=1)
REMEMBER_COOKIE_SECURE = PRODUCTION

SPECTACULAR_SETTINGS = {
    "TITLE": "Parley API",
    "DESCRIPTION": "Black-box testing of chatbots: exploration (TRACER), user simulation (SENSEI), rule checks.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "RunStatusEnum": "runs.models.Run.Status",
        "ComparedGroupKindEnum": "engine.regression.compare.GROUP_KINDS",
        "ConversationStabilityEnum": "engine.regression.compare.STABILITIES",
        "ComparisonVerdictEnum": "engine.regression.compare.COMPARE_VERDICTS",
        "ComparedGroupStatusEnum": "engine.regression.compare.GROUP_STATUSES",
        "ConversationVerdictEnum": "runs.http.conversation_list.VERDICTS",
        "QualifyVerdictEnum": "engine.evaluation.qualify_result.VERDICTS",
        "QualifyRoleEnum": "engine.evaluation.qualify_result.ROLES",
        "TurnRoleEnum": ["user", "bot"],  # who speaks a turn, in every transcript shape
        # One-value enums two fields share: a bench run's kind and its artefact's name; a transcript-built run's
        # source and a TRACER run's artefact of transcripts.
        "BenchEnum": ["bench"],
        "TranscriptsEnum": ["transcripts"],
    },
}

# --- Celery --------------------------------------------------------------------------------------------------
# Job state lives in runs.Run, never in a result backend (STYLE.md, habits to avoid).
_broker_dir = DATA_DIR / "broker"
CELERY_BROKER_URL = env.str(
    "CELERY_BROKER_URL", "filesystem://" if EMBEDDED else "amqp://guest:guest@127.0.0.1:5672//"
)
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {
        "data_folder_in": str(_broker_dir / "out"),
        "data_folder_out": str(_broker_dir / "out"),
        "control_folder": str(_broker_dir / "control"),
        "processed_folder": str(_broker_dir / "processed"),
        "store_processed": False,
    }
    if CELERY_BROKER_URL.startswith("filesystem")
    else {}
)
# A separate queue per installation (and per test run) so one worker never takes another's tasks.
CELERY_TASK_DEFAULT_QUEUE = env.str("PARLEY_CELERY_QUEUE", "parley")
# Two lanes: long runs on the default queue; short jobs (key and connector tests, model lists) on their own
# queue and worker, so a short job never waits behind long runs (`make run`, compose and the tests start both).
CELERY_SHORT_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}-short"
SHORT_TASKS = ("runs.ping", "runs.key_test", "runs.key_models", "runs.connector_test")
CELERY_TASK_ROUTES = {name: {"queue": CELERY_SHORT_QUEUE} for name in SHORT_TASKS}
# Messages carry ids only, as JSON: nothing pickled crosses the broker.
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_SERIALIZER = "json"
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
# Long jobs on RabbitMQ: ack after the work, take one message at a time
# (https://docs.celeryq.dev/en/stable/userguide/optimizing.html#reserve-one-task-at-a-time).
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A worker that dies mid-run must not hand the message to another worker: the run would be executed twice.
# The task_failure handler marks such a run failed instead (runs/worker/bookkeeping.py).
CELERY_TASK_REJECT_ON_WORKER_LOST = False
# Hard limit per run; the soft limit one minute earlier lets the run end `failed` with a readable reason.
# RabbitMQ's consumer_timeout must exceed this (docker/rabbitmq.conf, `make run` and .ci/run raise it).
RUN_TIME_LIMIT_S = env.int("PARLEY_RUN_TIME_LIMIT", 6 * 3600, minimum=120)
CELERY_TASK_TIME_LIMIT = RUN_TIME_LIMIT_S
CELERY_TASK_SOFT_TIME_LIMIT = RUN_TIME_LIMIT_S - 60
CELERY_WORKER_CONCURRENCY = env.int("PARLEY_WORKER_CONCURRENCY", 2, minimum=1)
# Engines hold LLM clients and transcripts; recycling children bounds memory growth.
CELERY_WORKER_MAX_TASKS_PER_CHILD = 50
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE_FILENAME = str(DATA_DIR / "celerybeat-schedule")
# Long runs (TRACER, SENSEI, check, bench) running at once per user; more wait queued. Below the worker's
# concurrency by default, so another user's run starts while one user's runs hold the rest.
RUNS_PER_USER = env.int("PARLEY_RUNS_PER_USER", max(1, CELERY_WORKER_CONCURRENCY - 1), minimum=1)
# Short jobs: the short worker's threads, and what one user may have queued or running at once (more is a 429).
SHORT_WORKER_THREADS = env.int("PARLEY_SHORT_WORKER_THREADS", 4, minimum=2)
SHORT_JOBS_PER_USER = env.int("PARLEY_SHORT_JOBS_PER_USER", 2, minimum=1)
# The worker stamps a running run every RUN_HEARTBEAT_S; one silent for RUN_STALE_AFTER_S lost its worker, and
# the reaper (every REAP_EVERY_S) resumes or fails it: a dead worker's run ends or resumes within a minute.
RUN_HEARTBEAT_S = env.int("PARLEY_RUN_HEARTBEAT", 10, minimum=1)
RUN_STALE_AFTER_S = env.int("PARLEY_RUN_STALE_AFTER", 40, minimum=3 * RUN_HEARTBEAT_S)
REAP_EVERY_S = env.int("PARLEY_REAP_EVERY", 15, minimum=5)
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "reap-stale-runs": {"task": "runs.reap", "schedule": float(REAP_EVERY_S)},
}

# --- security ------------------------------------------------------------------------------------------------
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("PARLEY_MAX_BODY_BYTES", 5 * 1024 * 1024, minimum=1024)
# The largest transcript file one upload may send (in chunks of at most 4 MiB).
PARLEY_TRANSCRIPT_MAX_BYTES = env.int("PARLEY_TRANSCRIPT_MAX_BYTES", 200 * 1024 * 1024, minimum=1024)
# One uploaded YAML file (profile, rule, personality, connector); engine.yamlguard adds node and alias limits.
PARLEY_MAX_YAML_BYTES = env.int("PARLEY_MAX_YAML_BYTES", 1024 * 1024, minimum=1024)
if PRODUCTION:
    # TLS ends at nginx or a load balancer in front of it, which sets X-Forwarded-Proto.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env.bool("PARLEY_SSL_REDIRECT", default=True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env.int("PARLEY_HSTS_SECONDS", 31_536_000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("PARLEY_HSTS_INCLUDE_SUBDOMAINS", default=True)
    SECURE_HSTS_PRELOAD = env.bool("PARLEY_HSTS_PRELOAD", default=True)
    # /api/health/ is probed over plain http inside the compose network.
    SECURE_REDIRECT_EXEMPT = [r"^api/health/$"]

# Destinations the engines may reach although they are not public (see engine/egress.py).
EGRESS_ALLOW = env.list("PARLEY_EGRESS_ALLOW", [])

# --- live updates (runs/http/live.py, runs/http/streams.py; served by the ASGI process, parley/asgi.py) ----------------
# A comment line every STREAM_HEARTBEAT_S keeps proxies from closing a quiet stream; a stream ends after
# STREAM_MAX_S, or at the first heartbeat after its sign-in ended (the browser reconnects at once and is
# authenticated again, so a revoked token stops there).
STREAM_HEARTBEAT_S = env.int("PARLEY_STREAM_HEARTBEAT", 15, minimum=1)
STREAM_MAX_S = env.int("PARLEY_STREAM_MAX_SECONDS", 600, minimum=10)
# Threads that read runs for every open stream of the process (the reads are shared by streams that watch the
# same run); each holds at most one database connection.
STREAM_DB_THREADS = env.int("PARLEY_STREAM_DB_THREADS", 4, minimum=1)
# Without PostgreSQL's NOTIFY (the embedded SQLite mode), streams look again this often (milliseconds).
STREAM_POLL_MS = env.int("PARLEY_STREAM_POLL_MS", 1000, minimum=100)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("PARLEY_LOG_LEVEL", "INFO")},
}

if SERVE_SPA:
    # Fallback without nginx: whitenoise serves the SPA's files at the site root (see parley/spa.py).
    WHITENOISE_ROOT = SPA_DIST_DIR
