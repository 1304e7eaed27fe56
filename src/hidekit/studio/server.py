"""Start the studio: a free port on 127.0.0.1, a fresh token, the URL printed first, then serve.

``serve`` returns when the server stops (Ctrl-C or SIGTERM: uvicorn shuts down cleanly).
"""

from __future__ import annotations

import socket
import sys
import webbrowser
from collections.abc import Callable
from pathlib import Path

from hidekit.errors import OptionError
from hidekit.studio.security import DEFAULT_MAX_BODY, allowed_hosts, new_token

HOST = "127.0.0.1"  # never another interface: the studio shows personal data


def bind(port: int = 0) -> socket.socket:
    """A listening socket on loopback (``port`` 0: a free one chosen by the system)."""
    if not 0 <= int(port) <= 65535:
        raise OptionError(f"--port must be between 0 and 65535, got {port}")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((HOST, int(port)))
    except OSError as exc:
        sock.close()
        raise OptionError(f"cannot listen on {HOST}:{port}: {exc.strerror or exc}") from None
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def studio_url(port: int, token: str) -> str:
    return f"http://{HOST}:{port}/?token={token}"


def serve(
    folder: Path,
    *,
    port: int = 0,
    open_browser: bool = True,
    open_path: str | None = None,
    max_body: int = DEFAULT_MAX_BODY,
    announce: Callable[[str], None] | None = None,
) -> None:
    """Serve the studio over ``folder`` until interrupted; ``announce`` gets the URL first."""
    import uvicorn

    from hidekit.studio.app import create_app

    folder = Path(folder).resolve()
    if not folder.is_dir():
        raise OptionError(f"{folder}: not a folder")
    sock = bind(port)
    port = sock.getsockname()[1]
    token = new_token()
    app = create_app(
        folder, token=token, hosts=allowed_hosts(port), max_body=max_body, open_path=open_path
    )
    url = studio_url(port, token)
    (announce or _print_first)(url)
    if open_browser:
        webbrowser.open(url)
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, server_header=False, lifespan="off"
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()


def _print_first(url: str) -> None:
    sys.stdout.write(url + "\n")
    sys.stdout.flush()
