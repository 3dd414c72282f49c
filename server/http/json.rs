//! The JSON writer of answers (the `/v1` answers, through `api::answers::reply::answer`): what
//! `serde_json::to_vec` writes, byte for byte, with strings escaped eight bytes at a time.
//!
//! `serde_json` looks every byte of every key and string up in a table on its own, and a
//! 25-row list is some 740 keys and strings: that search was 18 % of a list's instructions
//! (bench/RESULTS.md). It cannot be changed from outside: its `Formatter` is handed the runs
//! the search has already found. So this is `serde_json`'s serializer again, over
//! `serde_json`'s own `CompactFormatter` for numbers and escapes, with only the search
//! replaced: a string's bytes read eight at a time as one word, tested at once for a quote, a
//! backslash or a control character, and the string copied whole when none holds one (nearly
//! always); one that does is escaped a byte at a time. Tests compare every output with
//! `serde_json`'s.

use std::fmt::{self, Write as _};
use std::ops::Range;

use serde::ser::{self, Serialize};
use serde_json::Error;
use serde_json::ser::{CharEscape, CompactFormatter, Formatter};

/// A JSON text as [`to_vec`] wrote it, with where its top-level members are.
pub struct Written {
    pub json: Vec<u8>,
    /// For a JSON object whose keys hold no escape, each member's key (inside its quotes) and
    /// value, in the order written; `None` for any other text.
    pub members: Option<Vec<(Range<usize>, Range<usize>)>>,
}

/// `value` as compact JSON, exactly as `serde_json::to_vec` writes it, with its members.
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Written, Error> {
    // A detail answer is about a kilobyte; a list page grows from there.
    let mut writer = Writer {
        out: Vec::with_capacity(1024),
        depth: 0,
        members: None,
    };
    value.serialize(&mut writer)?;
    Ok(Written {
        json: writer.out,
        members: writer.members,
    })
}

/// The serializer: what has been written so far, how deep in it, and the top-level members.
struct Writer {
    out: Vec<u8>,
    /// The arrays and objects open.
    depth: usize,
    /// The top-level object's members so far: `Some` once one opens at the top, `None` again
    /// if one of its keys holds an escape.
    members: Option<Vec<(Range<usize>, Range<usize>)>>,
}

/// The name `serde_json::value::RawValue` serializes itself under, which `serde_json` alone
/// knows to write as text. No answer holds one; one that did is refused, not misspelled.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

impl Writer {
    fn formatter() -> CompactFormatter {
        CompactFormatter
    }

    fn string(&mut self, value: &str) {
        self.out.reserve(value.len() + 2);
        self.out.push(b'"');
        escape_into(&mut self.out, value);
        self.out.push(b'"');
    }
}

/// 0x01 in every byte of a word, and 0x80: the constants of the word-at-a-time tests.
const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);

/// Whether a byte of `word` is below 0x20, a quote or a backslash: the bytes JSON escapes.
/// Each test is exact for "some byte of the word" (a borrow may mark bytes after the first
/// match too, which only says yes where the answer is already yes).
fn needs_escape(word: u64) -> bool {
    let below_space = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let is_quote = quote.wrapping_sub(ONES) & !quote;
    let is_backslash = backslash.wrapping_sub(ONES) & !backslash;
    (below_space | is_quote | is_backslash) & HIGHS != 0
}

/// The escape of `byte`, if JSON needs one: what `serde_json` writes for it.
fn escape_of(byte: u8) -> Option<CharEscape> {
    Some(match byte {
        b'"' => CharEscape::Quote,
        b'\\' => CharEscape::ReverseSolidus,
        b'\x08' => CharEscape::Backspace,
        b'\x0c' => CharEscape::FormFeed,
        b'\n' => CharEscape::LineFeed,
        b'\r' => CharEscape::CarriageReturn,
        b'\t' => CharEscape::Tab,
        0x00..=0x1f => CharEscape::AsciiControl(byte),
        _ => return None,
    })
}

