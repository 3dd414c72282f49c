//! What of the MCP request reaches the in-process request of a tool call ([`crate::Forward`]).
//!
//! A service's own middleware reads its credential header, the client's address or the
//! `Host` a request came through; the in-process request is built from the tool's arguments,
//! so without this it would carry none of them and a service that authenticates by header
//! would answer `401` through MCP what it serves over REST. Which headers are credentials is
//! read from the document itself (its security schemes), once, when the router is built.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::ConnectInfo;
use http::{HeaderMap, HeaderName, Request, header};
use serde_json::Value;

use crate::{Caller, Catalog, Forward, toolsets};

/// What one MCP request hands on to every tool call it makes: the chosen headers, and the
/// connection's facts when [`Forward::connection`] is on. Travels in the caller's
/// extensions (as the host's own do) and is taken out when the in-process request is built.
#[derive(Debug, Clone, Default)]
pub(crate) struct Forwarded {
    headers: HeaderMap,
    client: Option<ConnectInfo<SocketAddr>>,
}

impl Forwarded {
    /// What `policy` keeps of a request with these headers and extensions.
    pub fn of(
        policy: &Policy,
        headers: &HeaderMap,
        extensions: &http::Extensions,
    ) -> Option<Forwarded> {
        let mut kept = HeaderMap::new();
        for name in policy.headers.iter() {
            for value in headers.get_all(name) {
                kept.append(name.clone(), value.clone());
            }
        }
        let client = if policy.connection {
            if let Some(host) = headers.get(header::HOST) {
                kept.insert(header::HOST, host.clone());
            }
            extensions.get::<ConnectInfo<SocketAddr>>().copied()
        } else {
            None
        };
        (!kept.is_empty() || client.is_some()).then_some(Forwarded {
            headers: kept,
            client,
        })
    }

    /// Who the caller is when the layer asks no token: `anonymous`, followed by a digest of
    /// the credential headers handed on when there are any, so that what is bound to the
    /// caller (a confirmation's `requestState`, an input round, a derived idempotency key)
    /// is bound to the service's own credential, not shared by every client.
    pub fn subject(&self, policy: &Policy) -> String {
        use sha2::{Digest, Sha256};
        let mut digest = Sha256::new();
        let mut any = false;
        for name in policy.headers.iter() {
            for value in self.headers.get_all(name) {
                digest.update(name.as_str().as_bytes());
                digest.update([0]);
                digest.update(value.as_bytes());
                digest.update([0]);
                any = true;
            }
        }
        if !any {
            return "anonymous".to_string();
        }
        let digest = digest.finalize();
        format!("anonymous:{}", hex::encode(&digest[..16]))
    }

    /// Put them on `request`: headers the tool's arguments set (its own header parameters)
    /// win over forwarded ones of the same name.
    pub fn apply<B>(self, request: &mut Request<B>) {
        let sent = request.headers_mut();
        let set_by_arguments: Vec<HeaderName> = self
            .headers
            .keys()
            .filter(|name| sent.contains_key(*name))
            .cloned()
            .collect();
        for (name, value) in self.headers.iter() {
            if !set_by_arguments.contains(name) {
                sent.append(name.clone(), value.clone());
            }
        }
        if let Some(client) = self.client {
            request.extensions_mut().insert(client);
        }
    }
}

/// The forwarding policy, resolved against the document once.
#[derive(Debug, Clone)]
pub(crate) struct Policy {
    headers: Arc<[HeaderName]>,
    connection: bool,
}

impl Policy {
    pub fn resolve(forward: &Forward, catalog: &Catalog) -> Policy {
        let headers = match &forward.headers {
            Some(names) => names.clone(),
            None => credential_headers(catalog.openapi_json),
        };
        Policy {
            headers: headers.into(),
            connection: forward.connection,
        }
    }
}

/// The headers the document's security schemes carry credentials in.
pub(crate) fn credential_headers(openapi_json: &str) -> Vec<HeaderName> {
    let Ok(document) = serde_json::from_str::<Value>(openapi_json) else {
        return Vec::new();
    };
    let schemes = document
        .pointer("/components/securitySchemes")
        .and_then(Value::as_object);
    let mut names: Vec<HeaderName> = Vec::new();
    for scheme in schemes.into_iter().flat_map(|s| s.values()) {
        let text = |key: &str| scheme.get(key).and_then(Value::as_str);
        let name = match (text("type"), text("in")) {
            (Some("apiKey"), Some("header")) => {
                text("name").and_then(|n| HeaderName::from_bytes(n.as_bytes()).ok())
            }
            (Some("apiKey"), Some("cookie")) => Some(header::COOKIE),
            (Some("http" | "oauth2" | "openIdConnect"), _) => Some(header::AUTHORIZATION),
            _ => None,
        };
        if let Some(name) = name.filter(|n| !names.contains(n)) {
            names.push(name);
        }
    }
    names
}

