//! What the fixture's operations answer where the document gives the answer a shape: built as
//! the generated response types, so a field the document renames or removes stops this file
//! from compiling (see `tests/models_follow_the_document.rs`, which builds it against a mutated
//! copy of `fixture.yaml`). It names nothing but `crate::models` and `serde_json`.

use serde_json::{Map, Value};

use crate::models::{json_schema_2020_12_tool, template_data};

/// `template_data`: the data of one id of the template `test://template/{id}/data`; `text`
/// is the data's text, which the caller keeps.
pub fn template_data<'a>(
    path: &'a template_data::Path,
    text: &'a str,
) -> template_data::Response200<'a> {
    template_data::Response200 {
        id: Some(&path.id),
        template_test: Some(true),
        data: Some(text),
    }
}

/// `json_schema_2020_12_tool`: the arguments as received. The body is echoed as it came (a
/// free-form object in the answer), so it is read as JSON, not as the generated `Contact`.
pub fn json_schema_2020_12(body: &Map<String, Value>) -> json_schema_2020_12_tool::Response200<'_> {
    json_schema_2020_12_tool::Response200 {
        received: Some(body),
    }
}
