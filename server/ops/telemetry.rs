//! OpenTelemetry traces, exported over OTLP/HTTP (protobuf) when the standard `OTEL_*`
//! variables ask for them, and the HTTP request span that every trace of a request hangs from.
//!
//! This is the only module that knows OpenTelemetry. Everything else makes spans with plain
//! `tracing` macros — the MCP message and its in-process dispatch in `mcp`, database calls in
//! `store` — and the layer built here turns them into OpenTelemetry spans. Off (the default),
//! no layer is installed and no exporter thread runs: no subscriber is interested in a span,
//! so a span macro does nothing but check its call site's cached interest.
//!
//! What the SDK reads itself is left to it: `OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT`,
//! `_HEADERS`, `_TIMEOUT`, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`,
//! `OTEL_TRACES_SAMPLER[_ARG]`, `OTEL_BSP_*`. [`decide`] adds what the Rust SDK leaves to the
//! application: `OTEL_SDK_DISABLED` and `OTEL_TRACES_EXPORTER`.

use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use http::HeaderMap;
use opentelemetry::KeyValue;
use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Instrument;
use tracing::field::Empty;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::Layer;
use tracing_subscriber::registry::LookupSpan;

use crate::ops::access_log::RequestId;

/// `service.name` when neither `OTEL_SERVICE_NAME` nor `OTEL_RESOURCE_ATTRIBUTES` names one.
const SERVICE_NAME: &str = "kobana-dunning";

/// Whether traces leave the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Traces {
    /// Nothing is installed.
    Off,
    /// Spans are exported over OTLP/HTTP.
    Otlp,
}

/// Whether to export traces, by the standard variables `var` reads, and what to warn about.
///
/// Off unless asked: an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` or
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or `OTEL_TRACES_EXPORTER=otlp` (then the SDK's default
/// endpoint, `http://localhost:4318`). `OTEL_SDK_DISABLED=true` and `OTEL_TRACES_EXPORTER=none`
/// win over an endpoint. Values this build cannot honour are warned about and ignored, as the
/// OpenTelemetry specification asks of environment variables.
pub fn decide(var: impl Fn(&str) -> Option<String>) -> (Traces, Vec<String>) {
    let set = |name: &str| {
        var(name)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let mut warnings = Vec::new();
    if set("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true")) {
        return (Traces::Off, warnings);
    }
    let endpoint = set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .or_else(|| set("OTEL_EXPORTER_OTLP_ENDPOINT"))
        .is_some();
    let traces = match set("OTEL_TRACES_EXPORTER") {
        None if endpoint => Traces::Otlp,
        None => Traces::Off,
        Some(list) => {
            let mut traces = Traces::Off;
            for exporter in list.split(',').map(str::trim) {
                match exporter.to_ascii_lowercase().as_str() {
                    "otlp" => traces = Traces::Otlp,
                    "none" => return (Traces::Off, warnings),
                    other => warnings.push(format!(
                        "OTEL_TRACES_EXPORTER: '{other}' is not supported (only otlp and none); ignored"
                    )),
                }
            }
            traces
        }
    };
    if traces == Traces::Otlp {
        let protocol = set("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
            .or_else(|| set("OTEL_EXPORTER_OTLP_PROTOCOL"));
        if let Some(protocol) = protocol.filter(|p| p != "http/protobuf") {
            warnings.push(format!(
                "OTEL_EXPORTER_OTLP_PROTOCOL: '{protocol}' is not supported; traces are sent as http/protobuf"
            ));
        }
    }
    (traces, warnings)
}

/// The exporter while it runs: a batch span processor (its own thread) sending to the OTLP
/// endpoint. [`Exporter::shutdown`] sends what is still queued.
#[derive(Debug)]
pub struct Exporter {
    provider: SdkTracerProvider,
}

impl Exporter {
    /// Build the exporter from the environment (endpoint, headers, timeout, resource, sampler).
    pub fn start() -> Result<Exporter, String> {
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .build()
            .map_err(|e| format!("OTLP trace exporter: {e}"))?;
        let mut resource = Resource::builder()
            .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")));
        let named = std::env::var("OTEL_SERVICE_NAME").is_ok_and(|v| !v.is_empty())
            || std::env::var("OTEL_RESOURCE_ATTRIBUTES").is_ok_and(|v| v.contains("service.name="));
        if !named {
            resource = resource.with_service_name(SERVICE_NAME);
        }
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(resource.build())
            .build();
        Ok(Exporter { provider })
    }

    /// The `tracing` layer: every span it is given becomes an OpenTelemetry span (`logging`
    /// gives it spans only: lines carry free text and go to the log alone).
    pub fn layer<S>(&self) -> impl Layer<S> + 'static
    where
        S: tracing::Subscriber + for<'span> LookupSpan<'span>,
    {
        tracing_opentelemetry::layer()
            .with_tracer(self.provider.tracer(SERVICE_NAME))
            // Attributes of the conventions only: no thread, target or busy/idle times.
            .with_threads(false)
            .with_target(false)
            .with_tracked_inactivity(false)
    }

    /// Export what is queued and stop; blocks up to the SDK's shutdown timeout, so call it
    /// where blocking is allowed (the end of `main`, or `spawn_blocking`).
    pub fn shutdown(self) {
        if let Err(e) = self.provider.shutdown() {
            tracing::warn!("traces: the exporter did not shut down cleanly: {e}");
        }
    }
}

/// A request's headers as OpenTelemetry propagators read them.
struct Headers<'a>(&'a HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(http::HeaderName::as_str).collect()
    }
}

