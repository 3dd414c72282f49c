//! The EMV® BR Code of a Pix payment, as BACEN's "Manual de Padrões para Iniciação do Pix"
//! specifies it: a string of TLV fields (two-digit id, two-digit length, value) that a bank
//! app reads from a QR code or from "Pix copia e cola", ending in a CRC16.
//!
//! [`BrCode::payload`] writes one (the static code of a charge, or any code the manual's
//! examples show); [`parse`] reads one back, checking every field's length (those inside
//! templates too) and the CRC, so that tests, and the e-mail layout that sets the code
//! apart, know a code when they see one.

use crate::money::Cents;

/// The Globally Unique Identifier of the Pix arrangement, field 00 of field 26.
pub const GUI: &str = "br.gov.bcb.pix";

/// Longest txid (field 05 of field 62) a BR Code carries.
pub const TXID_MAX: usize = 25;

/// What field 26 points the payer's bank at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Account<'a> {
    /// A Pix key (subfield 01): a static code.
    Key(&'a str),
    /// The PSP's location URL without `https://` (subfield 25): a dynamic code, whose
    /// payload the bank fetches from there.
    Url(&'a str),
}

/// The fields of one BR Code. Name and city are written as given: [`super::merchant_text`]
/// makes them what the manual allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BrCode<'a> {
    /// The key or the location.
    pub account: Account<'a>,
    /// Field 59, at most 25 characters.
    pub merchant_name: &'a str,
    /// Field 60, at most 15 characters.
    pub merchant_city: &'a str,
    /// Field 54; without it the payer types the amount.
    pub amount: Option<Cents>,
    /// Field 62-05; `***` is written when there is none.
    pub txid: Option<&'a str>,
    /// Field 01 `12`: the code is for one payment (a charge's); without it the field is
    /// left out, which the manual reads as a code that may be paid many times.
    pub single_use: bool,
}

/// Why a BR Code cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BrCodeError {
    #[error("the merchant name must have 1 to 25 characters of ASCII text")]
    MerchantName,
    #[error("the merchant city must have 1 to 15 characters of ASCII text")]
    MerchantCity,
    #[error("the amount must be more than zero")]
    Amount,
    #[error(
        "a txid has 1 to 25 characters, only letters and digits in a static code ({0:?} is not one)"
    )]
    Txid(String),
    #[error("field {0} would be longer than 99 characters")]
    TooLong(&'static str),
}

impl BrCode<'_> {
    /// The payload ("Pix copia e cola"), CRC included.
    pub fn payload(&self) -> Result<String, BrCodeError> {
        if !is_text(self.merchant_name, 25) {
            return Err(BrCodeError::MerchantName);
        }
        if !is_text(self.merchant_city, 15) {
            return Err(BrCodeError::MerchantCity);
        }
        let account = match self.account {
            Account::Key(key) => tlv("01", key, "26-01")?,
            Account::Url(url) => tlv("25", url, "26-25")?,
        };
        let txid = match self.txid {
            // The manual's character set for the txid of a static code; a dynamic code's
            // location is what identifies its charge.
            Some(txid)
                if txid.is_empty()
                    || txid.chars().count() > TXID_MAX
                    || !is_text(txid, TXID_MAX)
                    || (matches!(self.account, Account::Key(_))
                        && !txid.bytes().all(|b| b.is_ascii_alphanumeric())) =>
            {
                return Err(BrCodeError::Txid(txid.to_string()));
            }
            Some(txid) => txid,
            None => "***",
        };
        let mut out = tlv("00", "01", "00")?;
        if self.single_use {
            out += &tlv("01", "12", "01")?;
        }
        out += &tlv("26", &(tlv("00", GUI, "26-00")? + &account), "26")?;
        out += &tlv("52", "0000", "52")?;
        out += &tlv("53", "986", "53")?;
        if let Some(amount) = self.amount {
            if amount.0 <= 0 {
                return Err(BrCodeError::Amount);
            }
            out += &tlv("54", &amount_text(amount), "54")?;
        }
        out += &tlv("58", "BR", "58")?;
        out += &tlv("59", self.merchant_name, "59")?;
        out += &tlv("60", self.merchant_city, "60")?;
        out += &tlv("62", &tlv("05", txid, "62-05")?, "62")?;
        Ok(with_crc(out))
    }
}

