//! Brazilian taxpayer documents: CPF (people) and CNPJ (companies, numeric or, since July
//! 2026, alphanumeric), validated by their check digits.

/// Kind of taxpayer document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentType {
    Cpf,
    Cnpj,
}

impl DocumentType {
    pub fn as_str(self) -> &'static str {
        match self {
            DocumentType::Cpf => "cpf",
            DocumentType::Cnpj => "cnpj",
        }
    }
}

/// A validated document, normalised to digits (and uppercase letters for CNPJ).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaxDocument {
    pub value: String,
    pub kind: DocumentType,
}

/// Why a document was refused; the message is shown to the client.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DocumentError {
    #[error("must be a CPF (11 digits) or a CNPJ (14 characters)")]
    Length,
    #[error("contains characters other than digits, letters and . / -")]
    Characters,
    #[error("check digits do not match")]
    CheckDigits,
}

impl TaxDocument {
    /// Accepts the usual punctuation (`529.982.247-25`, `11.222.333/0001-81`) and lowercase.
    pub fn parse(input: &str) -> Result<TaxDocument, DocumentError> {
        let mut chars = String::with_capacity(14);
        for c in input.trim().chars() {
            match c {
                '.' | '/' | '-' | ' ' => {}
                c if c.is_ascii_alphanumeric() => chars.push(c.to_ascii_uppercase()),
                _ => return Err(DocumentError::Characters),
            }
        }
        match chars.len() {
            11 if chars.bytes().all(|b| b.is_ascii_digit()) => {
                if is_valid_cpf(&chars) {
                    Ok(TaxDocument {
                        value: chars,
                        kind: DocumentType::Cpf,
                    })
                } else {
                    Err(DocumentError::CheckDigits)
                }
            }
            14 => {
                if is_valid_cnpj(&chars) {
                    Ok(TaxDocument {
                        value: chars,
                        kind: DocumentType::Cnpj,
                    })
                } else {
                    Err(DocumentError::CheckDigits)
                }
            }
            11 => Err(DocumentError::Characters),
            _ => Err(DocumentError::Length),
        }
    }

    /// `529.982.247-25` or `11.222.333/0001-81`.
    pub fn formatted(&self) -> String {
        format_document(&self.value)
    }
}

/// Format a stored (normalised) document for people to read.
pub fn format_document(value: &str) -> String {
    let v = value;
    match v.len() {
        11 => format!("{}.{}.{}-{}", &v[0..3], &v[3..6], &v[6..9], &v[9..11]),
        14 => format!(
            "{}.{}.{}/{}-{}",
            &v[0..2],
            &v[2..5],
            &v[5..8],
            &v[8..12],
            &v[12..14]
        ),
        _ => v.to_string(),
    }
}

fn is_valid_cpf(digits: &str) -> bool {
    let d: Vec<u32> = digits.bytes().map(|b| u32::from(b - b'0')).collect();
    if d.iter().all(|&x| x == d[0]) {
        return false;
    }
    let check = |len: usize| {
        let sum: u32 = (0..len).map(|i| d[i] * (len as u32 + 1 - i as u32)).sum();
        let rest = (sum * 10) % 11;
        if rest == 10 { 0 } else { rest }
    };
    check(9) == d[9] && check(10) == d[10]
}

/// The alphanumeric CNPJ keeps the numeric algorithm: each character counts as its ASCII
/// code minus 48 (so digits are themselves and `A` is 17); the two check digits stay numeric.
fn is_valid_cnpj(chars: &str) -> bool {
    let bytes = chars.as_bytes();
    if !bytes[12].is_ascii_digit() || !bytes[13].is_ascii_digit() {
        return false;
    }
    if bytes.iter().all(|&b| b == bytes[0]) {
        return false;
    }
    let values: Vec<u32> = bytes.iter().map(|&b| u32::from(b) - 48).collect();
    let check = |len: usize| {
        let weights: Vec<u32> = (0..len).map(|i| ((len - 1 - i) % 8 + 2) as u32).collect();
        let sum: u32 = values[..len].iter().zip(weights).map(|(v, w)| v * w).sum();
        let rest = sum % 11;
        if rest < 2 { 0 } else { 11 - rest }
    };
    check(12) == values[12] && check(13) == values[13]
}

