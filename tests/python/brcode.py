"""A BR Code read the way a bank app reads one, written here apart from the server's own parser
(`dunning_domain::pix::brcode`) so that the two check each other: every TLV length, the
templates' inner fields, and the CRC16/CCITT-FALSE of field 63 (`binascii.crc_hqx` with the
initial value 0xFFFF is that CRC)."""

from __future__ import annotations

import binascii

# Fields whose value is itself a list of fields: merchant account information, additional
# data, language template, unreserved templates.
TEMPLATES = set(range(26, 52)) | {62, 64} | set(range(80, 100))


def fields(text: str) -> dict[int, str | dict]:
    out: dict[int, str | dict] = {}
    at = 0
    while at < len(text):
        head = text[at:at + 4]
        assert len(head) == 4 and head.isdigit(), f"no id and length at {at}: {text!r}"
        tag, length = int(head[:2]), int(head[2:])
        value = text[at + 4:at + 4 + length]
        assert len(value) == length, f"field {tag} at {at} runs past the end: {text!r}"
        out[tag] = fields(value) if tag in TEMPLATES else value
        at += 4 + length
    return out


def parse(payload: str) -> dict[int, str | dict]:
    """The fields of a Pix BR Code whose lengths, CRC and GUI check out."""
    assert payload.startswith("000201"), payload
    assert payload[-8:-4] == "6304", f"field 63 is not last: {payload}"
    crc = f"{binascii.crc_hqx(payload[:-4].encode(), 0xFFFF):04X}"
    assert payload[-4:] == crc, f"CRC {payload[-4:]}, computed {crc}: {payload}"
    parsed = fields(payload)
    assert parsed[26][0].lower() == "br.gov.bcb.pix", parsed
    return parsed