/// `123.45`: reais, a point, two decimals, as field 54 writes an amount.
pub fn amount_text(amount: Cents) -> String {
    format!("{}.{:02}", amount.0 / 100, amount.0 % 100)
}

/// Printable ASCII (the EMV common character set), 1 to `max` characters.
fn is_text(text: &str, max: usize) -> bool {
    !text.is_empty() && text.len() <= max && text.bytes().all(|b| (0x20..=0x7E).contains(&b))
}

/// One field: id, two-digit length in characters, value.
fn tlv(id: &str, value: &str, name: &'static str) -> Result<String, BrCodeError> {
    let length = value.chars().count();
    if length > 99 {
        return Err(BrCodeError::TooLong(name));
    }
    Ok(format!("{id}{length:02}{value}"))
}

/// The payload with field 63: the CRC of everything before it, `6304` included.
fn with_crc(mut payload: String) -> String {
    payload.push_str("6304");
    let crc = crc16(payload.as_bytes());
    payload.push_str(&format!("{crc:04X}"));
    payload
}

/// CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no reflection, no final
/// XOR), the checksum of field 63.
pub fn crc16(bytes: &[u8]) -> u16 {
    let mut crc: u16 = 0xFFFF;
    for &byte in bytes {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// One field as read: its id and value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub id: u8,
    pub value: String,
    /// The fields inside a template (26–51 merchant account, 62 additional data, 64
    /// language, 80–99 unreserved), each length checked; empty for other fields.
    pub fields: Vec<Field>,
}

/// The fields of a BR Code, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    pub fields: Vec<Field>,
}

impl Parsed {
    /// The value of top-level field `id`.
    pub fn get(&self, id: u8) -> Option<&str> {
        self.field(id).map(|f| f.value.as_str())
    }

    /// The value of field `sub` inside template `id` (26-01 is the key, 62-05 the txid).
    pub fn sub(&self, id: u8, sub: u8) -> Option<&str> {
        let inner = &self.field(id)?.fields;
        inner.iter().find(|f| f.id == sub).map(|f| f.value.as_str())
    }

    fn field(&self, id: u8) -> Option<&Field> {
        self.fields.iter().find(|f| f.id == id)
    }
}

/// Why a string is not a BR Code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("field at character {0}: the id and length are not four digits")]
    Header(usize),
    #[error("field {id} at character {at}: length {length} runs past the end")]
    Length { id: u8, at: usize, length: usize },
    #[error("the code does not start with field 00 = 01")]
    Start,
    #[error("the code does not end with field 63 of 4 characters")]
    End,
    #[error("the CRC is {found}, the payload's is {computed:04X}")]
    Crc { found: String, computed: u16 },
    #[error("field 26 is not a Pix account (its field 00 is not br.gov.bcb.pix)")]
    NotPix,
}

/// Read a BR Code: every field's length (inside templates too), the first field (00 = 01),
/// the last (63, the CRC, which must match) and the Pix GUI of field 26.
pub fn parse(payload: &str) -> Result<Parsed, ParseError> {
    let chars: Vec<char> = payload.chars().collect();
    let fields = fields(&chars, 0)?;
    match fields.first() {
        Some(f) if f.id == 0 && f.value == "01" => {}
        _ => return Err(ParseError::Start),
    }
    let Some(crc) = fields.last().filter(|f| f.id == 63 && f.value.len() == 4) else {
        return Err(ParseError::End);
    };
    let covered: String = chars[..chars.len() - 4].iter().collect();
    let computed = crc16(covered.as_bytes());
    if !crc.value.eq_ignore_ascii_case(&format!("{computed:04X}")) {
        return Err(ParseError::Crc {
            found: crc.value.clone(),
            computed,
        });
    }
    let parsed = Parsed { fields };
    if !parsed
        .sub(26, 0)
        .is_some_and(|gui| gui.eq_ignore_ascii_case(GUI))
    {
        return Err(ParseError::NotPix);
    }
    Ok(parsed)
}

