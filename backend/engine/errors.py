"""The root of every error an engine raises on purpose.

Each error carries `user_message`, a sentence a user can act on; the worker stores it as the run's failure
reason and the CLI prints it. Anything else that escapes an engine is a bug and is reported as one.
"""

from __future__ import annotations


class ParleyError(Exception):
    """Base class: subclasses set a stable `code` and pass a user-readable message."""

    code = "parley_error"

    def __init__(self, user_message: str) -> None:
        super().__init__(user_message)
        self.user_message = user_message
