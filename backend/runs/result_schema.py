"""The typed result of each run kind (D31): kind → the engine's pydantic class of its `result`.

Only model qualification's entry here (branch h36p); the lead joins this registry with the other kinds'."""

from __future__ import annotations

from pydantic import BaseModel

from engine.evaluation.qualify_result import QualifyResult

RESULT_MODELS: dict[str, type[BaseModel]] = {"qualify": QualifyResult}
