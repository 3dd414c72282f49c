"""Pix Automático at the test PSP (`tests/pix_psp/server.py`) as BACEN's API Pix 2.9.0 has it
(`/locrec`, `/rec`, `/solicrec`, `/cobr`, `/webhookrec`, `/webhookcobr`): the real PSP process over
mutual TLS with the certificates and secret it writes, its control API playing the payer and the
SPI, its callbacks received by a real HTTP receiver and checked against the document's schemas as
`tests/pix_psp/automatico_schemas.py` transcribes them.

One PSP for the module (each test makes its own recurrences); a PSP without Pix Automático is
started by the test that needs it."""

from __future__ import annotations

import base64
import importlib.util
import json
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from datetime import timedelta
from pathlib import Path

import pytest

import brcode
import test_psp_devolucoes

REPO = Path(__file__).resolve().parent.parent.parent
PSP_SCRIPT = REPO / "tests" / "pix_psp" / "server.py"
KEY = "cobranca@paodourado.com.br"

spec = importlib.util.spec_from_file_location("test_psp_automatico_server", PSP_SCRIPT)
server = importlib.util.module_from_spec(spec)
spec.loader.exec_module(server)
schemas = server.schemas


class Receiver(test_psp_devolucoes.Receiver):
    """The receiver's webhook (every callback's path, headers and body, in order), read by what
    each notification is about."""

    def of(self, suffix: str, key: str, value: str) -> list[dict]:
        """The notifications about one recurrence (`/rec`, `idRec`) or charge (`/cobr`, `txid`),
        each checked against the document's callback schema."""
        found = []
        for call in self.calls:
            if call["path"] == "/webhook" + suffix:
                assert schemas.violations("WebhookRecBody" if suffix == "/rec" else "WebhookCobRBody",
                                          call["body"], "callback") == []
                found += [n for n in next(iter(call["body"].values())) if n[key] == value]
        return found

    def stop(self):
        self.http.shutdown()
        self.http.server_close()


class Psp:
    """The test PSP as a child process: its API over mutual TLS with a client-credentials token
    (every scope it grants), and its control API."""

    def __init__(self, directory: Path, *extra: str):
        self.proc = subprocess.Popen([sys.executable, str(PSP_SCRIPT), "--dir", str(directory), "--chave", KEY, *extra],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("READY "):
            self.proc.kill()
            raise RuntimeError(f"the test PSP did not start: {line}{self.proc.stdout.read()}")
        self.info = json.loads(line[len("READY "):])
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()
        files = self.info["files"]
        self.tls = ssl.create_default_context(cafile=files["ca"])
        self.tls.load_cert_chain(files["certificate"], files["private_key"])
        self.secret = Path(files["client_secret"]).read_text().strip()
        self.token, self.scope = self.new_token()

    def new_token(self) -> tuple[str, str]:
        request = urllib.request.Request(self.info["api_url"] + "/oauth/token", method="POST",
                                         data=b"grant_type=client_credentials")
        basic = base64.b64encode(f"{self.info['client_id']}:{self.secret}".encode()).decode()
        request.add_header("Authorization", "Basic " + basic)
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
        with urllib.request.urlopen(request, context=self.tls, timeout=30) as answer:
            granted = json.loads(answer.read())
        return granted["access_token"], granted["scope"]

    def api(self, method: str, path: str, body=None) -> tuple[int, dict | None]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.info["api_url"] + path, data=data, method=method)
        request.add_header("Authorization", "Bearer " + self.token)
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, context=self.tls, timeout=30) as answer:
                raw, status = answer.read(), answer.status
        except urllib.error.HTTPError as e:
            raw, status = e.read(), e.code
        return status, json.loads(raw) if raw else None

    def control(self, path: str, body: dict | None = None) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.info["control_url"] + path, data=data,
                                         method="POST" if body is not None else "GET")
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def state(self) -> dict:
        return self.control("/control/state")[1]

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


@pytest.fixture(scope="module")
def receiver():
    r = Receiver()
    yield r
    r.stop()


@pytest.fixture(scope="module")
def psp(tmp_path_factory, receiver):
    p = Psp(tmp_path_factory.mktemp("psp"))
    assert p.api("PUT", "/webhookrec", {"webhookUrl": receiver.url}) == (200, None)
    assert p.api("PUT", "/webhookcobr", {"webhookUrl": receiver.url}) == (200, None)
    assert p.api("PUT", f"/webhook/{KEY}", {"webhookUrl": receiver.url}) == (200, None)
    yield p
    # Nothing the tests meant to be valid was refused.
    unexpected = [r for r in p.state()["refused"] if (r["method"], r["path"].removeprefix("/api/v2")) not in EXPECTED]
    p.stop()
    assert unexpected == []


# The requests the tests mean to be refused (method, path without the base or the query).
EXPECTED: set[tuple[str, str]] = set()


def refused(psp: Psp, method: str, path: str, body=None) -> dict:
    """A request the PSP must refuse with 400: its problem, also found in `refused`."""
    bare = path.partition("?")[0]
    EXPECTED.add((method, bare))
    status, problem = psp.api(method, path, body)
    assert status == 400, problem
    assert schemas.violations("Problema", problem, "problem") == []
    assert {"method": method, "path": "/api/v2" + bare, "type": problem["type"], "detail": problem["detail"],
            "violacoes": problem.get("violacoes", [])} in psp.state()["refused"]
    return problem


def today():
    return server.brasilia_day(server.now())


