"""The studio's app behind Starlette's test client, as a browser holding the token would reach it."""

from __future__ import annotations

import re
import time
from pathlib import Path

from starlette.testclient import TestClient

from hidekit.studio.app import create_app
from hidekit.studio.security import COOKIE, allowed_hosts


def studio_client(
    folder: Path, port: int, token: str, *, cookie: bool = True, table: str | None = None, **options
) -> TestClient:
    """A client on ``http://127.0.0.1:PORT``; with ``cookie``, already holding the token; with
    ``table``, that table opened."""
    max_body = options.pop("max_body", None)
    kwargs = {"max_body": max_body} if max_body is not None else {}
    app = create_app(folder, token=token, hosts=allowed_hosts(port), **kwargs)
    c = TestClient(
        app, base_url=f"http://127.0.0.1:{port}", raise_server_exceptions=False, **options
    )
    if cookie:
        c.cookies.set(COOKIE, token)
    if table is not None:  # open it, as the Files page's link does
        assert c.get(f"/table?path={table}").status_code == 200
    return c


def finished(client: TestClient, response, limit: float = 300.0):
    """A task's result (or its refusal): poll its progress bar until the work is done."""
    deadline = time.monotonic() + limit
    while 'data-poll="' in response.text:
        assert time.monotonic() < deadline, "the task did not finish"
        url = re.search(r'data-poll="([^"]+)"', response.text).group(1).replace("&amp;", "&")
        time.sleep(0.2)
        response = client.get(url, headers={"X-Studio-Fragment": "1"})
    return response
