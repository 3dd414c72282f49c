"""A test PSP speaking the subset of BACEN's API Pix (OpenAPI document 2.9.0, bacen/pix-api) that
Kobana Dunning uses, for its tests and the PSP demo of docs/money-and-pix.md.

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

Pix Automático (the document's `Rec`, `SolicRec`, `CobR`, `PayloadLocationRec`, `WebhookRec` and
`WebhookCobR` tags; scopes `rec.*`, `solicrec.*`, `cobr.*`, `payloadlocationrec.*`, `webhookrec.*`,
`webhookcobr.*`, each path checking the one its `security` names). Every request body is checked
against the document's schema (`automatico_schemas.py`, transcribed from 2.9.0, with where the
document cannot be read literally): a violation is a 400 `...OperacaoInvalida` problem with
`violacoes`; every body the PSP answers or calls back with is checked too, and one that breaks its
schema is a 500 (a bug of this stand-in). Every 400 of these paths is kept in `refused`.
- `POST {base}/locrec` (`{"tipo": "rec"}`) answers a location `127.0.0.1:<port>/qr/v2/rec/<32 hex>`
  with an integer `id`; `GET {base}/locrec/{id}` (with `idRec` once a recurrence has it),
  `GET {base}/locrec?inicio=&fim=`, `DELETE {base}/locrec/{id}/idRec` (unlinks both ways).
- `POST {base}/rec` (`RecSolicitada`) answers `RecGerada` `CRIADA`: `idRec` `R` + `R`/`N` (retries
  allowed or not) + ISPB + the Brasília day + 11 random characters, `ativacao.tipoJornada`
  `AGUARDANDO_DEFINICAO`, `recebedor` from `--recebedor-cnpj`/`--recebedor-nome`, `loc` linked.
  Refused: `dataInicial` before today (Brasília), `dataFinal` before `dataInicial`, both
  `valorRec` and `valorMinimoRecebedor`, an unknown `loc` or one another recurrence has.
  `GET {base}/rec/{idRec}` answers `RecCompleta`, with `dadosQR` while it is `CRIADA` and has a
  location: `JORNADA_2` (the recurrence's QR) or, with `?txid=` of a cobv, `JORNADA_4` (the cobv's
  BR Code with the recurrence in field 80). `PATCH {base}/rec/{idRec}` (`RecRevisada`): `status`
  `CANCELADA` (by `USUARIO_RECEBEDOR`, `SLCR`; its open cobr canceled with it; refused once
  `REJEITADA`, `EXPIRADA` or `CANCELADA`), or `loc`, `calendario.dataInicial`,
  `vinculo.devedor.nome`, `ativacao` while `CRIADA`. `GET {base}/rec?inicio=&fim=` (`status`,
  `cpf`, `cnpj`, paginated).
- `PUT {base}/cobr/{txid}` or `POST {base}/cobr` (`CobRSolicitada`) answers `CobRGerada` `ATIVA`
  with its first attempt (`AGND`, `AGENDADA`, `dataLiquidacao` the due date moved to the next
  business day when `ajusteDiaUtil`). Refused: a recurrence unknown or not `APROVADA`; a due date
  not 2 to 10 calendar days after today in Brasília; `valor.original` other than `valorRec`, or
  below `valorMinimoRecebedor`; a second open cobr of the recurrence in the same cycle of its
  periodicity; a txid in use (the same request again answers the same cobr). `GET`
  (`CobRCompleta`, with `pix` once paid), `PATCH` (`status` `CANCELADA`, before the first
  attempt's day), `GET {base}/cobr?inicio=&fim=` (`idRec`, `status`, paginated).
  `POST {base}/cobr/{txid}/retentativa/{data}`: policy `PERMITE_3R_7D`, the cobr `ATIVA`, its
  last attempt `REJEITADA`, `data` after today and at most 7 days after the due date, 3 retries
  at most: a new attempt `RIFL` `AGENDADA` (else `CobROperacaoInvalida`, the reason in `detail`).
- `POST {base}/solicrec` (`SolicRecSolicitada`; `CRIADA` then `ENVIADA` at once: there is no SPI
  here), `GET` and `PATCH {base}/solicrec/{idSolicRec}` (`CANCELADA` while open).
- `PUT`/`GET`/`DELETE {base}/webhookrec` and `{base}/webhookcobr`; the callbacks
  `POST {webhookUrl}/rec` with `{"recs": [RecNotification]}` on every status change of a
  recurrence, and `POST {webhookUrl}/cobr` with `{"cobsr": [CobRNotification]}` on every change of
  a cobr or of its attempts (sent after the API's answer, by the same client as `/pix`'s).
- `--no-automatic-pix`: a PSP without it, whose paths all answer 404 `NaoEncontrado` and whose
  tokens leave its scopes out; everything else as before.

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
- Pix Automático, the payer and the SPI; each sends its callbacks unless `deliver` is false:
  `POST /control/rec/approve` (`idRec`, `jornada` `JORNADA_2` by default or `JORNADA_4` with the
  `txid` of a cobv, which is paid as `/control/pay` pays it, its `/pix` callback included;
  `ispbPagador`) makes the recurrence `APROVADA` with its `pagador`; `POST /control/rec/reject`
  (`codigo` `AP13` or `AP14`) `REJEITADA`; `POST /control/rec/expire` `EXPIRADA`;
  `POST /control/rec/cancel` (`solicitante` `USUARIO_PAGADOR` or `PSP_PAGADOR`, `codigo` `ACCL`
  unless given) `CANCELADA` with its open cobr. `POST /control/cobr/pay` (`txid`, `horario`)
  settles the scheduled attempt: `PAGA`, the cobr `CONCLUIDA`, a Pix with its txid recorded (in
  the cobr's `pix` and in `GET /pix`), called back to `/cobr` only. `POST /control/cobr/fail`
  (`txid`, `codigo` of `CobRTentativas.rejeicao`, `AM02` unless given) rejects the attempt, and
  the cobr too unless a retry is still possible. `POST /control/redeliver_rec` (`idRec`) and
  `POST /control/redeliver_cobr` (`txid`) send a callback again. `/control/state` adds `recs`,
  `cobrs`, `locrecs`, `solicrecs`, `webhookrec`, `webhookcobr`, `refused` and the `rules`.
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
import string
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

# The schemas sit beside this script, which also runs loaded as a module by path (tests).
sys.path.insert(0, str(Path(__file__).resolve().parent))
import automatico_schemas as schemas  # noqa: E402

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


def payment_instant(text) -> tuple[datetime | None, str | None]:
    """When a control call says a payment happened (`horario`, RFC 3339; now when absent), or
    why that cannot be read."""
    try:
        paid_at = datetime.fromisoformat(text.replace("Z", "+00:00")) if text else now()
    except (AttributeError, ValueError):
        return None, "horario must be an RFC 3339 instant"
    if paid_at.tzinfo is None:
        return None, "horario needs its offset (Z or ±hh:mm)"
    return paid_at, None


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
        self.automatico = Automatico(self)

    def state(self) -> dict:
        with self.lock:
            devolucoes = [{"endToEndId": p["endToEndId"], **d} for p in self.pix for d in p.get("devolucoes", [])]
            return copied({"cobvs": self.cobvs, "webhooks": self.webhooks, "pix": self.pix,
                           "devolucoes": devolucoes, "callbacks": self.callbacks,
                           "tokens_issued": len(self.tokens), "requests": self.requests[-200:],
                           "down": self.down, **self.automatico.state()})

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
        offered = SCOPES if self.without_automatic() else SCOPES | AUTOMATIC_SCOPES
        asked = set(form.get("scope", " ".join(sorted(offered))).split())
        if not asked <= SCOPES | AUTOMATIC_SCOPES:
            return 400, {"error": "invalid_scope",
                         "error_description": " ".join(sorted(asked - SCOPES - AUTOMATIC_SCOPES))}
        # A PSP without Pix Automático grants the rest of what was asked and leaves its scopes
        # out (RFC 6749 section 3.3: the token's `scope` says what was granted), so a client
        # asking for everything keeps working as before; its paths answer 404.
        asked &= offered
        token = secrets.token_urlsafe(24)
        with self.lock:
            self.tokens[token] = {"cert": cert, "scopes": asked,
                                  "until": time.time() + self.args.token_lifetime}
        return 200, {"access_token": token, "token_type": "Bearer",
                     "expires_in": self.args.token_lifetime, "scope": " ".join(sorted(asked))}

    def without_automatic(self) -> bool:
        return getattr(self.args, "no_automatic_pix", False)

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
        paid_at, error = payment_instant(body.get("horario"))
        if error:
            return 400, {"error": error}
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
        outcome = self.post_callback(hook["webhookUrl"].rstrip("/") + "/pix", data)
        with self.lock:
            self.callbacks.append({"endToEndId": item["endToEndId"],
                                   **({"devolucao": devolucao} if devolucao else {}), **outcome})
        return outcome

    def post_callback(self, url: str, data: bytes) -> dict:
        """POSTs a callback as this PSP sends every one (the headers `--callback-header` adds):
        the receiver's answer, or the error that kept it from answering."""
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
        return outcome