def rec_body(policy: str = "NAO_PERMITE", loc: int | None = None, **changes) -> dict:
    body = {"vinculo": {"contrato": "acordo-00001", "objeto": "Acordo de dívida",
                        "devedor": {"cpf": "12345678909", "nome": "Fulano de Tal"}},
            "calendario": {"dataInicial": (today() + timedelta(days=5)).isoformat(), "periodicidade": "MENSAL"},
            "valor": {"valorRec": "150.00"}, "politicaRetentativa": policy}
    if loc is not None:
        body["loc"] = loc
    body.update(changes)
    return body


def new_rec(psp: Psp, policy: str = "NAO_PERMITE", **changes) -> dict:
    status, loc = psp.api("POST", "/locrec", {"tipo": "rec"})
    assert status == 201, loc
    status, rec = psp.api("POST", "/rec", rec_body(policy, loc["id"], **changes))
    assert status == 201, rec
    return rec


def approved_rec(psp: Psp, policy: str = "NAO_PERMITE", **changes) -> dict:
    rec = new_rec(psp, policy, **changes)
    status, done = psp.control("/control/rec/approve", {"idRec": rec["idRec"]})
    assert status == 200, done
    return done["rec"]


def cobr_body(rec: dict, days: int = 5, original: str = "150.00") -> dict:
    return {"idRec": rec["idRec"], "calendario": {"dataDeVencimento": (today() + timedelta(days=days)).isoformat()},
            "valor": {"original": original}, "ajusteDiaUtil": True,
            "recebedor": {"agencia": "0001", "conta": "123456", "tipoConta": "CORRENTE"},
            "infoAdicional": "Parcela 1 de 6"}


def txid(n: int) -> str:
    return f"agreement{n:04d}instalment0000000"[:32]


def new_cobr(psp: Psp, rec: dict, tx: str, days: int = 5) -> dict:
    status, cobr = psp.api("PUT", f"/cobr/{tx}", cobr_body(rec, days))
    assert status == 201, cobr
    return cobr


def wait_for(probe, timeout: float = 10):
    deadline = time.monotonic() + timeout
    while not (value := probe()):
        assert time.monotonic() < deadline, "not within the time"
        time.sleep(0.05)
    return value


# --- the document ------------------------------------------------------------------------------
def moved_to_the_future(body: dict) -> dict:
    """A document example with its dates a year or so from now, as a new request needs them."""
    text = json.dumps(body)
    for year in ("2024", "2025"):
        text = text.replace(f'"{year}-', f'"{today().year + 1 + int(year) - 2024}-')
    return json.loads(text)


# `recBody1`, `recBody2`, `recBody3`, `cobRBody1`, `cobRBody2`, `solicRecBody1`, `recWebhookBody1`
# and `recWebhookNotification1` of the API Pix 2.9.0, copied (CI cannot reach the document).
RECBODY1 = {"vinculo": {"contrato": "63100862", "devedor": {"cpf": "45164632481", "nome": "Fulano de Tal"},
                        "objeto": "Serviço de Streamming de Música."},
            "calendario": {"dataFinal": "2025-04-01", "dataInicial": "2024-04-01", "periodicidade": "MENSAL"},
            "valor": {"valorRec": "35.00"}, "politicaRetentativa": "NAO_PERMITE", "loc": 108,
            "ativacao": {"dadosJornada": {"txid": "33beb661beda44a8928fef47dbeb2dc5"}}}
RECBODY2 = {"vinculo": {"contrato": "998782003", "devedor": {"cpf": "02989131415", "nome": "Beltrano da Silva"},
                        "objeto": "Serviço de Plano de Saúde."},
            "calendario": {"dataInicial": "2024-10-10", "periodicidade": "ANUAL"},
            "valor": {"valorMinimoRecebedor": "5000.00"}, "politicaRetentativa": "PERMITE_3R_7D"}
RECBODY3 = {"loc": 108, "vinculo": {"devedor": {"nome": "Fulano de Tal"}}, "calendario": {"dataInicial": "2024-04-01"},
            "ativacao": {"dadosJornada": {"txid": "33beb661beda44a8928fef47dbeb2dc5"}}}
COBRBODY1 = {"idRec": "RR1234567820240115abcdefghijk", "infoAdicional": "Serviços de Streamming de Música e Filmes.",
             "calendario": {"dataDeVencimento": "2024-04-15"}, "valor": {"original": "106.07"}, "ajusteDiaUtil": True,
             "devedor": {"cep": "89256-140", "cidade": "Uberlândia", "email": "sebastiao.tavares@mail.com",
                         "logradouro": "Alameda Franco 1056", "uf": "MG"},
             "recebedor": {"agencia": "9708", "conta": "012682", "tipoConta": "CORRENTE"}}
SOLICRECBODY1 = {"idRec": "RN123456782024011577825445612",
                 "calendario": {"dataExpiracaoSolicitacao": "2023-12-20T12:17:11.926Z"},
                 "destinatario": {"agencia": "2569", "conta": "550689", "cpf": "15231470190", "ispbParticipante": "91193552"}}
RECWEBHOOKNOTIFICATION1 = {"recs": [{
    "idRec": "RR1026652320240821lab77511abf", "status": "APROVADA",
    "atualizacao": [{"status": "CRIADA", "data": "2024-08-20T10:12:07.567Z"},
                    {"status": "APROVADA", "data": "2024-08-22T12:43:53.337Z"}],
    "ativacao": {"tipoJornada": "JORNADA_3", "dadosJornada": {"txid": "r9eFIFmwcZ55Nm4RsKZAAtIvvCrlcNN6"}}}]}


