//! What a request body's `Content-Type` says it is, judged one way for every route that reads
//! a body: JSON for `/v1` and the Pix callbacks, a form for Twilio's status callbacks and the
//! one-click unsubscribe (RFC 8058).
//!
//! A route reads only the media types it names. `text/plain` and the two form encodings are
//! what a browser sends cross-site without asking first (CORS "simple requests"), so a route
//! that read any body as JSON, or any body as a form, would take them too.

use http::{HeaderMap, header};

/// The media type without its parameters, in lower case (`type/subtype`), and the parameters
/// as written; `None` without a `Content-Type` or when it is not text.
fn media_type(headers: &HeaderMap) -> Option<(String, std::str::Split<'_, char>)> {
    let value = headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
    let mut parts = value.split(';');
    let media = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
    Some((media, parts))
}

/// `application/json` or `application/<anything>+json`, with parameters, in UTF-8 (JSON has
/// no other encoding; a declared other charset is a body we would misread).
pub fn is_json(headers: &HeaderMap) -> bool {
    let Some((media, mut parameters)) = media_type(headers) else {
        return false;
    };
    let json = media == "application/json"
        || media
            .strip_prefix("application/")
            .is_some_and(|sub| sub.len() > "+json".len() && sub.ends_with("+json"));
    let utf8 = parameters.all(|parameter| {
        let (name, value) = parameter.split_once('=').unwrap_or((parameter, ""));
        !name.trim().eq_ignore_ascii_case("charset")
            || matches!(
                value.trim().trim_matches('"').to_ascii_lowercase().as_str(),
                "utf-8" | "utf8"
            )
    });
    json && utf8
}

/// `application/x-www-form-urlencoded`, with parameters.
pub fn is_urlencoded_form(headers: &HeaderMap) -> bool {
    media_type(headers).is_some_and(|(media, _)| media == "application/x-www-form-urlencoded")
}

/// A form in either of the encodings HTML forms and RFC 8058's one-click POST use:
/// `application/x-www-form-urlencoded` or `multipart/form-data`.
pub fn is_form(headers: &HeaderMap) -> bool {
    media_type(headers).is_some_and(|(media, _)| {
        media == "application/x-www-form-urlencoded" || media == "multipart/form-data"
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn with(value: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(value));
        headers
    }

    #[test]
    fn json_media_types_are_told_apart_from_the_rest() {
        let cases = [
            ("application/json", true),
            ("application/json; charset=utf-8", true),
            ("APPLICATION/JSON;CHARSET=\"UTF-8\"", true),
            ("application/merge-patch+json", true),
            ("application/vnd.kobana.charge+json; version=1", true),
            ("application/+json", false),
            ("application/json; charset=iso-8859-1", false),
            ("text/json", false),
            ("text/plain", false),
            ("application/jsonp", false),
            ("application/x-www-form-urlencoded", false),
            ("multipart/form-data; boundary=x", false),
        ];
        for (value, json) in cases {
            assert_eq!(is_json(&with(value)), json, "{value}");
        }
        assert!(!is_json(&HeaderMap::new()), "no Content-Type");
    }

    #[test]
    fn forms_are_the_two_form_encodings_and_nothing_else() {
        let cases = [
            ("application/x-www-form-urlencoded", true, true),
            (
                "Application/X-WWW-Form-Urlencoded; charset=UTF-8",
                true,
                true,
            ),
            ("multipart/form-data; boundary=----x", false, true),
            ("text/plain", false, false),
            ("application/json", false, false),
            ("multipart/mixed; boundary=x", false, false),
        ];
        for (value, urlencoded, form) in cases {
            assert_eq!(is_urlencoded_form(&with(value)), urlencoded, "{value}");
            assert_eq!(is_form(&with(value)), form, "{value}");
        }
        assert!(!is_form(&HeaderMap::new()), "no Content-Type");
    }
}
