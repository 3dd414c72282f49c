//! Bodies an operation vouches for: compact JSON as a serializer wrote it, read by their
//! punctuation alone.
//!
//! A tool result is written from the operation's JSON body (`results::prepared`), which needs
//! the body's top-level members. Reading them with `serde_json` proves the body is JSON on the
//! way, and for a 25-row list that proof was an eighth of the MCP call (serde_json skipping
//! every string of every row). When the operation's own serializer wrote the body, there is
//! nothing to prove: the response carries a [`WrittenJson`] naming the very bytes it wrote,
//! and the members are found by following quotes and brackets. A body that a layer changed
//! after the operation no longer is the bytes the marker names, and is read the proving way.

use axum::body::Bytes;

/// A response extension: the body of this response is these bytes, a JSON text written by a
/// serializer (`serde_json`, or a writer giving its output) with no whitespace between tokens.
/// It is believed only for the body it names: the same allocation and length.
#[derive(Clone, Debug)]
pub struct WrittenJson(pub Bytes);

impl WrittenJson {
    /// Whether `body` is the body this marker was made for.
    pub fn names(&self, body: &Bytes) -> bool {
        self.0.as_ptr() == body.as_ptr() && self.0.len() == body.len()
    }
}

/// The members of `json`, a compact JSON object, in their order: each key (one without
/// escapes) and the text of its value, borrowed. `None` for anything else — not an object,
/// whitespace, a key with an escape — which the caller reads the proving way.
pub fn members(json: &str) -> Option<Vec<(&str, &str)>> {
    let bytes = json.as_bytes();
    if bytes.first() != Some(&b'{') {
        return None;
    }
    let mut members = Vec::with_capacity(4);
    let mut at = 1;
    if bytes.get(at) == Some(&b'}') {
        return (bytes.len() == 2).then_some(members);
    }
    loop {
        if bytes.get(at) != Some(&b'"') {
            return None;
        }
        let end = at + 1 + quote_or_backslash(&bytes[at + 1..])?;
        if bytes[end] != b'"' {
            return None;
        }
        let key = json.get(at + 1..end)?;
        at = end + 1;
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        let start = at + 1;
        at = value_end(bytes, start)?;
        members.push((key, json.get(start..at)?));
        match bytes.get(at) {
            Some(b',') => at += 1,
            Some(b'}') if at + 1 == bytes.len() => return Some(members),
            _ => return None,
        }
    }
}

/// Where the value starting at `start` ends (the index after it).
fn value_end(bytes: &[u8], start: usize) -> Option<usize> {
    match *bytes.get(start)? {
        b'"' => string_end(bytes, start),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut at = start;
            loop {
                match *bytes.get(at)? {
                    b'"' => {
                        at = string_end(bytes, at)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(at + 1);
                        }
                    }
                    _ => {}
                }
                at += 1;
            }
        }
        // A number or a literal: up to the punctuation after it.
        _ => {
            let length = bytes[start..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']'))?;
            (length > 0).then_some(start + length)
        }
    }
}

/// Where the string whose opening quote is at `start` ends (the index after its closing quote).
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    loop {
        at += quote_or_backslash(bytes.get(at..)?)?;
        if bytes[at] == b'"' {
            return Some(at + 1);
        }
        // An escape: the backslash and the character after it.
        at += 2;
    }
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
/// than the search.
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

    /// The members as `serde_json` reads them, to compare with.
    fn proved(json: &str) -> Option<Vec<(String, Value)>> {
        let map: serde_json::Map<String, Value> = serde_json::from_str(json).ok()?;
        Some(map.into_iter().collect())
    }

    fn read(json: &str) -> Option<Vec<(String, Value)>> {
        Some(
            members(json)?
                .into_iter()
                .map(|(k, v)| (k.to_string(), serde_json::from_str(v).expect("a value")))
                .collect(),
        )
    }

    #[test]
    fn the_members_of_a_written_object_are_the_members_serde_json_reads() {
        for json in [
            r#"{"data":{"id":"chg_1","amount":389.9,"tags":["varejo"],"agreement_id":null,"n":-3}}"#,
            r#"{"data":[],"meta":{"page":1,"per_page":25,"total":0}}"#,
            r#"{"data":[{"a":{}},{"b":[[]]}],"meta":{"total":10000,"total_exact":false}}"#,
            r#"{"text":"quote \" backslash \\ close } ] , : { [ ç 💸 \u0001","":"empty key"}"#,
            r#"{"t":true,"f":false,"z":null,"e":1e-7,"s":"\\","q":"\"","long":"abcdefghijklmnopqrstuvwxyz\"0123456789"}"#,
            r#"{"meta":7,"x":1}"#,
            r#"{}"#,
        ] {
            assert_eq!(read(json), proved(json), "{json}");
        }
    }

    #[test]
    fn what_is_not_a_compact_object_is_left_to_the_proving_way() {
        for json in [
            "[1,2]",
            "",
            "{",
            r#"{"a":1"#,
            r#"{"a":1}x"#,
            r#"{"a":1}}"#,
            r#"{"a" :1}"#,
            r#"{ "a":1}"#,
            r#"{"a":}"#,
            r#"{"a":"open}"#,
            r#"{"k\"ey":1}"#,
            r#"{"a":[1,{"b":2]}"#,
        ] {
            assert_eq!(members(json), None, "{json}");
        }
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

    #[test]
    fn a_marker_names_only_the_bytes_it_was_made_for() {
        let body = Bytes::from_static(br#"{"a":1}"#);
        let marker = WrittenJson(body.clone());
        assert!(marker.names(&body));
        assert!(!marker.names(&Bytes::copy_from_slice(&body)));
        assert!(!marker.names(&body.slice(0..3)));
    }
}