@pytest.mark.parametrize("example, schema", [
    (RECBODY1, "RecSolicitada"), (RECBODY2, "RecSolicitada"), (RECBODY3, "RecRevisada"),
    ({"status": "CANCELADA"}, "CobRRevisada"), ({"status": "CANCELADA"}, "RecRevisada"),
    (SOLICRECBODY1, "SolicRecSolicitada"), ({"status": "CANCELADA"}, "SolicRecRevisada"),
    ({"webhookUrl": "https://usuario.recebedor.com/api/webhookrec/"}, "WebhookRecSolicitado"),
    ({"webhookUrl": "https://usuario.recebedor.com/api/webhookcobr/"}, "WebhookCobRSolicitado"),
    (RECWEBHOOKNOTIFICATION1, "WebhookRecBody"),
])
def test_the_document_s_examples_validate_against_the_transcribed_schemas(example, schema):
    assert schemas.violations(schema, moved_to_the_future(example), "x") == []


def test_cobrbody1_validates_once_its_cep_fits_the_document_s_own_max_length_of_8():
    # The document's example writes the CEP "89256-140" (9 characters) where its schema
    # (`DadosComplementaresPessoa.cep`) allows 8: the schema wins, so a CEP goes without its dash.
    assert schemas.violations("CobRSolicitada", COBRBODY1, "cobr") == [
        ("cobr.devedor.cep", "O campo cobr.devedor.cep não respeita o schema (maxLength).")]
    fixed = moved_to_the_future({**COBRBODY1, "devedor": {**COBRBODY1["devedor"], "cep": "89256140"}})
    assert schemas.violations("CobRSolicitada", fixed, "cobr") == []


@pytest.mark.parametrize("schema, body, where", [
    ("RecSolicitada", {**RECBODY2, "politicaRetentativa": "SEMPRE"}, "rec.politicaRetentativa"),
    ("RecSolicitada", {**RECBODY2, "vinculo": {"contrato": "1"}}, "rec.vinculo.devedor"),
    ("RecSolicitada", {**RECBODY2, "calendario": {"dataInicial": "2026-02-30", "periodicidade": "MENSAL"}},
     "rec.calendario.dataInicial"),
    ("RecSolicitada", {**RECBODY2, "vinculo": {**RECBODY2["vinculo"], "devedor": {"cpf": "123", "nome": "X"}}},
     "rec.vinculo.devedor"),
    ("CobRSolicitada", {k: v for k, v in COBRBODY1.items() if k != "ajusteDiaUtil"}, "cobr.ajusteDiaUtil"),
    ("CobRSolicitada", {**COBRBODY1, "recebedor": {"conta": "1"}}, "cobr.recebedor.tipoConta"),
    ("RecNotification", {"idRec": "RR1026652320240821lab77511abf", "status": "APROVADA"}, "rec.atualizacao"),
    # `date-time` is checked (jsonschema does so only with rfc3339-validator installed).
    ("RecNotification", {"idRec": "RR1026652320240821lab77511abf", "status": "APROVADA",
                         "atualizacao": [{"status": "CRIADA", "data": "ontem"}]}, "rec.atualizacao.0.data"),
])
def test_a_body_against_the_document_is_named_where_it_breaks_it(schema, body, where):
    assert where in [p for p, _ in schemas.violations(schema, body, where.split(".")[0])]


def test_a_body_the_psp_would_answer_against_its_document_is_a_drift_not_an_answer():
    rec = {"idRec": "RN1234567820240115abcdefghijk", "status": "CRIADA",
           "atualizacao": [{"status": "CRIADA", "data": "2026-01-01T00:00:00.000Z"}]}
    assert server.answered("RecNotification", 200, rec) == (200, rec)
    with pytest.raises(schemas.Drift, match="RecNotification.status"):
        server.answered("RecNotification", 200, {**rec, "status": "ATIVA"})


def test_the_br_code_builders_make_the_document_s_own_dadosqr_examples():
    # `recResponse3` (JORNADA_2) and `recResponse7` (JORNADA_4) of the API Pix 2.9.0.
    jornada_2 = ("00020126180014br.gov.bcb.pix5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***"
                 "80800014br.gov.bcb.pix2558pix.example.com/qr/v2/rec/2353c790eefb11eaadc10242ac120002630462C9")
    jornada_4 = ("00020101021226810014br.gov.bcb.pix2559pix.example.com/qr/v2/cobv/1e6c54d3ec9449b7a7fc53b6b0f998e7"
                 "5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***80800014br.gov.bcb.pix2558"
                 "pix.example.com/qr/v2/rec/3ffa640fa4f14080adccb949fa2dc0d06304A441")
    assert server.recurrence_br_code("pix.example.com/qr/v2/rec/2353c790eefb11eaadc10242ac120002",
                                     "Fulano de Tal", "BRASILIA") == jornada_2
    cobv = server.dynamic_br_code("pix.example.com/qr/v2/cobv/1e6c54d3ec9449b7a7fc53b6b0f998e7", "Fulano de Tal", "BRASILIA")
    assert server.with_recurrence(cobv, "pix.example.com/qr/v2/rec/3ffa640fa4f14080adccb949fa2dc0d0") == jornada_4


