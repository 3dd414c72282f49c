"""The JSON Schemas of Pix Automático's bodies, transcribed from BACEN's API Pix OpenAPI document,
version 2.9.0 (bacen/pix-api), `components/schemas` and `components/requestBodies`: what the test
PSP (`server.py`) checks every request body against, and every body it answers or calls back
with, so that the stand-in can never drift from the document. Names are the document's; kept:
`required`, `enum`, `pattern`, `minLength`/`maxLength`, `format`; left out: titles,
descriptions, examples. Unknown properties are allowed, as the document allows them.

How the transcription reads the document where it cannot be taken literally (each place is
marked `# 2.9.0:` below):
- Patterns written `/^\\d{11}$/` (CPF, `codMun`) are JavaScript regex literals; they are meant as
  `^\\d{11}$` and written so. The document's other patterns are kept as they are, unanchored
  (`\\d{1,10}\\.\\d{2}`, `[a-zA-Z0-9]{26,35}`): JSON Schema searches a pattern anywhere in the
  string, so `server.py` checks amounts and txids whole on top of the schema.
- `RecBase.required` lists `idRec` and `retentativa`, which are not among its properties, and
  the document's own request examples (`recBody1`, `recBody2`) have neither: a request cannot
  carry the `idRec` the PSP makes, and the policy is `politicaRetentativa` (required by
  `RecConfiguracao`). Here `RecBase` requires `calendario` and `vinculo`, and the PSP's answers
  (`RecGerada`, `RecCompleta`) require `idRec`.
- `RecNotification.required` is `["idRec","status",atualizacao"]` (a lost quote): `atualizacao`.
- `RecEncerramento` and `CobRAtualizacao.encerramento` are `oneOf` two objects that require
  nothing, so any object matches both and fails the `oneOf`; each branch here requires its
  own member (`rejeicao`, `cancelamento`): exactly one of them.
- `RecRevisada.vinculo.devedor` is `oneOf` two identical objects (`nome` required), which
  nothing can satisfy; read as either (`anyOf`).
- `DadosPagadorRec` requires `ispbParticipante` and has `oneOf` CPF/CNPJ beside `pagador`, on
  the recurrence itself; they describe `pagador` and are moved into it.
- `PixAutomatico.valor` is a string and also `anyOf` objects (`PixValorOriginal`, ...), which
  no string satisfies; those objects are the Pix's `componentesValor` (as in `Pix`) and are
  checked there.
- `SolicRecCompleta.required` names `rec`, and `SolicRecBase.required` names `pagador`:
  properties neither has (the examples carry `recPayload` and no `pagador`); both left out.
- `format: uri` is not checked (the document's own `location` values have no scheme);
  `date` and `date-time` are.
"""

from __future__ import annotations

from functools import cache

from jsonschema import Draft202012Validator

DOCUMENT_VERSION = "2.9.0"

AMOUNT = {"type": "string", "pattern": "\\d{1,10}\\.\\d{2}"}
DATE = {"type": "string", "format": "date"}
INSTANT = {"type": "string", "format": "date-time"}
CPF_PATTERN = "^\\d{11}$"  # 2.9.0: written /^\d{11}$/
CNPJ_PATTERN = "^[0-9A-Z]{14}$"
ISPB_PATTERN = "^[0-9A-Z]{8}$"


def ref(name: str) -> dict:
    return {"$ref": f"#/$defs/{name}"}


def obj(properties: dict | None = None, required: list[str] | None = None, **more) -> dict:
    schema = {"type": "object", **more}
    if properties:
        schema["properties"] = properties
    if required:
        schema["required"] = required
    return schema


def history(statuses: list[str]) -> dict:
    """An `atualizacao` list: each status change with its instant."""
    return {"type": "array", "items": obj({"status": {"type": "string", "enum": statuses},
                                           "data": INSTANT}, ["status", "data"])}