/// Append `value` escaped as the contents of a JSON string: copied whole when it holds
/// nothing to escape, which is nearly always; otherwise a byte at a time.
fn escape_into(out: &mut Vec<u8>, value: &str) {
    let bytes = value.as_bytes();
    if !holds_escape(bytes) {
        out.extend_from_slice(bytes);
        return;
    }
    let mut run_start = 0;
    for (at, &byte) in bytes.iter().enumerate() {
        if let Some(escape) = escape_of(byte) {
            out.extend_from_slice(&bytes[run_start..at]);
            let _ = Writer::formatter().write_char_escape(out, escape);
            run_start = at + 1;
        }
    }
    out.extend_from_slice(&bytes[run_start..]);
}

/// Whether some byte of `bytes` needs an escape, read eight at a time; the last word of a
/// text of eight bytes or more overlaps the one before it. Most strings of an answer are
/// short (its keys, ids, words, dates), and each is one word test: up to sixteen bytes, two
/// overlapping words; up to eight, its first and last four bytes made into one word; up to
/// three, its first, middle and last bytes (a byte loop was a tenth of a list's instructions).
fn holds_escape(bytes: &[u8]) -> bool {
    let word = |eight: &[u8]| u64::from_le_bytes(eight.try_into().expect("eight bytes"));
    let half = |four: &[u8]| u64::from(u32::from_le_bytes(four.try_into().expect("four bytes")));
    match bytes.len() {
        0 => return false,
        1..4 => {
            let (first, middle, last) = (bytes[0], bytes[bytes.len() / 2], bytes[bytes.len() - 1]);
            return needs_escape(u64::from_le_bytes([
                first, middle, last, first, first, first, first, first,
            ]));
        }
        4..8 => {
            return needs_escape(half(&bytes[..4]) | half(&bytes[bytes.len() - 4..]) << 32);
        }
        8..=16 => {
            return needs_escape(word(&bytes[..8]))
                || needs_escape(word(&bytes[bytes.len() - 8..]));
        }
        _ => {}
    }
    let mut words = bytes.chunks_exact(8);
    if words.any(|eight| needs_escape(word(eight))) {
        return true;
    }
    !words.remainder().is_empty() && needs_escape(word(&bytes[bytes.len() - 8..]))
}

/// `fmt::Write` into a string being written: what `collect_str` formats goes straight in,
/// escaped, as `serde_json` does it.
struct Escaping<'a>(&'a mut Vec<u8>);

impl fmt::Write for Escaping<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        escape_into(self.0, s);
        Ok(())
    }
}

/// Numbers as `serde_json` writes them (itoa, and zmij for floats; non-finite floats are
/// `null`). Writing to a `Vec` cannot fail.
macro_rules! integer {
    ($method:ident, $type:ty, $write:ident) => {
        fn $method(self, value: $type) -> Result<(), Error> {
            let _ = Writer::formatter().$write(&mut self.out, value);
            Ok(())
        }
    };
}

/// Below this, a double that is the nearest one to a whole number of centavos is written by
/// [`write_cents`]. Doubles are spaced less than a thousandth apart up to here, so no decimal
/// with fewer digits than the centavos' own lies within half a spacing of the number: the
/// shortest text that reads back as it (what zmij finds) is those digits.
const CENTS_BELOW: f64 = 1e13;

/// The centavos `value` stands for, when it is the double nearest to a whole number of them
/// (every amount of money an answer holds: `Cents` are written as reais). Such numbers are
/// most of an answer's, and zmij's general shortest-form search cost ~200 instructions each.
fn whole_cents(value: f64) -> Option<i64> {
    // NaN and the infinities are not below the bound either.
    let small = value.abs() < CENTS_BELOW;
    if !small || (value == 0.0 && value.is_sign_negative()) {
        return None;
    }
    let cents = (value * 100.0).round();
    // Division by 100 rounds to the nearest double: equal means `value` is that double.
    (cents / 100.0 == value).then_some(cents as i64)
}

/// `cents` as reais the way zmij writes them: the whole part, a point, and the centavos
/// without a trailing zero (at least one digit: `3.0`, `3.5`, `3.05`).
fn write_cents(out: &mut Vec<u8>, cents: i64) {
    if cents < 0 {
        out.push(b'-');
    }
    let magnitude = cents.unsigned_abs();
    let _ = Writer::formatter().write_u64(out, magnitude / 100);
    let fraction = (magnitude % 100) as u8;
    out.push(b'.');
    out.push(b'0' + fraction / 10);
    if !fraction.is_multiple_of(10) {
        out.push(b'0' + fraction % 10);
    }
}

