//! The MCP endpoint: Streamable HTTP, stateless, JSON only.
//!
//! This layer knows no application. It serves the [`Catalog`] it is handed (what the
//! generator produced from an OpenAPI document), authenticates through a [`Host`], and runs
//! every tool by dispatching an HTTP request in-process to the API router it is handed: the
//! same middleware, authentication and handler as a REST call, so the two cannot drift.
//!
//! A service mounts it in three steps (the crate's README has the whole guide):
//!
//! ```no_run
//! # mod generated { pub static CATALOG: mcpgen_axum::Catalog = mcpgen_axum::Catalog {
//! #     tool_prefix: "", tools: &[], toolsets: &[], resources: &[], resource_templates: &[], prompts: &[],
//! #     instructions: "", openapi_json: "{}", catalog_json: "{}" }; }
//! use std::sync::Arc;
//!
//! // 1. `build.rs`: `mcpgen::Build::new("openapi.json").run();`, then, in the crate:
//! //    mod generated { use mcpgen_axum::catalog::*; include!(concat!(env!("OUT_DIR"), "/catalog.rs")); }
//! // 2. A host: every method has a default; this service asks no token of its own (its
//! //    handlers check their `X-API-Key`, which the layer hands on, see `Forward`).
//! struct Todos;
//! impl mcpgen_axum::Host for Todos {}
//!
//! // 3. Mount it beside the REST routes.
//! let api: axum::Router = axum::Router::new(); // the service's own routes
//! let settings = mcpgen_axum::Settings::new("todos", "1.0.0")
//!     .authentication(mcpgen_axum::Authentication::None);
//! let mcp = mcpgen_axum::router(generated::CATALOG, Arc::new(Todos), api.clone(), settings);
//! let app = api.merge(mcp);
//! # let _ = app;
//! ```
//!
//! The crate depends on `mcpgen-catalog` (the tables it serves, re-exported as [`catalog`]),
//! axum/http (the transport), serde (the messages) and jsonschema (tool arguments), plus
//! small helpers (HMAC for confirmations, base64, time); never on a database or on the
//! application.

#![deny(missing_docs)]

mod admission;
mod bounds;
mod completions;
mod confirm;
mod discovery;
mod dispatch;
mod fault;
mod forward;
mod guard;
mod indent;
mod input;
mod jsonrpc;
mod lifecycle;
mod metadata;
pub mod observe;
mod offer;
mod prompts;
mod protocol;
mod resources;
mod results;
mod search;
#[cfg(test)]
mod test_catalog;
mod tools;
pub mod toolsets;
mod transport;
mod views;
mod written;

use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::Router;

pub use guard::is_loopback_host;
pub use jsonrpc::ErrorCode;
/// The catalog's types, for the generated code's module (`use mcpgen_axum::catalog::*;`):
/// a service depends on this crate alone at run time.
pub use mcpgen_catalog as catalog;
pub use mcpgen_catalog::{Catalog, canonical_json};
pub use protocol::{SUPPORTED_VERSIONS, Version};
pub use written::WrittenJson;

/// Settings of the endpoint.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Path of the endpoint (`/mcp`).
    pub path: String,
    /// Lists and the handshake work without a credential (calls still need one).
    pub public_catalog: bool,
    /// `serverInfo.name`.
    pub server_name: &'static str,
    /// `serverInfo.title`.
    pub server_title: &'static str,
    /// `serverInfo.version`.
    pub server_version: &'static str,
    /// Bound to a loopback address: a `Host` that is not a loopback name is refused (DNS
    /// rebinding protection).
    pub loopback_only: bool,
    /// When set, requests through any other (non-loopback) host are redirected here.
    pub canonical_url: Option<String>,
    /// Browser origins allowed besides the server's own.
    pub allowed_origins: Vec<String>,
    /// Key of the HMAC that signs confirmation `requestState`s; replicas must share it.
    pub confirmation_secret: Vec<u8>,
    /// In the handshake era there is no way to ask for confirmation: refuse destructive
    /// tools (`confirmation_required`) instead of relying on the host's own confirmation.
    pub reject_unconfirmed_in_handshake_era: bool,
    /// URI of the resource serving the OpenAPI document the catalog was generated from.
    pub openapi_resource_uri: String,
    /// OAuth authorization servers that issue tokens for this resource (RFC 9728); empty when
    /// tokens are issued by the operator. An entry that is a path (`/`) is on this server's
    /// own URL.
    pub authorization_servers: Vec<String>,
    /// Where the problem documents the layer writes itself are described: their `type` is
    /// this base followed by a slug (`validation-error`, `unauthorized`, ...); empty gives
    /// `about:blank`.
    pub problem_type_base: String,
    /// The operator's bound on toolsets (`None`: all): no credential or request sees more.
    pub toolsets: Option<Vec<String>>,
    /// Only read-only tools, for every connection.
    pub read_only: bool,
    /// Offer the tools through discovery mode's three (`<prefix>search`, `<prefix>describe`,
    /// `<prefix>call`) unless a request says otherwise (`X-MCP-Discovery: false`); see
    /// [`toolsets`].
    pub discovery: bool,
    /// Write every optional argument as also admitting `null` (the form strict
    /// function-calling modes need) unless a request says otherwise
    /// (`X-MCP-Strict-Schemas: false`); see [`toolsets`].
    pub strict_schemas: bool,
    /// Whether the layer asks for a bearer token of its own ([`Authentication`]).
    pub authentication: Authentication,
    /// What of the MCP request reaches every in-process request ([`Forward`]).
    pub forward: Forward,
    /// The `code` member of the layer's own `400` for arguments that do not fit a tool.
    pub validation_error_code: &'static str,
    /// Copy what the operation's response headers say (`RateLimit-*`, `ETag`,
    /// `Idempotency-Key`, `Idempotent-Replayed`) into the `meta` object of its JSON answer.
    /// Off by default: it changes the service's answers, which its output schemas must then
    /// allow.
    pub response_meta: bool,
}

