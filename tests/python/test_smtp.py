"""Debtor e-mails through a real SMTP relay with TLS: aiosmtpd, started here with a certificate
from a CA this module makes (trustme), and the real server binary started with `--smtp-url`
pointing at it (the CA given with `ca_file`). A charge notice (`POST /v1/charges/{id}/notify`)
goes out on the engine's next tick; each test reads the delivery back from `/v1/deliveries/{id}`
and what the relay received.

STARTTLS and implicit TLS with AUTH arrive; a certificate from another CA, a relay without
STARTTLS and bad credentials each end `failed` with their category; a 550 recipient `bounced`,
a 451 stays queued to be retried; 20 notices share one connection; the message is
multipart/alternative (text and HTML, both with the charge's Pix code), with Message-ID, Date and
Reply-To, and its DKIM signature
verifies with dkimpy; its one-click unsubscribe link (RFC 8058), POSTed as a mailbox provider
does, opts the customer out once, and a tampered link is refused."""

from __future__ import annotations

import base64
import email
import email.policy
import json
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

import dkim
import pytest
import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "clients"))

from harness import Server, cpf, free_port  # noqa: E402

import brcode  # noqa: E402

SENDER = "cobranca@paodourado.com.br"
REPLY_TO = "financeiro@paodourado.com.br"
SELECTOR = "kd2026"
USER, PASSWORD = "cobranca", "s3nha@forte"
# The collection worker looks every second here (`--collection-interval 1s`); a notice goes
# out on its next look, a 451 is retried after the engine's own backoff.
WAIT = 45


@dataclass
class Received:
    """One message the relay accepted: the envelope, the raw bytes, the client's address."""

    mail_from: str
    rcpt_tos: list
    data: bytes
    peer: tuple
    tls: bool


@dataclass
class Relay:
    """aiosmtpd on 127.0.0.1 with a handler that records messages, refuses recipients starting
    with `reject` (550 5.1.1) and defers those starting with `later` (451 4.3.0)."""

    tls_context: object = None  # STARTTLS offered with this certificate
    implicit_context: object = None  # TLS from the first byte
    auth: bool = False
    messages: list = field(default_factory=list)
    connections: int = 0
    logins: list = field(default_factory=list)
    port: int = field(default_factory=free_port)

    def start(self) -> "Relay":
        relay = self
        lock = threading.Lock()

        class Handler:
            async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
                if address.startswith("reject"):
                    return "550 5.1.1 The email account that you tried to reach does not exist"
                if address.startswith("later"):
                    return "451 4.3.0 Mailbox temporarily unavailable, try again later"
                envelope.rcpt_tos.append(address)
                return "250 OK"

            async def handle_DATA(self, server, session, envelope):
                with lock:
                    relay.messages.append(Received(
                        envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content,
                        # session.ssl after STARTTLS; the transport's ssl_object on implicit TLS.
                        session.peer,
                        session.ssl is not None
                        or server.transport.get_extra_info("ssl_object") is not None,
                    ))
                return "250 2.0.0 queued"

        def authenticator(server, session, envelope, mechanism, auth_data):
            ok = isinstance(auth_data, LoginPassword) and (auth_data.login, auth_data.password) == (
                USER.encode(), PASSWORD.encode())
            relay.logins.append((mechanism, ok))
            # handled=False: aiosmtpd answers 535 itself (its default assumes we did).
            return AuthResult(success=ok, handled=False)

        class Counting(Controller):
            def factory(self):
                with lock:
                    relay.connections += 1
                return SMTP(self.handler, **self.SMTP_kwargs)

        kwargs = {}
        if self.auth:
            kwargs.update(authenticator=authenticator, auth_required=True,
                          auth_require_tls=self.implicit_context is None)
        else:
            kwargs.update(auth_require_tls=False)
        if self.tls_context is not None:
            kwargs.update(tls_context=self.tls_context, require_starttls=True)
        self.controller = Counting(
            Handler(), hostname="127.0.0.1", port=self.port, ssl_context=self.implicit_context,
            server_hostname="relay.test", **kwargs)
        self.controller.start()
        # The controller's own start-up check opened one connection.
        self.connections = 0
        return self

    def stop(self) -> None:
        self.controller.stop()

    def to(self, recipient: str) -> list[Received]:
        return [m for m in self.messages if recipient in m.rcpt_tos]


@pytest.fixture(scope="module")
def ca():
    return trustme.CA()