impl<'a> ser::Serializer for &'a mut Writer {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, value: bool) -> Result<(), Error> {
        self.out
            .extend_from_slice(if value { b"true" } else { b"false" });
        Ok(())
    }

    integer!(serialize_i8, i8, write_i8);
    integer!(serialize_i16, i16, write_i16);
    integer!(serialize_i32, i32, write_i32);
    integer!(serialize_i64, i64, write_i64);
    integer!(serialize_i128, i128, write_i128);
    integer!(serialize_u8, u8, write_u8);
    integer!(serialize_u16, u16, write_u16);
    integer!(serialize_u32, u32, write_u32);
    integer!(serialize_u64, u64, write_u64);
    integer!(serialize_u128, u128, write_u128);

    fn serialize_f32(self, value: f32) -> Result<(), Error> {
        if value.is_finite() {
            let _ = Writer::formatter().write_f32(&mut self.out, value);
        } else {
            self.out.extend_from_slice(b"null");
        }
        Ok(())
    }

    fn serialize_f64(self, value: f64) -> Result<(), Error> {
        if let Some(cents) = whole_cents(value) {
            write_cents(&mut self.out, cents);
        } else if value.is_finite() {
            let _ = Writer::formatter().write_f64(&mut self.out, value);
        } else {
            self.out.extend_from_slice(b"null");
        }
        Ok(())
    }

    fn serialize_char(self, value: char) -> Result<(), Error> {
        self.string(value.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    fn serialize_str(self, value: &str) -> Result<(), Error> {
        self.string(value);
        Ok(())
    }

    fn serialize_bytes(self, value: &[u8]) -> Result<(), Error> {
        let _ = Writer::formatter().write_byte_array(&mut self.out, value);
        Ok(())
    }

    fn serialize_none(self) -> Result<(), Error> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Error> {
        self.serialize_none()
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_none()
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.out.push(b'{');
        self.string(variant);
        self.out.push(b':');
        // The value is inside this object: not the top level, whatever it is.
        self.depth += 1;
        value.serialize(&mut *self)?;
        self.depth -= 1;
        self.out.push(b'}');
        Ok(())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        self.out.push(b'[');
        Ok(Compound::new(self, b"]"))
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'a>, Error> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'a>, Error> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        self.out.push(b'{');
        self.string(variant);
        self.out.extend_from_slice(b":[");
        Ok(Compound::new(self, b"]}"))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(Compound::object(self))
    }

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Compound<'a>, Error> {
        if name == RAW_VALUE_TOKEN {
            return Err(ser::Error::custom(
                "a RawValue is written by serde_json, not by http::json",
            ));
        }
        self.serialize_map(Some(len))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        self.out.push(b'{');
        self.string(variant);
        self.out.extend_from_slice(b":{");
        Ok(Compound::new(self, b"}}"))
    }

    fn collect_str<T: fmt::Display + ?Sized>(self, value: &T) -> Result<(), Error> {
        self.out.push(b'"');
        write!(Escaping(&mut self.out), "{value}").map_err(ser::Error::custom)?;
        self.out.push(b'"');
        Ok(())
    }
}

/// An array, object or variant being written: whether a member has been, what closes it, and
/// whether it is the top-level object, whose members are noted.
struct Compound<'a> {
    writer: &'a mut Writer,
    first: bool,
    close: &'static [u8],
    top_object: bool,
    /// The key of the member being written, between `serialize_key` and `serialize_value`.
    key: Range<usize>,
}

