//! Integration tests: the whole server driven in-process (`tower::ServiceExt::oneshot`) and
//! over real sockets on 127.0.0.1, against SQLite files and, where it runs, PostgreSQL.
//!
//! One binary with a module per area keeps link time down on small machines.

mod common;
mod template;

mod agreements;
mod auth;
mod automatic_pix;
mod catalog;
mod charges;
mod collection;
mod collection_engine;
mod concurrency;
mod customers;
mod demo_bulk;
mod disputes;
mod exports;
mod external_issuer;
mod faults;
mod fields;
mod http_server;
mod idempotency_and_limits;
mod inbound_doors;
mod isolation;
mod mcp_authorization;
mod mcp_confirmation;
mod mcp_discovery;
mod mcp_generic;
mod mcp_guard;
mod mcp_handshake;
mod mcp_limits;
mod mcp_resources;
mod mcp_stateless;
mod mcp_tools;
mod mcp_toolsets;
mod mcp_transport;
mod mcp_views;
mod metrics;
mod money;
mod oauth;
mod oauth_attacks;
mod operations;
mod pix;
mod pix_psp;
mod plan_schedule;
mod plans;
mod postgres;
mod postgres_reads;
mod query_plans;
mod reports;
mod rest_limits;
mod startup;
mod tidy;
mod traces;
mod twilio;
mod unsubscribe;
mod webhook_security;
mod webhooks;
