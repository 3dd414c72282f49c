//! Rules of the text people and debtors write: which characters may appear at all (the text
//! rule every request passes, since text reaches PDFs, CSV exports and messages to debtors,
//! where control and bidirectional characters hide or reorder it), and the key names are
//! searched by (accents and case ignored).

/// Whether `c` may appear in a text field; `multi_line` fields may also hold line feeds and
/// tabs. Never control characters (U+0000–U+001F, U+007F–U+009F) nor bidirectional
/// embeddings, overrides or isolates (U+202A–U+202E, U+2066–U+2069).
pub fn allowed_char(c: char, multi_line: bool) -> bool {
    match c {
        '\n' | '\t' => multi_line,
        // `char::is_control` is the Unicode Cc category: U+0000–U+001F and U+007F–U+009F.
        c if c.is_control() => false,
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => false,
        _ => true,
    }
}

/// Lowercase without accents, so that "conceicao" finds "Conceição" on both engines.
pub fn search_key(text: &str) -> String {
    text.chars()
        .map(|c| without_accent(c).to_ascii_lowercase())
        .collect::<String>()
        .to_lowercase()
}

/// The letter without its accent, in its case (`Ã` → `A`, `ç` → `c`); any other character
/// as it is. Search keys and the Pix code's merchant name (plain ASCII) both use it.
pub fn without_accent(c: char) -> char {
    match c {
        'á' | 'à' | 'â' | 'ã' | 'ä' => 'a',
        'Á' | 'À' | 'Â' | 'Ã' | 'Ä' => 'A',
        'é' | 'è' | 'ê' | 'ë' => 'e',
        'É' | 'È' | 'Ê' | 'Ë' => 'E',
        'í' | 'ì' | 'î' | 'ï' => 'i',
        'Í' | 'Ì' | 'Î' | 'Ï' => 'I',
        'ó' | 'ò' | 'ô' | 'õ' | 'ö' => 'o',
        'Ó' | 'Ò' | 'Ô' | 'Õ' | 'Ö' => 'O',
        'ú' | 'ù' | 'û' | 'ü' => 'u',
        'Ú' | 'Ù' | 'Û' | 'Ü' => 'U',
        'ç' => 'c',
        'Ç' => 'C',
        'ñ' => 'n',
        'Ñ' => 'N',
        c => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_overrides_are_refused_and_line_feeds_only_where_text_spans_lines() {
        assert!(allowed_char('a', false) && allowed_char('ç', false));
        assert!(!allowed_char('\u{202E}', true));
        assert!(!allowed_char('\u{7}', true));
        assert!(!allowed_char('\n', false) && allowed_char('\n', true));
        assert!(!allowed_char('\r', true));
    }

    #[test]
    fn the_search_key_ignores_accents_and_case() {
        assert_eq!(search_key("Conceição ARAÚJO"), "conceicao araujo");
        assert_eq!(
            "Conceição ARAÚJO"
                .chars()
                .map(without_accent)
                .collect::<String>(),
            "Conceicao ARAUJO"
        );
    }
}
