"""The test PSP's devoluções and the Pix it reports, without a server: `tests/pix_psp/server.py`
loaded as a module, its `Psp` driven directly, its callbacks received by a real HTTP receiver.
(The API over mutual TLS is the same `Psp` behind a router; `test_pix_psp.py` drives that.)"""

from __future__ import annotations

import argparse
import importlib.util
import json
import threading
import time
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
KEY = "cobranca@paodourado.com.br"

spec = importlib.util.spec_from_file_location("test_psp_server", REPO / "tests" / "pix_psp" / "server.py")
server = importlib.util.module_from_spec(spec)
spec.loader.exec_module(server)


class Receiver:
    """The receiver's webhook: every callback body and its headers, in order."""

    def __init__(self):
        self.calls: list[dict] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.calls.append({"path": self.path, "headers": dict(self.headers),
                                       "body": json.loads(body)})
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.http.serve_forever, args=(0.05,), daemon=True).start()
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/webhook"


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.http.shutdown()
    r.http.server_close()


def make_psp(receiver: Receiver, auto_settle: bool = False):
    args = argparse.Namespace(chave=[KEY], auto_settle_refunds=auto_settle, port=8443,
                              callback_header=["X-Client-Verify: SUCCESS"], name="PADARIA PAO DOURADO",
                              city="SAO PAULO", verbose=False)
    psp = server.Psp(args, files={})
    assert psp.put_webhook(KEY, {"webhookUrl": receiver.url}) == (200, None)
    return psp


def paid_pix(psp, valor: str = "100.00") -> dict:
    status, done = psp.pay({"txid": "avulso1", "valor": valor, "horario": server.rfc3339(server.now())})
    assert status == 200, done
    return done["pix"]


def test_a_devolucao_stays_in_processing_until_settled_and_its_final_status_is_called_back(receiver):
    psp = make_psp(receiver)
    e2e = paid_pix(psp)["endToEndId"]
    status, asked = psp.put_refund(e2e, "dev1", {"valor": "30.00", "descricao": "Cobrança em duplicidade"})
    assert status == 201
    assert asked["status"] == "EM_PROCESSAMENTO" and asked["natureza"] == "ORIGINAL"
    assert len(asked["rtrId"]) == 32 and asked["rtrId"].startswith("D") and asked["rtrId"].isalnum()
    assert set(asked["horario"]) == {"solicitacao"}
    time.sleep(1.2)
    assert psp.get_refund(e2e, "dev1") == (200, asked)
    assert len(receiver.calls) == 1  # the payment's callback only
    status, settled = psp.settle_refund(e2e, "dev1", "DEVOLVIDO")
    assert status == 200 and settled["callback"]["status"] == 200
    assert settled["devolucao"]["status"] == "DEVOLVIDO" and "liquidacao" in settled["devolucao"]["horario"]
    call = receiver.calls[-1]
    assert call["path"] == "/webhook/pix" and call["headers"]["X-Client-Verify"] == "SUCCESS"
    assert call["body"]["pix"][0]["endToEndId"] == e2e
    assert call["body"]["pix"][0]["devolucoes"] == [settled["devolucao"]]
    assert psp.state()["callbacks"][-1] == {"endToEndId": e2e, "devolucao": "dev1", "status": 200, "body": ""}
    # Final is final.
    assert psp.settle_refund(e2e, "dev1", "NAO_REALIZADO")[0] == 409


def test_the_devolucoes_of_a_pix_add_up_to_at_most_its_valor_and_a_refused_one_frees_its_amount(receiver):
    psp = make_psp(receiver)
    e2e = paid_pix(psp, "100.00")["endToEndId"]
    assert psp.put_refund(e2e, "a", {"valor": "60.00"})[0] == 201
    status, problem = psp.put_refund(e2e, "b", {"valor": "40.01"})
    assert status == 400 and problem["type"].endswith("/PixDevolucaoInvalida")
    assert problem["violacoes"][0]["propriedade"] == "devolucao.valor"
    assert psp.settle_refund(e2e, "a", "NAO_REALIZADO", "Negado por timeout")[0] == 200
    assert psp.get_refund(e2e, "a")[1]["motivo"] == "Negado por timeout"
    assert psp.put_refund(e2e, "b", {"valor": "100.00"})[0] == 201
    assert psp.put_refund(e2e, "c", {"valor": "0.01"})[0] == 400


