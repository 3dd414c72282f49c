"""Headless Chromium (the Debian package) signs in and consents on the real pages, once per run,
through the DevTools protocol: it types into the fields and presses the buttons. Screenshots go
to tests/clients/screenshots/ (git-ignored); the assertions read the rendered text."""

from __future__ import annotations

import base64
import hashlib
import http.server
import json
import secrets
import threading
import urllib.parse
import urllib.request

from browser import Browser
from harness import free_port


class Callback(http.server.BaseHTTPRequestHandler):
    """The application's redirect URI: a page saying the connection is done."""

    def do_GET(self):  # noqa: N802
        body = "<!doctype html><html lang=pt-BR><body><h1>Aplicativo conectado</h1></body></html>".encode()
        self.send_response(200)
        self.send_header("content-type", "text/html; charset=utf-8")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_chromium_signs_in_and_consents_on_the_rendered_pages(server):
    port = free_port()
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", port), Callback)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    redirect = f"http://127.0.0.1:{port}/callback"
    registration = urllib.request.Request(
        f"{server.base}/oauth/register", method="POST",
        data=json.dumps({"client_name": "Assistente Financeiro", "redirect_uris": [redirect]}).encode(),
        headers={"content-type": "application/json"},
    )
    client_id = json.loads(urllib.request.urlopen(registration).read())["client_id"]
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    query = urllib.parse.urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": redirect,
        "code_challenge": challenge, "code_challenge_method": "S256", "state": "s-123",
        "resource": server.mcp_url, "scope": "customers:read charges:read charges:write charges:collect",
    })
    admin = server.person("admin")
    browser = Browser()
    try:
        browser.send("Page.enable")
        browser.send("Page.navigate", url=f"{server.base}/oauth/authorize?{query}")
        browser.wait_for("document.querySelector('#email') !== null", "the sign-in form")
        browser.screenshot("01-entrar.png")
        text = browser.text()
        assert "Entrar no Kobana Dunning" in text
        assert "Para conectar Assistente Financeiro à sua conta, entre primeiro." in text
        assert "E-mail" in text and "Senha" in text

        browser.type_into("#email", admin["email"])
        browser.type_into("#password", admin["password"])
        browser.click("button[type=submit]")
        browser.wait_for("document.body.innerText.includes('Autorizar')", "the consent page")
        browser.screenshot("02-consentimento.png")
        text = browser.text()
        assert "Autorizar Assistente Financeiro" in text
        assert admin["name"] in text and server.org()["name"] in text
        assert "Ver seus clientes" in text
        assert "Cobrar devedores: enviar avisos, negativar e protestar" in text
        assert "altera dados" in text  # destructive scopes are marked in words
        # Discovery mode is offered, unticked.
        assert "modo descoberta" in text
        assert browser.eval("document.querySelector('#discovery').checked") is False
        browser.eval("document.querySelector('#discovery').scrollIntoView({block: 'center'})")
        browser.screenshot("02b-consentimento-descoberta.png")

        # The person grants fewer: no collecting.
        browser.click("input[value='charges:collect']")
        browser.click("button[value=allow]")
        browser.wait_for("document.body.innerText.includes('Aplicativo conectado')", "the application's page")
        browser.screenshot("03-retorno.png")
        back = urllib.parse.urlparse(browser.eval("location.href"))
        answer = dict(urllib.parse.parse_qsl(back.query))
        assert answer["state"] == "s-123" and answer["iss"] == server.base

        token_request = urllib.request.Request(
            f"{server.base}/oauth/token", method="POST",
            data=urllib.parse.urlencode({
                "grant_type": "authorization_code", "client_id": client_id, "code": answer["code"],
                "redirect_uri": redirect, "code_verifier": verifier, "resource": server.mcp_url,
            }).encode(),
            headers={"content-type": "application/x-www-form-urlencoded"},
        )
        tokens = json.loads(urllib.request.urlopen(token_request).read())
        assert tokens["scope"].split() == ["customers:read", "charges:read", "charges:write"]

        browser.send("Page.navigate", url=f"{server.base}/oauth/apps")
        browser.wait_for("document.body.innerText.includes('Aplicativos conectados')", "the connected applications")
        browser.screenshot("04-aplicativos.png")
        text = browser.text()
        assert "Assistente Financeiro" in text and "Revogar acesso" in text
    finally:
        browser.close()
        receiver.shutdown()


