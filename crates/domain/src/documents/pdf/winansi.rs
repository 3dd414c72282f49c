//! Text as Windows-1252 bytes under WinAnsiEncoding (the one single-byte encoding every PDF
//! reader knows for the standard fonts, and it covers Portuguese), and the fonts' advance
//! widths in that encoding (Adobe's AFM metrics), which make wrapping and alignment exact.

use super::Font;

/// Width of `text` in points when set in `font` at `size`.
pub fn text_width(text: &str, font: Font, size: f32) -> f32 {
    bytes_width(&encode_win_ansi(text), font, size)
}

pub(super) fn bytes_width(bytes: &[u8], font: Font, size: f32) -> f32 {
    let widths = font.widths();
    let units: u32 = bytes
        .iter()
        .map(|&b| u32::from(widths[usize::from(b)]))
        .sum();
    units as f32 * size / 1000.0
}

/// Encode text as Windows-1252 for WinAnsiEncoding. A letter followed by a combining accent
/// (decomposed input, as some systems send names) is first joined into one character.
/// Anything Windows-1252 cannot represent, control characters included, becomes `?`:
/// the standard fonts have no other glyphs to show, and a visible mark is better than text
/// silently lost.
pub fn encode_win_ansi(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let c = match chars.peek().and_then(|&mark| compose(c, mark)) {
            Some(composed) => {
                chars.next();
                composed
            }
            None => c,
        };
        out.push(win_ansi_byte(c).unwrap_or(b'?'));
    }
    out
}

/// Windows-1252 from 0x80 to 0x9F, where Latin-1 has control codes: typographic punctuation
/// and a few letters. `\0` marks the five unassigned codes.
pub(super) const HIGH_CODES: [char; 32] = [
    '€', '\0', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\0', 'Ž', '\0', //
    '\0', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\0', 'ž', 'Ÿ',
];

/// The Windows-1252 byte of `c`, if it has one.
pub(super) fn win_ansi_byte(c: char) -> Option<u8> {
    let code = u32::from(c);
    // Latin-1 and Windows-1252 agree outside 0x80..=0x9F.
    if (0x20..=0x7E).contains(&code) || (0xA0..=0xFF).contains(&code) {
        return u8::try_from(code).ok();
    }
    if c == '\t' {
        return Some(b' ');
    }
    if c.is_control() {
        return None;
    }
    let index = HIGH_CODES.iter().position(|&h| h == c)?;
    Some(0x80 + index as u8)
}

/// `base` + combining `mark` as one precomposed character, for the accents Portuguese uses.
fn compose(base: char, mark: char) -> Option<char> {
    // Each composed list holds the lowercase results, then the uppercase ones.
    let (bases, composed) = match mark {
        '\u{0300}' => ("aeiou", "àèìòùÀÈÌÒÙ"),
        '\u{0301}' => ("aeiou", "áéíóúÁÉÍÓÚ"),
        '\u{0302}' => ("aeiou", "âêîôûÂÊÎÔÛ"),
        '\u{0303}' => ("aon", "ãõñÃÕÑ"),
        '\u{0308}' => ("aeiou", "äëïöüÄËÏÖÜ"),
        '\u{0327}' => ("c", "çÇ"),
        _ => return None,
    };
    let lower = bases.chars().position(|b| b == base);
    let upper = bases.chars().position(|b| b.to_ascii_uppercase() == base);
    let index = lower.or(upper.map(|i| i + bases.len()))?;
    composed.chars().nth(index)
}

// Advance widths of Helvetica and Helvetica-Bold from Adobe's AFM files (1999, the core-14
// metrics every reader uses), in thousandths of the font size, indexed by Windows-1252 code;
// codes without a glyph are 0 and never produced by `encode_win_ansi`.
#[rustfmt::skip]
pub(super) const REGULAR_WIDTHS: [u16; 256] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0x00
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0x10
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // 0x20
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, // 0x30
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, // 0x40
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, // 0x50
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, // 0x60
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, 0, // 0x70
    556, 0, 222, 556, 333, 1000, 556, 556, 333, 1000, 667, 333, 1000, 0, 611, 0, // 0x80
    0, 222, 222, 333, 333, 350, 556, 1000, 333, 1000, 500, 333, 944, 0, 500, 667, // 0x90
    278, 333, 556, 556, 556, 556, 260, 556, 333, 737, 370, 556, 584, 333, 737, 333, // 0xa0
    400, 584, 333, 333, 333, 578, 537, 278, 333, 333, 365, 556, 834, 834, 834, 611, // 0xb0
    667, 667, 667, 667, 667, 667, 1000, 722, 667, 667, 667, 667, 278, 278, 278, 278, // 0xc0
    722, 722, 778, 778, 778, 778, 778, 584, 778, 722, 722, 722, 722, 667, 667, 611, // 0xd0
    556, 556, 556, 556, 556, 556, 889, 500, 556, 556, 556, 556, 278, 278, 278, 278, // 0xe0
    556, 556, 556, 556, 556, 556, 556, 584, 611, 556, 556, 556, 556, 500, 556, 500, // 0xf0
];
#[rustfmt::skip]
pub(super) const BOLD_WIDTHS: [u16; 256] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0x00
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0x10
    278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, // 0x20
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611, // 0x30
    975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778, // 0x40
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556, // 0x50
    333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611, // 0x60
    611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584, 0, // 0x70
    556, 0, 278, 556, 500, 1000, 556, 556, 333, 1000, 667, 333, 1000, 0, 611, 0, // 0x80
    0, 278, 278, 500, 500, 350, 556, 1000, 333, 1000, 556, 333, 944, 0, 500, 667, // 0x90
    278, 333, 556, 556, 556, 556, 280, 556, 333, 737, 370, 556, 584, 333, 737, 333, // 0xa0
    400, 584, 333, 333, 333, 611, 556, 278, 333, 333, 365, 556, 834, 834, 834, 611, // 0xb0
    722, 722, 722, 722, 722, 722, 1000, 722, 667, 667, 667, 667, 278, 278, 278, 278, // 0xc0
    722, 722, 778, 778, 778, 778, 778, 584, 778, 722, 722, 722, 722, 667, 667, 611, // 0xd0
    556, 556, 556, 556, 556, 556, 889, 556, 556, 556, 556, 556, 278, 278, 278, 278, // 0xe0
    611, 611, 611, 611, 611, 611, 611, 584, 611, 611, 611, 611, 611, 556, 611, 556, // 0xf0
];
/// Courier's advance widths: every glyph is 600 thousandths of the size wide.
pub(super) const MONO_WIDTHS: [u16; 256] = [600; 256];
