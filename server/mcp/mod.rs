//! The MCP endpoint: Streamable HTTP, stateless, JSON only.
//!
//! This layer knows nothing about dunning. It serves the catalog the generator produced from
//! the OpenAPI document (`generated`), authenticates through a [`Host`], and runs every tool
//! by dispatching an HTTP request in-process to the `/v1` router it is handed. A second
//! OpenAPI document and a second `Host` would give a second MCP server from the same code.

pub mod catalog;
mod dispatch;
pub mod generated;
mod jsonrpc;
mod lifecycle;
mod protocol;
mod results;
mod tools;
mod transport;

use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::Router;

pub use jsonrpc::ErrorCode;
pub use protocol::{SUPPORTED_VERSIONS, Version};

/// Settings of the endpoint.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Path of the endpoint (`/mcp`).
    pub path: String,
    /// Lists and the handshake work without a credential (calls still need one).
    pub public_catalog: bool,
    pub server_name: &'static str,
    pub server_title: &'static str,
    pub server_version: &'static str,
}

/// An authenticated MCP caller, as the host describes it.
#[derive(Debug, Clone)]
pub struct Caller {
    /// Stable id of the credential (for logs and derived keys).
    pub subject: String,
    /// Scopes this caller can exercise; a tool is usable when it has all of the tool's.
    pub scopes: BTreeSet<String>,
    /// Copied into every in-process request, so the API sees who is calling.
    pub extensions: http::Extensions,
}

impl Caller {
    /// Whether the caller holds every scope in `required`.
    pub fn may_use(&self, required: &[&str]) -> bool {
        required.iter().all(|s| self.scopes.contains(*s))
    }
}

/// Why a credential was refused.
#[derive(Debug, Clone)]
pub enum AuthFailure {
    /// Unknown, revoked, or for another audience; the message is shown to the client.
    InvalidToken(&'static str),
    /// The lookup itself failed.
    Internal(String),
}

/// What the application provides to the MCP layer.
pub trait Host: Send + Sync + 'static {
    /// Turn a bearer token into a caller.
    fn authenticate<'a>(
        &'a self,
        token: &'a str,
    ) -> Pin<Box<dyn Future<Output = Result<Caller, AuthFailure>> + Send + 'a>>;
    /// Every scope the server knows, announced in `WWW-Authenticate`.
    fn all_scopes(&self) -> Vec<String>;
}

/// Shared by the handlers of the endpoint.
#[derive(Clone)]
pub(crate) struct Endpoint {
    pub host: Arc<dyn Host>,
    /// The `/v1` router tools are dispatched to, in-process.
    pub api: Router,
    pub settings: Arc<Settings>,
}

/// The router serving the MCP endpoint at `settings.path`.
pub fn router(host: Arc<dyn Host>, api: Router, settings: Settings) -> Router {
    let path = settings.path.clone();
    let endpoint = Endpoint {
        host,
        api,
        settings: Arc::new(settings),
    };
    Router::new()
        .route(&path, axum::routing::any(transport::handle))
        .with_state(endpoint)
}
