"""The profile validator: every problem with file, line, column and a hint, plus the language's JSON Schema.

`load_profile(text)` parses (positions kept), reads any dialect into the canonical `Profile` (`dialects`)
and then checks what only the whole profile can tell: undefined `{{placeholders}}`, unused variables,
`forward(v)` on an undeclared or non-forward variable, dependency cycles, lonely `pairwise()`, selectors asking
for more values than the list has, `combinations` that cannot be computed, and a plan that would be too
large. The CLI, the platform's API (inline errors in the editor) and TRACER's profile generator all call it.

`profile_json_schema()` describes the canonical language (with the deprecated aliases marked `deprecated`)
for the web editor's completion and hover.

Modules: `validation` (`validate`, `load_profile`, `ValidationResult`), `checks` (the whole-profile checks),
`languages` (the known language names), `schema` (the JSON Schema).
"""

from engine.sensei.validator.languages import LANGUAGES
from engine.sensei.validator.schema import profile_json_schema
from engine.sensei.validator.validation import ValidationResult, load_profile, validate

__all__ = ["LANGUAGES", "ValidationResult", "load_profile", "profile_json_schema", "validate"]
