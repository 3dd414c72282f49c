//! Pix, the rules without IO: an organization's key (chave) and how it is checked, the
//! merchant name and city as a BR Code may carry them, the static code of a charge, and the
//! txids that tie a Pix payment back to its charge.
//!
//! A charge's static code is the organization's key with the amount due and the charge's own
//! txid, for one payment (BACEN's "Manual de Padrões para Iniciação do Pix"); a PSP
//! connection may give the charge a dynamic code instead, which is then shown in its place.
//! [`brcode`] writes and reads the EMV® fields; [`qr`] draws them as a QR code.

pub mod brcode;
pub mod qr;

use crate::document::{DocumentType, TaxDocument};
use crate::money::Cents;
use crate::text::without_accent;
use brcode::{Account, BrCode, BrCodeError};

crate::words! {
    /// The kinds of Pix key, as stored and shown.
    pub enum KeyType {
        Cpf = "cpf",
        Cnpj = "cnpj",
        Email = "email",
        Phone = "phone",
        /// A random key (chave aleatória): a UUID the PSP made.
        Evp = "evp",
    }
}

crate::words! {
    /// Where the code a charge is paid with comes from.
    pub enum Source {
        /// The organization's key, the amount due and the charge's txid.
        Static = "static",
        /// The `cobv` a PSP made for the charge.
        Dynamic = "dynamic",
    }
}

/// Longest key the directory (DICT) accepts, an e-mail's limit.
pub const KEY_MAX: usize = 77;
/// Longest merchant name a BR Code carries (field 59).
pub const NAME_MAX: usize = 25;
/// Longest merchant city a BR Code carries (field 60).
pub const CITY_MAX: usize = 15;

/// A Pix key, checked and written as the directory writes it: CPF and CNPJ in digits
/// (and uppercase letters for an alphanumeric CNPJ), e-mail in lowercase, a phone as
/// `+55` and its digits, a random key as a lowercase UUID with its hyphens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixKey {
    value: String,
    kind: KeyType,
}

/// Why a key was refused; the message is shown to the client.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error(
        "is not a Pix key: use a CPF or CNPJ, an e-mail, a mobile phone as +55 and its 11 digits, or a random key (UUID)"
    )]
    Unknown,
    #[error("is a {0} whose check digits do not match")]
    CheckDigits(&'static str),
    #[error("is not an e-mail address a Pix key can be (at most 77 characters, name@domain)")]
    Email,
    #[error("is not a Brazilian mobile number: +55, the area code and 9 digits starting with 9")]
    Phone,
    #[error("is not a random key: a UUID such as 123e4567-e12b-12d1-a456-426655440000")]
    Evp,
}

impl PixKey {
    /// Read a key of any kind, recognised by its form: an `@` makes an e-mail, a leading `+` a
    /// phone, a UUID a random key, and digits (with the usual punctuation) a CPF or CNPJ.
    pub fn parse(input: &str) -> Result<PixKey, KeyError> {
        let input = input.trim();
        let key = |value: String, kind| Ok(PixKey { value, kind });
        if input.contains('@') {
            return key(email(input)?, KeyType::Email);
        }
        if input.starts_with('+') {
            return key(phone(input)?, KeyType::Phone);
        }
        if input.len() == 36 && input.matches('-').count() == 4 {
            return key(evp(input)?, KeyType::Evp);
        }
        match TaxDocument::parse(input) {
            Ok(document) => {
                let kind = match document.kind {
                    DocumentType::Cpf => KeyType::Cpf,
                    DocumentType::Cnpj => KeyType::Cnpj,
                };
                key(document.value, kind)
            }
            Err(crate::document::DocumentError::CheckDigits) => Err(KeyError::CheckDigits(
                if input.chars().filter(char::is_ascii_alphanumeric).count() == 11 {
                    "CPF"
                } else {
                    "CNPJ"
                },
            )),
            Err(_) => Err(KeyError::Unknown),
        }
    }

    /// The key as the BR Code and the directory write it.
    pub fn as_str(&self) -> &str {
        &self.value
    }

    /// What kind of key it is.
    pub fn kind(&self) -> KeyType {
        self.kind
    }
}