class Attacker(http.server.BaseHTTPRequestHandler):
    """A page on another port of 127.0.0.1 (another origin of the same site): it plants a
    `kd_pre` cookie (cookies ignore ports) and submits a form to our consent or sign-in
    endpoint by itself, as a forged-consent or login-CSRF page would."""

    form = ""  # set by the test: the HTML of the auto-submitting form
    redirected = []  # any request reaching the attacker's callback (a stolen code)

    def do_GET(self):  # noqa: N802
        if self.path.startswith("/callback"):
            Attacker.redirected.append(self.path)
        body = f"<!doctype html><html><body>{Attacker.form}<script>document.forms[0].submit()</script></body></html>".encode()
        self.send_response(200)
        self.send_header("content-type", "text/html; charset=utf-8")
        self.send_header("set-cookie", "kd_pre=" + "A" * 43 + "; Path=/oauth")
        self.send_header("set-cookie", "kd_csrf=" + "A" * 43 + "; Path=/oauth")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_chromium_refuses_forms_another_origin_of_the_site_submits(server):
    port = free_port()
    attacker = http.server.ThreadingHTTPServer(("127.0.0.1", port), Attacker)
    threading.Thread(target=attacker.serve_forever, daemon=True).start()
    redirect = f"http://127.0.0.1:{port}/callback"
    registration = urllib.request.Request(
        f"{server.base}/oauth/register", method="POST",
        data=json.dumps({"client_name": "Assistente Oficial", "redirect_uris": [redirect]}).encode(),
        headers={"content-type": "application/json"},
    )
    client_id = json.loads(urllib.request.urlopen(registration).read())["client_id"]
    challenge = base64.urlsafe_b64encode(hashlib.sha256(b"x" * 43).digest()).decode().rstrip("=")
    request = urllib.parse.urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": redirect,
        "code_challenge": challenge, "code_challenge_method": "S256", "resource": server.mcp_url,
    })
    planted = "A" * 43
    admin = server.person("admin")
    viewer = server.person("viewer")
    browser = Browser()
    try:
        browser.send("Page.enable")
        # The victim is signed in.
        browser.send("Page.navigate", url=f"{server.base}/oauth/apps")
        browser.wait_for("document.querySelector('#email') !== null", "the sign-in form")
        browser.type_into("#email", admin["email"])
        browser.type_into("#password", admin["password"])
        browser.click("button[type=submit]")
        browser.wait_for("document.body.innerText.includes('Aplicativos conectados')", "the signed-in page")

        # A forged consent: every scope, for the attacker's application, with a planted token.
        fields = [("csrf", planted), ("request", request), ("decision", "allow")] + [
            ("scope", s) for s in ("customers:write", "charges:write", "charges:collect", "webhooks:write")
        ]
        inputs = "".join(
            f'<input type="hidden" name="{k}" value="{html_escape(v)}">' for k, v in fields
        )
        Attacker.form = f'<form method="post" action="{server.base}/oauth/consent">{inputs}</form>'
        browser.send("Page.navigate", url=f"http://127.0.0.1:{port}/forged")
        browser.wait_for("document.body.innerText.includes('não veio das páginas')", "the refusal")
        browser.screenshot("05-consentimento-forjado.png")
        assert browser.eval("location.href") == f"{server.base}/oauth/consent"
        assert Attacker.redirected == [], "no code reached the attacker"

        # Login CSRF: the attacker's own credentials, submitted from the attacker's page.
        fields = [("csrf", planted), ("return_to", "/oauth/apps"),
                  ("email", viewer["email"]), ("password", viewer["password"])]
        inputs = "".join(
            f'<input type="hidden" name="{k}" value="{html_escape(v)}">' for k, v in fields
        )
        Attacker.form = f'<form method="post" action="{server.base}/oauth/sign-in">{inputs}</form>'
        browser.send("Page.navigate", url=f"http://127.0.0.1:{port}/login")
        browser.wait_for("document.body.innerText.includes('não veio das páginas')", "the refusal")

        # The victim is still the victim, and nothing was connected.
        browser.send("Page.navigate", url=f"{server.base}/oauth/apps")
        browser.wait_for("document.body.innerText.includes('Aplicativos conectados')", "the list")
        text = browser.text()
        assert admin["name"] in text and viewer["name"] not in text
        assert "Assistente Oficial" not in text
    finally:
        browser.close()
        attacker.shutdown()


def html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
