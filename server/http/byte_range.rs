//! The one `Range` request header a file download honours (RFC 9110 §14.2): a single range
//! of bytes, `bytes=first-last`, `bytes=first-` or `bytes=-suffix`, judged against the size of
//! the file. Read in bounded time with no arithmetic that can overflow: a header longer than
//! [`MAX_HEADER`] is ignored unread, numbers saturate at `u64::MAX` (a first byte that large
//! is past any file's end, a last byte that large is the file's end).
//!
//! Everything else a server may ignore (RFC 9110 says it MAY ignore `Range`) is ignored, and
//! the whole file is sent: several ranges (one at a time keeps the response one stream of the
//! file's pieces), another unit, a malformed value, and any request with `If-Range` (the
//! file has no validator to compare it with).

use http::HeaderMap;
use http::header::{IF_RANGE, RANGE};

/// Longer `Range` values are not read: one range needs two numbers of 20 digits at most.
pub const MAX_HEADER: usize = 64;

/// What a request asks of a file of a known size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// The whole file (no `Range`, or one that is ignored).
    Whole,
    /// Bytes `first..=last`, both within the file.
    Part { first: u64, last: u64 },
    /// A range that starts past the end of the file: 416.
    Unsatisfiable,
}

/// What `headers` ask of a file of `size` bytes.
pub fn asked(headers: &HeaderMap, size: u64) -> Asked {
    if headers.contains_key(IF_RANGE) {
        return Asked::Whole;
    }
    let mut ranges = headers.get_all(RANGE).iter();
    let (Some(value), None) = (ranges.next(), ranges.next()) else {
        return Asked::Whole;
    };
    match value.to_str() {
        Ok(text) if text.len() <= MAX_HEADER => of(text, size),
        _ => Asked::Whole,
    }
}

/// What a `Range` value asks of a file of `size` bytes.
pub fn of(value: &str, size: u64) -> Asked {
    let Some((unit, spec)) = value.trim().split_once('=') else {
        return Asked::Whole;
    };
    if !unit.trim().eq_ignore_ascii_case("bytes") || spec.contains(',') {
        return Asked::Whole;
    }
    let Some((first, last)) = spec.trim().split_once('-') else {
        return Asked::Whole;
    };
    let (first, last) = (first.trim(), last.trim());
    match (number(first), number(last)) {
        // `-suffix`: the last `suffix` bytes (all of a shorter file); none of an empty one.
        (None, Some(suffix)) if first.is_empty() => {
            if suffix == 0 || size == 0 {
                Asked::Unsatisfiable
            } else {
                Asked::Part {
                    first: size - suffix.min(size),
                    last: size - 1,
                }
            }
        }
        // `first-`: from `first` to the end.
        (Some(first), None) if last.is_empty() => {
            if first >= size {
                Asked::Unsatisfiable
            } else {
                Asked::Part {
                    first,
                    last: size - 1,
                }
            }
        }
        // `first-last`, the last byte cut to the file's; a last before the first is not a
        // range (invalid, so ignored).
        (Some(first), Some(last)) if first <= last => {
            if first >= size {
                Asked::Unsatisfiable
            } else {
                Asked::Part {
                    first,
                    last: last.min(size - 1),
                }
            }
        }
        _ => Asked::Whole,
    }
}

/// A run of ASCII digits as a number, saturating; `None` for anything else (or nothing).
fn number(digits: &str) -> Option<u64> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(digits.bytes().fold(0u64, |n, d| {
        n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_form_of_one_range_is_read_against_the_file_size() {
        let part = |first, last| Asked::Part { first, last };
        let cases = [
            ("bytes=0-99", 1000, part(0, 99)),
            ("bytes=0-0", 1000, part(0, 0)),
            ("bytes=500-", 1000, part(500, 999)),
            ("bytes=-100", 1000, part(900, 999)),
            ("bytes=-5000", 1000, part(0, 999)),
            ("bytes=900-5000", 1000, part(900, 999)),
            ("bytes=999-999", 1000, part(999, 999)),
            ("BYTES = 1 - 2", 1000, part(1, 2)),
            ("bytes=1000-", 1000, Asked::Unsatisfiable),
            ("bytes=1000-2000", 1000, Asked::Unsatisfiable),
            ("bytes=-0", 1000, Asked::Unsatisfiable),
            ("bytes=0-", 0, Asked::Unsatisfiable),
            ("bytes=-1", 0, Asked::Unsatisfiable),
            ("bytes=99999999999999999999999-", 1000, Asked::Unsatisfiable),
            ("bytes=0-99999999999999999999999", 1000, part(0, 999)),
            ("bytes=5-4", 1000, Asked::Whole),
            ("bytes=0-1,5-6", 1000, Asked::Whole),
            ("items=0-1", 1000, Asked::Whole),
            ("bytes=a-b", 1000, Asked::Whole),
            ("bytes=-", 1000, Asked::Whole),
            ("bytes=+1-2", 1000, Asked::Whole),
            ("bytes 0-1", 1000, Asked::Whole),
            ("", 1000, Asked::Whole),
        ];
        for (value, size, expected) in cases {
            assert_eq!(of(value, size), expected, "{value} of {size}");
        }
    }

    #[test]
    fn a_long_header_several_headers_or_if_range_get_the_whole_file() {
        let mut headers = HeaderMap::new();
        assert_eq!(asked(&headers, 10), Asked::Whole);
        headers.insert(RANGE, "bytes=0-1".parse().unwrap());
        assert_eq!(asked(&headers, 10), Asked::Part { first: 0, last: 1 });
        headers.append(RANGE, "bytes=2-3".parse().unwrap());
        assert_eq!(asked(&headers, 10), Asked::Whole);
        let long = format!("bytes=0-{}", "0".repeat(MAX_HEADER));
        headers.insert(RANGE, long.parse().unwrap());
        assert_eq!(asked(&headers, 10), Asked::Whole);
        headers.insert(RANGE, "bytes=0-1".parse().unwrap());
        headers.insert(IF_RANGE, "\"x\"".parse().unwrap());
        assert_eq!(asked(&headers, 10), Asked::Whole);
    }

    #[test]
    fn any_text_is_read_without_panicking() {
        for value in [
            "bytes=",
            "=",
            "bytes==",
            "bytes=--",
            "bytes=-18446744073709551616",
            "bytes=18446744073709551615-18446744073709551615",
        ] {
            let _ = of(value, u64::MAX);
            let _ = of(value, 0);
        }
    }
}