def test_the_same_request_again_answers_the_same_devolucao_and_its_id_for_another_is_refused(receiver):
    psp = make_psp(receiver)
    e2e = paid_pix(psp)["endToEndId"]
    first = psp.put_refund(e2e, "x1", {"valor": "10.00"})
    assert psp.put_refund(e2e, "x1", {"valor": "10.00", "natureza": "ORIGINAL"}) == first
    status, problem = psp.put_refund(e2e, "x1", {"valor": "11.00"})
    assert status == 400 and problem["violacoes"] == [
        {"razao": "já foi utilizado por outra requisição de devolução para este e2eid", "propriedade": "devolucao.id"}]


@pytest.mark.parametrize("refund_id, body, fault", [
    ("has-dash", {"valor": "1.00"}, "devolucao.id"),
    ("x" * 36, {"valor": "1.00"}, "devolucao.id"),
    ("ok", {}, "devolucao.valor"),
    ("ok", {"valor": "1,00"}, "devolucao.valor"),
    ("ok", {"valor": "0.00"}, "devolucao.valor"),
    ("ok", {"valor": "1.00", "natureza": "MED_FRAUDE"}, "devolucao.natureza"),
    ("ok", {"valor": "1.00", "natureza": "RETIRADA"}, "devolucao.natureza"),
    ("ok", {"valor": "1.00", "descricao": "x" * 141}, "devolucao.descricao"),
])
def test_a_devolucao_request_against_the_schema_is_refused_naming_the_field(receiver, refund_id, body, fault):
    psp = make_psp(receiver)
    e2e = paid_pix(psp)["endToEndId"]
    status, problem = psp.put_refund(e2e, refund_id, body)
    assert (status, problem["title"]) == (400, "Devolução inválida.")
    assert fault in [v["propriedade"] for v in problem["violacoes"]]
    assert "devolucoes" not in psp.get_pix(e2e)[1]


def test_a_devolucao_of_an_unknown_pix_or_an_unknown_devolucao_is_not_found(receiver):
    psp = make_psp(receiver)
    e2e = paid_pix(psp)["endToEndId"]
    assert psp.put_refund("E" + "0" * 31, "a", {"valor": "1.00"})[1]["type"].endswith("/PixNaoEncontrado")
    assert psp.get_refund(e2e, "nope")[1]["type"].endswith("/PixDevolucaoNaoEncontrada")
    assert psp.get_pix("E" + "0" * 31)[0] == 404


def test_a_devolucao_more_than_ninety_days_after_the_pix_is_refused(receiver):
    psp = make_psp(receiver)
    old = server.rfc3339(server.now() - timedelta(days=91))
    e2e = psp.pay({"txid": "avulso1", "valor": "10.00", "horario": old, "deliver": False})[1]["pix"]["endToEndId"]
    status, problem = psp.put_refund(e2e, "late", {"valor": "1.00"})
    assert status == 400 and problem["violacoes"][0]["propriedade"] == "devolucao"


def test_a_med_devolucao_made_final_at_once_is_called_back_unless_the_callback_is_lost(receiver):
    psp = make_psp(receiver)
    e2e = paid_pix(psp)["endToEndId"]
    status, done = psp.refund({"endToEndId": e2e, "valor": "25.00"})
    assert status == 200 and done["callback"]["status"] == 200
    assert (done["devolucao"]["natureza"], done["devolucao"]["status"]) == ("MED_FRAUDE", "DEVOLVIDO")
    assert receiver.calls[-1]["body"]["pix"][0]["devolucoes"][0]["id"] == done["devolucao"]["id"]
    calls = len(receiver.calls)
    status, lost = psp.refund({"endToEndId": e2e, "valor": "5.00", "natureza": "MED_OPERACIONAL",
                               "status": "NAO_REALIZADO", "deliver": False})
    assert status == 200 and lost["callback"] is None and len(receiver.calls) == calls
    status, pending = psp.refund({"endToEndId": e2e, "valor": "75.00", "status": "EM_PROCESSAMENTO"})
    assert status == 200 and pending["callback"] is None and len(receiver.calls) == calls
    assert psp.refund({"endToEndId": e2e, "valor": "0.01"})[0] == 409  # 25 + 75 taken
    assert psp.refund({"endToEndId": e2e, "valor": "1.00", "natureza": "ESTORNO"})[0] == 400
    assert [d["status"] for d in psp.state()["devolucoes"]] == ["DEVOLVIDO", "NAO_REALIZADO", "EM_PROCESSAMENTO"]


