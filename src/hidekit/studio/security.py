"""The studio's guards: a secret token, one host and origin, paths inside one folder, small bodies.

The studio serves personal data on the user's own machine. Any web page the user visits can
send requests to ``127.0.0.1``, and a hostile DNS name can be re-pointed there (DNS rebinding),
so every request must carry the token printed at start (Jupyter's way: in the first URL, then in
an HttpOnly, SameSite=Strict cookie), name our exact host, and — when it changes anything — come
from our own origin.
"""

from __future__ import annotations

import hmac
import secrets
from pathlib import Path, PurePosixPath

from starlette.datastructures import URL, QueryParams
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hidekit.errors import InputError

COOKIE = "hidekit_studio"
TOKEN_PARAM = "token"
UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
DEFAULT_MAX_BODY = 100 * 1024 * 1024  # uploads and forms: 100 MiB

# Every page: no framing, no referrer (the first URL holds the token), nothing cached, scripts and
# styles from the studio only.
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        "script-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def new_token() -> str:
    """A fresh random token (256 bits), never written to disk."""
    return secrets.token_urlsafe(32)


def allowed_hosts(port: int) -> set[str]:
    """The Host headers the studio answers: loopback by address or by name, on its own port."""
    return {f"127.0.0.1:{port}", f"localhost:{port}"}


def _same(a: str | None, b: str) -> bool:
    return a is not None and hmac.compare_digest(a.encode(), b.encode())


def _header(scope: Scope, name: bytes) -> str | None:
    for k, v in scope.get("headers", []):
        if k == name:
            return v.decode("latin-1")
    return None


def _query(scope: Scope) -> QueryParams:
    return QueryParams(scope.get("query_string", b"").decode("latin-1"))


def _cookie(scope: Scope, name: str) -> str | None:
    raw = _header(scope, b"cookie") or ""
    for part in raw.split(";"):
        k, _, v = part.strip().partition("=")
        if k == name:
            return v
    return None


class Guard:
    """ASGI middleware refusing what does not come from the studio's own page.

    Order: Host (DNS rebinding), token (query or cookie), Origin on changes (CSRF), body size.
    A valid token in the query string is moved to the cookie and dropped from the URL.
    """

    def __init__(
        self, app: ASGIApp, *, token: str, hosts: set[str], max_body: int = DEFAULT_MAX_BODY
    ):
        self.app = app
        self.token = token
        self.hosts = set(hosts)
        self.origins = {f"http://{h}" for h in self.hosts}
        self.max_body = int(max_body)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":  # the studio has none: refuse before any handshake
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":  # lifespan
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        url = URL(scope=scope)
        if TOKEN_PARAM in _query(scope):  # first visit: token to the cookie, out of the URL
            clean = url.remove_query_params(TOKEN_PARAM)
            response = RedirectResponse(
                clean.path + (f"?{clean.query}" if clean.query else ""), 303
            )
            response.set_cookie(COOKIE, self.token, httponly=True, samesite="strict", path="/")
            await response(scope, receive, send)
            return
        await self.app(scope, self._limited(receive), self._with_headers(send))

    def _refusal(self, scope: Scope) -> Response | None:
        host = _header(scope, b"host")
        if host not in self.hosts:
            return PlainTextResponse("refused: unknown host", 403)
        query = _query(scope).get(TOKEN_PARAM)
        if not (_same(query, self.token) or _same(_cookie(scope, COOKIE), self.token)):
            return PlainTextResponse(
                "refused: open the studio with the link it printed (with its token)", 403
            )
        if scope["method"] in UNSAFE_METHODS:
            origin = _header(scope, b"origin")
            if origin not in self.origins:
                return PlainTextResponse("refused: request from another origin", 403)
            length = _header(scope, b"content-length")
            if length is not None and (not length.isdigit() or int(length) > self.max_body):
                return PlainTextResponse(
                    f"refused: larger than {self.max_body // (1024 * 1024)} MiB", 413
                )
        return None

    def _limited(self, receive: Receive) -> Receive:
        """A body sent without a length (chunked) is cut off at the limit too."""
        seen = 0
        limit = self.max_body

        async def guarded() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge()
            return message

        return guarded

    @staticmethod
    def _with_headers(send: Send) -> Send:
        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                for k, v in PAGE_HEADERS.items():
                    if k.lower().encode() not in present:
                        headers.append((k.lower().encode(), v.encode()))
                message = {**message, "headers": headers}
            await send(message)

        return sending


class BodyTooLarge(Exception):
    """A request body went past the studio's limit while it was being read."""


def resolve_inside(root: Path, relative: str) -> Path:
    """``relative`` as a path inside ``root``; absolute paths, ``..`` and links leading out refused.

    The check is on the resolved path, so a symbolic link inside the folder pointing outside it
    is refused as well.
    """
    root = Path(root).resolve()
    rel = PurePosixPath(str(relative).replace("\\", "/"))
    if rel.is_absolute() or ".." in rel.parts or str(relative).startswith("~"):
        raise InputError(f"{relative}: only paths inside the studio's folder can be opened")
    target = (root / Path(*rel.parts)) if rel.parts else root
    resolved = target.resolve()
    if resolved != root and root not in resolved.parents:
        raise InputError(f"{relative}: only paths inside the studio's folder can be opened")
    return resolved


def relative_name(root: Path, path: Path) -> str:
    """The path as shown in the page: relative to the studio's folder, with forward slashes."""
    return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