# --- journeys ----------------------------------------------------------------------------------
def test_journey_2_from_location_to_a_paid_instalment_seen_by_callback_and_by_get_pix(psp, receiver):
    status, loc = psp.api("POST", "/locrec", {"tipo": "rec"})
    assert status == 201 and loc["tipo"] == "rec" and isinstance(loc["id"], int)
    host, _, token = loc["location"].rpartition("/")
    assert host == f"127.0.0.1:{psp.info['port']}/qr/v2/rec" and len(token) == 32
    status, rec = psp.api("POST", "/rec", rec_body("NAO_PERMITE", loc["id"]))
    assert status == 201 and rec["status"] == "CRIADA"
    assert rec["idRec"].startswith("RN12345678" + today().strftime("%Y%m%d")) and len(rec["idRec"]) == 29
    assert rec["ativacao"] == {"tipoJornada": "AGUARDANDO_DEFINICAO"}
    assert rec["recebedor"] == {"cnpj": "11222333000181", "nome": "PADARIA PAO DOURADO"}
    assert rec["loc"] == {**loc, "idRec": rec["idRec"]}
    assert psp.api("GET", f"/locrec/{loc['id']}") == (200, {**loc, "idRec": rec["idRec"]})

    status, shown = psp.api("GET", f"/rec/{rec['idRec']}")
    assert status == 200 and shown["dadosQR"]["jornada"] == "JORNADA_2"
    qr = brcode.parse(shown["dadosQR"]["pixCopiaECola"])
    assert qr[26] == {0: "br.gov.bcb.pix"} and qr[80] == {0: "br.gov.bcb.pix", 25: loc["location"]}

    status, done = psp.control("/control/rec/approve", {"idRec": rec["idRec"], "ispbPagador": "87654321"})
    assert status == 200 and done["callback"]["status"] == 200
    assert done["rec"]["status"] == "APROVADA" and done["rec"]["ativacao"] == {"tipoJornada": "JORNADA_2"}
    assert done["rec"]["pagador"] == {"ispbParticipante": "87654321", "cpf": "12345678909"}
    [note] = receiver.of("/rec", "idRec", rec["idRec"])
    assert note["status"] == "APROVADA" and [h["status"] for h in note["atualizacao"]] == ["CRIADA", "APROVADA"]
    assert "dadosQR" not in psp.api("GET", f"/rec/{rec['idRec']}")[1]  # authorized: no QR to show

    due = today() + timedelta(days=5)
    status, cobr = psp.api("PUT", f"/cobr/{txid(1)}", cobr_body(rec, 5))
    assert status == 201 and cobr["status"] == "ATIVA" and cobr["calendario"]["criacao"] == today().isoformat()
    assert [h["status"] for h in cobr["atualizacao"]] == ["CRIADA", "ATIVA"]
    [attempt] = cobr["tentativas"]
    assert (attempt["tipo"], attempt["status"]) == ("AGND", "AGENDADA")
    assert attempt["dataLiquidacao"] == server.next_business_day(due).isoformat()
    assert cobr["recebedor"] == {"cnpj": "11222333000181", "nome": "PADARIA PAO DOURADO",
                                 "agencia": "0001", "conta": "123456", "tipoConta": "CORRENTE"}
    wait_for(lambda: receiver.of("/cobr", "txid", txid(1)))

    pix_calls = sum(c["path"] == "/webhook/pix" for c in receiver.calls)
    status, paid = psp.control("/control/cobr/pay", {"txid": txid(1)})
    assert status == 200 and paid["callback"]["status"] == 200
    assert paid["cobr"]["status"] == "CONCLUIDA" and paid["cobr"]["tentativas"][0]["status"] == "PAGA"
    last = receiver.of("/cobr", "txid", txid(1))[-1]
    assert last["status"] == "CONCLUIDA" and last["pix"][0]["endToEndId"] == attempt["endToEndId"]
    # Reported through the cobr webhook only, not as a Pix callback.
    assert sum(c["path"] == "/webhook/pix" for c in receiver.calls) == pix_calls
    status, got = psp.api("GET", f"/cobr/{txid(1)}")
    assert status == 200 and got["pix"][0]["valor"] == "150.00" and got["politicaRetentativa"] == "NAO_PERMITE"
    window = f"inicio={server.rfc3339(server.now() - timedelta(hours=1))}&fim={server.rfc3339(server.now() + timedelta(hours=1))}"
    status, listed = psp.api("GET", f"/pix?{window}")
    assert [p["valor"] for p in listed["pix"] if p.get("txid") == txid(1)] == ["150.00"]


def test_journey_4_approved_by_the_cobv_s_qr_pays_the_down_payment_and_authorizes(psp, receiver):
    cobv_txid = "entradaacordo" + "0" * 13
    status, cobv = psp.api("PUT", f"/cobv/{cobv_txid}", {
        "calendario": {"dataDeVencimento": (today() + timedelta(days=3)).isoformat()},
        "devedor": {"cpf": "12345678909", "nome": "Fulano de Tal"}, "valor": {"original": "300.00"}, "chave": KEY})
    assert status == 201
    rec = new_rec(psp)
    status, shown = psp.api("GET", f"/rec/{rec['idRec']}?txid={cobv_txid}")
    assert status == 200 and shown["dadosQR"]["jornada"] == "JORNADA_4"
    qr = brcode.parse(shown["dadosQR"]["pixCopiaECola"])
    assert qr[26][25] == cobv["loc"]["location"] and qr[80][25] == rec["loc"]["location"]
    assert shown["dadosQR"]["pixCopiaECola"].startswith(cobv["pixCopiaECola"][:-8])
    assert refused(psp, "GET", f"/rec/{rec['idRec']}?txid={'x' * 26}")["type"].endswith("/RecConsultaInvalida")

    status, done = psp.control("/control/rec/approve", {"idRec": rec["idRec"], "jornada": "JORNADA_4", "txid": cobv_txid})
    assert status == 200 and done["rec"]["ativacao"] == {"tipoJornada": "JORNADA_4"}
    assert done["pix"]["txid"] == cobv_txid and done["pix"]["valor"] == "300.00"
    assert psp.state()["cobvs"][cobv_txid]["status"] == "CONCLUIDA"
    assert [c["body"]["pix"][0]["txid"] for c in receiver.calls if c["path"] == "/webhook/pix"][-1] == cobv_txid
    assert receiver.of("/rec", "idRec", rec["idRec"])[-1]["ativacao"]["tipoJornada"] == "JORNADA_4"
    # A cobv already paid cannot approve another recurrence.
    other = new_rec(psp)
    assert psp.control("/control/rec/approve", {"idRec": other["idRec"], "jornada": "JORNADA_4", "txid": cobv_txid})[0] == 409
    assert psp.api("GET", f"/rec/{other['idRec']}")[1]["status"] == "CRIADA"