/// Whether the MCP layer asks for a credential of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Authentication {
    /// Every request but the catalog's (with [`Settings::public_catalog`]) carries
    /// `Authorization: Bearer <token>`, which [`Host::authenticate`] turns into a [`Caller`];
    /// without one the answer is `401` with the RFC 9728 challenge.
    #[default]
    Bearer,
    /// No token is asked for: every request is served as one anonymous caller holding every
    /// scope the catalog names, and no protected-resource metadata is published. For a
    /// service without authentication, or one whose own authentication (a header the
    /// [`Forward`] policy copies, such as an API key) runs in its handlers as for REST.
    None,
}

/// What of the MCP request is copied onto the in-process request of every tool call, so that
/// the service's own middleware sees what it sees on a REST call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forward {
    /// Request headers copied as they are. `None` (the default): the credential headers the
    /// document's security schemes name (an `apiKey` in a header: its name; `http`, `oauth2`,
    /// `openIdConnect`: `Authorization`; an `apiKey` in a cookie: `Cookie`), so that a service
    /// that authenticates by header works unchanged. `Some(vec![])`: none.
    pub headers: Option<Vec<http::HeaderName>>,
    /// The `Host` header and axum's `ConnectInfo<SocketAddr>` (the client's address) of the
    /// MCP request.
    pub connection: bool,
}

impl Default for Forward {
    fn default() -> Forward {
        Forward {
            headers: None,
            connection: true,
        }
    }
}

impl Settings {
    /// Settings for a server called `name` at `version`, with what most services want: the
    /// endpoint at `/mcp`, calls and lists only with a credential, no browser origin besides
    /// the server's own, destructive tools confirmed (refused in the handshake era, which
    /// cannot ask), no authorization server announced, problem types `about:blank`, every
    /// toolset, and a confirmation secret of 32 random bytes — fine for one process; replicas
    /// must share one ([`Settings::confirmation_secret`]).
    ///
    /// ```
    /// let settings = mcpgen_axum::Settings::new("todos", "1.0.0")
    ///     .path("/mcp")
    ///     .allowed_origin("https://app.example.com");
    /// assert_eq!(settings.server_name, "todos");
    /// assert_eq!(settings.confirmation_secret.len(), 32);
    /// ```
    pub fn new(name: &'static str, version: &'static str) -> Settings {
        let mut secret = vec![0u8; 32];
        getrandom::fill(&mut secret).expect("the operating system's random numbers");
        Settings {
            path: "/mcp".to_string(),
            public_catalog: false,
            server_name: name,
            server_title: name,
            server_version: version,
            loopback_only: false,
            canonical_url: None,
            allowed_origins: Vec::new(),
            confirmation_secret: secret,
            reject_unconfirmed_in_handshake_era: true,
            openapi_resource_uri: "openapi://document".to_string(),
            authorization_servers: Vec::new(),
            problem_type_base: String::new(),
            toolsets: None,
            read_only: false,
            discovery: false,
            strict_schemas: false,
            authentication: Authentication::Bearer,
            forward: Forward::default(),
            validation_error_code: "validation_error",
            response_meta: false,
        }
    }

    /// Whether the layer asks for a bearer token of its own.
    pub fn authentication(mut self, authentication: Authentication) -> Settings {
        self.authentication = authentication;
        self
    }