# --- Pix Automático ------------------------------------------------------------------------------
AUTOMATIC_SCOPES = {"rec.write", "rec.read", "solicrec.write", "solicrec.read", "cobr.write", "cobr.read",
                    "payloadlocationrec.write", "payloadlocationrec.read", "webhookrec.write",
                    "webhookrec.read", "webhookcobr.write", "webhookcobr.read"}
# Each path's scope as the document's `security` names it, by method and first segment.
AUTOMATIC_PATHS = {
    ("POST", "locrec"): "payloadlocationrec.write", ("DELETE", "locrec"): "payloadlocationrec.write",
    ("GET", "locrec"): "payloadlocationrec.read",
    ("POST", "rec"): "rec.write", ("PATCH", "rec"): "rec.write", ("GET", "rec"): "rec.read",
    ("POST", "solicrec"): "solicrec.write", ("PATCH", "solicrec"): "solicrec.write",
    ("GET", "solicrec"): "solicrec.read",
    ("PUT", "cobr"): "cobr.write", ("POST", "cobr"): "cobr.write", ("PATCH", "cobr"): "cobr.write",
    ("GET", "cobr"): "cobr.read",
    ("PUT", "webhookrec"): "webhookrec.write", ("DELETE", "webhookrec"): "webhookrec.write",
    ("GET", "webhookrec"): "webhookrec.read",
    ("PUT", "webhookcobr"): "webhookcobr.write", ("DELETE", "webhookcobr"): "webhookcobr.write",
    ("GET", "webhookcobr"): "webhookcobr.read",
}
AUTOMATIC_RESOURCES = {segment for _, segment in AUTOMATIC_PATHS}
# The problem each resource refuses a request with (the document's `...OperacaoInvalida`).
REFUSALS = {
    "locrec": ("PayloadLocationRecOperacaoInvalida", "A location de recorrência não respeita o schema."),
    "rec": ("RecOperacaoInvalida", "A recorrência não respeita o schema ou está semanticamente errada."),
    "solicrec": ("SolicRecOperacaoInvalida",
                 "A solicitação de confirmação de recorrência não respeita o schema ou está semanticamente errada."),
    "cobr": ("CobROperacaoInvalida", "A cobrança recorrente não respeita o schema ou está semanticamente errada."),
    "webhookrec": ("WebhookRecOperacaoInvalida", "A presente requisição busca criar um webhook sem respeitar o schema."),
    "webhookcobr": ("WebhookCobROperacaoInvalida", "A presente requisição busca criar um webhook sem respeitar o schema."),
}
REC_FINAL = ("REJEITADA", "EXPIRADA", "CANCELADA")
COBR_FINAL = ("CONCLUIDA", "REJEITADA", "CANCELADA", "EXPIRADA")
ALPHANUMERIC = string.ascii_letters + string.digits
# The Pix Automático rule the receiver keeps: each charge reaches the PSP 2 to 10 calendar days
# before its due date (BACEN's regulation of Pix Automático; the payer's PSP needs the lead
# time to tell the payer and schedule the debit).
LEAD_DAYS = (2, 10)
# `PERMITE_3R_7D`: after a failed debit, at most 3 retries within 7 days of the due date.
RETRIES, RETRY_WINDOW = 3, timedelta(days=7)
# The attempt rejections that end the cobr at once, as `CobRTentativas.rejeicao.codigo` lists them.
FINAL_REJECTIONS = {"AC05", "AM09", "DENC", "DS27", "DTED", "MIDI", "MSUC", "NITX", "RC09"}
# A failed debit's code unless the control call names one. The document's list has no AM04 (ISO
# 20022 "InsufficientFunds"); AM02 ("NotAllowedAmount": the debit was not allowed for that
# amount) is the nearest to a payer without the money, and it is not among the codes that end
# the cobr, so retries apply as they would to insufficient funds.
DEFAULT_FAILURE = "AM02"
RULES = {
    "cobr_lead_days": "calendario.dataDeVencimento de 2 a 10 dias corridos após hoje (Brasília)",
    "cobr_valor": "valor.original igual a valorRec, ou ao menos valorMinimoRecebedor",
    "cobr_one_per_cycle": "uma cobr não REJEITADA nem CANCELADA por recorrência e ciclo da periodicidade",
    "cobr_needs": "a recorrência APROVADA",
    "cobr_settlement": "dataLiquidacao: o vencimento, no próximo dia útil quando ajusteDiaUtil",
    "retentativa": "PERMITE_3R_7D, última tentativa REJEITADA, cobr ATIVA, data futura até 7 dias após o vencimento, até 3",
    "final_rejections": sorted(FINAL_REJECTIONS),
    "rec_cancel_ends_open_cobr": "cancelar uma recorrência cancela suas cobr CRIADA ou ATIVA",
    "cobr_cancel_before": "cancelar uma cobr só antes da data da sua primeira tentativa",
}


def refusal(resource: str, violations, detail: str | None = None) -> tuple[int, dict]:
    kind, default = REFUSALS[resource]
    return problem(400, kind, "Operação inválida.", detail or default, violations)


def body_refusal(resource: str, schema: str, body: dict) -> tuple[int, dict] | None:
    """The refusal of a request body its schema does not allow, naming every violation."""
    faults = schemas.violations(schema, body, resource)
    return refusal(resource, faults) if faults else None


def not_found(kind: str, title: str, detail: str) -> tuple[int, dict]:
    return problem(404, kind, title, detail)


def answered(schema: str, status: int, body: dict) -> tuple[int, dict]:
    """A copy of what the PSP answers, once its document allows it (else `Drift`)."""
    shown = copied(body)
    schemas.conform(schema, shown)
    return status, shown


def generated_id(prefix: str) -> str:
    """`R`/`SC` ids: prefix, ISPB, the Brasília day, 11 random letters and digits (`RecId`,
    `SolicRecId`)."""
    return (prefix + ISPB + brasilia_day(now()).strftime("%Y%m%d")
            + "".join(secrets.choice(ALPHANUMERIC) for _ in range(11)))


def end_to_end_id(at: datetime) -> str:
    return "E" + ISPB + at.astimezone(timezone.utc).strftime("%Y%m%d%H%M") + secrets.token_hex(6)[:11]


