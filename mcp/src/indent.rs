//! Compact JSON text indented as `serde_json::to_string_pretty` writes it (two spaces, `": "`,
//! empty containers as `{}` and `[]`), and, in the same pass, written as the contents of a
//! JSON string: a tool result's text content is its structured content indented.
//!
//! The text is read, never parsed into values: the result is written from the bytes of the
//! operation's answer (`results::prepared`). This file uses nothing but `std`, so that
//! `bench/floor` measures the same code in its least server (it includes this file).

/// A comma, a new line and the indentation of 32 levels, written in one copy; as the contents
/// of a JSON string (the new line escaped) and as they are. A line after a comma starts at the
/// comma, any other after it.
const ESCAPED_LINES: &str = concat!(
    ",\\n",
    "                                                                "
);
const LINES: &str = concat!(
    ",\n",
    "                                                                "
);
/// The spaces of those lines.
const SPACES: &str = "                                                                ";

/// `json` indented; `None` if it is not well nested.
#[cfg(test)]
pub fn indented(json: &str) -> Option<String> {
    let mut out = String::with_capacity(json.len() * 2);
    indent::<false>(json, &mut out)?;
    Some(out)
}

/// [`indented`] as a JSON string, quotes included (what `serde_json::to_string` of the
/// indented text gives), appended to `out`.
pub fn push_indented_string(json: &str, out: &mut String) -> Option<()> {
    out.push('"');
    indent::<true>(json, out)?;
    out.push('"');
    Some(())
}

/// Write `json` indented to `out`; when `ESCAPED`, as the contents of a JSON string. Escaping
/// a well-formed JSON text needs only `"` and `\` escaped and the new lines written `\n`: it
/// holds no other control characters. Runs of text between the bytes that matter are copied
/// whole (a byte at a time, this was a tenth of an MCP list's CPU); the few bytes written
/// around them are pushed one by one, since a copy of two bytes is a call to `memcpy` (three
/// calls a string were most of indenting a list).
fn indent<const ESCAPED: bool>(json: &str, out: &mut String) -> Option<()> {
    let bytes = json.as_bytes();
    let lines = if ESCAPED { ESCAPED_LINES } else { LINES };
    let quote = |out: &mut String| out.push_str(if ESCAPED { "\\\"" } else { "\"" });
    // A new line and its indentation, after a comma when `comma`.
    let line = |out: &mut String, depth: usize, comma: bool| {
        let lead = lines.len() - SPACES.len();
        let mut spaces = 2 * depth;
        let now = spaces.min(SPACES.len());
        out.push_str(&lines[usize::from(!comma)..lead + now]);
        spaces -= now;
        while spaces > 0 {
            let now = spaces.min(SPACES.len());
            out.push_str(&SPACES[..now]);
            spaces -= now;
        }
    };
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                quote(out);
                i += 1;
                // Every cut below is at an ASCII byte, so at a character boundary.
                loop {
                    let at = i + quote_or_backslash(&bytes[i..])?;
                    out.push_str(&json[i..at]);
                    if bytes[at] == b'"' {
                        // A key's closing quote and its colon in one copy.
                        if bytes.get(at + 1) == Some(&b':') {
                            out.push_str(if ESCAPED { "\\\": " } else { "\": " });
                            i = at + 2;
                        } else {
                            quote(out);
                            i = at + 1;
                        }
                        break;
                    }
                    // An escape: the backslash and the ASCII character after it.
                    let next = *bytes.get(at + 1).filter(|c| c.is_ascii())?;
                    if ESCAPED {
                        out.push('\\');
                    }
                    out.push('\\');
                    match next {
                        b'"' => quote(out),
                        b'\\' => {
                            if ESCAPED {
                                out.push('\\');
                            }
                            out.push('\\');
                        }
                        _ => out.push(char::from(next)),
                    }
                    i = at + 2;
                }
            }
            open @ (b'{' | b'[') => {
                let close = if open == b'{' { b'}' } else { b']' };
                let next = bytes[i + 1..].iter().position(|c| !c.is_ascii_whitespace());
                out.push(char::from(open));
                if next.map(|n| bytes[i + 1 + n]) == Some(close) {
                    out.push(char::from(close));
                    i += 2 + next?;
                } else {
                    depth += 1;
                    line(out, depth, false);
                    i += 1;
                }
            }
            close @ (b'}' | b']') => {
                depth = depth.checked_sub(1)?;
                line(out, depth, false);
                out.push(char::from(close));
                i += 1;
            }
            b',' => {
                line(out, depth, true);
                i += 1;
            }
            b':' => {
                out.push_str(": ");
                i += 1;
            }
            b' ' | b'\n' | b'\r' | b'\t' => i += 1,
            _ => {
                // A number or a literal, up to the next byte that matters.
                let end = bytes[i..]
                    .iter()
                    .position(|c| {
                        matches!(
                            c,
                            b',' | b'}'
                                | b']'
                                | b':'
                                | b'"'
                                | b'{'
                                | b'['
                                | b' '
                                | b'\n'
                                | b'\r'
                                | b'\t'
                        )
                    })
                    .map_or(bytes.len(), |n| i + n);
                out.push_str(json.get(i..end)?);
                i = end;
            }
        }
    }
    Some(())
}

