"""Every spelling of the profile language, read into the one canonical `Profile`.

Accepted dialects (SENSEI.md §1): v1 (Jan 2025 code: `all_combinations`, `sample(f)`, `str`, `money`),
v2 (`combinations(f[, forward|pairwise])`, `pairwise()`, `another(n)`, `model_prov`, `list[T]`, custom types),
TRACER's output (`random_steps`, `single questions`, `"personality: X"` context strings, `audio`, bare
`default` goal style) and the paper's listing (`LLM`, `goals: {templates, inputs}`, `selector`, `outputs`,
`conversations: {number, stop_condition}`, `isStarter`). Old spellings are read with a deprecation warning,
never refused; unknown keys are warnings (errors in strict mode).

Features that read local files or run code (custom-function generators, personality files given by path,
`llm.format.config`, speech mode) need `allow_local_files=True`; the platform never sets it, and gets an error
that says so.

The dialects differ section by section, so the code is split by section, each module reading every dialect of
its part: `document` (top-level keys, `read_profile_data`), `llm`, `user`, `variables` (goals and variable
definitions), `data` (a variable's values), `chatbot`, `conversation`. `reader` holds the shared pass state
(options, problems with positions, plain-value checks); `syntax` the names and `f(args)` calls they share.
"""

from engine.sensei.dialects.chatbot import OUTPUT_ALIASES
from engine.sensei.dialects.conversation import STYLE_ALIASES
from engine.sensei.dialects.data import VARIABLE_TYPES
from engine.sensei.dialects.document import ProfileReader, read_profile_data
from engine.sensei.dialects.reader import LOCAL_FILES_HINT, LoadOptions, Path
from engine.sensei.dialects.syntax import CALL, IDENTIFIER, any_request, call_parts

__all__ = [
    "CALL",
    "IDENTIFIER",
    "LOCAL_FILES_HINT",
    "OUTPUT_ALIASES",
    "STYLE_ALIASES",
    "VARIABLE_TYPES",
    "LoadOptions",
    "Path",
    "ProfileReader",
    "any_request",
    "call_parts",
    "read_profile_data",
]