/// Lowercase, `local@domain` with the directory's characters, a dotted domain of labels
/// that neither start nor end with a hyphen, at most [`KEY_MAX`] characters.
fn email(input: &str) -> Result<String, KeyError> {
    let value = input.to_ascii_lowercase();
    let (local, domain) = value.split_once('@').ok_or(KeyError::Email)?;
    let local_ok = !local.is_empty()
        && local
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+/=?^_`{|}~.-".contains(&b));
    let label_ok = |label: &str| {
        (1..=63).contains(&label.len())
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    };
    let domain_ok = domain.contains('.') && domain.split('.').all(label_ok);
    if value.len() <= KEY_MAX && local_ok && domain_ok {
        Ok(value)
    } else {
        Err(KeyError::Email)
    }
}

/// `+55`, a two-digit area code without zeros, and a mobile number: 9 digits starting with
/// 9. Spaces, hyphens and parentheses are dropped first.
fn phone(input: &str) -> Result<String, KeyError> {
    let value: String = input
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '(' | ')'))
        .collect();
    let digits = value.strip_prefix("+55").ok_or(KeyError::Phone)?.as_bytes();
    let ok = digits.len() == 11
        && digits.iter().all(u8::is_ascii_digit)
        && digits[0] != b'0'
        && digits[1] != b'0'
        && digits[2] == b'9';
    if ok { Ok(value) } else { Err(KeyError::Phone) }
}

/// A UUID in its 8-4-4-4-12 form, lowercased.
fn evp(input: &str) -> Result<String, KeyError> {
    let value = input.to_ascii_lowercase();
    let ok = value.bytes().enumerate().all(|(i, b)| match i {
        8 | 13 | 18 | 23 => b == b'-',
        _ => b.is_ascii_hexdigit(),
    });
    if ok { Ok(value) } else { Err(KeyError::Evp) }
}

/// Why a merchant name or city was refused; the message is shown to the client.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    #[error("must not be blank")]
    Blank,
    #[error("must have at most {0} characters, as the Pix code carries it")]
    TooLong(usize),
    #[error("holds characters a Pix code cannot carry: {0}")]
    Characters(String),
}

/// A merchant name or city as a BR Code carries it: accents removed (`São Paulo` → `Sao
/// Paulo`), typographic dashes and quotes made plain, spaces collapsed, case kept (the
/// manual's own example is `Fulano de Tal`), and then only printable ASCII, EMV's common
/// character set, in at most `max` characters.
pub fn merchant_text(input: &str, max: usize) -> Result<String, TextError> {
    let mut out = String::with_capacity(input.len());
    let mut refused = String::new();
    for c in input
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
    {
        let c = match without_accent(c) {
            '–' | '—' => '-',
            '‘' | '’' => '\'',
            '“' | '”' => '"',
            c => c,
        };
        if (' '..='~').contains(&c) {
            out.push(c);
        } else if !refused.contains(c) {
            refused.push(c);
        }
    }
    if !refused.is_empty() {
        return Err(TextError::Characters(refused));
    }
    match out.chars().count() {
        0 => Err(TextError::Blank),
        n if n > max => Err(TextError::TooLong(max)),
        _ => Ok(out),
    }
}

/// An organization's Pix setup: its key and the name and city its codes carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixSettings {
    pub key: PixKey,
    /// At most [`NAME_MAX`] characters of printable ASCII.
    pub merchant_name: String,
    /// At most [`CITY_MAX`] characters of printable ASCII.
    pub merchant_city: String,
}

/// A field of the Pix setup that was refused, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// `key`, `merchant_name` or `merchant_city`.
    pub field: &'static str,
    pub message: String,
}

impl PixSettings {
    /// Check a setup as given (by the API or the command line): every refused field, named.
    pub fn new(key: &str, merchant_name: &str, merchant_city: &str) -> Result<Self, Vec<Fault>> {
        let mut faults = Vec::new();
        let mut fault = |field, message: String| faults.push(Fault { field, message });
        let key = PixKey::parse(key).map_err(|e| fault("key", e.to_string()));
        let name = merchant_text(merchant_name, NAME_MAX)
            .map_err(|e| fault("merchant_name", e.to_string()));
        let city = merchant_text(merchant_city, CITY_MAX)
            .map_err(|e| fault("merchant_city", e.to_string()));
        match (key, name, city) {
            (Ok(key), Ok(merchant_name), Ok(merchant_city)) => Ok(PixSettings {
                key,
                merchant_name,
                merchant_city,
            }),
            _ => Err(faults),
        }
    }

