"""nginx/nginx.conf renders into a configuration nginx accepts, with the security headers we promise."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from parley.localrun import NGINX_TEMPLATE, render_nginx
from parley.security_headers import CONTENT_SECURITY_POLICY


def test_nginx_sends_the_same_csp_as_the_django_fallback():
    text = NGINX_TEMPLATE.read_text()
    assert f'add_header Content-Security-Policy "{CONTENT_SECURITY_POLICY}" always;' in text
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY.split("script-src")[1].split(";")[0]


def test_headers_are_not_dropped_by_add_header_inside_locations():
    text = NGINX_TEMPLATE.read_text()
    locations = text[text.index("location /api/") :]
    assert "add_header" not in locations


def test_streams_go_to_the_asgi_process_unbuffered_with_a_long_read_timeout():
    text = NGINX_TEMPLATE.read_text()
    start = text.index("location /api/stream/ {")
    stream = text[start : text.index("}", start)]
    assert "proxy_pass http://parley_stream;" in stream
    assert "proxy_buffering off;" in stream
    assert "proxy_read_timeout 1h;" in stream
    assert "server ${PARLEY_STREAM_UPSTREAM};" in text
    # Only the stream location: the rest of the API keeps buffering and its short timeout.
    assert text.count("proxy_buffering off;") == 1
    dev = (NGINX_TEMPLATE.parent / "nginx.dev.conf").read_text()
    dev_stream = dev[dev.index("location ^~ /api/stream/ {") :].split("\n        }")[0]
    assert "proxy_pass http://${PARLEY_STREAM_UPSTREAM};" in dev_stream
    assert "proxy_buffering off;" in dev_stream


def test_rendered_config_is_accepted_by_nginx(tmp_path: Path):
    if not shutil.which("nginx"):
        pytest.skip("nginx is not installed (.ci/run installs it)")
    conf = render_nginx(
        {
            "PARLEY_LISTEN": "127.0.0.1:18999",
            "PARLEY_UPSTREAM": "127.0.0.1:18998",
            "PARLEY_STREAM_UPSTREAM": "127.0.0.1:18997",
            "PARLEY_SPA_ROOT": str(tmp_path),
            "PARLEY_STATIC_ROOT": str(tmp_path),
            "PARLEY_RUNTIME_DIR": str(tmp_path),
        },
        tmp_path / "nginx.conf",
    )
    assert not re.search(r"\$\{PARLEY_", conf.read_text())
    result = subprocess.run(["nginx", "-t", "-c", str(conf)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
