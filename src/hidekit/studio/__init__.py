"""hidekit studio: a local web app over a folder, doing what the CLI does, through the same API.

``hidekit studio [FOLDER]`` (or ``hidekit.studio.serve(folder)``) binds 127.0.0.1 on a free
port, prints the URL with a fresh token first, and serves until interrupted. ``create_app`` gives
the ASGI app itself (tests drive it with Starlette's client).
"""

from hidekit.studio.demo import prepare_demo
from hidekit.studio.server import serve

__all__ = ["prepare_demo", "serve"]
