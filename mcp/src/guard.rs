//! Who may reach the endpoint at all, before any JSON is read: the canonical host, DNS
//! rebinding protection (`Host` must be a loopback name when bound to loopback), and the
//! browser `Origin` check.

use axum::response::{IntoResponse, Response};
use http::{HeaderMap, HeaderValue, StatusCode, header};

use super::Settings;
use super::jsonrpc::{ErrorCode, RpcError, failure};

/// Refuse the request when it comes through a host or origin this server does not answer
/// for; `None` lets it through.
pub fn check(
    settings: &Settings,
    headers: &HeaderMap,
    path_and_query: &str,
    version: &str,
) -> Option<Response> {
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    if let (Some(canonical), Some(host)) = (&settings.canonical_url, host) {
        let canonical_host = authority_of(canonical);
        if !host.eq_ignore_ascii_case(canonical_host) && !is_loopback_host(host) {
            let location = format!("{}{}", canonical.trim_end_matches('/'), path_and_query);
            let error = RpcError::new(
                ErrorCode::SERVER_ERROR,
                format!("This server answers at {location}; send requests there"),
            );
            let mut response = error_response(StatusCode::PERMANENT_REDIRECT, version, &error);
            if let Ok(value) = HeaderValue::from_str(&location) {
                response.headers_mut().insert(header::LOCATION, value);
            }
            return Some(response);
        }
    }
    if settings.loopback_only
        && let Some(host) = host
        && !is_loopback_host(host)
    {
        let error = RpcError::new(
            ErrorCode::SERVER_ERROR,
            format!(
                "Forbidden: Host '{host}' is not a loopback name; this server is bound to loopback"
            ),
        );
        return Some(error_response(StatusCode::FORBIDDEN, version, &error));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("null");
        if !origin_allowed(settings, origin, host) {
            let error = RpcError::new(
                ErrorCode::SERVER_ERROR,
                format!("Forbidden: Origin '{origin}' is not allowed"),
            );
            return Some(error_response(StatusCode::FORBIDDEN, version, &error));
        }
    }
    None
}

fn error_response(status: StatusCode, version: &str, error: &RpcError) -> Response {
    let mut response = (status, failure(None, error).to_string()).into_response();
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Ok(v) = HeaderValue::from_str(version) {
        h.insert("mcp-protocol-version", v);
    }
    response
}

/// `https://example.com:8443/mcp` → `example.com:8443`.
fn authority_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.split('/').next().unwrap_or(rest)
}

/// The host part of a `Host` header value (`[::1]:8080` → `[::1]`, `localhost:80` → `localhost`).
fn host_name(host: &str) -> &str {
    if host.starts_with('[') {
        return host
            .split_once(']')
            .map_or(host, |(name, _)| &host[..name.len() + 1]);
    }
    host.rsplit_once(':').map_or(host, |(name, port)| {
        if port.bytes().all(|b| b.is_ascii_digit()) {
            name
        } else {
            host
        }
    })
}

/// `localhost`, `127.0.0.0/8` or `[::1]`, with any port.
pub fn is_loopback_host(host: &str) -> bool {
    let name = host_name(host).to_ascii_lowercase();
    if name == "localhost" || name == "[::1]" {
        return true;
    }
    name.parse::<std::net::Ipv4Addr>()
        .is_ok_and(|ip| ip.is_loopback())
}

/// A browser may call us from our own origin (same host we were reached by), the canonical
/// URL, or an origin the operator listed.
fn origin_allowed(settings: &Settings, origin: &str, host: Option<&str>) -> bool {
    let origin = origin.trim_end_matches('/');
    if settings
        .allowed_origins
        .iter()
        .any(|o| o.trim_end_matches('/').eq_ignore_ascii_case(origin))
    {
        return true;
    }
    if let Some(canonical) = &settings.canonical_url {
        let scheme_and_authority = canonical
            .split_once("://")
            .map(|(scheme, rest)| format!("{scheme}://{}", rest.split('/').next().unwrap_or(rest)));
        if scheme_and_authority.is_some_and(|own| own.eq_ignore_ascii_case(origin)) {
            return true;
        }
    }
    let Some(host) = host else { return false };
    let Some((_, origin_authority)) = origin.split_once("://") else {
        return false;
    };
    origin_authority.eq_ignore_ascii_case(host)
        && (!settings.loopback_only || is_loopback_host(host))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_with_and_without_ports() {
        for host in [
            "localhost",
            "localhost:8080",
            "127.0.0.1",
            "127.0.0.1:1",
            "127.8.9.10:80",
            "[::1]",
            "[::1]:8080",
            "LOCALHOST",
        ] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in [
            "evil.example",
            "evil.example:8080",
            "10.0.0.1",
            "localhost.evil.example",
            "[::2]:80",
            "0.0.0.0",
        ] {
            assert!(!is_loopback_host(host), "{host}");
        }
    }

    #[test]
    fn authority_of_a_url() {
        assert_eq!(
            authority_of("https://dunning.example.com/mcp"),
            "dunning.example.com"
        );
        assert_eq!(authority_of("http://h:8443"), "h:8443");
    }
}
