//! A reader of the PDFs written here, for tests: the text each text operation shows, decoded
//! from Windows-1252 (`pdftotext` may not be installed where tests run).

use super::winansi::HIGH_CODES;

/// The text shown by a PDF written here, one entry per text operation, decoded from
/// Windows-1252. Tests read documents with it since `pdftotext` may not be installed.
pub(crate) fn shown_text(pdf: &[u8]) -> Vec<String> {
    pdf.split(|&b| b == b'\n')
        .filter_map(|line| line.strip_suffix(b" Tj"))
        .map(|operand| {
            let bytes = match operand.first() {
                Some(b'<') => hex::decode(&operand[1..operand.len() - 1]).expect("hex"),
                _ => unescape(&operand[1..operand.len() - 1]),
            };
            bytes.iter().map(|&b| decode_byte(b)).collect()
        })
        .collect()
}

fn decode_byte(b: u8) -> char {
    match b {
        0x80..=0x9F => HIGH_CODES[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

/// Undo the escapes pdf-writer puts in literal strings: `\\`, `\(`, `\)`, `\n` and octal.
fn unescape(literal: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut bytes = literal.iter().copied().peekable();
    while let Some(b) = bytes.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match bytes.next() {
            Some(b'n') => out.push(b'\n'),
            Some(b'r') => out.push(b'\r'),
            Some(b't') => out.push(b'\t'),
            Some(d @ b'0'..=b'7') => {
                let mut value = u32::from(d - b'0');
                for _ in 0..2 {
                    match bytes.peek() {
                        Some(&o @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(o - b'0');
                            bytes.next();
                        }
                        _ => break,
                    }
                }
                out.push(value as u8);
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}