/// The middleware opening the HTTP server span of a request (OpenTelemetry HTTP semantic
/// conventions): named `{method} {route}` with the route template, never the path with its
/// ids, in the caller's trace when it sent a W3C `traceparent`. Inside the access log, so
/// that it carries the request id. Without an exporter the span is disabled and the request
/// goes straight through.
pub async fn http_span(request: Request, next: Next) -> Response {
    // Borrowed, not copied: with traces off nothing here allocates.
    let method = request.method();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(MatchedPath::as_str);
    let span = tracing::info_span!(
        "HTTP request",
        otel.name = match route {
            Some(route) => format!("{method} {route}"),
            None => method.to_string(),
        },
        otel.kind = "server",
        otel.status_code = Empty,
        http.request.method = method.as_str(),
        http.route = route,
        url.path = super::access_log::shown_path(request.uri().path()),
        url.scheme = "http",
        network.protocol.version = http_version(request.version()),
        http.response.status_code = Empty,
        "error.type" = Empty,
        dunning.request.id = request
            .extensions()
            .get::<RequestId>()
            .map(|id| id.0.as_str()),
    );
    if span.is_disabled() {
        return next.run(request).await;
    }
    let parent = TraceContextPropagator::new().extract(&Headers(request.headers()));
    // Only fails when the span was entered already, which it was not.
    let _ = span.set_parent(parent);
    let response = next.run(request).instrument(span.clone()).await;
    let status = response.status();
    span.record("http.response.status_code", status.as_u16());
    // A server span is an error for 5xx only: 4xx is the client's.
    if status.is_server_error() {
        span.record("error.type", status.as_str());
        span.record("otel.status_code", "ERROR");
    }
    response
}

fn http_version(version: http::Version) -> &'static str {
    match version {
        http::Version::HTTP_09 => "0.9",
        http::Version::HTTP_10 => "1.0",
        http::Version::HTTP_2 => "2",
        http::Version::HTTP_3 => "3",
        _ => "1.1",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decided(vars: &[(&str, &str)]) -> Traces {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        decide(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())).0
    }

    #[test]
    fn traces_are_off_unless_an_otlp_endpoint_or_exporter_is_named() {
        let endpoint = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318");
        let traces_endpoint = (
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "http://collector:4318/v1/traces",
        );
        let table: &[(&[(&str, &str)], Traces)] = &[
            (&[], Traces::Off),
            (&[("OTEL_SERVICE_NAME", "dunning")], Traces::Off),
            (&[("OTEL_EXPORTER_OTLP_ENDPOINT", "")], Traces::Off),
            (&[endpoint], Traces::Otlp),
            (&[traces_endpoint], Traces::Otlp),
            (&[("OTEL_TRACES_EXPORTER", "otlp")], Traces::Otlp),
            (&[endpoint, ("OTEL_TRACES_EXPORTER", "none")], Traces::Off),
            (&[endpoint, ("OTEL_SDK_DISABLED", "true")], Traces::Off),
            (&[endpoint, ("OTEL_SDK_DISABLED", "TRUE")], Traces::Off),
            (&[endpoint, ("OTEL_SDK_DISABLED", "false")], Traces::Otlp),
            (
                &[endpoint, ("OTEL_TRACES_EXPORTER", "console")],
                Traces::Off,
            ),
            (&[("OTEL_TRACES_EXPORTER", "console,otlp")], Traces::Otlp),
        ];
        for (vars, expected) in table {
            assert_eq!(decided(vars), *expected, "{vars:?}");
        }
    }

    #[test]
    fn values_this_build_cannot_honour_are_warned_about() {
        let (traces, warnings) = decide(|name| match name {
            "OTEL_EXPORTER_OTLP_ENDPOINT" => Some("http://collector:4317".into()),
            "OTEL_EXPORTER_OTLP_PROTOCOL" => Some("grpc".into()),
            _ => None,
        });
        assert_eq!(traces, Traces::Otlp);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("grpc"), "{warnings:?}");
    }

    #[test]
    fn a_traceparent_header_becomes_the_parent_context() {
        use opentelemetry::trace::TraceContextExt;
        let mut headers = HeaderMap::new();
        headers.insert(
            "traceparent",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                .parse()
                .unwrap(),
        );
        let parent = TraceContextPropagator::new().extract(&Headers(&headers));
        let context = parent.span().span_context().clone();
        assert!(context.is_remote() && context.is_sampled());
        assert_eq!(
            context.trace_id().to_string(),
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
        assert_eq!(context.span_id().to_string(), "00f067aa0ba902b7");
    }
}
