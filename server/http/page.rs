//! The headers every HTML page a person sees carries (the OAuth pages, the unsubscribe
//! pages): never cached, no framing (clickjacking of a button), the page's own content
//! policy and referrer policy, no content sniffing.

use http::{HeaderMap, HeaderValue, header};

/// Set the page headers on `headers`: `csp` is the page's `Content-Security-Policy`,
/// `referrer` its `Referrer-Policy`.
pub fn protect(headers: &mut HeaderMap, csp: &'static str, referrer: &'static str) {
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(csp),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static(referrer));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
}
