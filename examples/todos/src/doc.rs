//! The OpenAPI document, produced by the code: utoipa collects the handlers' annotations;
//! [`SecurityAddon`] declares the `X-API-Key` header. `openapi.json` is this, committed (and
//! checked by `tests/document.rs`), and what `build.rs` generates the MCP catalog from.

use utoipa::openapi::OpenApi as Document;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::{auth, todos};

/// The service's document.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Todos",
        description = "A todo list. Every operation needs an API key in the `X-API-Key` header."
    ),
    paths(
        todos::list_todos,
        todos::get_todo,
        todos::create_todo,
        todos::update_todo,
        todos::delete_todo,
        auth::whoami,
    ),
    modifiers(&SecurityAddon),
    security(("api_key" = [])),
)]
pub struct ApiDoc;

/// Declares the `api_key` security scheme: an API key in the `X-API-Key` header.
#[derive(Debug)]
pub struct SecurityAddon;

impl Modify for SecurityAddon {
    fn modify(&self, openapi: &mut Document) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("X-API-Key"))),
        );
    }
}
