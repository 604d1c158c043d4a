"""How the API (and the live streams) know who is asking: knox's token authentication, hardened.

knox decodes the token from the Authorization header as UTF-8 without checking: a header with other bytes (a
Latin-1 `é`) raised UnicodeDecodeError, a 500 on every endpoint. Such a token is refused like any other invalid one,
with knox's own 401. The OpenAPI schema names it as it names knox's (`knoxApiToken`).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from knox import auth
from rest_framework import exceptions


class TokenAuthentication(auth.TokenAuthentication):
    def authenticate_credentials(self, token: bytes) -> Any:
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("Invalid token.") from None
        if "\x00" in text:  # PostgreSQL cannot compare a string holding NUL: a 500 too
            raise exceptions.AuthenticationFailed("Invalid token.")
        return super().authenticate_credentials(token)


class TokenScheme(KnoxTokenScheme):
    target_class = "accounts.authentication.TokenAuthentication"