# --- refusals ----------------------------------------------------------------------------------
def test_a_request_against_the_schema_is_refused_with_its_violations_and_listed(psp):
    body = rec_body()
    del body["vinculo"]["contrato"]
    body["calendario"]["periodicidade"] = "QUINZENAL"
    problem = refused(psp, "POST", "/rec", body)
    assert problem["type"] == "https://pix.bcb.gov.br/api/v2/error/RecOperacaoInvalida"
    assert problem["title"] == "Operação inválida."
    assert {v["propriedade"] for v in problem["violacoes"]} == {"rec.vinculo.contrato", "rec.calendario.periodicidade"}
    cobr = cobr_body({"idRec": "RN1234567820240115abcdefghijk"})
    del cobr["ajusteDiaUtil"]
    assert refused(psp, "POST", "/cobr", cobr)["violacoes"][0]["propriedade"] == "cobr.ajusteDiaUtil"
    assert refused(psp, "POST", "/locrec", {"tipo": "cob"})["type"].endswith("/PayloadLocationRecOperacaoInvalida")
    assert refused(psp, "PUT", "/webhookcobr", {"url": "x"})["type"].endswith("/WebhookCobROperacaoInvalida")
    assert refused(psp, "POST", "/solicrec", {"idRec": "x"})["type"].endswith("/SolicRecOperacaoInvalida")


@pytest.mark.parametrize("changes, where", [
    ({"calendario": {"dataInicial": "2020-01-01", "periodicidade": "MENSAL"}}, "rec.calendario.dataInicial"),
    ({"calendario": {"dataInicial": "2099-06-01", "dataFinal": "2099-05-01", "periodicidade": "MENSAL"}},
     "rec.calendario.dataFinal"),
    ({"valor": {"valorRec": "10.00", "valorMinimoRecebedor": "5.00"}}, "rec.valor"),
    ({"valor": {"valorRec": "10.000"}}, "rec.valor.valorRec"),
    ({"loc": 999999}, "rec.loc"),
])
def test_a_recurrence_that_makes_no_sense_is_refused_naming_the_field(psp, changes, where):
    problem = refused(psp, "POST", "/rec", rec_body(**changes))
    assert where in [v["propriedade"] for v in problem["violacoes"]]


def test_a_location_serves_one_recurrence_until_it_is_unlinked(psp):
    rec = new_rec(psp)
    loc = rec["loc"]["id"]
    assert refused(psp, "POST", "/rec", rec_body(loc=loc))["violacoes"] == [
        {"razao": "O location referenciado por rec.loc já está sendo utilizado por outra recorrência.", "propriedade": "rec.loc"}]
    status, unlinked = psp.api("DELETE", f"/locrec/{loc}/idRec")
    assert status == 200 and "idRec" not in unlinked
    assert "loc" not in psp.api("GET", f"/rec/{rec['idRec']}")[1]
    assert psp.api("POST", "/rec", rec_body(loc=loc))[0] == 201
    assert psp.api("GET", "/locrec/999999")[1]["type"].endswith("/PayloadLocationRecNaoEncontrado")


@pytest.mark.parametrize("days", [0, 1, 11, 30])
def test_a_cobr_outside_2_to_10_days_before_its_due_date_is_refused(psp, days):
    rec = approved_rec(psp)
    problem = refused(psp, "PUT", f"/cobr/{txid(100 + days)}", cobr_body(rec, days))
    assert [v["propriedade"] for v in problem["violacoes"]] == ["cobr.calendario.dataDeVencimento"]
    assert "2 a 10 dias" in problem["violacoes"][0]["razao"]


def test_a_cobr_2_and_10_days_ahead_is_taken(psp):
    rec = approved_rec(psp, calendario={"dataInicial": today().isoformat(), "periodicidade": "SEMANAL"})
    assert new_cobr(psp, rec, txid(202), days=2)["status"] == "ATIVA"
    assert new_cobr(psp, rec, txid(210), days=10)["status"] == "ATIVA"


def test_a_cobr_for_a_recurrence_not_approved_or_unknown_is_refused_naming_it(psp):
    rec = new_rec(psp)
    problem = refused(psp, "PUT", f"/cobr/{txid(300)}", cobr_body(rec))
    assert problem["type"].endswith("/CobROperacaoInvalida")
    assert problem["violacoes"] == [{"propriedade": "cobr.idRec",
                                     "razao": f"A recorrência {rec['idRec']} está CRIADA: somente uma recorrência APROVADA recebe cobranças."}]
    unknown = refused(psp, "PUT", f"/cobr/{txid(301)}", cobr_body({"idRec": "RN1234567820240115abcdefghijk"}))
    assert unknown["violacoes"][0]["propriedade"] == "cobr.idRec"


def test_a_cobr_s_value_follows_its_recurrence_and_one_per_cycle(psp):
    fixed = approved_rec(psp)
    assert refused(psp, "PUT", f"/cobr/{txid(400)}", cobr_body(fixed, 5, "149.99"))["violacoes"][0]["propriedade"] == "cobr.valor.original"
    floor = approved_rec(psp, valor={"valorMinimoRecebedor": "100.00"})
    assert refused(psp, "PUT", f"/cobr/{txid(401)}", cobr_body(floor, 5, "99.99"))["violacoes"][0]["propriedade"] == "cobr.valor.original"
    first = new_cobr(psp, floor, txid(402), days=5)
    # The same request again gets the same cobr; the same txid for another is refused.
    assert psp.api("PUT", f"/cobr/{txid(402)}", cobr_body(floor, 5)) == (201, first)
    assert refused(psp, "PUT", f"/cobr/{txid(402)}", cobr_body(floor, 6))["violacoes"][0]["propriedade"] == "cobr.txid"
    # A second charge of the recurrence for the same due date.
    problem = refused(psp, "PUT", f"/cobr/{txid(403)}", cobr_body(floor, 5))
    assert "mesmo ciclo" in problem["violacoes"][0]["razao"]
    status, made = psp.api("POST", "/cobr", cobr_body(fixed, 5))
    assert status == 201 and len(made["txid"]) == 32