REC_STATUS = ["CRIADA", "APROVADA", "REJEITADA", "EXPIRADA", "CANCELADA"]
SOLICREC_STATUS = ["CRIADA", "ENVIADA", "RECEBIDA", "REJEITADA", "ACEITA", "EXPIRADA", "CANCELADA"]
COBR_STATUS = ["CRIADA", "ATIVA", "CONCLUIDA", "EXPIRADA", "REJEITADA", "CANCELADA"]
ATTEMPT_STATUS = ["SOLICITADA", "AGENDADA", "PAGA", "CANCELADA", "REJEITADA", "EXPIRADA"]
# The rejection codes of a cobr and of each of its attempts (`CobRTentativas`, `CobRAtualizacao`).
COBR_REJECTIONS = ["AB10", "AC05", "AC06", "AM02", "AM09", "DENC", "DS27", "DTED", "DTNT", "FBRD",
                   "IRNT", "MIDI", "MSUC", "NIEC", "NIPA", "NITX", "QUNT", "RC09", "UDEI"]
REC_CANCELLATIONS = ["ACCL", "CPCL", "DCSD", "ERSL", "FRUD", "PCFD", "SLCR", "SLDB"]
COBR_CANCELLATIONS = ["ACCT", "BLCK", "CCLD", "FAIL", "OTHR", "SLBD", "SLCR"]
SOLICITANTES = ["PSP_PAGADOR", "USUARIO_PAGADOR", "PSP_RECEBEDOR", "USUARIO_RECEBEDOR"]
JORNADAS = ["JORNADA_1", "JORNADA_2", "JORNADA_3", "JORNADA_4", "AGUARDANDO_DEFINICAO"]


def reason(codes: list[str]) -> dict:
    return obj({"codigo": {"type": "string", "enum": codes, "maxLength": 4},
                "descricao": {"type": "string", "maxLength": 400}}, ["codigo", "descricao"])


def cancellation(codes: list[str]) -> dict:
    return obj({"solicitante": {"type": "string", "enum": SOLICITANTES},
                "codigo": {"type": "string", "enum": codes, "maxLength": 4},
                "descricao": {"type": "string", "maxLength": 400}},
               ["solicitante", "codigo", "descricao"])


def person(key: str, pattern: str) -> dict:
    return obj({key: {"type": "string", "pattern": pattern},
                "nome": {"type": "string", "maxLength": 140}}, [key, "nome"])


def component(name: str) -> dict:
    return obj({name: obj({"valor": AMOUNT}, ["valor"])})


DADOS_JORNADA = obj(oneOf=[obj({"txid": ref("TxId")}, ["txid"])])
CONVENIO = obj({"convenio": {"type": "string", "maxLength": 60}})
RECEBEDOR_REC = {"oneOf": [ref("PessoaJuridicaRecorrencia")], "allOf": [CONVENIO]}