    /// Exactly these request headers of the MCP request reach each in-process request (in
    /// place of the credential headers the document names).
    pub fn forward_headers<I: IntoIterator<Item = http::HeaderName>>(
        mut self,
        names: I,
    ) -> Settings {
        self.forward.headers = Some(names.into_iter().collect());
        self
    }

    /// The endpoint's path.
    pub fn path(mut self, path: impl Into<String>) -> Settings {
        self.path = path.into();
        self
    }

    /// `serverInfo.title`.
    pub fn title(mut self, title: &'static str) -> Settings {
        self.server_title = title;
        self
    }

    /// A browser origin allowed besides the server's own.
    pub fn allowed_origin(mut self, origin: impl Into<String>) -> Settings {
        self.allowed_origins.push(origin.into());
        self
    }

    /// The server's public URL: requests through another (non-loopback) host are
    /// redirected to it, and the RFC 9728 metadata names it.
    pub fn canonical_url(mut self, url: impl Into<String>) -> Settings {
        self.canonical_url = Some(url.into());
        self
    }

    /// The key of the HMAC that signs confirmations; replicas behind one URL must share it.
    pub fn confirmation_secret(mut self, secret: impl Into<Vec<u8>>) -> Settings {
        self.confirmation_secret = secret.into();
        self
    }

    /// An OAuth authorization server that issues tokens for this resource (RFC 9728).
    pub fn authorization_server(mut self, url: impl Into<String>) -> Settings {
        self.authorization_servers.push(url.into());
        self
    }

    /// Lists and the handshake without a credential (calls still need one).
    pub fn public_catalog(mut self, public: bool) -> Settings {
        self.public_catalog = public;
        self
    }

    /// Bound to a loopback address: a `Host` header that is not a loopback name is refused
    /// (DNS rebinding protection).
    pub fn loopback_only(mut self, loopback: bool) -> Settings {
        self.loopback_only = loopback;
        self
    }

    /// Only these toolsets, for every connection.
    pub fn toolsets<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Settings {
        self.toolsets = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Only read-only tools, for every connection.
    pub fn read_only(mut self, read_only: bool) -> Settings {
        self.read_only = read_only;
        self
    }

    /// Discovery mode for every connection that does not say otherwise.
    pub fn discovery(mut self, discovery: bool) -> Settings {
        self.discovery = discovery;
        self
    }

    /// Strict-mode schemas (optional arguments admitting `null`) for every connection that
    /// does not say otherwise.
    pub fn strict_schemas(mut self, strict: bool) -> Settings {
        self.strict_schemas = strict;
        self
    }

    /// The `type` URI of the layer's own problem documents with this slug.
    pub fn problem_type(&self, slug: &str) -> String {
        if self.problem_type_base.is_empty() {
            "about:blank".to_string()
        } else {
            format!("{}{slug}", self.problem_type_base)
        }
    }
}

/// An authenticated MCP caller, as the host describes it.
#[derive(Debug, Clone)]
pub struct Caller {
    /// Stable id of the credential (for logs and derived keys).
    pub subject: String,
    /// Scopes this caller can exercise; a tool is usable when it has all of the tool's.
    /// Shared: a host builds a caller on every request, from scopes it keeps.
    pub scopes: Arc<BTreeSet<String>>,
    /// The toolsets its credential allows and loads by default (see [`toolsets`]).
    pub toolsets: toolsets::Toolsets,
    /// Copied into every in-process request, so the API sees who is calling.
    pub extensions: http::Extensions,
}

impl Caller {
    /// Whether the caller holds every scope in `required`.
    pub fn may_use(&self, required: &[&str]) -> bool {
        self.missing_scope(required).is_none()
    }

    /// The first scope in `required` that the caller does not hold.
    pub fn missing_scope<'a>(&self, required: &[&'a str]) -> Option<&'a str> {
        required.iter().copied().find(|s| !self.scopes.contains(*s))
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
    /// Turn a bearer token into a caller. The default refuses every token: what a host
    /// serving [`Authentication::None`] keeps (it is never asked).
    fn authenticate<'a>(&'a self, token: &'a str) -> HostFuture<'a, Result<Caller, AuthFailure>> {
        let _ = token;
        Box::pin(async {
            Err(AuthFailure::InvalidToken(
                "This server takes no bearer tokens",
            ))
        })
    }
    /// Every scope the server knows, announced in `WWW-Authenticate` and the RFC 9728
    /// metadata. A service without scopes keeps the default: none (and the challenge names
    /// no `scope`).
    fn all_scopes(&self) -> Vec<String> {
        Vec::new()
    }
    /// Count one request of `caller` against its rate limit, before it is served. The host
    /// may add to `caller.extensions` (which every in-process request carries) so that its
    /// API does not count the same request again. Hosts without limits keep the default.
    fn admit<'a>(&'a self, caller: &'a mut Caller) -> HostFuture<'a, Result<Admission, String>> {
        let _ = caller;
        Box::pin(async { Ok(Admission::Admitted) })
    }
    /// Values for a prompt argument or template variable, from the caller's own data. A
    /// service that offers none keeps the default: no values.
    fn complete<'a>(
        &'a self,
        caller: &'a Caller,
        request: CompletionRequest<'a>,
    ) -> HostFuture<'a, Result<Completion, String>> {
        let _ = (caller, request);
        Box::pin(async { Ok(Completion::default()) })
    }
}