def test_with_auto_settle_a_devolucao_asked_becomes_devolvido_about_a_second_later(receiver):
    psp = make_psp(receiver, auto_settle=True)
    e2e = paid_pix(psp)["endToEndId"]
    assert psp.put_refund(e2e, "auto", {"valor": "1.00"})[1]["status"] == "EM_PROCESSAMENTO"
    deadline = time.monotonic() + 5
    while psp.get_refund(e2e, "auto")[1]["status"] != "DEVOLVIDO" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert psp.get_refund(e2e, "auto")[1]["status"] == "DEVOLVIDO"
    # The callback follows the status change (it is sent after the PSP records it).
    def refund_callbacks():
        return [c for c in receiver.calls if "devolucoes" in c["body"]["pix"][0]]
    while not refund_callbacks() and time.monotonic() < deadline + 5:
        time.sleep(0.1)
    assert refund_callbacks()[-1]["body"]["pix"][0]["devolucoes"][0]["status"] == "DEVOLVIDO"


def test_the_pix_listing_shows_devolucoes_and_filters_by_them(receiver):
    psp = make_psp(receiver)
    with_refund, without = paid_pix(psp)["endToEndId"], paid_pix(psp)["endToEndId"]
    psp.put_refund(with_refund, "r1", {"valor": "1.00"})
    window = {"inicio": server.rfc3339(server.now() - timedelta(hours=1)),
              "fim": server.rfc3339(server.now() + timedelta(hours=1))}
    listed = psp.list_pix(window)[1]["pix"]
    assert {p["endToEndId"]: "devolucoes" in p for p in listed} == {with_refund: True, without: False}
    only = psp.list_pix({**window, "devolucaoPresente": "true"})[1]["pix"]
    assert [p["endToEndId"] for p in only] == [with_refund]


def test_a_late_cobv_payment_reports_its_components_which_add_up_to_its_valor(receiver):
    psp = make_psp(receiver)
    # Due on a future Saturday: the payment the Tuesday after, at 22:30 in Brasília (01:30 UTC
    # on Wednesday), is one day late from the Monday the due date moves to.
    today = server.brasilia_day(server.now())
    saturday = today + timedelta(days=(5 - today.weekday()) % 7 + 7)
    while not server.business_day(saturday + timedelta(days=2)):
        saturday += timedelta(days=7)
    txid = "t" * 26
    status, _ = psp.put_cobv(txid, {
        "calendario": {"dataDeVencimento": saturday.isoformat()},
        "devedor": {"cpf": "12345678909", "nome": "Fulano"}, "chave": KEY,
        "valor": {"original": "100.00", "multa": {"modalidade": 2, "valorPerc": "2.00"},
                  "juros": {"modalidade": 3, "valorPerc": "1.00"}}})
    assert status == 201
    wednesday = saturday + timedelta(days=4)
    status, done = psp.pay({"txid": txid, "horario": f"{wednesday.isoformat()}T01:30:00Z"})
    assert status == 200
    # 100,00 + 2 % (2,00) + 1 % a month for one day (10000 x 100 / 300000 = 3.33 -> 0,03).
    assert done["pix"]["valor"] == "102.03"
    assert done["pix"]["componentesValor"] == {"original": {"valor": "100.00"}, "multa": {"valor": "2.00"},
                                               "juros": {"valor": "0.03"}}