DEFS: dict[str, dict] = {
    "TxId": {"type": "string", "pattern": "[a-zA-Z0-9]{26,35}"},
    "EndToEndId": {"type": "string", "pattern": "[a-zA-Z0-9]{32}", "minLength": 32, "maxLength": 32},
    "RecId": {"type": "string", "pattern": "[a-zA-Z0-9]{29}", "minLength": 29, "maxLength": 29},
    "PayloadLocationRecId": {"type": "integer", "format": "int64"},
    "DevolucaoId": {"type": "string", "pattern": "[a-zA-Z0-9]{1,35}"},
    "PessoaFisicaRecorrencia": person("cpf", CPF_PATTERN),
    "PessoaJuridicaRecorrencia": person("cnpj", CNPJ_PATTERN),
    "CPF": obj({"cpf": {"type": "string", "pattern": CPF_PATTERN}}, ["cpf"]),
    "CNPJ": obj({"cnpj": {"type": "string", "pattern": CNPJ_PATTERN}}, ["cnpj"]),
    "DadosComplementaresPessoa": obj({"logradouro": {"type": "string", "maxLength": 200},
                                      "cidade": {"type": "string", "maxLength": 200},
                                      "uf": {"type": "string", "maxLength": 2},
                                      "cep": {"type": "string", "maxLength": 8}}),
    "DadosBancarios": obj({"conta": {"type": "string", "maxLength": 20},
                           "ispbParticipante": {"type": "string", "pattern": ISPB_PATTERN},
                           "agencia": {"type": "string", "maxLength": 4}},
                          ["conta", "ispbParticipante"]),
    "DadosBancariosRecebedor": obj({"conta": {"type": "string", "maxLength": 20},
                                    "tipoConta": {"type": "string",
                                                  "enum": ["CORRENTE", "POUPANCA", "PAGAMENTO"]},
                                    "agencia": {"type": "string", "maxLength": 4}},
                                   ["conta", "tipoConta"]),
    "DadosDevedorRecorrencia": obj({"devedor": {"allOf": [obj({"email": {"type": "string"}}),
                                                          ref("DadosComplementaresPessoa")]}}),
    # 2.9.0: `required: ["ispbParticipante"]` and `oneOf` CPF/CNPJ moved into `pagador`.
    "DadosPagadorRec": obj({"pagador": {
        "allOf": [obj({"ispbParticipante": {"type": "string", "pattern": ISPB_PATTERN}}, ["ispbParticipante"]),
                  obj({"codMun": {"type": "string", "pattern": "^\\d{7}$"}})],  # 2.9.0: /^\d{7}$/
        "oneOf": [ref("CPF"), ref("CNPJ")]}}),
    "WebhookRecBase": obj({"webhookUrl": {"type": "string", "format": "uri"}}, ["webhookUrl"]),
    "WebhookRecSolicitado": {"type": "object", "allOf": [ref("WebhookRecBase")]},
    "WebhookCobRSolicitado": obj({"webhookUrl": {"type": "string", "format": "uri"}}, ["webhookUrl"]),
    "WebhookRecCompleto": obj({"webhookUrl": {"type": "string", "format": "uri"}, "criacao": INSTANT},
                              ["webhookUrl"]),
    "WebhookCobRCompleto": obj({"webhookUrl": {"type": "string", "format": "uri"}, "criacao": INSTANT},
                               ["webhookUrl"]),
    # --- Rec ------------------------------------------------------------------------------------
    # 2.9.0: `required` names `idRec` and `retentativa` too (see the module's docs).
    "RecBase": obj({
        "vinculo": obj({"objeto": {"type": "string", "maxLength": 35},
                        "devedor": {"oneOf": [ref("PessoaFisicaRecorrencia"), ref("PessoaJuridicaRecorrencia")]},
                        "contrato": {"type": "string", "maxLength": 35}}, ["contrato", "devedor"]),
        "calendario": obj({"dataInicial": DATE, "dataFinal": DATE,
                           "periodicidade": {"type": "string",
                                             "enum": ["SEMANAL", "MENSAL", "TRIMESTRAL", "SEMESTRAL", "ANUAL"]}},
                          ["dataInicial", "periodicidade"]),
        "valor": obj({"valorRec": AMOUNT, "valorMinimoRecebedor": AMOUNT})},
        ["calendario", "vinculo"]),
    "RecStatus": obj({"status": {"type": "string", "enum": REC_STATUS}}, ["status"]),
    "RecConfiguracao": obj({"politicaRetentativa": {"type": "string", "enum": ["NAO_PERMITE", "PERMITE_3R_7D"]}},
                           ["politicaRetentativa"]),
    "RecAtualizacao": obj({"atualizacao": history(REC_STATUS)}, ["atualizacao"]),
    # 2.9.0: each branch requires its member, or every object matches both.
    "RecEncerramento": obj({"encerramento": obj(oneOf=[
        obj({"rejeicao": reason(["AP13", "AP14"])}, ["rejeicao"]),
        obj({"cancelamento": cancellation(REC_CANCELLATIONS)}, ["cancelamento"])])}),
    "RecAtivacao": obj({"ativacao": obj({"tipoJornada": {"type": "string", "enum": JORNADAS},
                                         "dadosJornada": DADOS_JORNADA}, ["tipoJornada"])}),
    "RecAtivacaoSolicitada": obj({"ativacao": obj({"dadosJornada": DADOS_JORNADA})}),
    "RecSolicitada": obj(allOf=[
        ref("RecBase"),
        obj({"recebedor": CONVENIO}),
        ref("RecConfiguracao"),
        obj({"loc": {"allOf": [ref("PayloadLocationRecId")]}}),
        ref("RecAtivacaoSolicitada")]),
    "RecRevisada": obj(allOf=[
        obj({"status": {"type": "string", "enum": ["CANCELADA"]}}),
        # 2.9.0: `oneOf` two identical objects, which nothing satisfies; read as `anyOf`.
        obj({"vinculo": obj({"devedor": {"anyOf": [
            obj({"nome": {"type": "string", "maxLength": 140}}, ["nome"])]}})}),
        obj({"loc": {"allOf": [ref("PayloadLocationRecId")]}}),
        obj({"calendario": obj({"dataInicial": DATE})}),
        ref("RecAtivacaoSolicitada")]),
    # 2.9.0: `idRec` required here, where `RecBase` put it.
    "RecGerada": obj(allOf=[
        obj({"idRec": ref("RecId")}),
        ref("RecBase"),
        obj({"recebedor": RECEBEDOR_REC}),
        ref("RecStatus"),
        obj({"loc": {"allOf": [ref("PayloadLocationRecCompleta")]}}),
        ref("RecAtualizacao"),
        ref("RecEncerramento"),
        ref("RecAtivacao")], required=["idRec", "recebedor"]),
    "RecCompletaPesquisada": obj(allOf=[
        obj({"idRec": ref("RecId")}),
        ref("RecBase"),
        obj({"recebedor": RECEBEDOR_REC}),
        ref("DadosPagadorRec"),
        ref("RecStatus"),
        ref("RecConfiguracao"),
        obj({"loc": {"allOf": [ref("PayloadLocationRecCompleta")]}}),
        ref("RecAtualizacao"),
        ref("RecEncerramento"),
        obj({"solicitacao": {"type": "array", "items": {"allOf": [ref("SolicRecCompleta")]}}}),
        ref("RecAtivacao")], required=["idRec", "status", "recebedor"]),
    "RecCompleta": obj(allOf=[
        ref("RecCompletaPesquisada"),
        obj({"dadosQR": obj({"jornada": {"type": "string", "enum": ["JORNADA_2", "JORNADA_3", "JORNADA_4"]},
                             "pixCopiaECola": {"type": "string", "maxLength": 512}})})],
        required=["idRec", "status", "recebedor"]),
    # 2.9.0: `required: ["idRec","status",atualizacao"]`.
    "RecNotification": obj(allOf=[
        obj({"idRec": ref("RecId")}),
        ref("RecStatus"),
        ref("RecAtualizacao"),
        ref("RecEncerramento"),
        ref("RecAtivacao")], required=["idRec", "status", "atualizacao"]),
    "RecPayload": obj(allOf=[
        obj({"idRec": ref("RecId")}),
        ref("RecBase"),
        obj({"recebedor": {"oneOf": [ref("PessoaJuridicaRecorrencia")], "allOf": [
            obj({"ispbParticipante": {"type": "string", "pattern": ISPB_PATTERN}}, ["ispbParticipante"])]}}),
        ref("RecConfiguracao"),
        ref("RecAtualizacao")], required=["idRec", "atualizacao", "recebedor"]),
    "RecsConsultadas": obj({"parametros": ref("ParametrosConsultaRec"),
                            "recs": {"type": "array", "items": {"allOf": [ref("RecCompletaPesquisada")]}}},
                           ["parametros", "recs"]),
    # --- SolicRec -------------------------------------------------------------------------------
    "SolicRecId": obj({"idSolicRec": {"type": "string", "pattern": "[a-zA-Z0-9]{29}",
                                      "minLength": 29, "maxLength": 29}}, ["idSolicRec"]),
    "SolicRecBase": obj({
        "idRec": ref("RecId"),
        "calendario": obj({"dataExpiracaoSolicitacao": INSTANT}, ["dataExpiracaoSolicitacao"]),
        "destinatario": {"allOf": [ref("DadosBancarios")], "oneOf": [ref("CPF"), ref("CNPJ")]}},
        ["calendario", "idRec", "destinatario"]),  # 2.9.0: and `pagador`, see the module's docs
    "SolicRecStatus": obj({"status": {"type": "string", "enum": SOLICREC_STATUS}}, ["status"]),
    "SolicRecAtualizacao": obj({"atualizacao": history(SOLICREC_STATUS)}, ["atualizacao"]),
    "SolicRecSolicitada": obj(allOf=[ref("SolicRecBase")]),
    "SolicRecRevisada": obj({"status": {"type": "string", "enum": ["CANCELADA"]}}, ["status"]),
    # 2.9.0: `required: ["rec"]` left out.
    "SolicRecCompleta": obj(allOf=[ref("SolicRecId"), ref("SolicRecBase"), ref("SolicRecStatus"),
                                   ref("SolicRecAtualizacao"), obj({"recPayload": ref("RecPayload")})]),
    # --- PayloadLocationRec ---------------------------------------------------------------------
    "PayloadLocationRecSolicitada": obj({"tipo": {"type": "string", "enum": ["rec"]}}, ["tipo"]),
    # `tipo` is required although not among the properties; the PSP sends "rec".
    "PayloadLocationRecGerada": obj({"id": ref("PayloadLocationRecId"),
                                     "location": {"type": "string", "maxLength": 77, "format": "uri"},
                                     "criacao": INSTANT}, ["id", "location", "tipo", "criacao"]),
    "PayloadLocationRecCompleta": obj(allOf=[ref("PayloadLocationRecGerada"), obj({"idRec": ref("RecId")})]),
    # --- CobR -----------------------------------------------------------------------------------
    "CobRBase": obj({
        "infoAdicional": {"type": "string", "maxLength": 140},
        "calendario": obj({"dataDeVencimento": DATE}, ["dataDeVencimento"]),
        "valor": obj({"original": AMOUNT}, ["original"]),
        "ajusteDiaUtil": {"type": "boolean", "default": True},
        "recebedor": {"allOf": [ref("DadosBancariosRecebedor")]}}, ["ajusteDiaUtil"]),
    "CobRStatus": obj({"status": {"type": "string", "enum": COBR_STATUS}}),
    "CobRStatusRevisada": obj({"status": {"type": "string", "enum": ["CANCELADA"]}}),
    "CobRConfiguracao": obj({"politicaRetentativa": {"type": "string", "enum": ["NAO_PERMITE", "PERMITE_3R_7D"]}},
                            ["politicaRetentativa"]),
    # 2.9.0: each `encerramento` branch requires its member, as in `RecEncerramento`.
    "CobRAtualizacao": obj({"atualizacao": history(COBR_STATUS),
                            "encerramento": obj(oneOf=[
                                obj({"cancelamento": cancellation(COBR_CANCELLATIONS)}, ["cancelamento"]),
                                obj({"rejeicao": reason(COBR_REJECTIONS)}, ["rejeicao"])])},
                           ["atualizacao"]),
    "CobRTentativas": obj({"tentativas": {"type": "array", "items": obj({
        "dataLiquidacao": DATE,
        "tipo": {"type": "string", "enum": ["AGND", "NTAG", "RIFL"]},
        "status": {"type": "string", "enum": ATTEMPT_STATUS},
        "endToEndId": ref("EndToEndId"),
        "atualizacao": history(ATTEMPT_STATUS),
        "rejeicao": reason(COBR_REJECTIONS)}, ["dataLiquidacao", "tipo", "endToEndId", "status", "atualizacao"])}}),
    "CobRSolicitada": obj(allOf=[obj({"idRec": ref("RecId")}), ref("CobRBase"), ref("DadosDevedorRecorrencia")],
                          required=["idRec", "calendario", "valor", "recebedor"]),
    "CobRRevisada": obj(allOf=[ref("CobRStatusRevisada")]),
    "CobRGerada": obj(allOf=[
        obj({"idRec": ref("RecId")}),
        obj({"txid": ref("TxId")}),
        ref("CobRBase"),
        obj({"calendario": obj({"criacao": DATE}, ["criacao"])}),
        obj({"recebedor": {"allOf": [ref("PessoaJuridicaRecorrencia")]}}),
        ref("CobRStatus"),
        ref("DadosDevedorRecorrencia")], required=["idRec", "txid", "status", "valor", "recebedor", "calendario"]),
    "CobRPix": {"type": "array", "items": {"allOf": [
        ref("PixAutomatico"), obj({"txid": {"allOf": [ref("TxId"), {"pattern": "[a-zA-Z0-9]{26,35}"}]}})]}},
    "CobRCompleta": obj(allOf=[
        obj({"idRec": ref("RecId")}),
        obj({"txid": ref("TxId")}),
        ref("CobRBase"),
        obj({"calendario": obj({"criacao": DATE}, ["criacao"])}),
        ref("CobRStatus"),
        ref("CobRConfiguracao"),
        ref("DadosDevedorRecorrencia"),
        obj({"pix": ref("CobRPix")}),
        ref("CobRAtualizacao"),
        ref("CobRTentativas")], required=["idRec", "txid", "status", "valor", "recebedor", "calendario"]),
    "CobRNotification": obj(allOf=[
        obj({"idRec": ref("RecId")}),
        obj({"txid": ref("TxId")}),
        ref("CobRStatus"),
        ref("CobRAtualizacao"),
        ref("CobRTentativas"),
        obj({"pix": ref("CobRPix")})], required=["idRec", "txid", "status", "atualizacao"]),
    "CobsRConsultadas": obj({"parametros": ref("ParametrosConsultaCobR"),
                             "cobsr": {"type": "array", "items": {"allOf": [ref("CobRCompleta")]}}},
                            ["parametros", "cobsr"]),
    # --- Pix ------------------------------------------------------------------------------------
    # 2.9.0: the `anyOf` of components moved from `valor` (a string) to `componentesValor`.
    "PixAutomatico": obj({
        "endToEndId": ref("EndToEndId"),
        "txid": {"allOf": [ref("TxId"), {"pattern": "[a-zA-Z0-9]{1,35}"}]},
        "valor": AMOUNT,
        "componentesValor": {"type": "object", "anyOf": [
            component("original"), component("juros"), component("multa"),
            component("abatimento"), component("desconto")]},
        "horario": INSTANT,
        "infoPagador": {"type": "string", "maxLength": 140},
        "devolucoes": {"type": "array", "items": ref("DevolucaoPixAutomatico")}},
        ["txid", "endToEndId", "valor", "horario"]),
    "DevolucaoPixAutomatico": obj({
        "id": ref("DevolucaoId"),
        "rtrId": {"type": "string", "pattern": "[a-zA-Z0-9]{32}", "minLength": 32, "maxLength": 32},
        "valor": AMOUNT,
        "natureza": {"type": "string", "enum": ["ORIGINAL", "MED_PIX_AUTOMATICO", "MED_FRAUDE"]},
        "descricao": {"type": "string", "maxLength": 140},
        "horario": obj({"solicitacao": INSTANT, "liquidacao": INSTANT}),
        "status": {"type": "string", "enum": ["EM_PROCESSAMENTO", "DEVOLVIDO", "NAO_REALIZADO"]},
        "motivo": {"type": "string", "maxLength": 140}}, ["id", "rtrId", "valor", "horario", "status"]),
    # --- Callbacks (`components/requestBodies`) -------------------------------------------------
    "WebhookRecBody": obj({"recs": {"type": "array", "items": ref("RecNotification")}}),
    "WebhookCobRBody": obj({"cobsr": {"type": "array", "items": ref("CobRNotification")}}),
    # --- Listings and problems ------------------------------------------------------------------
    "Paginacao": obj({"paginaAtual": {"type": "integer", "minimum": 0},
                      "itensPorPagina": {"type": "integer", "minimum": 1},
                      "quantidadeDePaginas": {"type": "integer", "minimum": 1},
                      "quantidadeTotalDeItens": {"type": "integer", "minimum": 0}},
                     ["paginaAtual", "itensPorPagina", "quantidadeDePaginas", "quantidadeTotalDeItens"]),
    "ParametrosConsultaRec": obj({"inicio": INSTANT, "fim": INSTANT,
                                  "cpf": {"type": "string", "pattern": CPF_PATTERN},
                                  "cnpj": {"type": "string", "pattern": CNPJ_PATTERN},
                                  "locationPresente": {"type": "boolean"}, "status": {"type": "string"},
                                  "recebedor": CONVENIO, "paginacao": ref("Paginacao")},
                                 ["inicio", "fim", "paginacao"]),
    "ParametrosConsultaCobR": obj({"inicio": INSTANT, "fim": INSTANT, "idRec": ref("RecId"),
                                   "cpf": {"type": "string", "pattern": CPF_PATTERN},
                                   "cnpj": {"type": "string", "pattern": CNPJ_PATTERN},
                                   "status": {"type": "string"}, "recebedor": CONVENIO,
                                   "paginacao": ref("Paginacao")}, ["inicio", "fim", "paginacao"]),
    "Violacao": obj({"razao": {"type": "string"}, "propriedade": {"type": "string"}, "valor": {"type": "string"}}),
    "Problema": obj({"type": {"type": "string", "format": "uri"}, "title": {"type": "string"},
                     "status": {"type": "integer"}, "detail": {"type": "string"},
                     "correlationId": {"type": "string"},
                     "violacoes": {"type": "array", "items": ref("Violacao")}}, ["type", "title", "status"]),
}


