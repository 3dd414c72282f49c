"""A test PSP speaking the subset of BACEN's API Pix (OpenAPI document 2.9.0, bacen/pix-api) that
Kobana Dunning uses, for its tests and the README's demo.

- OAuth 2.0 client credentials at `POST {base}/oauth/token` (HTTP Basic client authentication,
  `grant_type=client_credentials`, scopes as the document's `securitySchemes` name them); the token
  is bound to the client certificate it was issued over (RFC 8705) and expires.
- Mutual TLS on every call: the server's certificate and the client's are issued by a CA this
  script makes (trustme) and writes to `--dir`, with the client's key and secret.
- `PUT`/`PATCH`/`GET {base}/cobv/{txid}` (`CobVSolicitada`, `CobVRevisada`, `CobVGerada`;
  `CobVOperacaoInvalida` problems for what the document lists), with `pixCopiaECola` a dynamic
  BR Code (EMV, CRC16-CCITT) carrying the location.
- `PUT`/`GET`/`DELETE {base}/webhook/{chave}` for the receiver's keys (`--chave`), and the
  callback: `POST {webhookUrl}/pix` with `{"pix": [...]}`, when a Pix is received and when one
  of its devoluções reaches a final status (`DEVOLVIDO` or `NAO_REALIZADO`).
- `GET {base}/pix?inicio=&fim=` (paginated: `paginacao.paginaAtual`, `paginacao.itensPorPagina`;
  `txIdPresente`, `devolucaoPresente`) and `GET {base}/pix/{e2eid}`: each Pix with its
  `devolucoes` when it has some.
- Devoluções: `PUT {base}/pix/{e2eid}/devolucao/{id}` (`pix.write`; `DevolucaoSolicitada`:
  `valor`, `natureza` `ORIGINAL` (`RETIRADA` is refused: no Pix here is a Saque or Troco),
  `descricao`; the devoluções of a Pix, but those `NAO_REALIZADO`, add up to at most its
  `valor`; within 90 days of the Pix; the same request again answers the same devolução, the
  same id for another is `PixDevolucaoInvalida`) answers the `Devolucao` `EM_PROCESSAMENTO`,
  which stays so until the control API settles it (or `--auto-settle-refunds`: `DEVOLVIDO`
  about a second later); `GET {base}/pix/{e2eid}/devolucao/{id}` (`pix.read`).

What a cobv asks on a day (`due_on`) is a PSP's arithmetic: the day of the payment in Brasília
(America/Sao_Paulo), the due date moved to the next business day when it is not one (weekends
and national holidays, by the PSP's own calendar: it knows no organization's holidays), fine
(`multa`) and interest (`juros`, calendar days from the moved due date) by their modalidades,
each component rounded half up to the centavo on its own and reported in the Pix's
`componentesValor`.

A control API over plain HTTP on another port (`--control-port`), which no PSP has:
- `POST /control/pay` pays a txid (what its cobv asks on the Brasília day of `horario`, unless
  `valor` is given), records the Pix and POSTs the callback (unless `deliver` is false: a lost
  callback); `POST /control/redeliver` sends a Pix's callback again.
- `POST /control/refund` (`endToEndId`, `valor`, `natureza`: `MED_FRAUDE` unless given, any
  `DevolucaoNatureza`; `status`: `DEVOLVIDO` unless given; `deliver`) makes a devolução the PSP
  or the MED started; `POST /control/settle_refund` (`endToEndId`, `id`, `status` `DEVOLVIDO` or
  `NAO_REALIZADO`, `motivo`, `deliver`) settles one in processing. Either POSTs the callback
  when the devolução is final, unless `deliver` is false.
- `POST /control/down` makes the API answer 503 (`ServicoIndisponivel`) or refuse connections,
  `POST /control/up` brings it back; `GET /control/state` shows everything it holds (the
  devoluções also listed apart, each with its Pix's `endToEndId`).

    python3 tests/pix_psp/server.py --dir /tmp/psp --port 8443 --control-port 8444

prints one line `READY {json}` (ports, the base URL, the files) once it serves.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import re
import secrets
import socket
import ssl
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from datetime import date, datetime, timedelta, timezone
from decimal import ROUND_HALF_UP, Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from zoneinfo import ZoneInfo

BASE = "/api/v2"
TXID_COBV = re.compile(r"^[a-zA-Z0-9]{26,35}$")
TXID_ANY = re.compile(r"^[a-zA-Z0-9]{1,35}$")
AMOUNT = re.compile(r"^\d{1,10}\.\d{2}$")
SCOPES = {"cobv.write", "cobv.read", "webhook.write", "webhook.read", "pix.read", "pix.write"}
ISPB = "12345678"
DEVOLUCAO_ID = re.compile(r"^[a-zA-Z0-9]{1,35}$")
# `DevolucaoNatureza`: what a devolução reported may be; a request names only the first two.
NATUREZAS = ("ORIGINAL", "RETIRADA", "MED_OPERACIONAL", "MED_FRAUDE", "MED_PIX_AUTOMATICO")
FINAL = ("DEVOLVIDO", "NAO_REALIZADO")
REFUND_WINDOW = timedelta(days=90)
BRASILIA = ZoneInfo("America/Sao_Paulo")
CENT = Decimal("0.01")


def now() -> datetime:
    return datetime.now(timezone.utc)


def rfc3339(at: datetime) -> str:
    return at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


def cents(text: str) -> Decimal:
    return Decimal(text).quantize(CENT)


def money(value: Decimal) -> str:
    return str(value.quantize(CENT, rounding=ROUND_HALF_UP))


def problem(status: int, kind: str, title: str, detail: str, violations=None) -> tuple[int, dict]:
    body = {"type": f"https://pix.bcb.gov.br/api/v2/error/{kind}", "title": title, "status": status,
            "detail": detail}
    if violations:
        body["violacoes"] = [{"razao": r, "propriedade": p} for p, r in violations]
    return status, body


def invalid_refund(violations) -> tuple[int, dict]:
    """The document's `RequisicaoInvalidaDevolucaoExample1`, with what was wrong."""
    return problem(400, "PixDevolucaoInvalida", "Devolução inválida.",
                   "A presente requisição de devolução não respeita o _schema_ ou não faz sentido semanticamente.",
                   violations)


def instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def copied(value):
    """A copy of what the PSP holds, to be written out after the lock is let go."""
    return json.loads(json.dumps(value))


def emv(tag: str, value: str) -> str:
    return f"{tag}{len(value):02d}{value}"


def crc16(payload: str) -> str:
    """CRC16-CCITT (polynomial 0x1021, initial 0xFFFF), as the Manual de Padrões para Iniciação do
    Pix asks of field 63."""
    crc = 0xFFFF
    for byte in payload.encode():
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return f"{crc:04X}"


def dynamic_br_code(location: str, name: str, city: str) -> str:
    """The copy-and-paste code of a dynamic charge: the location in field 26, subfield 25."""
    account = emv("00", "br.gov.bcb.pix") + emv("25", location)
    payload = (emv("00", "01") + emv("01", "12") + emv("26", account) + emv("52", "0000")
               + emv("53", "986") + emv("58", "BR") + emv("59", name[:25]) + emv("60", city[:15])
               + emv("62", emv("05", "***")) + "6304")
    return payload + crc16(payload)


def easter(year: int) -> date:
    """Easter Sunday (Gauss's algorithm as Lichtenberg wrote it, 1997): the PSP's own calendar,
    kept apart from the money oracle's."""
    k = year // 100
    m = 15 + (3 * k + 3) // 4 - (8 * k + 13) // 25
    s = 2 - (3 * k + 3) // 4
    a = year % 19
    d = (19 * a + m) % 30
    r = (d + a // 11) // 29
    full_moon = 21 + d - r
    first_sunday = 7 - (year + year // 4 + s) % 7
    return date(year, 3, 1) + timedelta(days=full_moon + 7 - (full_moon - first_sunday) % 7 - 1)


def national_holiday(day: date) -> bool:
    """A national banking holiday: what a PSP knows of the calendar (not an organization's own
    holidays)."""
    fixed = {(1, 1), (4, 21), (5, 1), (9, 7), (10, 12), (11, 2), (11, 15), (12, 25)}
    if day.year >= 2024:
        fixed.add((11, 20))
    # Carnival Monday and Tuesday, Good Friday, Corpus Christi.
    from_easter = (day - easter(day.year)).days
    return (day.month, day.day) in fixed or from_easter in (-48, -47, -2, 60)


def business_day(day: date) -> bool:
    return day.weekday() < 5 and not national_holiday(day)


def next_business_day(day: date) -> date:
    """The day itself when it is a business day, else the first one after it."""
    while not business_day(day):
        day += timedelta(days=1)
    return day


def brasilia_day(at: datetime) -> date:
    """The day of an instant in Brasília, from the tz database (Brazil kept summer time until
    2019)."""
    return at.astimezone(BRASILIA).date()


def due_on(cobv: dict, paid: date) -> dict[str, Decimal] | None:
    """What the cobv asks on `paid` (a Brasília day), by `componentesValor`'s component: the
    original up to the due date moved to a business day, then fine and interest by their
    modalidades counted from that day, each rounded half up to the centavo on its own; None once
    it expired."""
    valor = cobv["valor"]
    original = cents(valor["original"])
    due = next_business_day(date.fromisoformat(cobv["calendario"]["dataDeVencimento"]))
    late = (paid - due).days
    if late <= 0:
        return {"original": original}
    # `validadeAposVencimento` counts calendar days from the moved due date, and a last day
    # that is not a business day moves too (the document's examples A, E and G).
    validity = int(cobv["calendario"].get("validadeAposVencimento", 30))
    if paid > next_business_day(due + timedelta(days=validity)):
        return None
    parts = {"original": original}
    fine = valor.get("multa")
    if fine:
        rate = Decimal(fine["valorPerc"])
        parts["multa"] = rate if int(fine["modalidade"]) == 1 else original * rate / 100
    interest = valor.get("juros")
    if interest:
        rate, kind = Decimal(interest["valorPerc"]), int(interest["modalidade"])
        # Multiplied before divided: Decimal keeps 28 digits, so O x q / 100 / 30 rounds a
        # third before the days multiply it, which loses a tie at half a centavo on amounts of
        # billions (the largest `valor` allows).
        parts["juros"] = {1: rate * late, 2: original * rate * late / 100,
                          3: original * rate * late / 3000, 4: original * rate * late / 36500}[kind]
    return {name: value.quantize(CENT, rounding=ROUND_HALF_UP) for name, value in parts.items()}


class Psp:
    """Everything the PSP holds, behind one lock."""

    def __init__(self, args, files: dict):
        self.lock = threading.Lock()
        self.args = args
        self.files = files
        self.tokens: dict[str, dict] = {}
        self.cobvs: dict[str, dict] = {}
        self.webhooks: dict[str, dict] = {}
        self.pix: list[dict] = []
        self.callbacks: list[dict] = []
        self.requests: list[str] = []
        self.down: str | None = None
        self.locations = 0

    def state(self) -> dict:
        with self.lock:
            devolucoes = [{"endToEndId": p["endToEndId"], **d} for p in self.pix for d in p.get("devolucoes", [])]
            return copied({"cobvs": self.cobvs, "webhooks": self.webhooks, "pix": self.pix,
                           "devolucoes": devolucoes, "callbacks": self.callbacks,
                           "tokens_issued": len(self.tokens), "requests": self.requests[-200:],
                           "down": self.down})

    # --- OAuth ---------------------------------------------------------------------------------
    def token(self, headers, form: dict, cert: str) -> tuple[int, dict]:
        auth = headers.get("Authorization", "")
        try:
            client_id, secret = base64.b64decode(auth.removeprefix("Basic ")).decode().split(":", 1)
        except (ValueError, UnicodeDecodeError):
            return 401, {"error": "invalid_client", "error_description": "HTTP Basic client authentication is required"}
        if not (secrets.compare_digest(client_id, self.args.client_id)
                and secrets.compare_digest(secret, self.args.client_secret)):
            return 401, {"error": "invalid_client", "error_description": "unknown client or wrong secret"}
        if form.get("grant_type") != "client_credentials":
            return 400, {"error": "unsupported_grant_type"}
        asked = set(form.get("scope", " ".join(sorted(SCOPES))).split())
        if not asked <= SCOPES:
            return 400, {"error": "invalid_scope", "error_description": " ".join(sorted(asked - SCOPES))}
        token = secrets.token_urlsafe(24)
        with self.lock:
            self.tokens[token] = {"cert": cert, "scopes": asked,
                                  "until": time.time() + self.args.token_lifetime}
        return 200, {"access_token": token, "token_type": "Bearer",
                     "expires_in": self.args.token_lifetime, "scope": " ".join(sorted(asked))}

    def authorized(self, headers, cert: str, scope: str) -> tuple[int, dict] | None:
        token = headers.get("Authorization", "").removeprefix("Bearer ")
        with self.lock:
            found = self.tokens.get(token)
        if not found or found["until"] < time.time():
            return problem(401, "AcessoNegado", "Não autorizado.", "Token ausente, inválido ou expirado.")
        if found["cert"] != cert:
            return problem(403, "AcessoNegado", "Acesso negado.", "O token foi emitido para outro certificado.")
        if scope not in found["scopes"]:
            return problem(403, "AcessoNegado", "Acesso negado.", f"O escopo {scope} não foi concedido.")
        return None

    # --- cobv ----------------------------------------------------------------------------------
    def check_cobv(self, body: dict, creating: bool) -> list[tuple[str, str]]:
        faults = []
        calendario = body.get("calendario")
        if creating or calendario is not None:
            try:
                due = date.fromisoformat(calendario["dataDeVencimento"])
                if due < brasilia_day(now()):
                    faults.append(("cobv.calendario.dataDeVencimento",
                                   "é anterior à data de criação da cobrança"))
            except (TypeError, KeyError, ValueError):
                faults.append(("cobv.calendario.dataDeVencimento", "não respeita o schema"))
            validity = (calendario or {}).get("validadeAposVencimento", 30)
            if not isinstance(validity, int) or validity < 0:
                faults.append(("cobv.calendario.validadeAposVencimento", "é menor do que zero"))
        devedor = body.get("devedor")
        if creating or devedor is not None:
            ok = isinstance(devedor, dict) and isinstance(devedor.get("nome"), str) and (
                re.fullmatch(r"\d{11}", str(devedor.get("cpf", ""))) is not None
                or re.fullmatch(r"[0-9A-Z]{14}", str(devedor.get("cnpj", ""))) is not None)
            if not ok or len(devedor.get("nome", "")) > 200:
                faults.append(("cobv.devedor", "não respeita o schema"))
        valor = body.get("valor")
        if creating or valor is not None:
            original = (valor or {}).get("original", "")
            if not AMOUNT.fullmatch(str(original)):
                faults.append(("cobv.valor.original", "não respeita o schema"))
            elif cents(original) == 0:
                faults.append(("cobv.valor.original", "apresenta o valor zero"))
            for name, top in (("multa", 2), ("juros", 8)):
                part = (valor or {}).get(name)
                if part is not None and not (
                        isinstance(part.get("modalidade"), int) and 1 <= part["modalidade"] <= top
                        and AMOUNT.fullmatch(str(part.get("valorPerc", "")))):
                    faults.append((f"cobv.valor.{name}", "não respeita o schema"))
            # Interest counted in business days (modalidades 5 to 8) needs a rate per business
            # day nobody defines for a month or a year; refused rather than computed as zero.
            juros = (valor or {}).get("juros")
            if isinstance(juros, dict) and juros.get("modalidade") in (5, 6, 7, 8):
                faults.append(("cobv.valor.juros.modalidade",
                               "é de dias úteis, que este PSP de teste não calcula"))
        chave = body.get("chave")
        if creating or chave is not None:
            if chave not in self.args.chave:
                faults.append(("cobv.chave", "corresponde a uma conta que não pertence a este usuário recebedor"))
        if len(body.get("solicitacaoPagador", "")) > 140:
            faults.append(("cobv.solicitacaoPagador", "não respeita o schema"))
        return faults

    def put_cobv(self, txid: str, body: dict) -> tuple[int, dict]:
        if not TXID_COBV.fullmatch(txid):
            return problem(400, "CobVOperacaoInvalida", "Cobrança inválida.", "O txid não respeita o schema.")
        faults = self.check_cobv(body, creating=True)
        if faults:
            return problem(400, "CobVOperacaoInvalida", "Cobrança inválida.",
                           "A requisição que busca alterar ou criar uma cobrança com vencimento não respeita o schema ou está semanticamente errada.",
                           faults)
        with self.lock:
            existing = self.cobvs.get(txid)
            if existing and existing["status"] != "ATIVA":
                return problem(400, "CobVOperacaoInvalida", "Cobrança inválida.",
                               "A cobrança já existe, não está ATIVA, e a presente requisição busca alterá-la.")
            if existing:
                existing.update({k: v for k, v in body.items() if k in ("calendario", "devedor", "valor", "chave", "solicitacaoPagador")})
                existing["revisao"] += 1
                return 201, self.shown(existing)
            self.locations += 1
            location = f"127.0.0.1:{self.args.port}/qr/v2/cobv/{uuid.uuid4().hex}"
            cobv = {"calendario": {"criacao": rfc3339(now()), **body["calendario"]},
                    "txid": txid, "revisao": 0,
                    "loc": {"id": self.locations, "location": location, "tipoCob": "cobv",
                            "criacao": rfc3339(now())},
                    "status": "ATIVA", "devedor": body["devedor"],
                    "recebedor": {"cnpj": "11222333000181", "nome": self.args.name,
                                  "logradouro": "Rua dos Testes, 1", "cidade": self.args.city,
                                  "uf": "SP", "cep": "01001000"},
                    "valor": body["valor"], "chave": body["chave"],
                    "pixCopiaECola": dynamic_br_code(location, self.args.name, self.args.city)}
            cobv["calendario"].setdefault("validadeAposVencimento", 30)
            if "solicitacaoPagador" in body:
                cobv["solicitacaoPagador"] = body["solicitacaoPagador"]
            self.cobvs[txid] = cobv
            return 201, self.shown(cobv)

    def patch_cobv(self, txid: str, body: dict) -> tuple[int, dict]:
        with self.lock:
            cobv = self.cobvs.get(txid)
            if cobv is None:
                return problem(404, "CobVNaoEncontrada", "Cobrança não encontrada.", "Cobrança com vencimento não encontrada para o txid informado.")
            if cobv["status"] != "ATIVA":
                return problem(400, "CobVOperacaoInvalida", "Cobrança inválida.", "A cobrança não está ATIVA, e a presente requisição busca alterá-la.")
            if "status" in body:
                if body["status"] != "REMOVIDA_PELO_USUARIO_RECEBEDOR" or len(body) > 1:
                    return problem(400, "CobVOperacaoInvalida", "Cobrança inválida.",
                                   "A cobrança está ATIVA, e a presente requisição propõe alterar seu status para REMOVIDA_PELO_USUARIO_RECEBEDOR juntamente com outras alterações.")
                cobv["status"] = "REMOVIDA_PELO_USUARIO_RECEBEDOR"
                cobv["revisao"] += 1
                return 200, self.shown(cobv)
        faults = self.check_cobv(body, creating=False)
        if faults:
            return problem(400, "CobVOperacaoInvalida", "Cobrança inválida.", "A requisição não respeita o schema.", faults)
        with self.lock:
            for key in ("calendario", "devedor", "valor", "chave", "solicitacaoPagador"):
                if key in body:
                    cobv[key] = {**cobv[key], **body[key]} if key == "calendario" else body[key]
            cobv["revisao"] += 1
            return 200, self.shown(cobv)

    def get_cobv(self, txid: str) -> tuple[int, dict]:
        with self.lock:
            cobv = self.cobvs.get(txid)
            if cobv is None:
                return problem(404, "CobVNaoEncontrada", "Cobrança não encontrada.", "Cobrança com vencimento não encontrada para o txid informado.")
            shown = self.shown(cobv)
            shown["pix"] = [p for p in self.pix if p.get("txid") == txid]
            return 200, shown

    @staticmethod
    def shown(cobv: dict) -> dict:
        return json.loads(json.dumps(cobv))

    # --- webhook and pix -----------------------------------------------------------------------
    def put_webhook(self, chave: str, body: dict) -> tuple[int, dict | None]:
        url = body.get("webhookUrl")
        if chave not in self.args.chave:
            return problem(400, "WebhookOperacaoInvalida", "Webhook inválido.", "O parâmetro chave não corresponde a uma chave DICT pertencente a este usuário recebedor.")
        if not isinstance(url, str) or not url.startswith(("https://", "http://")):
            return problem(400, "WebhookOperacaoInvalida", "Webhook inválido.", "Campo webhook.webhookUrl não respeita o schema.")
        with self.lock:
            self.webhooks[chave] = {"webhookUrl": url, "chave": chave, "criacao": rfc3339(now())}
        return 200, None

    def list_pix(self, query: dict) -> tuple[int, dict]:
        try:
            start = datetime.fromisoformat(query["inicio"].replace("Z", "+00:00"))
            end = datetime.fromisoformat(query["fim"].replace("Z", "+00:00"))
            page = int(query.get("paginacao.paginaAtual", "0"))
            per_page = int(query.get("paginacao.itensPorPagina", "100"))
        except (KeyError, ValueError):
            return problem(400, "PixConsultaInvalida", "Consulta inválida.", "Algum dos parâmetros informados para a consulta não respeita o schema.")
        if end < start or page < 0 or not 1 <= per_page <= 1000:
            return problem(400, "PixConsultaInvalida", "Consulta inválida.", "Os parâmetros da consulta não fazem sentido.")
        with self.lock:
            found = copied([p for p in self.pix
                            if start <= instant(p["horario"]) <= end
                            and (query.get("txIdPresente") != "true" or p.get("txid"))
                            and (query.get("devolucaoPresente") != "true" or p.get("devolucoes"))])
        pages = max(1, -(-len(found) // per_page))
        return 200, {"parametros": {"inicio": query["inicio"], "fim": query["fim"],
                                    "paginacao": {"paginaAtual": page, "itensPorPagina": per_page,
                                                  "quantidadeDePaginas": pages,
                                                  "quantidadeTotalDeItens": len(found)}},
                     "pix": found[page * per_page:(page + 1) * per_page]}

    def get_pix(self, e2e: str) -> tuple[int, dict]:
        with self.lock:
            item = self.find_pix(e2e)
            if item is None:
                return problem(404, "PixNaoEncontrado", "Pix não encontrado.", "Pix não encontrado para o e2eid informado.")
            return 200, copied(item)

    # --- devoluções ----------------------------------------------------------------------------
    def find_pix(self, e2e: str) -> dict | None:
        """The Pix of an endToEndId; the caller holds the lock."""
        return next((p for p in self.pix if p["endToEndId"] == e2e), None)

    @staticmethod
    def find_refund(item: dict | None, refund_id: str) -> dict | None:
        return next((d for d in (item or {}).get("devolucoes", []) if d["id"] == refund_id), None)

    @staticmethod
    def refundable(item: dict) -> Decimal:
        """What of a Pix may still be returned: its valor less every devolução not refused (one
        in processing holds its amount until it is settled)."""
        taken = sum((cents(d["valor"]) for d in item.get("devolucoes", []) if d["status"] != "NAO_REALIZADO"),
                    Decimal(0))
        return cents(item["valor"]) - taken

    @staticmethod
    def add_refund(item: dict, refund_id: str, valor: Decimal, natureza: str, descricao: str | None) -> dict:
        at = now()
        refund = {"id": refund_id,
                  "rtrId": "D" + ISPB + at.strftime("%Y%m%d%H%M") + secrets.token_hex(6)[:11],
                  "valor": money(valor), "natureza": natureza,
                  "horario": {"solicitacao": rfc3339(at)}, "status": "EM_PROCESSAMENTO"}
        if descricao is not None:
            refund["descricao"] = descricao
        item.setdefault("devolucoes", []).append(refund)
        return refund

    def put_refund(self, e2e: str, refund_id: str, body: dict) -> tuple[int, dict]:
        faults = []
        if not DEVOLUCAO_ID.fullmatch(refund_id):
            faults.append(("devolucao.id", "não respeita o schema"))
        valor = body.get("valor")
        if not isinstance(valor, str) or not AMOUNT.fullmatch(valor):
            faults.append(("devolucao.valor", "não respeita o schema"))
        elif cents(valor) == 0:
            faults.append(("devolucao.valor", "apresenta o valor zero"))
        natureza = body.get("natureza", "ORIGINAL")
        if natureza not in ("ORIGINAL", "RETIRADA"):
            faults.append(("devolucao.natureza", "não respeita o schema"))
        elif natureza == "RETIRADA":
            # RETIRADA returns the saque or troco of a Pix Saque or Troco, and this PSP
            # receives neither: every Pix here is a common one, returned as ORIGINAL.
            faults.append(("devolucao.natureza", "é RETIRADA, mas o pix não é um Pix Saque nem um Pix Troco"))
        descricao = body.get("descricao")
        if descricao is not None and (not isinstance(descricao, str) or len(descricao) > 140):
            faults.append(("devolucao.descricao", "não respeita o schema"))
        if faults:
            return invalid_refund(faults)
        amount = cents(valor)
        with self.lock:
            item = self.find_pix(e2e)
            if item is None:
                return problem(404, "PixNaoEncontrado", "Pix não encontrado.", "Pix não encontrado para o e2eid informado.")
            existing = self.find_refund(item, refund_id)
            if existing is not None:
                # A PUT repeated (a lost answer, a retry) gets the devolução it made; the same
                # id for another request is the document's "id já utilizado".
                if (existing["valor"], existing["natureza"], existing.get("descricao")) == (
                        money(amount), natureza, descricao):
                    return 201, copied(existing)
                return invalid_refund([("devolucao.id", "já foi utilizado por outra requisição de devolução para este e2eid")])
            if now() - instant(item["horario"]) > REFUND_WINDOW:
                return invalid_refund([("devolucao", "viola a janela de 90 dias desde a liquidação do pix")])
            if amount > self.refundable(item):
                return invalid_refund([("devolucao.valor", "em conjunto com as devoluções prévias, excede o valor do pix")])
            shown = copied(self.add_refund(item, refund_id, amount, natureza, descricao))
        if self.args.auto_settle_refunds:
            timer = threading.Timer(1.0, self.settle_refund, (e2e, refund_id, "DEVOLVIDO"))
            timer.daemon = True
            timer.start()
        return 201, shown

    def get_refund(self, e2e: str, refund_id: str) -> tuple[int, dict]:
        with self.lock:
            item = self.find_pix(e2e)
            if item is None:
                return problem(404, "PixNaoEncontrado", "Pix não encontrado.", "Pix não encontrado para o e2eid informado.")
            refund = self.find_refund(item, refund_id)
            if refund is None:
                return problem(404, "PixDevolucaoNaoEncontrada", "Devolução não encontrada.",
                               "Devolução não encontrada para o e2eid e o id informados.")
            return 200, copied(refund)

    def settle_refund(self, e2e: str, refund_id: str, status: str, motivo: str | None = None,
                      deliver: bool = True) -> tuple[int, dict]:
        """A devolução in processing reaches a final status, and the callback says so."""
        if status not in FINAL:
            return 400, {"error": "status is DEVOLVIDO or NAO_REALIZADO"}
        if motivo is not None and (not isinstance(motivo, str) or len(motivo) > 140):
            return 400, {"error": "motivo is a text of at most 140 characters"}
        with self.lock:
            item = self.find_pix(e2e)
            refund = self.find_refund(item, refund_id)
            if refund is None:
                return 404, {"error": "no such devolução"}
            if refund["status"] != "EM_PROCESSAMENTO":
                return 409, {"error": f"the devolução {refund_id} is already {refund['status']}"}
            refund["status"] = status
            if status == "DEVOLVIDO":
                refund["horario"]["liquidacao"] = rfc3339(now())
            if motivo is not None:
                refund["motivo"] = motivo
            shown = copied(refund)
        return 200, {"devolucao": shown, "callback": self.deliver(item, refund_id) if deliver else None}

    # --- control -------------------------------------------------------------------------------
    def refund(self, body: dict) -> tuple[int, dict]:
        """A devolução the PSP started itself (MED, by default for fraud), with an id it makes."""
        e2e, valor = body.get("endToEndId"), body.get("valor")
        natureza, status = body.get("natureza", "MED_FRAUDE"), body.get("status", "DEVOLVIDO")
        if not isinstance(valor, str) or not AMOUNT.fullmatch(valor) or cents(valor) == 0:
            return 400, {"error": "valor is an amount above zero such as 10.00"}
        if natureza not in NATUREZAS:
            return 400, {"error": "natureza is one of " + ", ".join(NATUREZAS)}
        if status not in ("EM_PROCESSAMENTO",) + FINAL:
            return 400, {"error": "status is EM_PROCESSAMENTO, DEVOLVIDO or NAO_REALIZADO"}
        descricao = body.get("descricao")
        if descricao is not None and (not isinstance(descricao, str) or len(descricao) > 140):
            return 400, {"error": "descricao is a text of at most 140 characters"}
        with self.lock:
            item = self.find_pix(str(e2e))
            if item is None:
                return 404, {"error": "no such Pix"}
            if cents(valor) > self.refundable(item):
                return 409, {"error": f"only {money(self.refundable(item))} of this Pix is left to return"}
            refund = self.add_refund(item, secrets.token_hex(10), cents(valor), natureza, descricao)
            refund_id, shown = refund["id"], copied(refund)
        if status == "EM_PROCESSAMENTO":
            return 200, {"devolucao": shown, "callback": None}
        return self.settle_refund(item["endToEndId"], refund_id, status, body.get("motivo"), body.get("deliver", True))

    def pay(self, body: dict) -> tuple[int, dict]:
        txid = body.get("txid")
        if txid is not None and not TXID_ANY.fullmatch(str(txid)):
            return 400, {"error": "txid must be 1 to 35 letters and digits"}
        try:
            paid_at = datetime.fromisoformat(body["horario"].replace("Z", "+00:00")) if body.get("horario") else now()
        except (AttributeError, ValueError):
            return 400, {"error": "horario must be an RFC 3339 instant"}
        if paid_at.tzinfo is None:
            return 400, {"error": "horario needs its offset (Z or ±hh:mm)"}
        with self.lock:
            cobv = self.cobvs.get(txid) if txid else None
            if cobv is not None and cobv["status"] != "ATIVA":
                return 409, {"error": f"the cobv {txid} is {cobv['status']}: it takes no payment"}
            parts = due_on(cobv, brasilia_day(paid_at)) if cobv is not None else None
            if body.get("valor"):
                amount = cents(body["valor"])
            elif cobv is not None:
                if parts is None:
                    return 409, {"error": f"the cobv {txid} expired"}
                amount = sum(parts.values())
            else:
                return 400, {"error": "give valor: no cobv has this txid"}
            e2e = body.get("endToEndId") or (
                "E" + ISPB + paid_at.astimezone(timezone.utc).strftime("%Y%m%d%H%M") + secrets.token_hex(6)[:11])
            item = {"endToEndId": e2e, "valor": money(amount), "horario": rfc3339(paid_at)}
            if txid:
                item["txid"] = txid
            if body.get("infoPagador"):
                item["infoPagador"] = body["infoPagador"]
            if cobv is not None:
                # The components add up to the Pix's valor (the document's rule); a `valor` the
                # control call imposes that is not the day's amount has no fine or interest to
                # explain it, so it is all original.
                if parts is None or sum(parts.values()) != amount:
                    parts = {"original": amount}
                item["componentesValor"] = {name: {"valor": money(value)} for name, value in parts.items()}
                cobv["status"] = "CONCLUIDA"
            item["chave"] = (cobv or {}).get("chave", self.args.chave[0])
            self.pix.append(item)
            shown = copied(item)
        delivered = self.deliver(item) if body.get("deliver", True) else None
        return 200, {"pix": shown, "callback": delivered}

    def deliver(self, item: dict, devolucao: str | None = None) -> dict:
        """The callback of a Pix (received, or one of its devoluções final: `devolucao`), with the
        Pix as it is now, its devoluções included."""
        with self.lock:
            hook = self.webhooks.get(item["chave"])
            data = json.dumps({"pix": [item]}).encode()
        if hook is None:
            return {"error": "no webhook for the key"}
        url = hook["webhookUrl"].rstrip("/") + "/pix"
        request = urllib.request.Request(url, data=data, method="POST")
        request.add_header("Content-Type", "application/json")
        for header in self.args.callback_header:
            name, _, value = header.partition(":")
            request.add_header(name.strip(), value.strip())
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                outcome = {"status": answer.status, "body": answer.read().decode(errors="replace")}
        except urllib.error.HTTPError as e:
            outcome = {"status": e.code, "body": e.read().decode(errors="replace")}
        except OSError as e:
            outcome = {"error": str(e)}
        with self.lock:
            self.callbacks.append({"endToEndId": item["endToEndId"],
                                   **({"devolucao": devolucao} if devolucao else {}), **outcome})
        return outcome


def make_handler(psp: Psp, api: bool):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):
            if psp.args.verbose:
                sys.stderr.write("psp: " + fmt % args + "\n")

        def answer(self, status: int, body) -> None:
            data = b"" if body is None else json.dumps(body, ensure_ascii=False).encode()
            self.send_response(status)
            kind = "application/problem+json" if status >= 400 and isinstance(body, dict) and "type" in body else "application/json"
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def body(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            return raw

        def json_body(self) -> dict | None:
            try:
                value = json.loads(self.body() or b"{}")
            except ValueError:
                return None
            return value if isinstance(value, dict) else None

        def cert(self) -> str:
            der = self.connection.getpeercert(binary_form=True) or b""
            return hashlib.sha256(der).hexdigest()

        def route(self, method: str) -> None:
            url = urllib.parse.urlsplit(self.path)
            query = dict(urllib.parse.parse_qsl(url.query))
            path = urllib.parse.unquote(url.path)
            with psp.lock:
                psp.requests.append(f"{method} {path}")
            if not api:
                return self.control(method, path)
            if psp.down == "503":
                self.body()
                return self.answer(*problem(503, "ServicoIndisponivel", "Serviço indisponível.", "Serviço não está disponível no momento."))
            cert = self.cert()
            if method == "POST" and path in ("/oauth/token", BASE + "/oauth/token"):
                form = dict(urllib.parse.parse_qsl(self.body().decode()))
                return self.answer(*psp.token(self.headers, form, cert))
            if not path.startswith(BASE + "/"):
                self.body()
                return self.answer(*problem(404, "NaoEncontrado", "Não encontrado.", path))
            rest = path[len(BASE):]
            parts = rest.strip("/").split("/")
            scope = {("PUT", "cobv"): "cobv.write", ("PATCH", "cobv"): "cobv.write",
                     ("GET", "cobv"): "cobv.read", ("PUT", "webhook"): "webhook.write",
                     ("DELETE", "webhook"): "webhook.write", ("GET", "webhook"): "webhook.read",
                     ("GET", "pix"): "pix.read", ("PUT", "pix"): "pix.write"}.get((method, parts[0]))
            refused = psp.authorized(self.headers, cert, scope) if scope else problem(
                404, "NaoEncontrado", "Não encontrado.", path)
            if refused:
                self.body()
                return self.answer(*refused)
            if parts[0] == "cobv" and len(parts) == 2:
                if method == "GET":
                    return self.answer(*psp.get_cobv(parts[1]))
                body = self.json_body()
                if body is None:
                    return self.answer(*problem(400, "RequisicaoInvalida", "Requisição inválida.", "O corpo não é um objeto JSON."))
                return self.answer(*(psp.put_cobv if method == "PUT" else psp.patch_cobv)(parts[1], body))
            if parts[0] == "webhook" and len(parts) == 2:
                if method == "PUT":
                    return self.answer(*psp.put_webhook(parts[1], self.json_body() or {}))
                with psp.lock:
                    hook = psp.webhooks.get(parts[1])
                    if method == "DELETE" and hook:
                        del psp.webhooks[parts[1]]
                        return self.answer(204, None)
                if hook is None:
                    return self.answer(*problem(404, "WebhookNaoEncontrado", "Webhook não encontrado.", "O webhook não encontra-se estabelecido."))
                return self.answer(200, hook)
            if parts == ["pix"] and method == "GET":
                return self.answer(*psp.list_pix(query))
            if parts[0] == "pix" and len(parts) == 2 and method == "GET":
                return self.answer(*psp.get_pix(parts[1]))
            if parts[0] == "pix" and len(parts) == 4 and parts[2] == "devolucao":
                if method == "GET":
                    return self.answer(*psp.get_refund(parts[1], parts[3]))
                body = self.json_body()
                if body is None:
                    return self.answer(*invalid_refund([("devolucao", "o corpo não é um objeto JSON")]))
                return self.answer(*psp.put_refund(parts[1], parts[3], body))
            self.body()
            return self.answer(*problem(404, "NaoEncontrado", "Não encontrado.", path))

        def control(self, method: str, path: str) -> None:
            body = self.json_body() if method == "POST" else {}
            if body is None:
                return self.answer(400, {"error": "the body must be a JSON object"})
            if method == "GET" and path == "/control/state":
                return self.answer(200, psp.state())
            if method == "POST" and path == "/control/pay":
                return self.answer(*psp.pay(body))
            if method == "POST" and path == "/control/refund":
                return self.answer(*psp.refund(body))
            if method == "POST" and path == "/control/settle_refund":
                return self.answer(*psp.settle_refund(str(body.get("endToEndId")), str(body.get("id")),
                                                      body.get("status"), body.get("motivo"),
                                                      body.get("deliver", True)))
            if method == "POST" and path == "/control/redeliver":
                with psp.lock:
                    item = next((p for p in psp.pix if p["endToEndId"] == body.get("endToEndId")), None)
                if item is None:
                    return self.answer(404, {"error": "no such Pix"})
                return self.answer(200, {"callback": psp.deliver(item)})
            if method == "POST" and path == "/control/down":
                mode = body.get("mode", "503")
                if mode not in ("503", "refuse"):
                    return self.answer(400, {"error": "mode is 503 or refuse"})
                psp.down = mode
                if mode == "refuse":
                    servers["api"].stop()
                return self.answer(200, {"down": mode})
            if method == "POST" and path == "/control/up":
                if psp.down == "refuse":
                    servers["api"].start()
                psp.down = None
                return self.answer(200, {"down": None})
            return self.answer(404, {"error": f"no control {method} {path}"})

        def do_GET(self):
            self.route("GET")

        def do_POST(self):
            self.route("POST")

        def do_PUT(self):
            self.route("PUT")

        def do_PATCH(self):
            self.route("PATCH")

        def do_DELETE(self):
            self.route("DELETE")

    return Handler


class Listener:
    """One HTTP(S) server on a fixed port that can stop (connections refused, and the open ones
    closed, so that no client's pooled connection keeps it alive) and start again."""

    def __init__(self, port: int, handler, context: ssl.SSLContext | None):
        self.port, self.handler, self.context, self.server = port, handler, context, None
        self.open: set = set()
        self.lock = threading.Lock()

    def start(self) -> None:
        listener = self

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def process_request(self, request, client_address):
                with listener.lock:
                    listener.open.add(request)
                super().process_request(request, client_address)

            def shutdown_request(self, request):
                with listener.lock:
                    listener.open.discard(request)
                super().shutdown_request(request)

        server = Server(("127.0.0.1", self.port), self.handler)
        if self.context is not None:
            server.socket = self.context.wrap_socket(server.socket, server_side=True)
        self.server = server
        threading.Thread(target=server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None
        with self.lock:
            for connection in list(self.open):
                try:
                    connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            self.open.clear()


servers: dict[str, Listener] = {}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", required=True, type=Path,
                        help="where the CA, the client certificate and key and the client secret are written")
    parser.add_argument("--port", type=int, default=0, help="the API's port (mTLS); 0: a free one")
    parser.add_argument("--control-port", type=int, default=0, help="the control API's port (plain HTTP); 0: a free one")
    parser.add_argument("--client-id", default="kobana-dunning")
    parser.add_argument("--client-secret", default=None, help="default: made now, written to DIR/client-secret.txt")
    parser.add_argument("--chave", action="append", default=None,
                        help="a Pix key of the receiver (repeat); default: cobranca@paodourado.com.br")
    parser.add_argument("--name", default="PADARIA PAO DOURADO", help="the receiver's name in BR Codes")
    parser.add_argument("--city", default="SAO PAULO")
    parser.add_argument("--token-lifetime", type=int, default=3600, help="seconds a token lives")
    parser.add_argument("--callback-header", action="append", default=[],
                        help="NAME: VALUE added to every callback (stands for the edge proxy that verified this PSP's client certificate)")
    parser.add_argument("--auto-settle-refunds", action="store_true",
                        help="a devolução asked through the API becomes DEVOLVIDO after about a second, with its callback")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    import trustme

    args.chave = args.chave or ["cobranca@paodourado.com.br"]
    args.client_secret = args.client_secret or secrets.token_urlsafe(24)
    args.port = args.port or free_port()
    args.control_port = args.control_port or free_port()
    args.dir.mkdir(parents=True, exist_ok=True)
    ca = trustme.CA(organization_name="Test PSP CA")
    files = {"ca": args.dir / "ca.pem", "certificate": args.dir / "client.pem",
             "private_key": args.dir / "client-key.pem", "client_secret": args.dir / "client-secret.txt"}
    ca.cert_pem.write_to_path(str(files["ca"]))
    client = ca.issue_cert("kobana-dunning.client.test")
    client.cert_chain_pems[0].write_to_path(str(files["certificate"]))
    client.private_key_pem.write_to_path(str(files["private_key"]))
    files["client_secret"].write_text(args.client_secret + "\n")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    ca.configure_trust(context)
    context.verify_mode = ssl.CERT_REQUIRED
    psp = Psp(args, files)
    servers["api"] = Listener(args.port, make_handler(psp, api=True), context)
    servers["control"] = Listener(args.control_port, make_handler(psp, api=False), None)
    servers["api"].start()
    servers["control"].start()
    ready = {"port": args.port, "control_port": args.control_port,
             "api_url": f"https://127.0.0.1:{args.port}{BASE}",
             "control_url": f"http://127.0.0.1:{args.control_port}",
             "client_id": args.client_id, "chave": args.chave,
             "files": {k: str(v) for k, v in files.items()}}
    print("READY " + json.dumps(ready), flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
