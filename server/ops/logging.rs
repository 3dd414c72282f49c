//! The server's `tracing` subscriber: log lines on stdout as `RUST_LOG` says, and spans to
//! the OpenTelemetry layer when traces are exported (see `telemetry`).
//!
//! One global filter, [`LinesAndSpans`], judges each call site once, when it is first hit,
//! and the answer is cached (`always` or `never`), with a level hint that keeps the `log`
//! bridge and disabled macros to one comparison. Both were measured missing once: per-layer
//! filters answering "sometimes" had every `trace!` in hyper, h2 and sqlx run the filter on
//! every call, and opened the `log` bridge to every level (bench/RESULTS.md, issue 13).
//!
//! `RUST_LOG` is a global filter, not a per-layer one, because a per-layer filter whose
//! interest is cached drops the line after a `log`-bridge `enabled` check that no line
//! follows (tokio-rs/tracing#2519). The per-layer filters left, only with traces on, keep
//! spans out of the log and lines out of the traces; they disagree on every call site, so
//! the registry asks them afresh each time and no stale answer survives.

use std::io::IsTerminal;

use tracing::subscriber::Interest;
use tracing::{Metadata, Subscriber};
use tracing_subscriber::filter::{LevelFilter, filter_fn};
use tracing_subscriber::layer::{Context, Layer, Layered, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::{EnvFilter, Registry};

use crate::ops::telemetry;

/// How log lines are written.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum LogFormat {
    /// For people: one line of text per event (coloured only on a terminal).
    Text,
    /// For log collectors: one JSON object per line.
    Json,
}

/// The log's filter: `RUST_LOG`, else `info` with sqlx's per-statement lines left out.
pub fn lines_from_env() -> EnvFilter {
    EnvFilter::try_from_default_env().unwrap_or_else(|_| "info,sqlx=warn".into())
}

/// What the log layer sits on: the registry behind the global filter.
type Base = Layered<LinesAndSpans, Registry>;

/// The subscriber `serve` installs: lines filtered by `lines` in `format` on stdout, and the
/// exporter's spans when there is one. Log lines look the same with traces on or off.
pub fn subscriber(
    format: LogFormat,
    lines: EnvFilter,
    exporter: Option<&telemetry::Exporter>,
) -> Box<dyn Subscriber + Send + Sync> {
    let log: Box<dyn Layer<Base> + Send + Sync> = match format {
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .with_current_span(false)
            .boxed(),
        // Colours only for a person at a terminal, never in a file or a container log.
        LogFormat::Text => tracing_subscriber::fmt::layer()
            .with_ansi(std::io::stdout().is_terminal())
            .boxed(),
    };
    // Per-layer filters without a level hint would lift the subscriber's to `TRACE`.
    let lines_level = Layer::<Registry>::max_level_hint(&lines).unwrap_or(LevelFilter::TRACE);
    let registry =
        tracing_subscriber::registry().with(LinesAndSpans::new(lines, exporter.is_some()));
    match exporter {
        None => Box::new(registry.with(log)),
        Some(exporter) => Box::new(
            registry
                .with(
                    log.with_filter(
                        filter_fn(move |metadata| {
                            !metadata.is_span() && *metadata.level() <= lines_level
                        })
                        .with_max_level_hint(lines_level),
                    ),
                )
                .with(
                    exporter.layer().with_filter(
                        filter_fn(|metadata| metadata.is_span() && *metadata.level() <= SPAN_LEVEL)
                            .with_max_level_hint(SPAN_LEVEL),
                    ),
                ),
        ),
    }
}

/// Spans are made at this level or above when traces are exported: ours are all `info`,
/// and dependencies' `debug`/`trace` spans (h2, hyper) are noise in a trace.
const SPAN_LEVEL: LevelFilter = LevelFilter::INFO;

/// Events as `RUST_LOG` says; spans only when something exports them.
#[derive(Debug)]
pub struct LinesAndSpans {
    lines: EnvFilter,
    spans: bool,
}

impl LinesAndSpans {
    /// `lines` filters log events; `spans` says whether traces are exported.
    pub fn new(lines: EnvFilter, spans: bool) -> LinesAndSpans {
        LinesAndSpans { lines, spans }
    }

    fn span_enabled(&self, metadata: &Metadata<'_>) -> bool {
        self.spans && *metadata.level() <= SPAN_LEVEL
    }
}