/// 0x01 in every byte of a word, and 0x80.
const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);

/// The bytes of `word` equal to `byte`, as their high bits. The lowest mark is exact (a borrow
/// can only mark bytes above a true one), which is the one a search wants.
fn equal_bytes(word: u64, byte: u8) -> u64 {
    let x = word ^ (ONES * u64::from(byte));
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// The index of the first `"` or `\` in `bytes`, looking at eight bytes at a time: strings in
/// the API's answers are short (ids, words, dates), where a general search's setup costs more
/// than the search (`memchr2` was a sixth of indenting a list's text).
pub fn quote_or_backslash(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    while at + 8 <= bytes.len() {
        let word = u64::from_le_bytes(bytes[at..at + 8].try_into().expect("eight bytes"));
        let marks = equal_bytes(word, b'"') | equal_bytes(word, b'\\');
        if marks != 0 {
            return Some(at + (marks.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    bytes[at..]
        .iter()
        .position(|&b| b == b'"' || b == b'\\')
        .map(|n| at + n)
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    /// [`indented`] as a JSON string.
    fn indented_string(json: &str) -> Option<String> {
        let mut out = String::new();
        push_indented_string(json, &mut out)?;
        Some(out)
    }

    #[test]
    fn indenting_matches_serde_json_pretty() {
        for text in [
            r#"{"a":[1,{"b":[]},{}],"c":"x\"y,{}[]:","d":{"e":null}}"#,
            "[]",
            r#"[[],[[]],{"k":[{}]}]"#,
            r#"{"nome":"Conceição \\ \"Araújo\"","linhas":"um\ndois\u0001","x":-1500.5}"#,
            r#"{"escapes":"\\\"\/\b\f\r\t\u00e7\ud83d\udcb8","":"","n":[1e-7,-0,true,false,null]}"#,
        ] {
            // Escapes are copied as written: the escaped text is the JSON string of the text.
            let as_written = indented(text).unwrap();
            assert_eq!(
                indented_string(text).unwrap(),
                serde_json::to_string(&as_written).unwrap()
            );
            // What the API writes (serde_json's compact text) comes out as serde_json indents.
            let value: Value = serde_json::from_str(text).unwrap();
            let compact = serde_json::to_string(&value).unwrap();
            let pretty = serde_json::to_string_pretty(&value).unwrap();
            assert_eq!(indented(&compact).unwrap(), pretty);
            assert_eq!(
                indented_string(&compact).unwrap(),
                serde_json::to_string(&pretty).unwrap()
            );
        }
        // Deeper than the spaces written in one copy.
        let deep = format!("{}{}{}", "[{\"k\":".repeat(40), "\"v\"", "}]".repeat(40));
        let pretty = serde_json::to_string_pretty(&serde_json::from_str::<Value>(&deep).unwrap());
        assert_eq!(indented(&deep).unwrap(), pretty.unwrap());
        assert_eq!(indented(r#"{"a":1}}"#), None);
        assert_eq!(indented(r#"{"a":"unterminated}"#), None);
    }

    #[test]
    fn the_first_quote_or_backslash_is_found_at_every_place_in_a_word() {
        for length in 0..20 {
            for at in 0..length {
                for found in [b'"', b'\\'] {
                    let mut bytes = vec![b'a'; length];
                    bytes[at] = found;
                    // A later match does not hide the first.
                    if at + 1 < length {
                        bytes[length - 1] = b'"';
                    }
                    assert_eq!(quote_or_backslash(&bytes), Some(at), "{bytes:?}");
                }
            }
            assert_eq!(quote_or_backslash(&vec![b'a'; length]), None);
            // Bytes next to the ones searched for, and above 0x80, are not matches.
            assert_eq!(quote_or_backslash(&vec![b'#'; length]), None);
            assert_eq!(quote_or_backslash(&vec![0xa2; length]), None);
            assert_eq!(quote_or_backslash(&vec![0xdc; length]), None);
        }
    }
}