def test_without_automatic_pix_every_path_is_not_found_and_pix_works_as_before(tmp_path):
    plain = Psp(tmp_path, "--no-automatic-pix")
    try:
        assert "rec.write" not in plain.scope.split() and "cobv.write" in plain.scope.split()
        for method, path, body in [("POST", "/locrec", {"tipo": "rec"}), ("POST", "/rec", rec_body()),
                                   ("GET", "/rec/RN1234567820240115abcdefghijk", None),
                                   ("PUT", f"/cobr/{txid(1)}", cobr_body({"idRec": "RN1234567820240115abcdefghijk"})),
                                   ("POST", f"/cobr/{txid(1)}/retentativa/2099-01-01", None),
                                   ("PUT", "/webhookrec", {"webhookUrl": "http://127.0.0.1:1/"}),
                                   ("GET", "/webhookcobr", None), ("POST", "/solicrec", SOLICRECBODY1)]:
            status, problem = plain.api(method, path, body)
            assert (status, problem["type"]) == (404, "https://pix.bcb.gov.br/api/v2/error/NaoEncontrado"), path
        assert plain.control("/control/rec/approve", {"idRec": "x"})[0] == 404
        assert plain.api("PUT", f"/webhook/{KEY}", {"webhookUrl": "http://127.0.0.1:1/"}) == (200, None)
        assert plain.state()["refused"] == []
    finally:
        plain.stop()


# --- failed debits and retries -----------------------------------------------------------------
def test_a_failed_debit_without_retries_rejects_the_cobr(psp, receiver):
    rec = approved_rec(psp, "NAO_PERMITE")
    new_cobr(psp, rec, txid(500))
    status, failed = psp.control("/control/cobr/fail", {"txid": txid(500)})
    assert status == 200 and failed["cobr"]["status"] == "REJEITADA"
    assert failed["cobr"]["tentativas"][0]["rejeicao"]["codigo"] == "AM02"
    assert failed["cobr"]["encerramento"]["rejeicao"]["codigo"] == "AM02"
    assert receiver.of("/cobr", "txid", txid(500))[-1]["status"] == "REJEITADA"
    problem = refused(psp, "POST", f"/cobr/{txid(500)}/retentativa/{(today() + timedelta(days=6)).isoformat()}")
    assert problem["detail"] == "A política configurada na recorrência não permite retentativa de cobrança."
    assert psp.control("/control/cobr/pay", {"txid": txid(500)})[0] == 409


def test_with_permite_3r_7d_a_failed_debit_waits_for_a_retry_which_then_pays(psp, receiver):
    rec = approved_rec(psp, "PERMITE_3R_7D")
    assert rec["idRec"].startswith("RR")
    cobr = new_cobr(psp, rec, txid(600), days=3)
    due = today() + timedelta(days=3)
    retry = f"/cobr/{txid(600)}/retentativa/{(due + timedelta(days=1)).isoformat()}"
    assert "SOLICITADA ou AGENDADA" in refused(psp, "POST", retry)["detail"]  # the first still scheduled
    status, failed = psp.control("/control/cobr/fail", {"txid": txid(600), "codigo": "AM02"})
    assert status == 200 and failed["cobr"]["status"] == "ATIVA"
    assert [a["status"] for a in failed["cobr"]["tentativas"]] == ["REJEITADA"]
    for day, why in [(today(), "data futura"), (due + timedelta(days=8), "7 dias")]:
        problem = refused(psp, "POST", f"/cobr/{txid(600)}/retentativa/{day.isoformat()}")
        assert why in problem["detail"] and problem["type"].endswith("/CobROperacaoInvalida")
    status, retried = psp.api("POST", retry)
    assert status == 201 and [(a["tipo"], a["status"]) for a in retried["tentativas"]] == [
        ("AGND", "REJEITADA"), ("RIFL", "AGENDADA")]
    assert retried["tentativas"][1]["endToEndId"] != cobr["tentativas"][0]["endToEndId"]
    wait_for(lambda: len(receiver.of("/cobr", "txid", txid(600))[-1]["tentativas"]) == 2)
    status, paid = psp.control("/control/cobr/pay", {"txid": txid(600)})
    assert status == 200 and paid["cobr"]["status"] == "CONCLUIDA"
    assert paid["cobr"]["pix"][0]["endToEndId"] == retried["tentativas"][1]["endToEndId"]


def test_three_retries_at_most_then_the_last_failure_rejects_the_cobr(psp):
    rec = approved_rec(psp, "PERMITE_3R_7D")
    new_cobr(psp, rec, txid(700), days=2)
    due = today() + timedelta(days=2)
    for n in range(1, 4):
        assert psp.control("/control/cobr/fail", {"txid": txid(700)})[1]["cobr"]["status"] == "ATIVA"
        assert psp.api("POST", f"/cobr/{txid(700)}/retentativa/{(due + timedelta(days=n)).isoformat()}")[0] == 201
    status, failed = psp.control("/control/cobr/fail", {"txid": txid(700)})
    assert failed["cobr"]["status"] == "REJEITADA" and len(failed["cobr"]["tentativas"]) == 4
    assert failed["cobr"]["encerramento"]["rejeicao"]["codigo"] == "AM02"
    problem = refused(psp, "POST", f"/cobr/{txid(700)}/retentativa/{(due + timedelta(days=4)).isoformat()}")
    assert problem["detail"] == "A cobrança está REJEITADA: somente uma cobrança ATIVA admite retentativa."


