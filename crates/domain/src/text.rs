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
        .map(|c| match c {
            'á' | 'à' | 'â' | 'ã' | 'ä' | 'Á' | 'À' | 'Â' | 'Ã' | 'Ä' => 'a',
            'é' | 'è' | 'ê' | 'ë' | 'É' | 'È' | 'Ê' | 'Ë' => 'e',
            'í' | 'ì' | 'î' | 'ï' | 'Í' | 'Ì' | 'Î' | 'Ï' => 'i',
            'ó' | 'ò' | 'ô' | 'õ' | 'ö' | 'Ó' | 'Ò' | 'Ô' | 'Õ' | 'Ö' => 'o',
            'ú' | 'ù' | 'û' | 'ü' | 'Ú' | 'Ù' | 'Û' | 'Ü' => 'u',
            'ç' | 'Ç' => 'c',
            'ñ' | 'Ñ' => 'n',
            c => c.to_ascii_lowercase(),
        })
        .collect::<String>()
        .to_lowercase()
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
    }
}