def moved(entity: dict, status: str) -> None:
    """A status change, recorded in the entity's `atualizacao` history."""
    entity["status"] = status
    entity.setdefault("atualizacao", []).append({"status": status, "data": rfc3339(now())})


def cycle(day: date, periodicidade: str):
    """The document's "mesmo ciclo", read as the calendar week, month, quarter, half or year of
    the recurrence's periodicity."""
    return {"SEMANAL": day.isocalendar()[:2], "MENSAL": (day.year, day.month),
            "TRIMESTRAL": (day.year, (day.month - 1) // 3), "SEMESTRAL": (day.year, (day.month - 1) // 6),
            "ANUAL": day.year}[periodicidade]


def person_of(devedor: dict) -> dict:
    return {"cpf": devedor["cpf"]} if "cpf" in devedor else {"cnpj": devedor["cnpj"]}


def rec_date_faults(calendario: dict) -> list[tuple[str, str]]:
    faults = []
    start = date.fromisoformat(calendario["dataInicial"])
    if start < brasilia_day(now()):
        faults.append(("rec.calendario.dataInicial",
                       "O campo rec.calendario.dataInicial é anterior à data de criação da recorrência."))
    if calendario.get("dataFinal") and date.fromisoformat(calendario["dataFinal"]) < start:
        faults.append(("rec.calendario.dataFinal",
                       "O campo rec.calendario.dataFinal é anterior ao campo rec.calendario.dataInicial."))
    return faults


def amount_faults(valores: dict, prefix: str, names: tuple[str, ...]) -> list[tuple[str, str]]:
    """Amounts whole (the document's pattern is unanchored) and above zero."""
    faults = []
    for name, value in valores.items():
        if name not in names:
            continue
        if not AMOUNT.fullmatch(value):
            faults.append((f"{prefix}.{name}", f"O campo {prefix}.{name} não respeita o schema."))
        elif cents(value) == 0:
            faults.append((f"{prefix}.{name}", f"O campo {prefix}.{name} apresenta o valor zero."))
    return faults


def rec_faults(body: dict) -> list[tuple[str, str]]:
    """What `POST /rec` refuses beyond the schema, as the document's violations say it."""
    valor = body.get("valor", {})
    faults = rec_date_faults(body["calendario"]) + amount_faults(valor, "rec.valor", ("valorRec", "valorMinimoRecebedor"))
    if "valorRec" in valor and "valorMinimoRecebedor" in valor:
        faults.append(("rec.valor", "Ambos os campos rec.valor.valorRec e rec.valor.valorMinimoRecebedor estão preenchidos."))
    return faults


def recurrence_template(location: str) -> str:
    """Field 80 of a Pix Automático QR: the GUI and, in subfield 25, the recurrence's location.
    This is the stand-in's reading of the Manual de Padrões para Iniciação do Pix on Pix
    Automático's QR codes, and the layout of the document's own `dadosQR` examples
    (`recResponse3`, `recResponse7`)."""
    return emv("80", emv("00", "br.gov.bcb.pix") + emv("25", location))


def with_recurrence(br_code: str, location: str) -> str:
    """A charge's dynamic BR Code with a recurrence added (field 80, CRC recomputed): the QR of
    journeys 3 and 4, which pays the charge and authorizes the recurrence together."""
    payload = br_code[:-8] + recurrence_template(location) + "6304"
    return payload + crc16(payload)


def recurrence_br_code(location: str, name: str, city: str) -> str:
    """Journey 2's QR, the recurrence alone: field 26 with the GUI and no charge's location."""
    payload = (emv("00", "01") + emv("26", emv("00", "br.gov.bcb.pix")) + emv("52", "0000")
               + emv("53", "986") + emv("58", "BR") + emv("59", name[:25]) + emv("60", city[:15])
               + emv("62", emv("05", "***")) + recurrence_template(location) + "6304")
    return payload + crc16(payload)


def listing_window(query: dict) -> tuple[datetime, datetime, int, int] | None:
    """`inicio`, `fim` and the page asked of a listing; None when they make no sense."""
    try:
        start, end = instant(query["inicio"]), instant(query["fim"])
        page = int(query.get("paginacao.paginaAtual", "0"))
        per_page = int(query.get("paginacao.itensPorPagina", "100"))
    except (KeyError, ValueError):
        return None
    if end < start or page < 0 or not 1 <= per_page <= 1000:
        return None
    return start, end, page, per_page


def paged(query: dict, window, found: list) -> tuple[dict, list]:
    start, end, page, per_page = window
    parameters = {"inicio": query["inicio"], "fim": query["fim"],
                  "paginacao": {"paginaAtual": page, "itensPorPagina": per_page,
                                "quantidadeDePaginas": max(1, -(-len(found) // per_page)),
                                "quantidadeTotalDeItens": len(found)}}
    return parameters, found[page * per_page:(page + 1) * per_page]


class Automatico:
    """Pix Automático at the receiver's PSP: the locations of recurrences, the recurrences, the
    requests sent to payers' PSPs, the recurring charges and their attempts, and the two webhooks
    that report them. Everything is held under the PSP's lock; the API's methods answer
    `(status, body, notices)`, the notices being the callbacks to send once the answer is out."""

    def __init__(self, psp: Psp):
        self.psp = psp
        self.lock = psp.lock
        args = psp.args
        self.port = args.port
        self.name, self.city = args.name, args.city
        self.cnpj = getattr(args, "recebedor_cnpj", None) or "11222333000181"
        self.recebedor = getattr(args, "recebedor_nome", None) or args.name
        self.locrecs: dict[int, dict] = {}
        self.recs: dict[str, dict] = {}
        self.solicrecs: dict[str, dict] = {}
        self.cobrs: dict[str, dict] = {}
        self.cobr_requests: dict[str, dict] = {}
        self.webhooks: dict[str, dict] = {}
        self.refused: list[dict] = []

    def state(self) -> dict:
        """What `/control/state` shows of Pix Automático; the caller holds the lock."""
        return {"recs": self.recs, "cobrs": self.cobrs, "locrecs": {str(k): v for k, v in self.locrecs.items()},
                "solicrecs": self.solicrecs, "webhookrec": self.webhooks.get("webhookrec"),
                "webhookcobr": self.webhooks.get("webhookcobr"), "refused": self.refused, "rules": RULES}

    def record_refusal(self, method: str, path: str, answer: dict) -> None:
        with self.lock:
            self.refused.append({"method": method, "path": path, "type": answer.get("type"),
                                 "detail": answer.get("detail"), "violacoes": answer.get("violacoes", [])})

    # --- locrec --------------------------------------------------------------------------------
    def create_locrec(self, body: dict):
        if refused := body_refusal("locrec", "PayloadLocationRecSolicitada", body):
            return refused
        with self.lock:
            loc = {"id": len(self.locrecs) + 1, "tipo": "rec", "criacao": rfc3339(now()),
                   "location": f"127.0.0.1:{self.port}/qr/v2/rec/{uuid.uuid4().hex}"}
            self.locrecs[loc["id"]] = loc
            return answered("PayloadLocationRecGerada", 201, loc)

    def find_locrec(self, loc_id: str) -> dict | None:
        return self.locrecs.get(int(loc_id)) if loc_id.isdigit() else None

    def get_locrec(self, loc_id: str):
        with self.lock:
            loc = self.find_locrec(loc_id)
            if loc is None:
                return not_found("PayloadLocationRecNaoEncontrado", "Location não encontrada.",
                                 "Location não encontrada para o id informado.")
            return answered("PayloadLocationRecCompleta", 200, loc)

    def unlink_locrec(self, loc_id: str):
        """`DELETE /locrec/{id}/idRec`: the location shows no recurrence, the recurrence no
        location; neither's status changes."""
        with self.lock:
            loc = self.find_locrec(loc_id)
            if loc is None:
                return not_found("PayloadLocationRecNaoEncontrado", "Location não encontrada.",
                                 "Location não encontrada para o id informado.")
            rec = self.recs.get(loc.pop("idRec", ""))
            if rec is not None:
                rec.pop("loc", None)
            return answered("PayloadLocationRecCompleta", 200, loc)

    def list_locrecs(self, query: dict):
        present = query.get("idRecPresente")
        return self.listed(query, "PayloadLocationRecConsultaInvalida", self.locrecs, "loc", None,
                           lambda loc: present is None or ("idRec" in loc) == (present == "true"))

    def listed(self, query: dict, invalid: str, held: dict, key: str, schema: str | None, matches):
        """`GET /locrec`, `/rec`, `/cobr`: what was created between `inicio` and `fim` and
        `matches`, a page of it (`paginacao`)."""
        window = listing_window(query)
        if window is None:
            return problem(400, invalid, "Consulta inválida.",
                           "Algum dos parâmetros informados para a consulta não respeita o schema ou não faz sentido.")
        with self.lock:
            found = [x for x in held.values() if matches(x)
                     and window[0] <= instant(x.get("criacao") or x["atualizacao"][0]["data"]) <= window[1]]
            parameters, page = paged(query, window, found)
            body = {"parametros": parameters, key: page}
            return answered(schema, 200, body) if schema else (200, copied(body))

    def free_locrec(self, loc_id, rec: dict | None) -> tuple[dict | None, tuple[str, str] | None]:
        """The location a recurrence asks for, unless it does not exist or another recurrence has
        it; the caller holds the lock."""
        if loc_id is None:
            return None, None
        loc = self.locrecs.get(loc_id)
        if loc is None:
            return None, ("rec.loc", "O location referenciado por rec.loc inexiste.")
        if loc.get("idRec") not in (None, (rec or {}).get("idRec")):
            return None, ("rec.loc", "O location referenciado por rec.loc já está sendo utilizado por outra recorrência.")
        return loc, None

    # --- rec -----------------------------------------------------------------------------------
    def create_rec(self, body: dict):
        if refused := body_refusal("rec", "RecSolicitada", body):
            return refused
        faults = rec_faults(body)
        with self.lock:
            loc, fault = self.free_locrec(body.get("loc"), None)
            if faults or fault:
                return refusal("rec", faults + ([fault] if fault else []))
            rec = self.new_rec(body)
            if loc is not None:
                self.link(rec, loc)
            self.recs[rec["idRec"]] = rec
            return answered("RecGerada", 201, rec)

    def new_rec(self, body: dict) -> dict:
        policy = body["politicaRetentativa"]
        # `RecId`: "RR" when the recurrence allows retries after the due date, "RN" when not.
        rec = {"idRec": generated_id("R" + ("R" if policy == "PERMITE_3R_7D" else "N")),
               "vinculo": body["vinculo"], "calendario": body["calendario"], "politicaRetentativa": policy,
               "recebedor": {"cnpj": self.cnpj, "nome": self.recebedor,
                             **{k: v for k, v in body.get("recebedor", {}).items() if k == "convenio"}},
               "ativacao": {"tipoJornada": "AGUARDANDO_DEFINICAO", **body.get("ativacao", {})}}
        if "valor" in body:
            rec["valor"] = body["valor"]
        moved(rec, "CRIADA")
        return rec

    def link(self, rec: dict, loc: dict) -> None:
        """One location, shown in the recurrence and naming it; the caller holds the lock."""
        old = rec.get("loc")
        if old is not None and old is not loc:
            old.pop("idRec", None)
        loc["idRec"] = rec["idRec"]
        rec["loc"] = loc

    def rec_not_found(self):
        return not_found("RecNaoEncontrada", "Recorrência não encontrada.", "Recorrência não encontrada para o idRec informado.")

    def get_rec(self, id_rec: str, txid: str | None):
        with self.lock:
            rec = self.recs.get(id_rec)
            if rec is None:
                return self.rec_not_found()
            cobv = self.psp.cobvs.get(txid) if txid is not None else None
            if txid is not None and cobv is None:
                return problem(400, "RecConsultaInvalida", "Consulta inválida.",
                               "O parâmetro txid não corresponde a uma cobrança compatível com a recorrência.",
                               [("txid", "não corresponde a uma cobrança com vencimento deste usuário recebedor")])
            shown = copied(rec)
            solicitacoes = [s for s in self.solicrecs.values() if s["idRec"] == id_rec]
            if solicitacoes:
                shown["solicitacao"] = copied(solicitacoes)
            qr = self.qr_data(rec, cobv)
            if qr:
                shown["dadosQR"] = qr
            return answered("RecCompleta", 200, shown)

    def qr_data(self, rec: dict, cobv: dict | None) -> dict | None:
        """`dadosQR`: only while the recurrence waits for its authorization and has a location
        (the document returns it only when the locations it needs are there)."""
        if rec["status"] != "CRIADA" or "loc" not in rec:
            return None
        location = rec["loc"]["location"]
        if cobv is not None:
            return {"jornada": "JORNADA_4", "pixCopiaECola": with_recurrence(cobv["pixCopiaECola"], location)}
        return {"jornada": "JORNADA_2", "pixCopiaECola": recurrence_br_code(location, self.name, self.city)}

    def list_recs(self, query: dict):
        def matches(rec):
            devedor = rec["vinculo"]["devedor"]
            return all(query.get(k, v) == v for k, v in
                       (("status", rec["status"]), ("cpf", devedor.get("cpf")), ("cnpj", devedor.get("cnpj"))))
        return self.listed(query, "RecConsultaInvalida", self.recs, "recs", "RecsConsultadas", matches)

    def revise_rec(self, id_rec: str, body: dict):
        if refused := body_refusal("rec", "RecRevisada", body):
            return refused
        with self.lock:
            rec = self.recs.get(id_rec)
            if rec is None:
                return self.rec_not_found()
            if rec["status"] in REC_FINAL:
                return refusal("rec", [("rec.status", "A recorrência encontra-se expirada, cancelada ou rejeitada.")])
            if "status" in body:
                if len(body) > 1:
                    return refusal("rec", [("rec.status", "O cancelamento não pode vir com outras alterações.")])
                canceled = self.cancel_rec(rec, "USUARIO_RECEBEDOR", "SLCR", "Cancelamento solicitado pelo usuário recebedor")
                return (*answered("RecGerada", 200, rec), [("rec", id_rec)] + [("cobr", t) for t in canceled])
            faults = self.revision_faults(rec, body)
            if faults:
                return refusal("rec", faults)
            self.revise(rec, body)
            return answered("RecGerada", 200, rec)

    def revision_faults(self, rec: dict, body: dict) -> list[tuple[str, str]]:
        """What a revision other than a cancellation may not do; the caller holds the lock."""
        if rec["status"] != "CRIADA":
            return [(f"rec.{field}", f"O campo rec.{field} somente pode ser alterado quando a recorrência apresentar-se com o status CRIADA.")
                    for field in body]
        faults = []
        if "dataInicial" in body.get("calendario", {}):
            faults += rec_date_faults({**rec["calendario"], **body["calendario"]})
        _, fault = self.free_locrec(body.get("loc"), rec)
        return faults + ([fault] if fault else [])

    def revise(self, rec: dict, body: dict) -> None:
        if "dataInicial" in body.get("calendario", {}):
            rec["calendario"]["dataInicial"] = body["calendario"]["dataInicial"]
        if "nome" in body.get("vinculo", {}).get("devedor", {}):
            rec["vinculo"]["devedor"]["nome"] = body["vinculo"]["devedor"]["nome"]
        if "dadosJornada" in body.get("ativacao", {}):
            rec["ativacao"]["dadosJornada"] = body["ativacao"]["dadosJornada"]
        if "loc" in body:
            self.link(rec, self.locrecs[body["loc"]])

    def cancel_rec(self, rec: dict, solicitante: str, codigo: str, descricao: str) -> list[str]:
        """The recurrence canceled, and with it its open charges (nothing more will be debited
        under it): their txids. The caller holds the lock."""
        moved(rec, "CANCELADA")
        rec["encerramento"] = {"cancelamento": {"solicitante": solicitante, "codigo": codigo, "descricao": descricao}}
        # The cobr's own codes: SLCR when the receiver asked, else CCLD (our reading: canceled
        # because its authorization was; the document lists the codes without meanings).
        cobr_code = "SLCR" if solicitante == "USUARIO_RECEBEDOR" else "CCLD"
        open_ones = [c for c in self.cobrs.values() if c["idRec"] == rec["idRec"] and c["status"] not in COBR_FINAL]
        for cobr in open_ones:
            self.cancel_cobr(cobr, solicitante, cobr_code, "Recorrência cancelada")
        return [c["txid"] for c in open_ones]

    # --- solicrec ------------------------------------------------------------------------------
    def create_solicrec(self, body: dict):
        if refused := body_refusal("solicrec", "SolicRecSolicitada", body):
            return refused
        with self.lock:
            faults = self.solicrec_faults(body)
            if faults:
                return refusal("solicrec", faults)
            rec = self.recs[body["idRec"]]
            solicitacao = {"idSolicRec": generated_id("SC"), "idRec": rec["idRec"],
                           "calendario": body["calendario"], "destinatario": body["destinatario"],
                           "recPayload": self.rec_payload(rec)}
            moved(solicitacao, "CRIADA")
            # Sent to the payer's PSP at once: the stand-in has no SPI to wait for.
            moved(solicitacao, "ENVIADA")
            self.solicrecs[solicitacao["idSolicRec"]] = solicitacao
            return answered("SolicRecCompleta", 201, solicitacao)

    def solicrec_faults(self, body: dict) -> list[tuple[str, str]]:
        rec = self.recs.get(body["idRec"])
        if rec is None:
            return [("solicrec.idRec", "A recorrência referenciada por solicrec.idRec inexiste.")]
        faults = []
        if rec["status"] != "CRIADA":
            faults.append(("solicrec.idRec", f"A recorrência está {rec['status']}, não CRIADA."))
        if instant(body["calendario"]["dataExpiracaoSolicitacao"]) < now():
            faults.append(("solicrec.calendario.dataExpiracaoSolicitacao",
                           "O campo solicrec.calendario.dataExpiracaoSolicitacao é anterior à data de criação da solicitação da recorrência."))
        if any(s["idRec"] == rec["idRec"] and s["status"] in ("CRIADA", "ENVIADA", "RECEBIDA")
               for s in self.solicrecs.values()):
            faults.append(("solicrec.idRec", "Existe uma solicitação ativa referente ao mesmo solicrec.idRec."))
        return faults

    def rec_payload(self, rec: dict) -> dict:
        """`RecPayload`: what the payer's PSP is shown of the recurrence."""
        payload = {k: rec[k] for k in ("idRec", "vinculo", "calendario", "valor", "politicaRetentativa", "atualizacao")
                   if k in rec}
        payload["recebedor"] = {"cnpj": self.cnpj, "nome": self.recebedor, "ispbParticipante": ISPB}
        return copied(payload)

    def get_solicrec(self, id_solic: str):
        with self.lock:
            solicitacao = self.solicrecs.get(id_solic)
            if solicitacao is None:
                return not_found("SolicRecNaoEncontrada", "Solicitação de recorrência não encontrada.",
                                 "Solicitação de recorrência não encontrada para o idSolicRec informado.")
            return answered("SolicRecCompleta", 200, solicitacao)

    def revise_solicrec(self, id_solic: str, body: dict):
        if refused := body_refusal("solicrec", "SolicRecRevisada", body):
            return refused
        with self.lock:
            solicitacao = self.solicrecs.get(id_solic)
            if solicitacao is None:
                return not_found("SolicRecNaoEncontrada", "Solicitação de recorrência não encontrada.",
                                 "Solicitação de recorrência não encontrada para o idSolicRec informado.")
            if solicitacao["status"] not in ("CRIADA", "ENVIADA", "RECEBIDA"):
                return refusal("solicrec", [("solicrec.status", "Não é possível cancelar uma solicitação de recorrência com o status diferente de CRIADA, ENVIADA ou RECEBIDA.")])
            moved(solicitacao, "CANCELADA")
            # The document answers this PATCH with 201.
            return answered("SolicRecCompleta", 201, solicitacao)

    # --- cobr ----------------------------------------------------------------------------------
    def cobr_not_found(self):
        return not_found("CobRNaoEncontrado", "Cobrança não encontrada.", "Cobrança não encontrada para o txid informado.")

    def create_cobr(self, txid: str | None, body: dict):
        """`PUT /cobr/{txid}`, or `POST /cobr` (txid None: the PSP makes one)."""
        if txid is not None and not TXID_COBV.fullmatch(txid):
            return refusal("cobr", [("cobr.txid", "O campo cobr.txid não respeita o schema.")])
        if refused := body_refusal("cobr", "CobRSolicitada", body):
            return refused
        with self.lock:
            if txid in self.cobrs:
                # The same request again (a lost answer) gets the cobr it made.
                if self.cobr_requests[txid] == body:
                    return answered("CobRGerada", 201, self.cobrs[txid])
                return refusal("cobr", [("cobr.txid", "O campo cobr.txid encontra-se em uso.")])
            if txid in self.psp.cobvs:
                return refusal("cobr", [("cobr.txid", "O campo cobr.txid encontra-se em uso.")])
            faults = amount_faults(body["valor"], "cobr.valor", ("original",)) or self.cobr_faults(body)
            if faults:
                return refusal("cobr", faults)
            cobr = self.new_cobr(txid or uuid.uuid4().hex, body)
            self.cobrs[cobr["txid"]] = cobr
            self.cobr_requests[cobr["txid"]] = copied(body)
            return (*answered("CobRGerada", 201, cobr), [("cobr", cobr["txid"])])

    def cobr_faults(self, body: dict) -> list[tuple[str, str]]:
        """The recurrence's rules a new charge must keep; the caller holds the lock."""
        rec = self.recs.get(body["idRec"])
        if rec is None:
            return [("cobr.idRec", "A recorrência referenciada por cobr.idRec inexiste.")]
        if rec["status"] != "APROVADA":
            return [("cobr.idRec", f"A recorrência {rec['idRec']} está {rec['status']}: somente uma recorrência APROVADA recebe cobranças.")]
        faults = []
        due, today = date.fromisoformat(body["calendario"]["dataDeVencimento"]), brasilia_day(now())
        if not LEAD_DAYS[0] <= (due - today).days <= LEAD_DAYS[1]:
            faults.append(("cobr.calendario.dataDeVencimento",
                           f"O campo cobr.calendario.dataDeVencimento deve estar de {LEAD_DAYS[0]} a {LEAD_DAYS[1]} dias "
                           f"corridos após hoje ({today.isoformat()}, Brasília)."))
        faults += self.value_faults(rec, cents(body["valor"]["original"]))
        period = rec["calendario"]["periodicidade"]
        if any(c["idRec"] == rec["idRec"] and c["status"] not in ("REJEITADA", "CANCELADA")
               and cycle(date.fromisoformat(c["calendario"]["dataDeVencimento"]), period) == cycle(due, period)
               for c in self.cobrs.values()):
            faults.append(("cobr.calendario.dataDeVencimento",
                           "Existe uma CobR com status diferente de REJEITADA e CANCELADA referente ao mesmo cobr.idRec com calendario.dataDeVencimento no mesmo ciclo."))
        return faults

    @staticmethod
    def value_faults(rec: dict, original: Decimal) -> list[tuple[str, str]]:
        valor = rec.get("valor", {})
        if "valorRec" in valor and original != cents(valor["valorRec"]):
            return [("cobr.valor.original", f"O campo cobr.valor.original difere do valor da recorrência ({valor['valorRec']}).")]
        if "valorMinimoRecebedor" in valor and original < cents(valor["valorMinimoRecebedor"]):
            return [("cobr.valor.original", f"O campo cobr.valor.original é menor que o valor mínimo da recorrência ({valor['valorMinimoRecebedor']}).")]
        return []

    def new_cobr(self, txid: str, body: dict) -> dict:
        rec = self.recs[body["idRec"]]
        due = date.fromisoformat(body["calendario"]["dataDeVencimento"])
        adjust = body.get("ajusteDiaUtil", True)
        cobr = {"idRec": rec["idRec"], "txid": txid,
                "calendario": {"criacao": brasilia_day(now()).isoformat(), "dataDeVencimento": due.isoformat()},
                "valor": body["valor"], "ajusteDiaUtil": adjust, "politicaRetentativa": rec["politicaRetentativa"],
                "recebedor": {"cnpj": self.cnpj, "nome": self.recebedor, **body["recebedor"]}}
        for key in ("infoAdicional", "devedor"):
            if key in body:
                cobr[key] = body[key]
        moved(cobr, "CRIADA")
        moved(cobr, "ATIVA")
        # The first attempt: the due date, moved to the next business day when asked (the same
        # national calendar as the cobv's; the document would add the payer's local holidays).
        cobr["tentativas"] = [self.attempt(next_business_day(due) if adjust else due, "AGND")]
        return cobr

    @staticmethod
    def attempt(day: date, tipo: str) -> dict:
        attempt = {"dataLiquidacao": day.isoformat(), "tipo": tipo, "endToEndId": end_to_end_id(now())}
        moved(attempt, "SOLICITADA")
        moved(attempt, "AGENDADA")
        return attempt

    def get_cobr(self, txid: str):
        with self.lock:
            cobr = self.cobrs.get(txid)
            if cobr is None:
                return self.cobr_not_found()
            return answered("CobRCompleta", 200, cobr)

    def list_cobrs(self, query: dict):
        return self.listed(query, "CobRConsultaInvalida", self.cobrs, "cobsr", "CobsRConsultadas",
                           lambda cobr: all(query.get(k, cobr[k]) == cobr[k] for k in ("idRec", "status")))

    def revise_cobr(self, txid: str, body: dict):
        if refused := body_refusal("cobr", "CobRRevisada", body):
            return refused
        with self.lock:
            cobr = self.cobrs.get(txid)
            if cobr is None:
                return self.cobr_not_found()
            if "status" not in body:
                return answered("CobRGerada", 200, cobr)
            if cobr["status"] in COBR_FINAL:
                return refusal("cobr", [("cobr.status", f"A cobrança está {cobr['status']} e não pode ser cancelada.")])
            if brasilia_day(now()) >= date.fromisoformat(cobr["tentativas"][0]["dataLiquidacao"]):
                return refusal("cobr", [("cobr.status", "cancelamento na data da primeira tentativa ou depois")],
                               "Não é possível cancelar uma cobrança em uma data igual ou maior que a data prevista da primeira tentativa de liquidação.")
            self.cancel_cobr(cobr, "USUARIO_RECEBEDOR", "SLCR", "Cancelamento de agendamento solicitado pelo usuário recebedor")
            return (*answered("CobRGerada", 200, cobr), [("cobr", txid)])

    @staticmethod
    def cancel_cobr(cobr: dict, solicitante: str, codigo: str, descricao: str) -> None:
        for attempt in cobr["tentativas"]:
            if attempt["status"] in ("SOLICITADA", "AGENDADA"):
                moved(attempt, "CANCELADA")
        moved(cobr, "CANCELADA")
        cobr["encerramento"] = {"cancelamento": {"solicitante": solicitante, "codigo": codigo, "descricao": descricao}}

    def retry(self, txid: str, day: str):
        """`POST /cobr/{txid}/retentativa/{data}`: another attempt after a rejected one."""
        with self.lock:
            cobr = self.cobrs.get(txid)
            if cobr is None:
                return self.cobr_not_found()
            fault = self.retry_fault(cobr, day)
            if fault:
                return problem(400, "CobROperacaoInvalida", "Operação inválida.", fault, [("cobr.tentativas", fault)])
            cobr["tentativas"].append(self.attempt(date.fromisoformat(day), "RIFL"))
            return (*answered("CobRCompleta", 201, cobr), [("cobr", txid)])

    def retry_fault(self, cobr: dict, day: str) -> str | None:
        """Why a retry may not be asked (the document's violations), or None."""
        if self.recs[cobr["idRec"]]["politicaRetentativa"] != "PERMITE_3R_7D":
            return "A política configurada na recorrência não permite retentativa de cobrança."
        if cobr["status"] != "ATIVA":
            return f"A cobrança está {cobr['status']}: somente uma cobrança ATIVA admite retentativa."
        if cobr["tentativas"][-1]["status"] in ("SOLICITADA", "AGENDADA"):
            return "Existe uma tentativa com status SOLICITADA ou AGENDADA."
        try:
            asked = date.fromisoformat(day)
        except ValueError:
            return "O parâmetro data não respeita o schema."
        if asked <= brasilia_day(now()):
            return "O parâmetro data não corresponde a uma data futura."
        if asked > date.fromisoformat(cobr["calendario"]["dataDeVencimento"]) + RETRY_WINDOW:
            return "O parâmetro data é posterior a 7 dias após a data de vencimento da cobrança."
        # No count here: the failure of the third retry rejects the cobr (`may_retry`), so a
        # fourth finds it REJEITADA.
        return None

    # --- webhookrec, webhookcobr ---------------------------------------------------------------
    def put_webhook(self, kind: str, body: dict):
        faults = schemas.violations("WebhookRecSolicitado" if kind == "webhookrec" else "WebhookCobRSolicitado",
                                    body, kind)
        url = body.get("webhookUrl")
        if not faults and not url.startswith(("https://", "http://")):
            faults = [(f"{kind}.webhookUrl", f"O campo {kind}.webhookUrl não respeita o schema.")]
        if faults:
            return refusal(kind, faults)
        with self.lock:
            self.webhooks[kind] = {"webhookUrl": url, "criacao": rfc3339(now())}
        return 200, None

    def get_webhook(self, kind: str):
        with self.lock:
            hook = self.webhooks.get(kind)
            if hook is None:
                return not_found("NaoEncontrado", "Não Encontrado", "O webhook não encontra-se estabelecido.")
            return answered("WebhookRecCompleto" if kind == "webhookrec" else "WebhookCobRCompleto", 200, hook)

    def delete_webhook(self, kind: str):
        with self.lock:
            if self.webhooks.pop(kind, None) is None:
                return not_found("NaoEncontrado", "Não Encontrado", "O webhook não encontra-se estabelecido.")
        return 204, None

    # --- callbacks -----------------------------------------------------------------------------
    def notify(self, notices) -> dict:
        """Sends each notice's callback (`("rec", idRec)` or `("cobr", txid)`): their outcomes."""
        return {f"{kind}:{key}": (self.notify_rec(key) if kind == "rec" else self.notify_cobr(key))
                for kind, key in notices}

    def notify_rec(self, id_rec: str) -> dict:
        """`POST {webhookUrl}/rec` with the recurrence as it is now (`RecNotification`)."""
        with self.lock:
            rec = self.recs[id_rec]
            note = {k: rec[k] for k in ("idRec", "status", "atualizacao", "encerramento", "ativacao") if k in rec}
            body = copied({"recs": [note]})
        return self.send("webhookrec", "/rec", "WebhookRecBody", body, {"idRec": id_rec})

    def notify_cobr(self, txid: str) -> dict:
        """`POST {webhookUrl}/cobr` with the charge as it is now, its attempts and Pix
        (`CobRNotification`)."""
        with self.lock:
            cobr = self.cobrs[txid]
            note = {k: cobr[k] for k in ("idRec", "txid", "status", "atualizacao", "encerramento", "tentativas", "pix")
                    if k in cobr}
            body = copied({"cobsr": [note]})
        return self.send("webhookcobr", "/cobr", "WebhookCobRBody", body, {"txid": txid})

    def send(self, kind: str, suffix: str, schema: str, body: dict, about: dict) -> dict:
        schemas.conform(schema, body)
        with self.lock:
            hook = self.webhooks.get(kind)
        if hook is None:
            return {"error": f"no {kind}"}
        outcome = self.psp.post_callback(hook["webhookUrl"].rstrip("/") + suffix, json.dumps(body).encode())
        with self.lock:
            self.psp.callbacks.append({**about, **outcome})
        return outcome

    # --- control: the payer and the SPI --------------------------------------------------------
    def approve(self, body: dict) -> tuple[int, dict]:
        """The payer reads the QR and authorizes: journey 2 (the recurrence's QR) or journey 4
        (a cobv's QR with the recurrence: the cobv is paid as `/control/pay` pays it, and the
        recurrence authorized with it)."""
        jornada, txid, deliver = body.get("jornada", "JORNADA_2"), body.get("txid"), body.get("deliver", True)
        if jornada not in ("JORNADA_2", "JORNADA_4"):
            return 400, {"error": "jornada is JORNADA_2 or JORNADA_4"}
        with self.lock:
            rec = self.recs.get(str(body.get("idRec")))
            refused = self.unapprovable(rec, jornada, txid)
        if refused:
            return refused
        paid = None
        if jornada == "JORNADA_4":
            status, paid = self.psp.pay({"txid": txid, "deliver": deliver, "horario": body.get("horario")})
            if status != 200:
                return status, paid
        with self.lock:
            if rec["status"] != "CRIADA":
                return 409, {"error": f"the recurrence became {rec['status']} meanwhile"}
            # The dadosJornada of journey 3 goes once another journey authorized it (the document).
            rec["ativacao"] = {"tipoJornada": jornada}
            rec["pagador"] = {"ispbParticipante": body.get("ispbPagador", "87654321"),
                              **person_of(rec["vinculo"]["devedor"])}
            moved(rec, "APROVADA")
            shown = copied(rec)
        return 200, {"rec": shown, "pix": paid and paid["pix"],
                     "callback": self.notify_rec(rec["idRec"]) if deliver else None}

    def unapprovable(self, rec: dict | None, jornada: str, txid) -> tuple[int, dict] | None:
        if rec is None:
            return 404, {"error": "no such recurrence"}
        if rec["status"] != "CRIADA":
            return 409, {"error": f"the recurrence is {rec['status']}"}
        if "loc" not in rec:
            return 409, {"error": "the recurrence has no location: there is no QR to read"}
        if jornada == "JORNADA_4" and txid not in self.psp.cobvs:
            return 400, {"error": "JORNADA_4 takes the txid of one of this PSP's cobv"}
        return None

    def end_rec(self, body: dict, status: str, encerramento: dict | None, allowed: tuple) -> tuple[int, dict]:
        """A recurrence ended by the payer or its PSP, its callback sent unless `deliver` is
        false; its open charges canceled with it when it is canceled."""
        with self.lock:
            rec = self.recs.get(str(body.get("idRec")))
            if rec is None:
                return 404, {"error": "no such recurrence"}
            if rec["status"] not in allowed:
                return 409, {"error": f"the recurrence is {rec['status']}"}
            canceled = []
            if status == "CANCELADA":
                canceled = self.cancel_rec(rec, **encerramento["cancelamento"])
            else:
                moved(rec, status)
                if encerramento:
                    rec["encerramento"] = encerramento
            shown = copied(rec)
        notices = [("rec", rec["idRec"])] + [("cobr", t) for t in canceled]
        return 200, {"rec": shown, "cobrs": canceled,
                     "callbacks": self.notify(notices) if body.get("deliver", True) else None}

    def reject(self, body: dict) -> tuple[int, dict]:
        codigo = body.get("codigo", "AP13")
        if codigo not in ("AP13", "AP14"):
            return 400, {"error": "codigo is AP13 or AP14"}
        descricao = body.get("descricao", f"Recorrência rejeitada ({codigo})")
        return self.end_rec(body, "REJEITADA", {"rejeicao": {"codigo": codigo, "descricao": descricao}}, ("CRIADA",))

    def expire(self, body: dict) -> tuple[int, dict]:
        return self.end_rec(body, "EXPIRADA", None, ("CRIADA",))

    def payer_cancel(self, body: dict) -> tuple[int, dict]:
        solicitante, codigo = body.get("solicitante", "USUARIO_PAGADOR"), body.get("codigo", "ACCL")
        if solicitante not in ("USUARIO_PAGADOR", "PSP_PAGADOR"):
            return 400, {"error": "solicitante is USUARIO_PAGADOR or PSP_PAGADOR"}
        if codigo not in schemas.REC_CANCELLATIONS:
            return 400, {"error": "codigo is one of " + ", ".join(schemas.REC_CANCELLATIONS)}
        cancelamento = {"solicitante": solicitante, "codigo": codigo,
                        "descricao": body.get("descricao", "Autorização cancelada pelo pagador")}
        return self.end_rec(body, "CANCELADA", {"cancelamento": cancelamento}, ("APROVADA",))

    def scheduled(self, txid) -> tuple[dict | None, tuple[int, dict] | None]:
        """An active charge and its attempt waiting to settle; the caller holds the lock."""
        cobr = self.cobrs.get(str(txid))
        if cobr is None:
            return None, (404, {"error": "no such cobr"})
        if cobr["status"] != "ATIVA" or cobr["tentativas"][-1]["status"] != "AGENDADA":
            return None, (409, {"error": f"the cobr is {cobr['status']}, its last attempt {cobr['tentativas'][-1]['status']}"})
        return cobr, None

    def pay(self, body: dict) -> tuple[int, dict]:
        """The scheduled debit settles: the attempt PAGA, the charge CONCLUIDA, a Pix received
        with its txid (listed by `GET /pix` like any other). Its callback goes to `/cobr` and not
        to `/pix`: BACEN reports Pix Automático's results through the cobr webhook."""
        paid_at, error = payment_instant(body.get("horario"))
        if error:
            return 400, {"error": error}
        with self.lock:
            cobr, refused = self.scheduled(body.get("txid"))
            if refused:
                return refused
            attempt = cobr["tentativas"][-1]
            moved(attempt, "PAGA")
            moved(cobr, "CONCLUIDA")
            valor = cobr["valor"]["original"]
            item = {"endToEndId": attempt["endToEndId"], "txid": cobr["txid"], "valor": valor,
                    "horario": rfc3339(paid_at), "componentesValor": {"original": {"valor": valor}},
                    "chave": self.psp.args.chave[0]}
            self.psp.pix.append(item)
            cobr["pix"] = [item]
            shown = copied(cobr)
        return 200, {"cobr": shown, "callback": self.notify_cobr(cobr["txid"]) if body.get("deliver", True) else None}

    def fail(self, body: dict) -> tuple[int, dict]:
        """The scheduled debit is refused: the attempt REJEITADA; the charge too unless a retry
        is still possible (policy PERMITE_3R_7D, a code that does not end it, retries and days
        left)."""
        codigo = body.get("codigo", DEFAULT_FAILURE)
        if codigo not in schemas.COBR_REJECTIONS:
            return 400, {"error": "codigo is one of " + ", ".join(schemas.COBR_REJECTIONS)}
        rejeicao = {"codigo": codigo, "descricao": body.get("descricao", f"Débito não realizado ({codigo})")}
        with self.lock:
            cobr, refused = self.scheduled(body.get("txid"))
            if refused:
                return refused
            moved(cobr["tentativas"][-1], "REJEITADA")
            cobr["tentativas"][-1]["rejeicao"] = rejeicao
            if not self.may_retry(cobr, codigo):
                moved(cobr, "REJEITADA")
                cobr["encerramento"] = {"rejeicao": rejeicao}
            shown = copied(cobr)
        return 200, {"cobr": shown, "callback": self.notify_cobr(cobr["txid"]) if body.get("deliver", True) else None}

    def may_retry(self, cobr: dict, codigo: str) -> bool:
        last_day = date.fromisoformat(cobr["calendario"]["dataDeVencimento"]) + RETRY_WINDOW
        return (self.recs[cobr["idRec"]]["politicaRetentativa"] == "PERMITE_3R_7D"
                and codigo not in FINAL_REJECTIONS
                and sum(a["tipo"] == "RIFL" for a in cobr["tentativas"]) < RETRIES
                and brasilia_day(now()) < last_day)

    def redeliver_rec(self, body: dict) -> tuple[int, dict]:
        with self.lock:
            known = str(body.get("idRec")) in self.recs
        return (200, {"callback": self.notify_rec(body["idRec"])}) if known else (404, {"error": "no such recurrence"})

    def redeliver_cobr(self, body: dict) -> tuple[int, dict]:
        with self.lock:
            known = str(body.get("txid")) in self.cobrs
        return (200, {"callback": self.notify_cobr(body["txid"])}) if known else (404, {"error": "no such cobr"})


AUTOMATIC_CONTROLS = {"/control/rec/approve": Automatico.approve, "/control/rec/reject": Automatico.reject,
                      "/control/rec/expire": Automatico.expire, "/control/rec/cancel": Automatico.payer_cancel,
                      "/control/cobr/pay": Automatico.pay, "/control/cobr/fail": Automatico.fail,
                      "/control/redeliver_rec": Automatico.redeliver_rec,
                      "/control/redeliver_cobr": Automatico.redeliver_cobr}


def automatic_call(auto: Automatico, method: str, parts: list[str], query: dict, body: dict | None):
    """The Pix Automático operation a request names: `(status, body, notices)`."""
    match method, parts:
        case "POST", ["locrec"]:
            result = auto.create_locrec(body)
        case "GET", ["locrec"]:
            result = auto.list_locrecs(query)
        case "GET", ["locrec", loc_id]:
            result = auto.get_locrec(loc_id)
        case "DELETE", ["locrec", loc_id, "idRec"]:
            result = auto.unlink_locrec(loc_id)
        case "POST", ["rec"]:
            result = auto.create_rec(body)
        case "GET", ["rec"]:
            result = auto.list_recs(query)
        case "GET", ["rec", id_rec]:
            result = auto.get_rec(id_rec, query.get("txid"))
        case "PATCH", ["rec", id_rec]:
            result = auto.revise_rec(id_rec, body)
        case "POST", ["solicrec"]:
            result = auto.create_solicrec(body)
        case "GET", ["solicrec", id_solic]:
            result = auto.get_solicrec(id_solic)
        case "PATCH", ["solicrec", id_solic]:
            result = auto.revise_solicrec(id_solic, body)
        case "PUT", ["cobr", txid]:
            result = auto.create_cobr(txid, body)
        case "POST", ["cobr"]:
            result = auto.create_cobr(None, body)
        case "GET", ["cobr"]:
            result = auto.list_cobrs(query)
        case "GET", ["cobr", txid]:
            result = auto.get_cobr(txid)
        case "PATCH", ["cobr", txid]:
            result = auto.revise_cobr(txid, body)
        case "POST", ["cobr", txid, "retentativa", day]:
            result = auto.retry(txid, day)
        case "PUT", [("webhookrec" | "webhookcobr") as kind]:
            result = auto.put_webhook(kind, body)
        case "GET", [("webhookrec" | "webhookcobr") as kind]:
            result = auto.get_webhook(kind)
        case "DELETE", [("webhookrec" | "webhookcobr") as kind]:
            result = auto.delete_webhook(kind)
        case _:
            result = problem(404, "NaoEncontrado", "Não Encontrado", "Entidade não encontrada.")
    return result if len(result) == 3 else (*result, [])


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
            if parts[0] in AUTOMATIC_RESOURCES:
                return self.automatic(method, path, parts, query, cert)
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

        def automatic(self, method: str, path: str, parts: list[str], query: dict, cert: str) -> None:
            """A Pix Automático path: 404 on a PSP without it, then the scope the document's
            `security` names, the body's schema, the operation; its callbacks go once the answer
            is out. Every 400 is kept in `refused`."""
            if psp.without_automatic():
                self.body()
                return self.answer(*problem(404, "NaoEncontrado", "Não Encontrado", "Entidade não encontrada."))
            scope = AUTOMATIC_PATHS.get((method, parts[0]))
            refused = psp.authorized(self.headers, cert, scope) if scope else problem(
                404, "NaoEncontrado", "Não Encontrado", "Entidade não encontrada.")
            if refused:
                self.body()
                return self.answer(*refused)
            body = self.json_body() if method in ("POST", "PUT", "PATCH") else None
            if method in ("POST", "PUT", "PATCH") and body is None:
                status, answer, notices = (*refusal(parts[0], [(parts[0], "O corpo não é um objeto JSON.")]), [])
            else:
                try:
                    status, answer, notices = automatic_call(psp.automatico, method, parts, query, body)
                except schemas.Drift as e:
                    status, answer, notices = (*problem(500, "ErroInternoDoServidor", "Erro interno do servidor.", str(e)), [])
            if status == 400:
                psp.automatico.record_refusal(method, path, answer)
            if status >= 400:
                schemas.conform("Problema", answer)
            self.answer(status, answer)
            psp.automatico.notify(notices)

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
            if method == "POST" and path in AUTOMATIC_CONTROLS:
                if psp.without_automatic():
                    return self.answer(404, {"error": "this PSP has no Pix Automático (--no-automatic-pix)"})
                try:
                    return self.answer(*AUTOMATIC_CONTROLS[path](psp.automatico, body))
                except schemas.Drift as e:
                    return self.answer(500, {"error": str(e)})
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
    parser.add_argument("--no-automatic-pix", action="store_true",
                        help="a PSP without Pix Automático: its paths answer 404 NaoEncontrado")
    parser.add_argument("--recebedor-cnpj", default="11222333000181",
                        help="the receiver's CNPJ in recurrences and recurring charges")
    parser.add_argument("--recebedor-nome", default=None,
                        help="the receiver's name in recurrences and recurring charges; default: --name")
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