def test_a_rejection_code_that_ends_the_cobr_rejects_it_despite_the_policy(psp):
    rec = approved_rec(psp, "PERMITE_3R_7D")
    new_cobr(psp, rec, txid(800))
    assert psp.control("/control/cobr/fail", {"txid": txid(800), "codigo": "AC05"})[1]["cobr"]["status"] == "REJEITADA"
    assert psp.control("/control/cobr/fail", {"txid": txid(800), "codigo": "AM04"})[0] == 400


# --- endings -----------------------------------------------------------------------------------
def test_the_payer_canceling_cancels_the_recurrence_and_its_open_cobr_with_callbacks(psp, receiver):
    rec = approved_rec(psp, "PERMITE_3R_7D", calendario={"dataInicial": today().isoformat(), "periodicidade": "SEMANAL"})
    new_cobr(psp, rec, txid(900), days=3)
    new_cobr(psp, rec, txid(901), days=10)
    psp.control("/control/cobr/pay", {"txid": txid(900)})
    status, done = psp.control("/control/rec/cancel", {"idRec": rec["idRec"]})
    assert status == 200 and done["cobrs"] == [txid(901)]
    assert done["rec"]["encerramento"] == {"cancelamento": {"solicitante": "USUARIO_PAGADOR", "codigo": "ACCL",
                                                            "descricao": "Autorização cancelada pelo pagador"}}
    assert receiver.of("/rec", "idRec", rec["idRec"])[-1]["status"] == "CANCELADA"
    canceled = receiver.of("/cobr", "txid", txid(901))[-1]
    assert canceled["status"] == "CANCELADA" and canceled["tentativas"][0]["status"] == "CANCELADA"
    assert canceled["encerramento"]["cancelamento"] == {"solicitante": "USUARIO_PAGADOR", "codigo": "CCLD",
                                                       "descricao": "Recorrência cancelada"}
    assert psp.api("GET", f"/cobr/{txid(900)}")[1]["status"] == "CONCLUIDA"  # paid stays paid
    assert psp.control("/control/rec/cancel", {"idRec": rec["idRec"]})[0] == 409


def test_the_receiver_cancels_a_recurrence_and_a_cobr_by_patch(psp, receiver):
    rec = approved_rec(psp)
    new_cobr(psp, rec, txid(1000))
    status, cobr = psp.api("PATCH", f"/cobr/{txid(1000)}", {"status": "CANCELADA"})
    assert status == 200 and cobr["status"] == "CANCELADA"
    assert cobr["encerramento"]["cancelamento"] == {"solicitante": "USUARIO_RECEBEDOR", "codigo": "SLCR",
                                                    "descricao": "Cancelamento de agendamento solicitado pelo usuário recebedor"}
    wait_for(lambda: receiver.of("/cobr", "txid", txid(1000))[-1]["status"] == "CANCELADA")
    assert refused(psp, "PATCH", f"/cobr/{txid(1000)}", {"status": "CANCELADA"})["violacoes"][0]["propriedade"] == "cobr.status"
    both = refused(psp, "PATCH", f"/rec/{rec['idRec']}", {"status": "CANCELADA", "vinculo": {"devedor": {"nome": "X"}}})
    assert both["violacoes"][0]["propriedade"] == "rec.status"
    status, ended = psp.api("PATCH", f"/rec/{rec['idRec']}", {"status": "CANCELADA"})
    assert status == 200 and ended["status"] == "CANCELADA"
    assert ended["encerramento"]["cancelamento"]["codigo"] == "SLCR"
    wait_for(lambda: receiver.of("/rec", "idRec", rec["idRec"])[-1]["status"] == "CANCELADA")
    assert "expirada, cancelada ou rejeitada" in refused(psp, "PATCH", f"/rec/{rec['idRec']}", {"status": "CANCELADA"})["violacoes"][0]["razao"]


def test_a_recurrence_is_revised_only_while_created(psp):
    rec = new_rec(psp)
    later = (today() + timedelta(days=9)).isoformat()
    status, revised = psp.api("PATCH", f"/rec/{rec['idRec']}", {"calendario": {"dataInicial": later},
                                                                 "vinculo": {"devedor": {"nome": "Fulana de Tal"}}})
    assert status == 200 and revised["calendario"]["dataInicial"] == later
    assert revised["vinculo"]["devedor"] == {"cpf": "12345678909", "nome": "Fulana de Tal"}
    psp.control("/control/rec/approve", {"idRec": rec["idRec"]})
    problem = refused(psp, "PATCH", f"/rec/{rec['idRec']}", {"calendario": {"dataInicial": later}})
    assert "somente pode ser alterado" in problem["violacoes"][0]["razao"]


def test_the_payer_rejecting_or_letting_it_expire_ends_the_recurrence(psp, receiver):
    rejected, expired = new_rec(psp), new_rec(psp)
    status, done = psp.control("/control/rec/reject", {"idRec": rejected["idRec"], "codigo": "AP14"})
    assert status == 200 and done["rec"]["encerramento"]["rejeicao"]["codigo"] == "AP14"
    assert psp.control("/control/rec/expire", {"idRec": expired["idRec"]})[1]["rec"]["status"] == "EXPIRADA"
    assert receiver.of("/rec", "idRec", rejected["idRec"])[-1]["status"] == "REJEITADA"
    assert receiver.of("/rec", "idRec", expired["idRec"])[-1]["status"] == "EXPIRADA"
    assert psp.control("/control/rec/approve", {"idRec": rejected["idRec"]})[0] == 409


