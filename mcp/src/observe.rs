//! What each MCP message was — its method, its tool, the protocol revision, how it ended and
//! what happened to a confirmation — attached to the HTTP response as [`Exchanges`], so that
//! the application can log and count MCP traffic without this layer knowing about logs or
//! metrics. Every name comes from a fixed list or from the catalog, never verbatim from the
//! client: whoever counts by them gets a bounded set of labels.
//!
//! Each request message also runs in a `tracing` span named and attributed per the
//! OpenTelemetry MCP semantic conventions ([`span`], [`record`]); plain `tracing`, so the
//! application decides whether anything records it.

use std::cell::Cell;
use std::future::Future;

/// The MCP messages one HTTP request carried (a batch carries several), in order. A response
/// without it never reached a message (refused by the guard, not JSON, not POST).
#[derive(Debug, Clone, Default)]
pub struct Exchanges(pub Vec<Exchange>);

/// One request message and how it ended.
#[derive(Debug, Clone, Copy)]
pub struct Exchange {
    /// A method this endpoint serves, or `"other"`.
    pub method: &'static str,
    /// For `tools/call`: the tool's name, when the catalog has such a tool.
    pub tool: Option<&'static str>,
    /// The protocol revision the answer speaks.
    pub version: &'static str,
    /// How it ended.
    pub outcome: Outcome,
    /// For a destructive tool: what the confirmation step did.
    pub confirmation: Option<Confirmation>,
    /// The JSON-RPC error code of the answer, when it was an error.
    pub error_code: Option<i64>,
}

impl Exchange {
    /// `"stateless"` (2026-07-28, no handshake) or `"handshake"` (the 2025 revisions).
    pub fn era(&self) -> &'static str {
        if self.version == super::protocol::STATELESS_VERSION {
            "stateless"
        } else {
            "handshake"
        }
    }
}

/// How a message ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A result.
    Ok,
    /// A tool result with `isError` (the operation refused or failed).
    ToolError,
    /// A JSON-RPC error.
    Error,
    /// Refused by the rate limit.
    RateLimited,
    /// No valid credential.
    Unauthorized,
}

impl Outcome {
    /// The label metrics and logs use.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::ToolError => "tool_error",
            Outcome::Error => "error",
            Outcome::RateLimited => "rate_limited",
            Outcome::Unauthorized => "unauthorized",
        }
    }
}

/// What the confirmation of a destructive tool did (see `confirm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirmation {
    /// The user was asked (an `input_required` answer).
    Asked,
    /// The user confirmed; the tool ran.
    Accepted,
    /// The user said no, or dismissed the form.
    Declined,
    /// The answer came back after the state expired.
    Expired,
    /// The answer carried a state that does not verify.
    Invalid,
    /// The client cannot be asked (no elicitation, or the handshake era with
    /// `reject_unconfirmed_in_handshake_era`): refused.
    Refused,
}

impl Confirmation {
    /// The label metrics and logs use.
    pub fn as_str(self) -> &'static str {
        match self {
            Confirmation::Asked => "asked",
            Confirmation::Accepted => "accepted",
            Confirmation::Declined => "declined",
            Confirmation::Expired => "expired",
            Confirmation::Invalid => "invalid",
            Confirmation::Refused => "refused",
        }
    }
}

/// The methods this endpoint serves; anything else is counted as `"other"`.
const METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "completion/complete",
];

/// `method` if this endpoint serves it, else `"other"`.
pub fn method_label(method: &str) -> &'static str {
    METHODS
        .iter()
        .copied()
        .find(|m| *m == method)
        .unwrap_or("other")
}

/// The span of one request message: `{mcp.method.name} {gen_ai.tool.name}` (the method
/// alone for other methods), a server span. Names come from the exchange (bounded), the id is
/// the message's own; never arguments or results.
pub(crate) fn span(seen: &Exchange, id: &super::jsonrpc::Id) -> tracing::Span {
    use tracing::field::Empty;
    tracing::info_span!(
        "MCP request",
        otel.name = match seen.tool {
            Some(tool) => format!("{} {tool}", seen.method),
            None => seen.method.to_string(),
        },
        otel.kind = "server",
        otel.status_code = Empty,
        mcp.method.name = seen.method,
        gen_ai.tool.name = seen.tool,
        gen_ai.operation.name = seen.tool.map(|_| "execute_tool"),
        jsonrpc.request.id = id.text(),
        mcp.protocol.version = Empty,
        network.protocol.name = "http",
        network.transport = "tcp",
        rpc.response.status_code = Empty,
        "error.type" = Empty,
    )
}

/// Write how the message ended onto its span: the revision spoken and, on failure,
/// `error.type` (the JSON-RPC code, or `tool_error` for a tool result with `isError`) with
/// the span's status set to error.
pub(crate) fn record(span: &tracing::Span, seen: &Exchange) {
    span.record("mcp.protocol.version", seen.version);
    let code = seen.error_code.map(|code| code.to_string());
    if let Some(code) = &code {
        span.record("rpc.response.status_code", code.as_str());
    }
    let error = match seen.outcome {
        Outcome::Ok => return,
        Outcome::ToolError => "tool_error",
        Outcome::Unauthorized => "unauthorized",
        Outcome::Error | Outcome::RateLimited => code.as_deref().unwrap_or("_OTHER"),
    };
    span.record("error.type", error);
    span.record("otel.status_code", "ERROR");
}

tokio::task_local! {
    /// The confirmation step of the message being served on this task, if any.
    static CONFIRMATION: Cell<Option<Confirmation>>;
}

/// Note what the confirmation step of the current message did. Outside [`watching`] (unit
/// tests calling `confirm` directly) there is nobody to tell, and nothing happens.
pub(crate) fn note_confirmation(confirmation: Confirmation) {
    let _ = CONFIRMATION.try_with(|cell| cell.set(Some(confirmation)));
}

/// Run `work` (one message), and say what its confirmation step did. A task-local keeps the
/// note out of the signatures between the transport and `confirm`.
pub(crate) async fn watching<F: Future>(work: F) -> (F::Output, Option<Confirmation>) {
    CONFIRMATION
        .scope(Cell::new(None), async {
            let output = work.await;
            (output, CONFIRMATION.with(Cell::get))
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_methods_are_counted_as_other() {
        assert_eq!(method_label("tools/call"), "tools/call");
        assert_eq!(method_label("tools/call/../../x"), "other");
        assert_eq!(method_label(""), "other");
    }

    #[tokio::test]
    async fn a_confirmation_noted_inside_the_work_is_reported() {
        let ((), seen) = watching(async { note_confirmation(Confirmation::Declined) }).await;
        assert_eq!(seen, Some(Confirmation::Declined));
        let ((), seen) = watching(async {}).await;
        assert_eq!(seen, None);
    }
}