/// The future a [`Host`] method returns: `Box::pin(async move { ... })` makes one.
pub type HostFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Whether a request may be served now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Serve it.
    Admitted,
    /// The caller's window is spent; it may try again in this many seconds.
    Limited {
        /// Seconds until the window allows another request.
        retry_after: u64,
    },
}

/// What is being completed.
#[derive(Debug, Clone, Copy)]
pub struct CompletionRequest<'a> {
    /// The prompt argument's declared source (`projects`, `todos`, ...), if any.
    pub source: Option<&'a str>,
    /// The resource template whose variable is completed, if that is what is asked.
    pub template: Option<&'a str>,
    /// Argument or variable name.
    pub argument: &'a str,
    /// What the user typed so far.
    pub value: &'a str,
}

/// Completion values, best first, and how many there are in all.
#[derive(Debug, Clone, Default)]
pub struct Completion {
    /// At most 100 values, best first.
    pub values: Vec<String>,
    /// How many values match in all.
    pub total: usize,
}

/// Shared by the handlers of the endpoint.
#[derive(Clone)]
pub(crate) struct Endpoint {
    /// What this endpoint serves.
    pub catalog: Catalog,
    /// Per-tool argument checks, compiled once per catalog.
    pub checks: Arc<dispatch::Checks>,
    /// `tools/list` results, prepared once per set of visible tools and era.
    pub listings: Arc<tools::Listings>,
    /// Discovery mode's search index and tools, prepared on first use.
    pub discovery: discovery::Slot,
    pub host: Arc<dyn Host>,
    /// The API router tools are dispatched to, in-process.
    pub api: Router,
    pub settings: Arc<Settings>,
    /// What of the MCP request reaches each in-process request.
    pub forward: forward::Policy,
    /// The caller of every request under [`Authentication::None`].
    pub anonymous: Arc<Caller>,
}

impl Endpoint {
    /// What the handlers share, prepared once: the argument checks and the forwarding
    /// policy resolved against `catalog`, the anonymous caller.
    fn new(catalog: Catalog, host: Arc<dyn Host>, api: Router, settings: Settings) -> Endpoint {
        Endpoint {
            catalog,
            checks: dispatch::checks(&catalog),
            listings: Arc::default(),
            discovery: Arc::default(),
            host,
            api,
            forward: forward::Policy::resolve(&settings.forward, &catalog),
            anonymous: Arc::new(forward::anonymous(&catalog)),
            settings: Arc::new(settings),
        }
    }
}

/// The router serving `catalog` as an MCP endpoint at `settings.path`: callers authenticated
/// by `host`, operations dispatched in-process to `api`.
pub fn router(catalog: Catalog, host: Arc<dyn Host>, api: Router, settings: Settings) -> Router {
    let path = settings.path.clone();
    let endpoint = Endpoint::new(catalog, host, api, settings);
    let endpoint_route = axum::routing::any(transport::handle);
    let mut router = Router::new().route(&path, endpoint_route.clone());
    // The same endpoint with a choice in its URL (see `toolsets`): toolsets, read-only mode,
    // discovery mode.
    for variant in ["/readonly", "/x/{toolsets}", "/x/{toolsets}/readonly"] {
        router = router.route(&format!("{path}{variant}"), endpoint_route.clone());
    }
    for variant in ["", "/readonly", "/x/{toolsets}", "/x/{toolsets}/readonly"] {
        let discover = toolsets::DISCOVERY_SEGMENT;
        router = router.route(
            &format!("{path}{variant}{discover}"),
            endpoint_route.clone(),
        );
    }
    // Protected-resource metadata (RFC 9728) only where there is a token to protect with.
    if endpoint.settings.authentication == Authentication::Bearer {
        let metadata = axum::routing::get(metadata::protected_resource);
        router = router
            .route("/.well-known/oauth-protected-resource", metadata.clone())
            .route(
                &format!("/.well-known/oauth-protected-resource{path}"),
                metadata,
            );
    }
    router.with_state(endpoint)
}
