"""Rate limits for the unauthenticated account endpoints, keyed by the client address nginx forwards.

Counters live in the default cache (the database cache), so every gunicorn worker sees the same counts.
"""

from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView


class _ClientAddressThrottle(SimpleRateThrottle):
    def get_cache_key(self, request: Request, view: APIView) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class LoginThrottle(_ClientAddressThrottle):
    scope = "login"


class SignupThrottle(_ClientAddressThrottle):
    scope = "signup"
