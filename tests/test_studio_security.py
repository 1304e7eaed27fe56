"""The studio refuses what does not come from its own page: no token, another host or origin,
paths outside its folder, oversized bodies. Each refusal is checked on its own."""

from __future__ import annotations

import os

import pandas as pd
import pytest

pytest.importorskip("starlette", reason="the studio's web stack is not installed (make setup)")
from starlette.testclient import TestClient

from hidekit.errors import InputError
from hidekit.studio.security import COOKIE, resolve_inside
from studio_helpers import studio_client

PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"
TOKEN = "t" * 43


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "work"
    root.mkdir()
    pd.DataFrame({"sex": ["m", "f", "f", "m"], "age": [30, 30, 41, 52]}).to_csv(
        root / "t.csv", index=False
    )
    (tmp_path / "secret.csv").write_text("a,b\n1,2\n")
    return root


def client(folder, max_body=1024) -> TestClient:
    return studio_client(
        folder, PORT, TOKEN, cookie=False, max_body=max_body, follow_redirects=False
    )


def authed(folder, max_body=1024) -> TestClient:
    return studio_client(folder, PORT, TOKEN, max_body=max_body, follow_redirects=False)


def test_no_token_refused(folder):
    c = client(folder)
    r = c.get("/")
    assert r.status_code == 403 and "token" in r.text
    assert c.get("/table?path=t.csv").status_code == 403
    r = c.post("/api/risk", headers={"Origin": BASE})
    assert r.status_code == 403


def test_wrong_token_refused(folder):
    c = client(folder)
    assert c.get("/?token=" + "x" * 43).status_code == 403
    c.cookies.set(COOKIE, "x" * 43)
    assert c.get("/").status_code == 403


def test_token_in_url_moves_to_an_httponly_strict_cookie(folder):
    c = client(folder)
    r = c.get(f"/?token={TOKEN}")
    assert r.status_code == 303 and r.headers["location"] == "/"
    cookie = r.headers["set-cookie"]
    assert f"{COOKIE}={TOKEN}" in cookie
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    r = c.get("/")  # the cookie alone now opens the page
    assert r.status_code == 200 and "t.csv" in r.text
    assert "no-referrer" in r.headers["referrer-policy"]
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"]


def test_other_host_refused_dns_rebinding(folder):
    c = authed(folder)
    assert c.get("/", headers={"Host": "evil.example:8765"}).status_code == 403
    assert c.get("/", headers={"Host": "127.0.0.1:9999"}).status_code == 403
    assert c.get("/", headers={"Host": f"localhost:{PORT}"}).status_code == 200


def test_post_from_another_origin_refused_csrf(folder):
    c = authed(folder)
    form = {"role:age": "key"}
    assert (
        c.post("/api/risk", data=form, headers={"Origin": "http://evil.example"}).status_code == 403
    )
    assert c.post("/api/risk", data=form).status_code == 403  # no Origin at all
    c.get("/table?path=t.csv")
    r = c.post("/api/risk", data=form, headers={"Origin": BASE})
    assert r.status_code == 200 and 'data-testid="k"' in r.text


@pytest.mark.parametrize("path", ["../secret.csv", "/etc/passwd", "a/../../secret.csv", "~/x"])
def test_path_outside_folder_refused(folder, path):
    c = authed(folder)
    r = c.get("/table", params={"path": path})
    assert r.status_code == 400
    assert "only paths inside the studio" in r.text
    assert "Traceback" not in r.text and "a,b" not in r.text


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_symlink_leading_out_refused(folder):
    (folder / "link.csv").symlink_to(folder.parent / "secret.csv")
    with pytest.raises(InputError):
        resolve_inside(folder, "link.csv")
    r = authed(folder).get("/table", params={"path": "link.csv"})
    assert r.status_code == 400
    assert resolve_inside(folder, "t.csv") == (folder / "t.csv").resolve()


def test_oversized_upload_refused(folder):
    c = authed(folder, max_body=1024)
    big = b"a,b\n" + b"1,2\n" * 1000
    r = c.post("/api/upload", files={"file": ("big.csv", big)}, headers={"Origin": BASE})
    assert r.status_code == 413
    assert not (folder / "big.csv").exists()
    small = b"a,b\n1,2\n"
    r = c.post("/api/upload", files={"file": ("small.csv", small)}, headers={"Origin": BASE})
    assert r.status_code == 200, r.text
    assert (folder / "small.csv").read_bytes() == small
    assert (folder / "small.csv").stat().st_mode & 0o077 == 0  # owner-only


def test_oversized_body_without_length_refused(folder):
    c = authed(folder, max_body=1024)

    def chunks():
        for _ in range(100):
            yield b"x" * 100

    r = c.post(
        "/api/risk",
        content=chunks(),
        headers={"Origin": BASE, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 413


def test_upload_never_replaces_nor_escapes(folder):
    c = authed(folder, max_body=10_000)
    h = {"Origin": BASE}
    r = c.post("/api/upload", files={"file": ("t.csv", b"x,y\n1,2\n")}, headers=h)
    assert r.status_code == 400 and "already in the folder" in r.text
    r = c.post("/api/upload", files={"file": ("../up.csv", b"x,y\n1,2\n")}, headers=h)
    assert not (folder.parent / "up.csv").exists()
    r = c.post("/api/upload", files={"file": (".hidden", b"x")}, headers=h)
    assert r.status_code == 400


def test_unexpected_error_shows_no_traceback(folder, monkeypatch):
    from hidekit.studio import workbench

    def boom(*a, **k):
        raise RuntimeError("internal detail /home/secret")

    monkeypatch.setattr(workbench.Workbench, "open", classmethod(lambda cls, *a, **k: boom()))
    r = authed(folder).get("/table", params={"path": "t.csv"})
    assert r.status_code == 500
    assert "RuntimeError" in r.text
    assert "Traceback" not in r.text and "/home/secret" not in r.text


def test_cli_refuses_a_missing_folder_and_a_bad_port(tmp_path):
    from typer.testing import CliRunner

    from hidekit.cli.main import app

    res = CliRunner().invoke(app, ["studio", str(tmp_path / "nope"), "--no-browser"])
    assert res.exit_code == 2 and "not a folder" in res.output
    res = CliRunner().invoke(app, ["studio", str(tmp_path), "--port", "70000", "--no-browser"])
    assert res.exit_code == 2 and "--port must be between 0 and 65535" in res.output


def test_websocket_refused(folder):
    from starlette.websockets import WebSocketDisconnect

    with pytest.raises(WebSocketDisconnect), authed(folder).websocket_connect("/"):
        pass
