"""The studio's app behind Starlette's test client, as a browser holding the token would reach it."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from hidekit.studio.app import create_app
from hidekit.studio.security import COOKIE, allowed_hosts


def studio_client(
    folder: Path, port: int, token: str, *, cookie: bool = True, **options
) -> TestClient:
    """A client on ``http://127.0.0.1:PORT``; with ``cookie``, already holding the token."""
    max_body = options.pop("max_body", None)
    kwargs = {"max_body": max_body} if max_body is not None else {}
    app = create_app(folder, token=token, hosts=allowed_hosts(port), **kwargs)
    c = TestClient(
        app, base_url=f"http://127.0.0.1:{port}", raise_server_exceptions=False, **options
    )
    if cookie:
        c.cookies.set(COOKIE, token)
    return c
