//! HTTP plumbing shared by every route: the RFC 9457 problem documents every error of the
//! server is answered with (`problem`).

pub mod problem;