def test_a_lost_callback_is_sent_again_on_redelivery(psp, receiver):
    rec = new_rec(psp)
    status, done = psp.control("/control/rec/approve", {"idRec": rec["idRec"], "deliver": False})
    assert status == 200 and done["callback"] is None
    assert receiver.of("/rec", "idRec", rec["idRec"]) == []
    status, again = psp.control("/control/redeliver_rec", {"idRec": rec["idRec"]})
    assert status == 200 and again["callback"]["status"] == 200
    assert [n["status"] for n in receiver.of("/rec", "idRec", rec["idRec"])] == ["APROVADA"]
    new_cobr(psp, done["rec"], txid(1100))
    wait_for(lambda: receiver.of("/cobr", "txid", txid(1100)))
    assert psp.control("/control/cobr/pay", {"txid": txid(1100), "deliver": False})[1]["callback"] is None
    assert receiver.of("/cobr", "txid", txid(1100))[-1]["status"] == "ATIVA"
    assert psp.control("/control/redeliver_cobr", {"txid": txid(1100)})[1]["callback"]["status"] == 200
    assert receiver.of("/cobr", "txid", txid(1100))[-1]["status"] == "CONCLUIDA"


# --- the rest of the subset --------------------------------------------------------------------
def test_a_scope_not_granted_is_refused_as_the_document_s_security_says(psp):
    token = psp.token
    try:
        request = urllib.request.Request(psp.info["api_url"] + "/oauth/token", method="POST",
                                         data=b"grant_type=client_credentials&scope=rec.read cobv.read")
        basic = base64.b64encode(f"{psp.info['client_id']}:{psp.secret}".encode()).decode()
        request.add_header("Authorization", "Basic " + basic)
        with urllib.request.urlopen(request, context=psp.tls, timeout=30) as answer:
            psp.token = json.loads(answer.read())["access_token"]
        status, problem = psp.api("POST", "/rec", rec_body())
        assert (status, problem["detail"]) == (403, "O escopo rec.write não foi concedido.")
        assert psp.api("GET", "/webhookcobr")[0] == 403
        assert psp.api("GET", "/rec/RN1234567820240115abcdefghijk")[1]["type"].endswith("/RecNaoEncontrada")
    finally:
        psp.token = token


def test_the_webhooks_are_shown_and_removed(psp, receiver):
    status, hook = psp.api("GET", "/webhookrec")
    assert status == 200 and hook["webhookUrl"] == receiver.url
    assert psp.api("DELETE", "/webhookcobr") == (204, None)
    assert psp.api("GET", "/webhookcobr")[0] == 404
    assert psp.api("PUT", "/webhookcobr", {"webhookUrl": receiver.url}) == (200, None)


def test_a_solicrec_is_sent_and_canceled_while_open(psp):
    rec = new_rec(psp)
    body = {**SOLICRECBODY1, "idRec": rec["idRec"],
            "calendario": {"dataExpiracaoSolicitacao": server.rfc3339(server.now() + timedelta(days=2))}}
    status, solic = psp.api("POST", "/solicrec", body)
    assert status == 201 and solic["status"] == "ENVIADA" and solic["idSolicRec"].startswith("SC12345678")
    assert [h["status"] for h in solic["atualizacao"]] == ["CRIADA", "ENVIADA"]
    assert solic["recPayload"]["recebedor"]["ispbParticipante"] == "12345678"
    assert "Existe uma solicitação ativa" in refused(psp, "POST", "/solicrec", body)["violacoes"][0]["razao"]
    assert psp.api("GET", f"/rec/{rec['idRec']}")[1]["solicitacao"][0]["idSolicRec"] == solic["idSolicRec"]
    status, canceled = psp.api("PATCH", f"/solicrec/{solic['idSolicRec']}", {"status": "CANCELADA"})
    assert status == 201 and canceled["status"] == "CANCELADA"
    assert psp.api("GET", f"/solicrec/{solic['idSolicRec']}") == (200, canceled)
    refused(psp, "PATCH", f"/solicrec/{solic['idSolicRec']}", {"status": "CANCELADA"})


def test_recurrences_and_cobr_are_listed_by_window_and_filters(psp):
    rec = approved_rec(psp)
    new_cobr(psp, rec, txid(1200))
    window = f"inicio={server.rfc3339(server.now() - timedelta(minutes=5))}&fim={server.rfc3339(server.now() + timedelta(minutes=5))}"
    status, recs = psp.api("GET", f"/rec?{window}&status=APROVADA&paginacao.itensPorPagina=1000")
    assert status == 200 and rec["idRec"] in [r["idRec"] for r in recs["recs"]]
    assert {r["status"] for r in recs["recs"]} == {"APROVADA"}
    status, cobrs = psp.api("GET", f"/cobr?{window}&idRec={rec['idRec']}")
    assert status == 200 and [c["txid"] for c in cobrs["cobsr"]] == [txid(1200)]
    assert cobrs["parametros"]["paginacao"]["quantidadeTotalDeItens"] == 1
    assert refused(psp, "GET", "/cobr?inicio=ontem")["type"].endswith("/CobRConsultaInvalida")
    status, free = psp.api("POST", "/locrec", {"tipo": "rec"})
    status, linked = psp.api("GET", f"/locrec?{window}&idRecPresente=true&paginacao.itensPorPagina=1000")
    assert status == 200 and rec["loc"]["id"] in [loc["id"] for loc in linked["loc"]]
    assert all("idRec" in loc for loc in linked["loc"])
    status, unlinked = psp.api("GET", f"/locrec?{window}&idRecPresente=false&paginacao.itensPorPagina=1000")
    assert [loc["id"] for loc in unlinked["loc"]][-1] == free["id"]