class Drift(AssertionError):
    """A body the test PSP was about to answer or send that its document does not allow: a bug
    of the stand-in, never of its client."""


@cache
def validator(name: str) -> Draft202012Validator:
    if name not in DEFS:
        raise KeyError(f"no schema {name} in the transcription")
    return Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": DEFS},
                                format_checker=Draft202012Validator.FORMAT_CHECKER)


def violations(name: str, body, prefix: str) -> list[tuple[str, str]]:
    """Where `body` breaks schema `name`, as the document's `violacoes` name it: the property
    (`prefix` then the path, `rec.calendario.dataInicial`) and the reason, in Portuguese."""
    found = []
    for error in sorted(validator(name).iter_errors(body), key=lambda e: list(e.absolute_path)):
        path = [prefix, *(str(p) for p in error.absolute_path)]
        if error.validator == "required":
            missing = error.message.split("'")[1] if "'" in error.message else "?"
            found.append((".".join(path + [missing]), f"O campo {'.'.join(path + [missing])} é obrigatório."))
        else:
            found.append((".".join(path), f"O campo {'.'.join(path)} não respeita o schema ({error.validator})."))
    return list(dict.fromkeys(found))


def conform(name: str, body) -> None:
    """Raises `Drift` unless `body` is what schema `name` allows."""
    faults = violations(name, body, name)
    if faults:
        raise Drift(f"{name} against the API Pix {DOCUMENT_VERSION}: " + "; ".join(r for _, r in faults))