/// The caller of every request when the layer asks no token ([`crate::Authentication::None`]):
/// it holds every scope a tool of the catalog names, so the layer's own scope checks pass and
/// the service's authentication decides.
pub(crate) fn anonymous(catalog: &Catalog) -> Caller {
    let scopes: BTreeSet<String> = catalog
        .tools
        .iter()
        .flat_map(|tool| tool.scopes.iter().map(|s| s.to_string()))
        .collect();
    Caller {
        subject: "anonymous".to_string(),
        scopes: Arc::new(scopes),
        toolsets: toolsets::Toolsets::default(),
        extensions: http::Extensions::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    #[test]
    fn the_credential_headers_are_those_the_security_schemes_name_once_each() {
        let document = serde_json::json!({"components": {"securitySchemes": {
            "key": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
            "other_key": {"type": "apiKey", "in": "header", "name": "x-api-key"},
            "query_key": {"type": "apiKey", "in": "query", "name": "key"},
            "session": {"type": "apiKey", "in": "cookie", "name": "sid"},
            "bearer": {"type": "http", "scheme": "bearer"},
            "oauth": {"type": "oauth2", "flows": {}},
        }}});
        let names = credential_headers(&document.to_string());
        let names: Vec<&str> = names.iter().map(HeaderName::as_str).collect();
        assert_eq!(names, ["x-api-key", "cookie", "authorization"]);
        assert!(credential_headers(r#"{"openapi":"3.1.0"}"#).is_empty());
    }

    #[test]
    fn an_anonymous_caller_is_told_apart_by_the_credential_it_hands_on() {
        let policy = Policy {
            headers: vec![HeaderName::from_static("x-api-key")].into(),
            connection: true,
        };
        let subject = |key: Option<&'static str>| {
            let mut headers = HeaderMap::new();
            headers.insert(header::HOST, HeaderValue::from_static("h"));
            if let Some(key) = key {
                headers.insert("x-api-key", HeaderValue::from_static(key));
            }
            Forwarded::of(&policy, &headers, &http::Extensions::new())
                .unwrap()
                .subject(&policy)
        };
        assert_eq!(subject(None), "anonymous");
        assert_eq!(subject(Some("k1")), subject(Some("k1")));
        assert_ne!(subject(Some("k1")), subject(Some("k2")));
        assert!(subject(Some("k1")).starts_with("anonymous:"));
    }

    #[test]
    fn forwarded_headers_do_not_override_the_ones_the_arguments_set() {
        let policy = Policy {
            headers: vec![
                HeaderName::from_static("x-api-key"),
                HeaderName::from_static("x-tenant"),
            ]
            .into(),
            connection: true,
        };
        let mut incoming = HeaderMap::new();
        incoming.insert("x-api-key", HeaderValue::from_static("k1"));
        incoming.append("x-tenant", HeaderValue::from_static("a"));
        incoming.append("x-tenant", HeaderValue::from_static("b"));
        incoming.insert("x-other", HeaderValue::from_static("no"));
        incoming.insert(header::HOST, HeaderValue::from_static("api.example.com"));
        let mut extensions = http::Extensions::new();
        extensions.insert(ConnectInfo(SocketAddr::from(([10, 0, 0, 7], 5000))));
        let forwarded = Forwarded::of(&policy, &incoming, &extensions).expect("something kept");

        let mut request = Request::new(());
        request
            .headers_mut()
            .insert("x-tenant", HeaderValue::from_static("from-arguments"));
        forwarded.apply(&mut request);
        let values = |name: &str| -> Vec<&str> {
            request
                .headers()
                .get_all(name)
                .iter()
                .map(|v| v.to_str().unwrap())
                .collect()
        };
        assert_eq!(values("x-api-key"), ["k1"]);
        assert_eq!(values("x-tenant"), ["from-arguments"]);
        assert!(values("x-other").is_empty());
        assert_eq!(values("host"), ["api.example.com"]);
        let client = request.extensions().get::<ConnectInfo<SocketAddr>>();
        assert_eq!(client.map(|c| c.0.port()), Some(5000));
    }
}
