//! The server's own outbound network rules: what it may contact on a tenant's behalf.

pub mod outbound;