/// Complete a 9-digit CPF base with its two check digits (used by the demo data).
pub fn cpf_with_check_digits(base: &str) -> String {
    let mut d: Vec<u32> = base.bytes().map(|b| u32::from(b - b'0')).collect();
    for len in [9usize, 10] {
        let sum: u32 = (0..len).map(|i| d[i] * (len as u32 + 1 - i as u32)).sum();
        let rest = (sum * 10) % 11;
        d.push(if rest == 10 { 0 } else { rest });
    }
    d.iter()
        .map(|x| char::from_digit(*x, 10).expect("digit"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_documents_are_normalised() {
        let cases = [
            ("529.982.247-25", "52998224725", DocumentType::Cpf),
            ("52998224725", "52998224725", DocumentType::Cpf),
            ("11.222.333/0001-81", "11222333000181", DocumentType::Cnpj),
            // Example published with the alphanumeric CNPJ specification.
            ("12.ABC.345/01DE-35", "12ABC34501DE35", DocumentType::Cnpj),
            ("12abc34501de35", "12ABC34501DE35", DocumentType::Cnpj),
        ];
        for (input, value, kind) in cases {
            let doc = TaxDocument::parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!((doc.value.as_str(), doc.kind), (value, kind), "{input}");
        }
    }

    #[test]
    fn wrong_documents_are_refused_with_a_reason() {
        let cases = [
            ("52998224724", DocumentError::CheckDigits),
            ("11111111111", DocumentError::CheckDigits),
            ("11222333000182", DocumentError::CheckDigits),
            ("1234", DocumentError::Length),
            ("5299822472A", DocumentError::Characters),
            ("529#982", DocumentError::Characters),
        ];
        for (input, error) in cases {
            assert_eq!(TaxDocument::parse(input), Err(error), "{input}");
        }
    }

    #[test]
    fn generated_cpfs_validate() {
        for base in ["123456789", "987654321", "000000001", "529982247"] {
            let cpf = cpf_with_check_digits(base);
            assert!(TaxDocument::parse(&cpf).is_ok(), "{cpf}");
        }
        assert_eq!(cpf_with_check_digits("529982247"), "52998224725");
    }

    #[test]
    fn formatting_adds_punctuation() {
        assert_eq!(format_document("52998224725"), "529.982.247-25");
        assert_eq!(format_document("11222333000181"), "11.222.333/0001-81");
    }
}

/// Complete a 12-character CNPJ base with its two check digits (used by the demo data).
pub fn cnpj_with_check_digits(base: &str) -> String {
    let mut values: Vec<u32> = base.bytes().map(|b| u32::from(b) - 48).collect();
    for len in [12usize, 13] {
        let sum: u32 = (0..len)
            .map(|i| values[i] * ((len - 1 - i) % 8 + 2) as u32)
            .sum();
        let rest = sum % 11;
        values.push(if rest < 2 { 0 } else { 11 - rest });
    }
    let mut out = base.to_string();
    out.push(char::from_digit(values[12], 10).expect("digit"));
    out.push(char::from_digit(values[13], 10).expect("digit"));
    out
}

#[cfg(test)]
mod cnpj_tests {
    use super::*;

    #[test]
    fn generated_cnpjs_validate() {
        assert_eq!(cnpj_with_check_digits("112223330001"), "11222333000181");
        assert_eq!(cnpj_with_check_digits("12ABC34501DE"), "12ABC34501DE35");
        assert!(TaxDocument::parse(&cnpj_with_check_digits("458231670001")).is_ok());
    }
}