    /// The static code of a charge: this key, the amount due now (none when nothing is
    /// due, so the payer types it), the charge's txid, for one payment.
    pub fn charge_code(&self, charge_id: &str, amount: Cents) -> Result<String, BrCodeError> {
        let txid = static_txid(charge_id);
        BrCode {
            account: Account::Key(self.key.as_str()),
            merchant_name: &self.merchant_name,
            merchant_city: &self.merchant_city,
            amount: (amount.0 > 0).then_some(amount),
            txid: Some(&txid),
            single_use: true,
        }
        .payload()
    }
}

// Txids. A Pix payment carries the txid of the code it paid, and that is how a payment is
// matched with its charge: the static code's is the charge id without its `_` (19 letters and
// digits, within the manual's 25); a dynamic charge at a PSP (`cobv`) takes the same, then
// `cobv` and a three-digit revision (26 characters, within the API Pix's 26 to 35).

/// Prefix of a charge id (`dunning_store::ids::new_id("chg")`).
const CHARGE_PREFIX: &str = "chg";
/// Characters after the prefix and `_` in every id `dunning_store::ids` makes.
const ID_CHARS: usize = 16;
/// What sets a `cobv`'s txid apart from the static one.
const COBV_MARK: &str = "cobv";

/// The txid of a charge's static code: `chg_k3j9x0a2b7c4d1e8` → `chgk3j9x0a2b7c4d1e8`.
pub fn static_txid(charge_id: &str) -> String {
    charge_id.replace('_', "")
}

