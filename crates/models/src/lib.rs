//! The types of `openapi/v1.yaml`, generated at build time (`build.rs`, `mcpgen::Build`): for
//! every operation a module with its path, query, body and response types, which the `/v1`
//! handlers read and answer; `request` and `response` with the component schemas' forms; and
//! for every webhook (one per event type, the document's `webhooks`) a module with its `NAME`,
//! its body's `SCHEMA` and its `Body`, whose `data` is the event's payload type
//! (`response::ChargePaidData`), from which the application layer records events
//! (`dunning_app::events`). See `codegen/X-MCP.md`, "The models".
//!
//! Read them without a build with
//! `cargo run -p mcpgen -- models openapi/v1.yaml --views templates/ui` (the default format
//! types there; this crate's are in `build.rs`). Some of the response types are not used yet.

#![allow(dead_code, clippy::all)]

include!(concat!(env!("OUT_DIR"), "/models.rs"));