@pytest.fixture(scope="module")
def ca_file(ca, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("ca") / "ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return path


def server_context(ca: trustme.CA):
    import ssl
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    return context


@pytest.fixture(scope="module")
def dkim_key(tmp_path_factory) -> tuple[Path, bytes]:
    """An RSA key in PKCS#8 PEM (what `openssl genpkey` writes) and its DNS TXT record."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path = tmp_path_factory.mktemp("dkim") / "dkim.pem"
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    public = key.public_key().public_bytes(serialization.Encoding.DER,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    return path, b"v=DKIM1; k=rsa; p=" + base64.b64encode(public)


def start_server(url: str, *extra: str) -> Server:
    return Server(extra_args=["--smtp-url", url, "--collection-interval", "1s", *extra]).start()


def notify(server: Server, recipient: str, charges: int = 1, notices: int = 1) -> list[str]:
    """A customer with this e-mail and a charge overdue by three days, and `notices` e-mail
    notices of it: the ids of the deliveries."""
    customer = server.rest("/v1/customers", method="POST", body={
        "name": "Conceição Araújo", "document": cpf(), "email": recipient})["data"]
    charge = server.rest("/v1/charges", method="POST", body={
        "customer_id": customer["id"], "description": "Mensalidade de <março> & cia",
        "amount": 1234.56, "due_date": (date.today() - timedelta(days=3)).isoformat()})["data"]
    return [server.rest(f"/v1/charges/{charge['id']}/notify", method="POST",
                        body={"channel": "email"})["data"]["id"] for _ in range(notices)]


def delivery(server: Server, delivery_id: str) -> dict:
    return server.rest(f"/v1/deliveries/{delivery_id}")["data"]


def settled(server: Server, delivery_id: str, done=lambda d: d["status"] != "queued") -> dict:
    """The delivery once `done` holds (the engine's next tick), failing after WAIT seconds."""
    deadline = time.monotonic() + WAIT
    while True:
        d = delivery(server, delivery_id)
        if done(d):
            return d
        if time.monotonic() > deadline:
            pytest.fail(f"delivery still {d['status']} after {WAIT}s: {d}\n{server.log_tail()}")
        time.sleep(0.5)


# --- STARTTLS, Reply-To and DKIM: one relay and one server for several tests ----------------------

@pytest.fixture(scope="module")
def starttls(ca, ca_file, dkim_key):
    relay = Relay(tls_context=server_context(ca), auth=True).start()
    key_file, _ = dkim_key
    url = (f"smtp://{USER}:{PASSWORD.replace('@', '%40')}@localhost:{relay.port}"
           f"?ca_file={ca_file}&from={SENDER}&reply_to={REPLY_TO}")
    server = start_server(url, "--dkim-key-file", str(key_file), "--dkim-selector", SELECTOR)
    yield server, relay
    server.stop()
    server.cleanup()
    relay.stop()


def test_a_notice_arrives_over_starttls_as_text_and_html_with_its_headers(starttls, tmp_path):
    server, relay = starttls
    [sent] = notify(server, "devedora@example.com.br")
    d = settled(server, sent)
    assert d["status"] == "delivered", d
    [received] = relay.to("devedora@example.com.br")
    assert received.tls, "the message went after STARTTLS"
    assert received.mail_from == SENDER
    assert ("PLAIN", True) in relay.logins or ("LOGIN", True) in relay.logins, relay.logins

    message = email.message_from_bytes(received.data, policy=email.policy.default)
    assert message.get_content_type() == "multipart/alternative"
    assert message["Message-ID"] == f"<{sent}@paodourado.com.br>"
    assert message["Reply-To"] == REPLY_TO
    assert message["Date"] is not None and message["Date"].datetime is not None
    assert message["From"].addresses[0].addr_spec == SENDER
    assert message["From"].addresses[0].display_name  # the organization's name
    assert message["Subject"] == d["subject"]
    text, html = [part for part in message.iter_parts()]
    assert text.get_content_type() == "text/plain"
    # The delivery's text, then the unsubscribe line (which the stored delivery does not hold).
    body, _, footer = text.get_content().replace("\r\n", "\n").rpartition("\n--\n")
    assert body.strip() == d["body"].strip()
    unsubscribe = message["List-Unsubscribe"].strip("<>")
    assert footer.strip() == f"Não quer mais receber estes e-mails? {unsubscribe}"
    assert "Conceição Araújo" in text.get_content()
    assert html.get_content_type() == "text/html"
    page = html.get_content()
    assert '<html lang="pt-BR">' in page
    assert "Conceição Araújo" in page
    assert "&#60;março&#62; &#38; cia" in page, "the charge's text is escaped"
    assert "<script" not in page and "<img" not in page and "src=" not in page
    assert f'<a href="{unsubscribe}"' in page
    # The charge's Pix code: a paragraph of its own in the text, a monospace box in the HTML,
    # the same code as the API's (fields and CRC checked apart from the server).
    pix = server.rest(f"/v1/charges/{d['charge_id']}/pix")["data"]
    assert pix["payload"] in body.split("\n\n"), body
    assert brcode.parse(pix["payload"])[54] == f"{pix['amount']:.2f}"
    box = next(p for p in page.split("<p ") if pix["payload"] in p)
    assert "monospace" in box.split(">", 1)[0], box
    # For a look in a browser: `pytest -s` prints where the page is.
    (tmp_path / "notice.html").write_text(page, encoding="utf-8")
    print(f"HTML part: {tmp_path / 'notice.html'}")
    print("received headers:\n" + "\n".join(f"{k}: {v}" for k, v in message.items()))


def test_the_dkim_signature_verifies_with_dkimpy(starttls, dkim_key):
    server, relay = starttls
    [sent] = notify(server, "assinada@example.com.br")
    assert settled(server, sent)["status"] == "delivered"
    [received] = relay.to("assinada@example.com.br")
    _, record = dkim_key
    asked = []

    def dns(name, timeout=5):
        asked.append(name)
        return record if name == f"{SELECTOR}._domainkey.paodourado.com.br.".encode() else None

    assert dkim.verify(received.data, dnsfunc=dns), received.data[:2000]
    assert asked, "the verifier looked the key up"
    signature = email.message_from_bytes(received.data)["DKIM-Signature"]
    assert "d=paodourado.com.br" in signature and f"s={SELECTOR}" in signature
    assert "a=rsa-sha256" in signature
    signed = {h.strip().lower() for h in signature.split("h=")[1].split(";")[0].split(":")}
    assert {"list-unsubscribe", "list-unsubscribe-post"} <= signed, signature
    # A changed body no longer verifies: the check is real.
    tampered = received.data.replace(b"Concei", b"Xoncei", 1)
    assert tampered != received.data and not dkim.verify(tampered, dnsfunc=dns)


def one_click(url: str) -> tuple[int, str]:
    """The POST a mailbox provider sends for RFC 8058: the form body, no cookie, no credential."""
    request = urllib.request.Request(url, data=b"List-Unsubscribe=One-Click", method="POST")
    request.add_header("Content-Type", "application/x-www-form-urlencoded")
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_the_one_click_unsubscribe_link_of_a_received_notice_opts_the_customer_out_once(starttls):
    server, relay = starttls
    [sent] = notify(server, "quer-sair@example.com.br")
    d = settled(server, sent)
    assert d["status"] == "delivered", d
    customer = d["customer_id"]
    [received] = relay.to("quer-sair@example.com.br")
    message = email.message_from_bytes(received.data, policy=email.policy.default)
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    url = message["List-Unsubscribe"].strip()
    assert url.startswith("<") and url.endswith(">"), url
    url = url[1:-1]
    # Here the listening URL; production gives --canonical-url https://... (RFC 8058 wants https).
    assert url.startswith(f"{server.base}/unsubscribe/u1.{server.org()['id']}.{customer}.email."), url

    # A tampered link, and another customer's id with this link's signature: refused, no change.
    signature = url.rsplit(".", 1)[1]
    other = next(c["id"] for c in server.rest("/v1/customers?per_page=100")["data"]
                 if c["id"] != customer and "email" not in c["channel_opt_outs"])
    tampered = [url[:-1] + ("A" if url[-1] != "A" else "B"),
                url.replace(f".{customer}.", f".{other}.")]
    assert tampered[1].endswith(signature)
    for bad in tampered:
        status, page = one_click(bad)
        assert status == 404, (bad, status, page)
        assert "Este link não é válido" in page
    assert "email" not in server.rest(f"/v1/customers/{customer}")["data"]["channel_opt_outs"]
    assert "email" not in server.rest(f"/v1/customers/{other}")["data"]["channel_opt_outs"]

    status, page = one_click(url)
    assert status == 200, page
    organization = server.org()["name"]
    assert f"Pronto: você não receberá mais e-mails de cobrança de {organization}" in page
    assert server.rest(f"/v1/customers/{customer}")["data"]["channel_opt_outs"].count("email") == 1
    events = server.rest(f"/v1/events?subject_id={customer}&type=customer.unsubscribed")["data"]
    assert len(events) == 1 and events[0]["data"]["channel"] == "email", events

    # Once: a second POST answers the same page and writes nothing.
    status, again = one_click(url)
    assert status == 200 and "Pronto:" in again
    assert server.rest(f"/v1/customers/{customer}")["data"]["channel_opt_outs"].count("email") == 1
    assert len(server.rest(f"/v1/events?subject_id={customer}&type=customer.unsubscribed")["data"]) == 1

    # The next e-mail notice is refused at the API (409 customer_opted_out): nothing is queued,
    # nothing reaches the relay.
    charge = server.rest(f"/v1/deliveries/{sent}")["data"]["charge_id"]
    before = len(relay.to("quer-sair@example.com.br"))
    with pytest.raises(urllib.error.HTTPError) as refused:
        server.rest(f"/v1/charges/{charge}/notify", method="POST", body={"channel": "email"})
    assert refused.value.code == 409
    assert json.loads(refused.value.read())["code"] == "customer_opted_out"
    queued = server.rest(f"/v1/deliveries?customer_id={customer}")["data"]
    assert [q["id"] for q in queued] == [sent], queued
    time.sleep(2)  # two looks of the collection worker
    assert len(relay.to("quer-sair@example.com.br")) == before


# The server's SMTP pool (`--smtp-connections`, 4 by default): a burst goes out over at most
# this many connections, each kept for the next message.
SMTP_POOL = 4


def test_twenty_notices_share_the_pools_connections(starttls):
    # Before the refusals below: a refused recipient closes the connection it was refused on.
    server, relay = starttls
    opened = relay.connections
    ids = notify(server, "vinte@example.com.br", notices=20)
    for i in ids:
        assert settled(server, i)["status"] == "delivered"
    received = relay.to("vinte@example.com.br")
    assert len(received) == 20
    peers = {m.peer for m in received}
    assert len(peers) <= SMTP_POOL, f"20 messages over {len(peers)} connections: {peers}"
    # The pool's connections kept from the tests before, or new ones: never one per message.
    assert relay.connections - opened <= SMTP_POOL, relay.connections - opened


def test_a_550_recipient_bounces_and_a_451_stays_queued_for_a_retry(starttls):
    server, relay = starttls
    [rejected] = notify(server, "reject@example.com.br")
    [deferred] = notify(server, "later@example.com.br")
    bounced = settled(server, rejected)
    assert bounced["status"] == "bounced", bounced
    assert bounced["error"] == "smtp: recipient refused (550 5.1.1)", bounced
    retry = settled(server, deferred, lambda d: d["attempts"] >= 1)
    assert retry["status"] == "queued", retry
    assert retry["error"] == "smtp: deferred by the relay (451 4.3.0)", retry
    assert "try again later" not in str(bounced) + str(retry), "the relay's text stays out of the API"


# --- implicit TLS with AUTH ---------------------------------------------------------------------

# aiosmtpd's `auth_require_tls` knows only STARTTLS; on implicit TLS the whole session is TLS.
@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
def test_a_notice_arrives_over_implicit_tls_with_auth(ca, ca_file):
    relay = Relay(implicit_context=server_context(ca), auth=True).start()
    server = start_server(f"smtps://{USER}:{PASSWORD.replace('@', '%40')}@127.0.0.1:{relay.port}"
                          f"?ca_file={ca_file}&from={SENDER}")
    try:
        [sent] = notify(server, "implicita@example.com.br")
        assert settled(server, sent)["status"] == "delivered"
        [received] = relay.to("implicita@example.com.br")
        assert received.tls
        assert any(ok for _, ok in relay.logins), relay.logins
    finally:
        server.stop()
        server.cleanup()
        relay.stop()


# --- refusals ---------------------------------------------------------------------------------

def refused(relay: Relay, url: str, recipient: str) -> dict:
    server = start_server(url)
    try:
        [sent] = notify(server, recipient)
        return settled(server, sent)
    finally:
        server.stop()
        server.cleanup()
        relay.stop()


def test_a_certificate_from_another_ca_fails_the_delivery_as_tls(ca_file):
    relay = Relay(tls_context=server_context(trustme.CA())).start()
    d = refused(relay, f"smtp://127.0.0.1:{relay.port}?ca_file={ca_file}&from={SENDER}",
                "outro-ca@example.com.br")
    assert (d["status"], d["error"]) == ("failed", "smtp: TLS handshake failed"), d
    assert relay.messages == []


def test_a_relay_without_starttls_is_refused(ca_file):
    relay = Relay().start()
    d = refused(relay, f"smtp://127.0.0.1:{relay.port}?ca_file={ca_file}&from={SENDER}",
                "sem-tls@example.com.br")
    assert (d["status"], d["error"]) == ("failed", "smtp: the relay does not offer STARTTLS"), d
    assert relay.messages == []


def test_bad_credentials_fail_the_delivery_as_authentication(ca, ca_file):
    relay = Relay(tls_context=server_context(ca), auth=True).start()
    d = refused(relay, f"smtp://{USER}:errada@127.0.0.1:{relay.port}?ca_file={ca_file}&from={SENDER}",
                "senha-errada@example.com.br")
    assert d["status"] == "failed", d
    assert d["error"].startswith("smtp: authentication refused"), d
    assert relay.messages == [] and relay.logins and not any(ok for _, ok in relay.logins)


def test_plain_tcp_to_a_relay_beyond_loopback_stops_the_start():
    with pytest.raises(RuntimeError, match="only to a relay on loopback"):
        start_server("smtp://mail.example.com?tls=none")