impl<'a> Compound<'a> {
    fn new(writer: &'a mut Writer, close: &'static [u8]) -> Compound<'a> {
        writer.depth += 1;
        Compound {
            writer,
            first: true,
            close,
            top_object: false,
            key: 0..0,
        }
    }

    /// An object: the top-level one has its members noted.
    fn object(writer: &'a mut Writer) -> Compound<'a> {
        let top_object = writer.depth == 0;
        if top_object {
            writer.members = Some(Vec::with_capacity(4));
        }
        writer.out.push(b'{');
        Compound {
            top_object,
            ..Compound::new(writer, b"}")
        }
    }

    fn separate(&mut self) {
        if !std::mem::take(&mut self.first) {
            self.writer.out.push(b',');
        }
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.separate();
        value.serialize(&mut *self.writer)
    }

    /// Write a key with `write`, and note it (inside its quotes) when it is a top-level one
    /// written as it is.
    fn key(&mut self, write: impl FnOnce(&mut Writer) -> Result<(), Error>) -> Result<(), Error> {
        self.separate();
        let start = self.writer.out.len();
        write(self.writer)?;
        if self.top_object {
            let end = self.writer.out.len();
            let text = &self.writer.out[start..end];
            if text.len() >= 2 && !text[1..text.len() - 1].contains(&b'\\') {
                self.key = start + 1..end - 1;
            } else {
                self.writer.members = None;
            }
        }
        Ok(())
    }

    fn value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.writer.out.push(b':');
        let start = self.writer.out.len();
        value.serialize(&mut *self.writer)?;
        if self.top_object
            && let Some(members) = &mut self.writer.members
        {
            members.push((self.key.clone(), start..self.writer.out.len()));
        }
        Ok(())
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        if self.top_object {
            self.key(|writer| {
                writer.string(key);
                Ok(())
            })?;
            return self.value(value);
        }
        // Below the top, as `serde_json` does it and nothing more: a list's rows are here.
        self.separate();
        self.writer.string(key);
        self.writer.out.push(b':');
        value.serialize(&mut *self.writer)
    }

    fn end(self) -> Result<(), Error> {
        self.writer.out.extend_from_slice(self.close);
        self.writer.depth -= 1;
        Ok(())
    }
}

/// The compounds whose members are values alone (arrays, tuples, tuple variants), each
/// written by [`Compound::element`].
macro_rules! elements {
    ($($trait:ident :: $method:ident),*) => {
        $(impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.element(value)
            }
            fn end(self) -> Result<(), Error> {
                Compound::end(self)
            }
        })*
    };
}

elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key(|writer| key.serialize(MapKey(writer)))
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.value(value)
    }
    fn end(self) -> Result<(), Error> {
        Compound::end(self)
    }
}

/// The compounds whose members are named by static keys (structs, struct variants), each
/// written by [`Compound::field`].
macro_rules! fields {
    ($($trait:ident),*) => {
        $(impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Error> {
                self.field(key, value)
            }
            fn end(self) -> Result<(), Error> {
                Compound::end(self)
            }
        })*
    };
}

fields!(SerializeStruct, SerializeStructVariant);

/// The key of a map entry: a string, or what `serde_json` writes as one (a number or a bool
/// in quotes, a unit variant's name); anything else is refused, as `serde_json` refuses it.
struct MapKey<'a>(&'a mut Writer);

fn key_must_be_a_string() -> Error {
    ser::Error::custom("key must be a string")
}

macro_rules! quoted_integer_key {
    ($method:ident, $type:ty, $write:ident) => {
        fn $method(self, value: $type) -> Result<(), Error> {
            self.0.out.push(b'"');
            let _ = Writer::formatter().$write(&mut self.0.out, value);
            self.0.out.push(b'"');
            Ok(())
        }
    };
}

macro_rules! quoted_float_key {
    ($method:ident, $type:ty, $write:ident) => {
        fn $method(self, value: $type) -> Result<(), Error> {
            if !value.is_finite() {
                return Err(ser::Error::custom("float key must be finite"));
            }
            self.0.out.push(b'"');
            let _ = Writer::formatter().$write(&mut self.0.out, value);
            self.0.out.push(b'"');
            Ok(())
        }
    };
}

macro_rules! refused_key {
    ($($method:ident($($arg:ty),*)),* $(,)?) => {
        $(fn $method(self, $(_: $arg),*) -> Result<(), Error> {
            Err(key_must_be_a_string())
        })*
    };
}

