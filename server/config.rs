//! Runtime configuration: where to listen, which database, and the MCP endpoint's settings.

use std::net::SocketAddr;

/// Everything the server needs to know at start-up; built by `main.rs` from flags and env.
#[derive(Debug, Clone)]
pub struct Config {
    /// Address to listen on (`DUNNING_BIND`).
    pub bind: SocketAddr,
    /// `sqlite://path?mode=rwc` or `postgres://...` (`DATABASE_URL`).
    pub database_url: String,
    /// Seed two demo organizations into a new, empty database.
    pub seed_demo: bool,
    /// Where the demo credentials file is written when the demo is seeded.
    pub demo_credentials_path: Option<std::path::PathBuf>,
    /// Path of the MCP endpoint.
    pub mcp_path: String,
    /// `initialize`, `ping`, `server/discover` and `tools/list` work without a credential.
    pub public_catalog: bool,
    /// Requests per period (seconds) for tokens and organizations without their own limit.
    pub default_rate_limit: (i64, i64),
}

impl Config {
    /// Defaults for a local run: 127.0.0.1:8080 and `./data/dunning.db`.
    pub fn local() -> Self {
        Config {
            bind: "127.0.0.1:8080".parse().expect("literal address"),
            database_url: "sqlite://data/dunning.db?mode=rwc".to_string(),
            seed_demo: true,
            demo_credentials_path: Some("data/demo-credentials.json".into()),
            mcp_path: "/mcp".to_string(),
            public_catalog: false,
            default_rate_limit: (600, 60),
        }
    }

    /// The part of the configuration the generic MCP layer reads.
    pub fn mcp_settings(&self) -> crate::mcp::Settings {
        crate::mcp::Settings {
            path: self.mcp_path.clone(),
            public_catalog: self.public_catalog,
            server_name: "kobana-dunning",
            server_title: "Kobana Dunning",
            server_version: env!("CARGO_PKG_VERSION"),
        }
    }

    /// Base URL clients use to reach this server (for printed instructions and metadata).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.bind)
    }
}