/// The charge a txid was made for, from a static code's txid or a `cobv`'s
/// (`chgk3j9x0a2b7c4d1e8` or `chgk3j9x0a2b7c4d1e8cobv001`); `None` for any other txid.
pub fn charge_id_from_txid(txid: &str) -> Option<String> {
    let rest = txid.strip_prefix(CHARGE_PREFIX)?;
    let (random, revision) = rest.split_at_checked(ID_CHARS)?;
    let random_ok = random
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    let revision_ok = revision.is_empty()
        || revision
            .strip_prefix(COBV_MARK)
            .is_some_and(|digits| digits.len() == 3 && digits.bytes().all(|b| b.is_ascii_digit()));
    (random_ok && revision_ok).then(|| format!("{CHARGE_PREFIX}_{random}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_recognised_by_their_form_and_written_as_the_directory_does() {
        let cases = [
            ("529.982.247-25", "52998224725", KeyType::Cpf),
            ("11.222.333/0001-81", "11222333000181", KeyType::Cnpj),
            ("12.ABC.345/01DE-35", "12ABC34501DE35", KeyType::Cnpj),
            (
                " Financeiro@PaoDourado.com.br ",
                "financeiro@paodourado.com.br",
                KeyType::Email,
            ),
            ("+55 (11) 98765-4321", "+5511987654321", KeyType::Phone),
            (
                "123E4567-E12B-12D1-A456-426655440000",
                "123e4567-e12b-12d1-a456-426655440000",
                KeyType::Evp,
            ),
        ];
        for (input, value, kind) in cases {
            let key = PixKey::parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!((key.as_str(), key.kind()), (value, kind), "{input}");
        }
    }

    #[test]
    fn keys_that_are_not_keys_are_refused_with_a_reason() {
        let cases = [
            ("52998224724", KeyError::CheckDigits("CPF")),
            ("11222333000182", KeyError::CheckDigits("CNPJ")),
            ("1234", KeyError::Unknown),
            ("", KeyError::Unknown),
            ("pix key", KeyError::Unknown),
            ("ana@", KeyError::Email),
            ("ana@localhost", KeyError::Email),
            ("ana maria@x.com", KeyError::Email),
            ("ana@-x.com", KeyError::Email),
            (&format!("{}@x.com", "a".repeat(72)), KeyError::Email),
            ("+5511387654321", KeyError::Phone),
            ("+551198765432", KeyError::Phone),
            ("+1 415 555 2671", KeyError::Phone),
            ("+5501987654321", KeyError::Phone),
            ("123e4567-e12b-12d1-a456-42665544000g", KeyError::Evp),
        ];
        for (input, error) in cases {
            assert_eq!(PixKey::parse(input), Err(error), "{input}");
        }
        // The longest e-mail the directory takes is a key.
        assert!(PixKey::parse(&format!("{}@x.com", "a".repeat(71))).is_ok());
    }

    #[test]
    fn names_and_cities_lose_accents_keep_case_and_fit_the_code() {
        let cases = [
            ("São Paulo", 15, Ok("Sao Paulo")),
            (
                "  Padaria   Pão Dourado  Ltda ",
                25,
                Ok("Padaria Pao Dourado Ltda"),
            ),
            (
                "Clínica Sorriso Feliz S/A",
                25,
                Ok("Clinica Sorriso Feliz S/A"),
            ),
            ("Niterói", 15, Ok("Niteroi")),
            ("D’Ávila — Açaí", 25, Ok("D'Avila - Acai")),
            ("Florianópolis SC", 15, Err(TextError::TooLong(15))),
            ("   ", 15, Err(TextError::Blank)),
            (
                "Café ☕ & Cia ☕",
                25,
                Err(TextError::Characters("☕".into())),
            ),
        ];
        for (input, max, expected) in cases {
            assert_eq!(
                merchant_text(input, max),
                expected.map(str::to_string),
                "{input}"
            );
        }
    }

    #[test]
    fn a_setup_names_every_field_it_refuses() {
        let faults = PixSettings::new("52998224724", "", "Cidade Grande Demais").unwrap_err();
        let fields: Vec<&str> = faults.iter().map(|f| f.field).collect();
        assert_eq!(fields, ["key", "merchant_name", "merchant_city"]);
        assert!(faults[0].message.contains("check digits"), "{faults:?}");
    }

    #[test]
    fn a_charges_static_code_is_for_one_payment_of_the_amount_due_with_its_txid() {
        let settings = PixSettings::new(
            "11.222.333/0001-81",
            "Padaria Pão Dourado Ltda",
            "São Paulo",
        )
        .unwrap();
        let code = settings
            .charge_code("chg_k3j9x0a2b7c4d1e8", Cents(360_01))
            .unwrap();
        let parsed = brcode::parse(&code).unwrap();
        assert_eq!(parsed.get(1), Some("12"));
        assert_eq!(parsed.sub(26, 1), Some("11222333000181"));
        assert_eq!(parsed.get(54), Some("360.01"));
        assert_eq!(parsed.get(59), Some("Padaria Pao Dourado Ltda"));
        assert_eq!(parsed.get(60), Some("Sao Paulo"));
        assert_eq!(parsed.sub(62, 5), Some("chgk3j9x0a2b7c4d1e8"));
        // Nothing due: no amount, the payer types it.
        let open = settings
            .charge_code("chg_k3j9x0a2b7c4d1e8", Cents(0))
            .unwrap();
        assert_eq!(brcode::parse(&open).unwrap().get(54), None);
    }

    #[test]
    fn a_txid_leads_back_to_its_charge_from_the_static_code_and_from_a_cobv() {
        let id = "chg_k3j9x0a2b7c4d1e8";
        let txid = static_txid(id);
        assert_eq!(txid, "chgk3j9x0a2b7c4d1e8");
        assert!(txid.len() <= brcode::TXID_MAX);
        assert_eq!(charge_id_from_txid(&txid).as_deref(), Some(id));
        let cobv = format!("{txid}cobv001");
        assert_eq!(cobv.len(), 26);
        assert_eq!(charge_id_from_txid(&cobv).as_deref(), Some(id));
        for other in [
            "chgk3j9x0a2b7c4d1e",
            "chgk3j9x0a2b7c4d1e8x",
            "chgk3j9x0a2b7c4d1e8cobv01",
            "chgk3j9x0a2b7c4d1e8cobv0011",
            "chgK3J9X0A2B7C4D1E8",
            "agrk3j9x0a2b7c4d1e8",
            "***",
            "",
        ] {
            assert_eq!(charge_id_from_txid(other), None, "{other}");
        }
    }
}