impl ser::Serializer for MapKey<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_str(self, value: &str) -> Result<(), Error> {
        self.0.string(value);
        Ok(())
    }

    fn serialize_char(self, value: char) -> Result<(), Error> {
        self.0.string(value.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    fn serialize_bool(self, value: bool) -> Result<(), Error> {
        self.0
            .out
            .extend_from_slice(if value { b"\"true\"" } else { b"\"false\"" });
        Ok(())
    }

    quoted_integer_key!(serialize_i8, i8, write_i8);
    quoted_integer_key!(serialize_i16, i16, write_i16);
    quoted_integer_key!(serialize_i32, i32, write_i32);
    quoted_integer_key!(serialize_i64, i64, write_i64);
    quoted_integer_key!(serialize_i128, i128, write_i128);
    quoted_integer_key!(serialize_u8, u8, write_u8);
    quoted_integer_key!(serialize_u16, u16, write_u16);
    quoted_integer_key!(serialize_u32, u32, write_u32);
    quoted_integer_key!(serialize_u64, u64, write_u64);
    quoted_integer_key!(serialize_u128, u128, write_u128);

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }

    fn collect_str<T: fmt::Display + ?Sized>(self, value: &T) -> Result<(), Error> {
        self.0.collect_str(value)
    }

    quoted_float_key!(serialize_f32, f32, write_f32);
    quoted_float_key!(serialize_f64, f64, write_f64);

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    refused_key!(
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
    );
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_must_be_a_string())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Serialize;
    use serde_json::{Value, json};

    use super::to_vec;
    use dunning_domain::money::Cents;
    use dunning_domain::timestamp::Timestamp;

    /// `value` written by both, which must agree byte for byte.
    fn same<T: Serialize + ?Sized + std::fmt::Debug>(value: &T) {
        let ours = to_vec(value).expect("ours writes it").json;
        let theirs = serde_json::to_vec(value).expect("serde_json writes it");
        assert_eq!(
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&theirs),
            "{value:?}"
        );
    }

    /// A small deterministic generator (xorshift), so a failure names a reproducible case.
    struct Draw(u64);
    impl Draw {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// The characters a string is drawn from: every byte JSON escapes, their neighbours, the
    /// bytes the word test is built from, and characters of two, three and four bytes.
    const ALPHABET: &[char] = &[
        '\0', '\x01', '\x07', '\x08', '\t', '\n', '\x0b', '\x0c', '\r', '\x1f', ' ', '!', '"', '#',
        '/', '[', '\\', ']', 'a', 'Z', '0', '\x7f', '\u{80}', 'é', 'ç', '\u{2028}', '€', '😀',
        '\u{ffff}',
    ];

    #[test]
    fn every_escaped_character_is_written_as_serde_json_writes_it_at_every_place_in_a_word() {
        for code in (0u32..0x80).chain([0xe9, 0x2028, 0x1f600]) {
            let c = char::from_u32(code).expect("a character");
            for before in 0..17 {
                for after in [0, 1, 7, 8, 9] {
                    let text = format!("{}{c}{}", "x".repeat(before), "y".repeat(after));
                    same(&text);
                }
            }
        }
    }

    #[test]
    fn drawn_strings_are_written_as_serde_json_writes_them() {
        let mut draw = Draw(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let len = draw.below(40) as usize;
            let text: String = (0..len)
                .map(|_| {
                    if draw.below(3) == 0 {
                        ALPHABET[draw.below(ALPHABET.len() as u64) as usize]
                    } else {
                        char::from(b'a' + draw.below(26) as u8)
                    }
                })
                .collect();
            same(&text);
            same(&BTreeMap::from([(text.clone(), text)]));
        }
    }

    #[test]
    fn amounts_of_money_and_other_numbers_are_written_as_serde_json_writes_them() {
        let mut values: Vec<f64> = (-300_000i64..=300_000).map(|c| c as f64 / 100.0).collect();
        let mut draw = Draw(0x5eed);
        for _ in 0..50_000 {
            // Centavos up to 10^15 (past the fast path's bound), and doubles of any bits.
            let cents = (draw.next() % 1_000_000_000_000_000) as i64;
            values.push(cents as f64 / 100.0);
            values.push(-(cents as f64) / 100.0);
            values.push(f64::from_bits(draw.next()));
        }
        values.extend([
            0.0,
            -0.0,
            0.001,
            0.005,
            0.015,
            1.0 / 3.0,
            99_999_999_999.99,
            9_999_999_999_999.99,
            1e13,
            -1e13,
            12_345_678.9,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::NAN,
            f64::INFINITY,
        ]);
        for value in values {
            same(&value);
        }
        for cents in [0, 5, 10, 11, 100, 105, 110, 38_990, -1, -100, -38_995] {
            let reais = dunning_domain::money::Cents(cents);
            same(&reais);
            assert_eq!(
                super::whole_cents(cents as f64 / 100.0),
                Some(cents),
                "{cents} centavos"
            );
        }
    }

    #[test]
    fn drawn_documents_are_written_as_serde_json_writes_them() {
        fn document(draw: &mut Draw, depth: u32) -> Value {
            match draw.below(if depth > 3 { 6 } else { 8 }) {
                0 => Value::Null,
                1 => json!(draw.below(2) == 0),
                2 => json!(draw.next() as i64),
                3 => json!(draw.next() as f64 / 7.0),
                4 => json!((draw.next() % 1_000_000) as f64 / 100.0),
                5 => json!(ALPHABET[draw.below(ALPHABET.len() as u64) as usize].to_string() + "ab"),
                6 => Value::Array(
                    (0..draw.below(4))
                        .map(|_| document(draw, depth + 1))
                        .collect(),
                ),
                _ => Value::Object(
                    (0..draw.below(4))
                        .map(|i| (format!("k{i}\"\n"), document(draw, depth + 1)))
                        .collect(),
                ),
            }
        }
        let mut draw = Draw(42);
        for _ in 0..5_000 {
            same(&document(&mut draw, 0));
        }
    }

    #[derive(Debug, Serialize)]
    enum Shape {
        Unit,
        Newtype(i32),
        Tuple(u8, String),
        Struct { side: f32 },
    }

    #[derive(Debug, Serialize)]
    struct Unit;

    #[derive(Debug, Serialize)]
    struct Pair(i64, Option<bool>);

    #[derive(Debug, Serialize)]
    struct Inner {
        inner: &'static str,
    }

    #[derive(Debug, Serialize)]
    struct Everything<'a> {
        text: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<i32>,
        none: Option<i32>,
        shapes: Vec<Shape>,
        unit: Unit,
        pair: Pair,
        #[serde(flatten)]
        flattened: Inner,
        #[serde(with = "serde_bytes_as_seq")]
        bytes: &'a [u8],
        character: char,
        big: i128,
        huge: u128,
        small: i8,
        float: f32,
        nan: f64,
        infinite: f64,
        integer_keys: BTreeMap<i64, &'a str>,
        bool_keys: BTreeMap<bool, u8>,
        char_keys: BTreeMap<char, u8>,
        money: Cents,
        instant: Timestamp,
        empty_list: Vec<u8>,
        empty_map: BTreeMap<String, u8>,
    }

    /// `serialize_bytes`, which derive never calls for a slice on its own.
    mod serde_bytes_as_seq {
        pub fn serialize<S: serde::Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(bytes)
        }
    }

    #[test]
    fn every_shape_serde_derives_is_written_as_serde_json_writes_it() {
        same(&Everything {
            text: "quote \" backslash \\ new line \n tab \t bell \x07 é",
            skipped: None,
            none: None,
            shapes: vec![
                Shape::Unit,
                Shape::Newtype(-7),
                Shape::Tuple(3, "t".into()),
                Shape::Struct { side: 1.5 },
            ],
            unit: Unit,
            pair: Pair(i64::MIN, Some(true)),
            flattened: Inner { inner: "flat" },
            bytes: &[0, 1, 255],
            character: '"',
            big: i128::MIN,
            huge: u128::MAX,
            small: -128,
            float: 0.1,
            nan: f64::NAN,
            infinite: f64::NEG_INFINITY,
            integer_keys: BTreeMap::from([(-1, "minus"), (10, "ten")]),
            bool_keys: BTreeMap::from([(false, 0), (true, 1)]),
            char_keys: BTreeMap::from([('\n', 1)]),
            money: Cents(123_456),
            instant: Timestamp::parse("2026-12-02T19:00:00.123Z").expect("an instant"),
            empty_list: vec![],
            empty_map: BTreeMap::new(),
        });
    }

    #[test]
    fn keys_serde_json_refuses_are_refused_and_a_raw_value_is_not_misspelled() {
        /// A map whose keys are any value.
        #[derive(Debug)]
        struct Keyed<K>(Vec<(K, i32)>);
        impl<K: Serialize> Serialize for Keyed<K> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
            }
        }
        same(&Keyed(vec![(1.5f64, 1), (0.1, 2)]));
        same(&Keyed(vec![(0.1f32, 1)]));
        same(&Keyed(vec![(Some("some"), 1)]));
        for (refused, why) in [
            (to_vec(&Keyed(vec![(vec![1u8], 1)])), "key must be a string"),
            (
                to_vec(&Keyed(vec![(None::<&str>, 1)])),
                "key must be a string",
            ),
            (
                to_vec(&Keyed(vec![(f64::NAN, 1)])),
                "float key must be finite",
            ),
        ] {
            let refused = refused.err().expect("refused");
            assert!(refused.to_string().contains(why), "{refused}");
        }
        assert!(serde_json::to_vec(&Keyed(vec![(vec![1u8], 1)])).is_err());
        assert!(serde_json::to_vec(&Keyed(vec![(f64::NAN, 1)])).is_err());

        let raw = serde_json::value::RawValue::from_string("[1, 2]".into()).expect("raw");
        let refused = to_vec(&raw).err().expect("refused");
        assert!(refused.to_string().contains("RawValue"), "{refused}");
    }

    /// The members `to_vec` noted, as text, beside the members `serde_json` reads.
    fn noted<T: Serialize + ?Sized>(value: &T) -> Option<Vec<(String, Value)>> {
        let written = to_vec(value).expect("written");
        let text = std::str::from_utf8(&written.json).expect("UTF-8");
        let members = written.members?.into_iter().map(|(key, value)| {
            let value = serde_json::from_str(&text[value]).expect("a value");
            (text[key].to_string(), value)
        });
        let members: Vec<_> = members.collect();
        let read: serde_json::Map<String, Value> = serde_json::from_str(text).expect("an object");
        assert_eq!(members, read.into_iter().collect::<Vec<_>>(), "{text}");
        Some(members)
    }

    #[test]
    fn the_members_of_a_top_level_object_are_noted_where_they_were_written() {
        #[derive(Serialize)]
        struct Page<'a> {
            data: Vec<Everything<'a>>,
            meta: BTreeMap<&'a str, i64>,
        }
        let shapes = || vec![Shape::Struct { side: 2.0 }, Shape::Newtype(1)];
        assert!(
            noted(&json!({"data": [{"a": {"b": 1}}], "meta": {"total": 3}, "x": "}\"\\,"}))
                .is_some()
        );
        assert!(noted(&BTreeMap::from([(7, "seven")])).is_some());
        assert_eq!(noted(&json!({})), Some(vec![]));
        let mut draw = Draw(7);
        for _ in 0..500 {
            if let value @ Value::Object(_) =
                json!({ "k": draw.next(), "nested": { "n": [draw.next()] } })
            {
                assert!(noted(&value).is_some());
            }
        }
        let page = Page {
            data: vec![],
            meta: BTreeMap::from([("page", 1)]),
        };
        assert_eq!(noted(&page).map(|m| m.len()), Some(2));
        // Nothing is noted for a text that is not an object, for an object inside a variant,
        // nor for an object with a key that holds an escape.
        for value in [
            to_vec(&json!([{"a": 1}])),
            to_vec(&Shape::Struct { side: 1.0 }),
            to_vec(&shapes()),
            to_vec(&Some(Shape::Newtype(3))),
            to_vec(&json!({"quote\"": 1})),
        ] {
            assert!(value.expect("written").members.is_none());
        }
        #[derive(Serialize)]
        enum Wrapper {
            Inner(BTreeMap<&'static str, i32>),
        }
        let inner = to_vec(&Wrapper::Inner(BTreeMap::from([("a", 1)]))).expect("written");
        assert!(
            inner.members.is_none(),
            "an object inside a variant is not the top level"
        );
    }
}
