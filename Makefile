# Parley — the two commands that matter: `make run` (the platform at http://localhost:8080) and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help
PYTHON ?= python3
VENV := backend/.venv
PY := $(VENV)/bin/python
BACKEND_STAMP := $(VENV)/.installed
FRONTEND_STAMP := frontend/node_modules/.installed
SPA := frontend/dist/index.html
SPA_SOURCES := $(shell find frontend/src frontend/public -type f 2>/dev/null) \
	$(wildcard frontend/index.html frontend/vite.config.ts frontend/tsconfig*.json)
E2E_PORT ?= 8091
E2E_LLM_PORT ?= 8093
E2E_DB ?= parley_e2e
REAL_LLM := $(PYTHON) backend/scripts/real_llm.py
REAL_LLM_PORT ?= 8095

.PHONY: help run dev test lint test-backend test-frontend test-e2e e2e-stack schema install nginx up down clean bench fuzz \
	real-llm real-llm-setup test-real-llm

help:
	@echo "make run    set everything up and serve the platform at http://localhost:8080 (Ctrl-C stops it)"
	@echo "make test   lint, backend tests (PostgreSQL, RabbitMQ, Celery), frontend unit tests, browser e2e tests"
	@echo "make dev    autoreloading Django + Vite dev server behind nginx (nginx/nginx.dev.conf)"
	@echo "make lint   ruff, mypy (engine/), ESLint and tsc"
	@echo "make schema regenerate the OpenAPI schema and the frontend's typed client"
	@echo "make fuzz   the long schemathesis pass over every API operation (make test runs a short one)"
	@echo "make bench  the performance benchmarks (fake LLM server, reference bots); one JSON line each"
	@echo "make real-llm  serve the real local model (SmolLM2-135M, llama-cpp-python) at http://127.0.0.1:$(REAL_LLM_PORT)/v1"
	@echo "make up / make down   docker compose (production stack)"

# --- installation (re-runs only when the dependency files change) ---------------------------------------------
$(BACKEND_STAMP): backend/pyproject.toml backend/requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --upgrade pip==25.3
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -c backend/requirements.lock -e 'backend[dev]'
	touch $@

$(FRONTEND_STAMP): frontend/package.json frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	touch $@

$(SPA): $(FRONTEND_STAMP) $(SPA_SOURCES)
	cd frontend && npm run build

install: $(BACKEND_STAMP) $(FRONTEND_STAMP)

# nginx serves the SPA and proxies the API; installed on the spot when we may, else Django serves the SPA.
nginx:
	@command -v nginx >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "[parley] installing nginx with apt-get"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null; \
	  else echo "[parley] nginx is not installed and cannot be installed here: Django will serve the SPA"; fi; }

# --- running -----------------------------------------------------------------------------------------------------
run: $(BACKEND_STAMP) $(SPA) nginx
	$(PY) -m parley.localrun

dev: $(BACKEND_STAMP) $(FRONTEND_STAMP) nginx
	$(PY) -m parley.localrun --dev

# The full stack on its own port, database and queue, for the browser tests (Playwright starts and stops it),
# with the fake OpenAI-compatible server on $(E2E_LLM_PORT) standing in for an LLM provider.
e2e-stack: $(BACKEND_STAMP) $(SPA)
	DATABASE_URL=postgres://postgres@127.0.0.1:5432/$(E2E_DB) \
	PARLEY_CELERY_QUEUE=$(E2E_DB)-$$(date +%s) \
	PARLEY_DATA_DIR=$(CURDIR)/var/$(E2E_DB) PARLEY_ENV_FILE=$(CURDIR)/var/$(E2E_DB).env \
	PARLEY_LOGIN_THROTTLE=1000/min PARLEY_SIGNUP_THROTTLE=1000/hour PARLEY_EGRESS_ALLOW=127.0.0.1 \
	$(PY) -m parley.localrun --port $(E2E_PORT) --reset-db --fake-llm-port $(E2E_LLM_PORT)

# --- checks ------------------------------------------------------------------------------------------------------
# The backend suite runs on one core and the frontend unit tests mostly wait on jsdom: the two run side by side
# (each one's output kept together); the browser and real-model tiers, which time what they see, run alone after.
test: lint
	$(MAKE) --no-print-directory -j2 --output-sync=target test-backend test-frontend
	$(MAKE) --no-print-directory test-e2e
	$(MAKE) --no-print-directory test-real-llm

lint: $(BACKEND_STAMP) $(FRONTEND_STAMP)
	cd backend && .venv/bin/ruff check . && .venv/bin/ruff format --check . && .venv/bin/mypy
	cd frontend && npm run lint

test-backend: $(BACKEND_STAMP)
	cd backend && .venv/bin/pytest -m 'not real_llm'

test-frontend: $(FRONTEND_STAMP)
	cd frontend && npm test && npm run check:api

test-e2e: $(BACKEND_STAMP) $(SPA) nginx
	cd frontend && npm run e2e

# The long schema fuzz (make test runs a short one): 200 generated requests per API operation.
fuzz: $(BACKEND_STAMP)
	cd backend && PARLEY_FUZZ_EXAMPLES=200 .venv/bin/pytest tests/test_api_fuzz.py

# The real-model tier: llama-cpp-python's server with SmolLM2-135M-Instruct, in its own virtualenv (var/real-llm).
# The first setup builds llama-cpp-python (minutes); pip's wheel cache makes the next ones take seconds.
real-llm-setup:
	$(REAL_LLM) setup

real-llm: real-llm-setup
	$(REAL_LLM) serve --port $(REAL_LLM_PORT)

# Its own test database: one still held open by a process of an earlier tier (a Celery pool child finishing a
# task, say) cannot be dropped, and would fail the platform tests here at setup.
test-real-llm: $(BACKEND_STAMP) real-llm-setup
	cd backend && DATABASE_URL=postgres://postgres@127.0.0.1:5432/parley_real PARLEY_REAL_LLM=1 \
	  .venv/bin/pytest -m real_llm tests/real_llm

schema: $(BACKEND_STAMP) $(FRONTEND_STAMP)
	cd backend && DJANGO_SETTINGS_MODULE=parley.settings_test .venv/bin/python manage.py spectacular \
	  --validate --fail-on-warn --format openapi-json --file ../frontend/src/api/openapi.json
	cd frontend && npm run gen:api

bench: $(BACKEND_STAMP)
	cd backend && .venv/bin/python benchmarks/run_all.py

# --- docker ------------------------------------------------------------------------------------------------------
up:
	docker compose up -d --build

down:
	docker compose down

clean:
	rm -rf $(VENV) frontend/node_modules frontend/dist var