impl<S> Layer<S> for LinesAndSpans
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        // The log filter sees span call sites too: its span-scoped directives
        // (`RUST_LOG=[name]=debug`) need them.
        let lines = Layer::<S>::register_callsite(&self.lines, metadata);
        if !metadata.is_span() {
            return lines;
        }
        if self.span_enabled(metadata) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, metadata: &Metadata<'_>, ctx: Context<'_, S>) -> bool {
        if metadata.is_span() {
            self.span_enabled(metadata)
        } else {
            Layer::<S>::enabled(&self.lines, metadata, ctx)
        }
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        let lines = Layer::<S>::max_level_hint(&self.lines);
        if self.spans {
            lines.map(|level| level.max(SPAN_LEVEL))
        } else {
            lines
        }
    }

    // What the log filter tracks for span-scoped directives.
    fn on_new_span(
        &self,
        attrs: &tracing::span::Attributes<'_>,
        id: &tracing::span::Id,
        ctx: Context<'_, S>,
    ) {
        self.lines.on_new_span(attrs, id, ctx);
    }

    fn on_record(
        &self,
        id: &tracing::span::Id,
        values: &tracing::span::Record<'_>,
        ctx: Context<'_, S>,
    ) {
        self.lines.on_record(id, values, ctx);
    }

    fn on_enter(&self, id: &tracing::span::Id, ctx: Context<'_, S>) {
        self.lines.on_enter(id, ctx);
    }

    fn on_exit(&self, id: &tracing::span::Id, ctx: Context<'_, S>) {
        self.lines.on_exit(id, ctx);
    }

    fn on_close(&self, id: tracing::span::Id, ctx: Context<'_, S>) {
        self.lines.on_close(id, ctx);
    }
}

#[cfg(test)]
mod tests {
    use tracing::Level;
    use tracing::callsite::{Callsite, Identifier};
    use tracing::field::FieldSet;
    use tracing::metadata::Kind;

    use super::*;

    /// A call site that is never hit: only its metadata is judged.
    struct Site;
    impl Callsite for Site {
        fn set_interest(&self, _: Interest) {}
        fn metadata(&self) -> &Metadata<'_> {
            unreachable!("judged through the statics below")
        }
    }
    static SITE: Site = Site;

    const fn site(target: &'static str, level: Level, kind: Kind) -> Metadata<'static> {
        let fields = FieldSet::new(&[], Identifier(&SITE));
        Metadata::new("site", target, level, None, None, None, fields, kind)
    }

    static HYPER_TRACE: Metadata<'static> = site("hyper::proto", Level::TRACE, Kind::EVENT);
    static SQLX_DEBUG: Metadata<'static> = site("sqlx::query", Level::DEBUG, Kind::EVENT);
    static SQLX_WARN: Metadata<'static> = site("sqlx::query", Level::WARN, Kind::EVENT);
    static OWN_INFO: Metadata<'static> =
        site("kobana_dunning::http::serve", Level::INFO, Kind::EVENT);
    static OWN_SPAN: Metadata<'static> = site("mcpgen_axum::transport", Level::INFO, Kind::SPAN);
    static H2_SPAN: Metadata<'static> = site("h2::proto", Level::TRACE, Kind::SPAN);

    fn lines() -> EnvFilter {
        EnvFilter::new("info,sqlx=warn")
    }

    #[test]
    fn with_traces_off_every_call_site_is_judged_once_and_spans_are_never_made() {
        let subscriber = subscriber(LogFormat::Json, lines(), None);
        for (site, wanted) in [
            (&HYPER_TRACE, false),
            (&SQLX_DEBUG, false),
            (&SQLX_WARN, true),
            (&OWN_INFO, true),
            (&OWN_SPAN, false),
            (&H2_SPAN, false),
        ] {
            let interest = subscriber.register_callsite(site);
            // "sometimes" would run the filters again at every call of a hot `trace!`.
            let expected = if wanted { "always" } else { "never" };
            let got = match () {
                _ if interest.is_always() => "always",
                _ if interest.is_never() => "never",
                _ => "sometimes",
            };
            assert_eq!(got, expected, "{} {}", site.target(), site.level());
        }
        // The `log` bridge and disabled macros stop at one comparison with this level.
        assert_eq!(subscriber.max_level_hint(), Some(LevelFilter::INFO));
    }

    #[test]
    fn with_traces_on_what_no_layer_wants_is_never_judged_again() {
        // Nothing is sent: the exporter only sends spans, and none is made here.
        let exporter = telemetry::Exporter::start().expect("an exporter with the defaults");
        {
            let subscriber = subscriber(LogFormat::Text, lines(), Some(&exporter));
            for site in [&HYPER_TRACE, &SQLX_DEBUG, &H2_SPAN] {
                let interest = subscriber.register_callsite(site);
                assert!(interest.is_never(), "{} {}", site.target(), site.level());
            }
            for site in [&SQLX_WARN, &OWN_INFO, &OWN_SPAN] {
                let interest = subscriber.register_callsite(site);
                assert!(!interest.is_never(), "{} {}", site.target(), site.level());
            }
            assert_eq!(subscriber.max_level_hint(), Some(LevelFilter::INFO));
        }
        exporter.shutdown();
    }
}
