//! Bodies an operation vouches for: compact JSON as its serializer wrote it, with where its
//! top-level members are.
//!
//! A tool result is written from the operation's JSON body (`results::prepared`), which needs
//! the body's top-level members. Reading them with `serde_json` proves the body is JSON on the
//! way, and for a 25-row list that proof was an eighth of the MCP call (serde_json skipping
//! every string of every row). When the operation's own serializer wrote the body there is
//! nothing to prove, and the serializer knows where it wrote each member: the response carries
//! a [`WrittenJson`] naming the very bytes written and the members in them. A body that a layer
//! changed after the operation no longer is the bytes the marker names, and is read the
//! proving way.

use std::ops::Range;

use axum::body::Bytes;

/// A response extension: the body of this response is `body`, a JSON object written by a
/// serializer (`serde_json`, or a writer giving its output) with no whitespace between tokens,
/// whose top-level members are `members`: each key (inside its quotes, holding no escape) and
/// its value, as byte ranges of the body, in order. It is believed only for the body it
/// names: the same allocation and length.
#[derive(Clone, Debug)]
pub struct WrittenJson {
    /// The bytes written (a cheap copy of the response's body).
    pub body: Bytes,
    /// Each top-level member's key (inside its quotes) and value, as ranges of `body`.
    pub members: Vec<(Range<usize>, Range<usize>)>,
}

impl WrittenJson {
    /// Whether `body` is the body this marker was made for.
    pub fn names(&self, body: &Bytes) -> bool {
        self.body.as_ptr() == body.as_ptr() && self.body.len() == body.len()
    }

    /// The members of `text`, the body this marker names, as text borrowed from it; `None`
    /// if a range is not a piece of it.
    pub fn members<'a>(&self, text: &'a str) -> Option<Vec<(&'a str, &'a str)>> {
        self.members
            .iter()
            .map(|(key, value)| Some((text.get(key.clone())?, text.get(value.clone())?)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_names_only_the_bytes_it_was_made_for_and_reads_only_pieces_of_them() {
        let body = Bytes::from_static(br#"{"a":1,"b":"x"}"#);
        let marker = WrittenJson {
            body: body.clone(),
            members: vec![(2..3, 5..6), (8..9, 11..14)],
        };
        assert!(marker.names(&body));
        assert!(!marker.names(&Bytes::copy_from_slice(&body)));
        assert!(!marker.names(&body.slice(0..3)));
        let text = std::str::from_utf8(&body).unwrap();
        assert_eq!(marker.members(text), Some(vec![("a", "1"), ("b", "\"x\"")]));
        let beyond = WrittenJson {
            members: vec![(2..3, 5..99)],
            ..marker
        };
        assert_eq!(beyond.members(text), None);
    }
}
