"""The Content-Security-Policy of the web application.

nginx/nginx.conf sends the same string (a test keeps the two equal); Django's SPA fallback (parley/spa.py)
sends it from here. No inline scripts, no remote origins: the SPA loads only its own bundle and talks only to its
own API. Mantine injects <style> tags at run time, hence 'unsafe-inline' for styles only.
"""

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
    "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)