/// The TLV fields of `chars`, which start at character `offset` of the payload.
fn fields(chars: &[char], offset: usize) -> Result<Vec<Field>, ParseError> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let digits = |from: usize| -> Option<usize> {
            let pair: String = chars.get(from..from + 2)?.iter().collect();
            pair.bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| pair.parse().ok())?
        };
        let (Some(id), Some(length)) = (digits(at), digits(at + 2)) else {
            return Err(ParseError::Header(offset + at));
        };
        let id = id as u8;
        let start = at + 4;
        let Some(value) = chars.get(start..start + length) else {
            return Err(ParseError::Length {
                id,
                at: offset + at,
                length,
            });
        };
        let is_template = matches!(id, 26..=51 | 62 | 64 | 80..=99);
        out.push(Field {
            id,
            value: value.iter().collect(),
            fields: if is_template {
                fields(value, offset + start)?
            } else {
                Vec::new()
            },
        });
        at = start + length;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The manual's example of a static code: an EVP key, no amount, no txid.
    const MANUAL_STATIC: &str = "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D";

    /// The manual's example of a dynamic code: a location, point of initiation 12, an
    /// amount and a txid (written before the txid was limited to letters and digits).
    const MANUAL_DYNAMIC: &str = "00020101021226720014br.gov.bcb.pix2550bx.com.br/pix/8b3da2f3-9a41-40d1-a91a-bd93113bd4415204000053039865406123.455802BR5913Fulano de Tal6008BRASILIA62190515RP12345678-2019630445C8";

    /// The BR Code manual's full example: more arrangements (26 and 27), a postal code
    /// (61) and an unreserved template (80) beside the Pix fields.
    const BR_CODE_MANUAL: &str = "00020104141234567890123426580014BR.GOV.BCB.PIX0136123e4567-e12b-12d1-a456-42665544000027300012BR.COM.OUTRO011001234567895204000053039865406123.455802BR5917NOME DO RECEBEDOR6008BRASILIA61087007490062190515RP12345678-201980390012BR.COM.OUTRO01190123.ABCD.3456.WXYZ6304AD38";

    const EVP: &str = "123e4567-e12b-12d1-a456-426655440000";

    #[test]
    fn the_crc_is_ccitt_false() {
        // The catalogue's check value of CRC-16/CCITT-FALSE.
        assert_eq!(crc16(b"123456789"), 0x29B1);
    }

    #[test]
    fn the_manuals_static_example_is_written_byte_for_byte() {
        let code = BrCode {
            account: Account::Key(EVP),
            merchant_name: "Fulano de Tal",
            merchant_city: "BRASILIA",
            amount: None,
            txid: None,
            single_use: false,
        };
        assert_eq!(code.payload().unwrap(), MANUAL_STATIC);
    }

    #[test]
    fn the_manuals_dynamic_example_with_amount_and_txid_is_written_byte_for_byte() {
        let code = BrCode {
            account: Account::Url("bx.com.br/pix/8b3da2f3-9a41-40d1-a91a-bd93113bd441"),
            merchant_name: "Fulano de Tal",
            merchant_city: "BRASILIA",
            amount: Some(Cents(123_45)),
            txid: Some("RP12345678-2019"),
            single_use: true,
        };
        assert_eq!(code.payload().unwrap(), MANUAL_DYNAMIC);
    }

    #[test]
    fn the_manuals_examples_parse_with_every_length_and_the_crc_checked() {
        let parsed = parse(MANUAL_STATIC).unwrap();
        let ids: Vec<u8> = parsed.fields.iter().map(|f| f.id).collect();
        assert_eq!(ids, [0, 26, 52, 53, 58, 59, 60, 62, 63]);
        assert_eq!(parsed.sub(26, 1), Some(EVP));
        assert_eq!(parsed.sub(62, 5), Some("***"));
        assert_eq!(parsed.get(63), Some("1D3D"));

        let parsed = parse(MANUAL_DYNAMIC).unwrap();
        assert_eq!(parsed.get(1), Some("12"));
        assert_eq!(parsed.get(54), Some("123.45"));
        assert_eq!(parsed.sub(62, 5), Some("RP12345678-2019"));

        let parsed = parse(BR_CODE_MANUAL).unwrap();
        assert_eq!(parsed.sub(26, 0), Some("BR.GOV.BCB.PIX"));
        assert_eq!(parsed.sub(80, 1), Some("0123.ABCD.3456.WXYZ"));
        assert_eq!(parsed.get(61), Some("70074900"));
    }

    #[test]
    fn a_code_with_a_wrong_length_or_crc_is_refused_naming_where() {
        let wrong_crc = MANUAL_STATIC.replace("1D3D", "1D3E");
        assert!(matches!(
            parse(&wrong_crc),
            Err(ParseError::Crc {
                computed: 0x1D3D,
                ..
            })
        ));
        // A name one character shorter than its length says: field 60 is read from the
        // wrong place, and the lengths no longer add up.
        let short_name = MANUAL_STATIC.replace("5913Fulano de Tal", "5913Fulano de Ta");
        assert!(parse(&short_name).is_err());
        // Inside a template too: field 26's key is one character short.
        let short_key = MANUAL_STATIC.replace("0136123e4567", "0137123e4567");
        assert!(matches!(
            parse(&short_key),
            Err(ParseError::Length { id: 1, .. })
        ));
        assert_eq!(parse("hello"), Err(ParseError::Header(0)));
        assert_eq!(parse(""), Err(ParseError::Start));
        let not_pix = with_crc("000201".to_string() + "26180014br.gov.bcb.xyz");
        assert_eq!(parse(&not_pix), Err(ParseError::NotPix));
    }

    #[test]
    fn a_static_code_with_amount_and_txid_parses_back_to_what_was_written() {
        let code = BrCode {
            account: Account::Key("11222333000181"),
            merchant_name: "Padaria Pao Dourado Ltda",
            merchant_city: "Sao Paulo",
            amount: Some(Cents(1_234_56)),
            txid: Some("chgk3j9x0a2b7c4d1e8"),
            single_use: true,
        };
        let payload = code.payload().unwrap();
        assert!(payload.starts_with("000201010212"), "{payload}");
        let parsed = parse(&payload).unwrap();
        assert_eq!(parsed.sub(26, 1), Some("11222333000181"));
        assert_eq!(parsed.get(54), Some("1234.56"));
        assert_eq!(parsed.get(59), Some("Padaria Pao Dourado Ltda"));
        assert_eq!(parsed.get(60), Some("Sao Paulo"));
        assert_eq!(parsed.sub(62, 5), Some("chgk3j9x0a2b7c4d1e8"));
        let crc = &payload[payload.len() - 4..];
        assert!(
            crc.bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_uppercase())
        );
    }

    #[test]
    fn amounts_are_reais_with_two_decimals() {
        for (cents, text) in [
            (123_45, "123.45"),
            (5_00, "5.00"),
            (1, "0.01"),
            (10_50, "10.50"),
        ] {
            assert_eq!(amount_text(Cents(cents)), text);
        }
    }

    #[test]
    fn what_the_manual_does_not_allow_is_refused() {
        let ok = BrCode {
            account: Account::Key(EVP),
            merchant_name: "Fulano de Tal",
            merchant_city: "BRASILIA",
            amount: None,
            txid: None,
            single_use: false,
        };
        let cases = [
            (
                BrCode {
                    merchant_name: "Nome com mais de vinte e cinco",
                    ..ok
                },
                BrCodeError::MerchantName,
            ),
            (
                BrCode {
                    merchant_name: "Conceição",
                    ..ok
                },
                BrCodeError::MerchantName,
            ),
            (
                BrCode {
                    merchant_city: "",
                    ..ok
                },
                BrCodeError::MerchantCity,
            ),
            (
                BrCode {
                    amount: Some(Cents(0)),
                    ..ok
                },
                BrCodeError::Amount,
            ),
            (
                BrCode {
                    txid: Some("chg_k3j9x0a2b7c4d1e8"),
                    ..ok
                },
                BrCodeError::Txid("chg_k3j9x0a2b7c4d1e8".into()),
            ),
            (
                BrCode {
                    txid: Some("a2345678901234567890123456"),
                    ..ok
                },
                BrCodeError::Txid("a2345678901234567890123456".into()),
            ),
        ];
        for (code, error) in cases {
            assert_eq!(code.payload(), Err(error));
        }
    }
}
