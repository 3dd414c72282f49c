//! Turning an operation's HTTP answer into a `tools/call` result.
//!
//! Success: the JSON body as indented text plus `structuredContent`, with `meta` enriched by
//! what the headers said (rate limit, ETag, idempotency). Errors the caller can act on: an
//! `isError` result whose text is the problem document. Files: a description, never bytes.
//!
//! The common case, a JSON object answered with success, is written by [`prepared`] straight
//! from the body's text: the body is not turned into a `Value` and back twice (indented text,
//! then `structuredContent`). [`from_response`] is the general path; both give the same text.

use std::fmt;

use http::{HeaderName, header};
use mcpgen_catalog::{ResponseKind, ToolSpec};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::dispatch::Answer;
use super::indent;

/// An `isError` result carrying a problem document.
pub fn error(problem: &Value) -> Value {
    json!({
        "content": [{ "type": "text", "text": pretty(problem) }],
        "isError": true,
    })
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

fn header<'a>(answer: &'a Answer, name: &HeaderName) -> Option<&'a str> {
    answer.headers.get(name).and_then(|v| v.to_str().ok())
}

// The headers `meta` is enriched from, named once: a lookup by `&str` parses the name again
// each time (six lookups were a thirtieth of an MCP detail read).
const RATELIMIT_LIMIT: HeaderName = HeaderName::from_static("ratelimit-limit");
const RATELIMIT_REMAINING: HeaderName = HeaderName::from_static("ratelimit-remaining");
const RATELIMIT_RESET: HeaderName = HeaderName::from_static("ratelimit-reset");
const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");
const IDEMPOTENT_REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");

/// What the response headers say that `meta` carries: rate limit, ETag, idempotency.
struct MetaFacts<'a> {
    rate_limit: Option<[u64; 3]>,
    etag: Option<&'a str>,
    idempotency: Option<(&'a str, bool)>,
}

impl<'a> MetaFacts<'a> {
    fn of(answer: &'a Answer) -> MetaFacts<'a> {
        if !answer.response_meta {
            return MetaFacts {
                rate_limit: None,
                etag: None,
                idempotency: None,
            };
        }
        // One pass over the answer's few headers, each kept at its first value as `get`
        // would give it: five lookups hashed each name again (1.2k instructions a call).
        const NAMES: [HeaderName; 6] = [
            RATELIMIT_LIMIT,
            RATELIMIT_REMAINING,
            RATELIMIT_RESET,
            header::ETAG,
            IDEMPOTENCY_KEY,
            IDEMPOTENT_REPLAYED,
        ];
        let mut found: [Option<Option<&'a str>>; 6] = [None; 6];
        for (name, value) in &answer.headers {
            if let Some(at) = NAMES.iter().position(|known| known == name) {
                found[at].get_or_insert(value.to_str().ok());
            }
        }
        let [limit, remaining, reset, etag, key, replayed] = found.map(Option::flatten);
        let number = |text: Option<&str>| text.and_then(|v| v.parse::<u64>().ok());
        let rate_limit = match (number(limit), number(remaining), number(reset)) {
            (Some(limit), Some(remaining), Some(reset)) => Some([limit, remaining, reset]),
            _ => None,
        };
        MetaFacts {
            rate_limit,
            etag,
            idempotency: key.map(|key| (key, replayed == Some("true"))),
        }
    }

    fn is_empty(&self) -> bool {
        self.rate_limit.is_none() && self.etag.is_none() && self.idempotency.is_none()
    }

    /// The keys added, in the order they are added.
    fn keys(&self) -> impl Iterator<Item = &'static str> {
        let rate_limit = self.rate_limit.map(|_| "rate_limit");
        let etag = self.etag.map(|_| "etag");
        let idempotency = self
            .idempotency
            .map(|_| ["idempotency_key", "idempotent_replay"]);
        rate_limit
            .into_iter()
            .chain(etag)
            .chain(idempotency.into_iter().flatten())
    }

    /// The members added to `meta`, as a map.
    fn map(&self) -> Map<String, Value> {
        let mut additions = Map::new();
        if let Some([limit, remaining, reset]) = self.rate_limit {
            additions.insert(
                "rate_limit".into(),
                json!({ "limit": limit, "remaining": remaining, "reset": reset }),
            );
        }
        if let Some(etag) = self.etag {
            additions.insert("etag".into(), json!(etag));
        }
        if let Some((key, replayed)) = self.idempotency {
            additions.insert("idempotency_key".into(), json!(key));
            additions.insert("idempotent_replay".into(), json!(replayed));
        }
        additions
    }

    /// The members added to `meta`, as `serde_json` writes them into the compact text of a
    /// map (`,` before each): what [`Self::map`] gives, without building it.
    fn write_members(&self, out: &mut String) {
        let string = |out: &mut String, text: &str| {
            // Writing a `&str` into a `String` cannot fail.
            if let Ok(quoted) = serde_json::to_string(text) {
                out.push_str(&quoted);
            }
        };
        if let Some([limit, remaining, reset]) = self.rate_limit {
            // Written with itoa rather than `write!`: the formatting machinery was most of
            // what adding these three numbers cost.
            let mut digits = itoa::Buffer::new();
            out.push_str(r#","rate_limit":{"limit":"#);
            out.push_str(digits.format(limit));
            out.push_str(r#","remaining":"#);
            out.push_str(digits.format(remaining));
            out.push_str(r#","reset":"#);
            out.push_str(digits.format(reset));
            out.push('}');
        }
        if let Some(etag) = self.etag {
            out.push_str(r#","etag":"#);
            string(out, etag);
        }
        if let Some((key, replayed)) = self.idempotency {
            out.push_str(r#","idempotency_key":"#);
            string(out, key);
            out.push_str(r#","idempotent_replay":"#);
            out.push_str(if replayed { "true" } else { "false" });
        }
    }
}

/// The result of a call, from the operation's answer.
pub fn from_response(tool: &ToolSpec, arguments: &Map<String, Value>, answer: Answer) -> Value {
    if !answer.status.is_success() {
        return error(&problem_of(&answer));
    }
    let structured = match tool.response {
        _ if answer.status == http::StatusCode::NO_CONTENT => json!({ "status": 204 }),
        ResponseKind::NoContent => json!({ "status": answer.status.as_u16() }),
        ResponseKind::Binary { content_type } => {
            return binary(tool, arguments, &answer, content_type);
        }
        // Operations that answer MCP results are read by `tools::call_mcp`; should one get
        // here, its JSON is data like any other.
        ResponseKind::Json
        | ResponseKind::JsonWrapped
        | ResponseKind::McpResult
        | ResponseKind::PromptResult => match serde_json::from_slice::<Value>(&answer.body) {
            Ok(Value::Object(map)) if tool.response == ResponseKind::Json => Value::Object(map),
            Ok(other) => json!({ "result": other }),
            Err(_) if answer.body.is_empty() => json!({ "status": answer.status.as_u16() }),
            Err(e) => {
                return error(&internal_problem(&format!(
                    "the operation answered invalid JSON: {e}"
                )));
            }
        },
    };
    let structured = enrich(structured, &answer);
    json!({
        "content": [{ "type": "text", "text": pretty(&structured) }],
        "structuredContent": structured,
    })
}

/// Add `meta.rate_limit`, `meta.etag` and the idempotency facts from the response headers.
fn enrich(mut structured: Value, answer: &Answer) -> Value {
    let Some(object) = structured.as_object_mut() else {
        return structured;
    };
    let additions = MetaFacts::of(answer).map();
    if additions.is_empty() {
        return structured;
    }
    let meta = object.entry("meta").or_insert_with(|| json!({}));
    if let Some(meta) = meta.as_object_mut() {
        meta.extend(additions);
    }
    structured
}

/// The result of a JSON object answered with success, as text: what [`from_response`] gives
/// for it, written without building the body as a `Value`. Only the top level of the body is
/// read (its members stay text, borrowed from the body) and only `meta` is parsed, to be
/// enriched. `tail` is written after the result's own members (the stateless era's fields,
/// `,"resultType":...`). `None` for every other answer, which the general path shapes, and for
/// a body whose top-level keys hold escapes (the general path writes those too).
///
/// The text is JSON by construction: the body's members as `serde_json` read them, the
/// indented text escaped as a JSON string, and our own punctuation. It is not parsed again to
/// prove it (that was 9 % of an MCP list's CPU); debug builds, which every test runs, do.
pub fn prepared(tool: &ToolSpec, answer: &Answer, tail: &str) -> Option<String> {
    if tool.response != ResponseKind::Json
        || !answer.status.is_success()
        || answer.status == http::StatusCode::NO_CONTENT
    {
        return None;
    }
    let mut members = members_of(answer)?;
    let facts = MetaFacts::of(answer);
    // The enriched `meta`, when there is something to add: written in place of the body's.
    let mut enriched: Option<String> = None;
    if !facts.is_empty() {
        let at = match members.iter().position(|(key, _)| *key == "meta") {
            Some(at) => at,
            None => {
                members.push(("meta", "{}"));
                members.len() - 1
            }
        };
        enriched = enriched_meta(members[at].1, &facts, answer.written.is_some())?;
    }
    let mut structured = String::with_capacity(answer.body.len() + 128);
    structured.push('{');
    for (i, (key, value)) in members.iter().enumerate() {
        if i > 0 {
            structured.push(',');
        }
        // A key borrowed from the body holds no escape, so it is written as it was read.
        structured.push('"');
        structured.push_str(key);
        structured.push_str("\":");
        match (&enriched, *key == "meta") {
            (Some(meta), true) => structured.push_str(meta),
            _ => structured.push_str(value),
        }
    }
    structured.push('}');
    const OPENING: &str = r#"{"content":[{"type":"text","text":"#;
    const BETWEEN: &str = r#"}],"structuredContent":"#;
    let mut result = String::with_capacity(
        OPENING.len() + 3 * structured.len() + 2 + BETWEEN.len() + tail.len() + 1,
    );
    result.push_str(OPENING);
    indent::push_indented_string(&structured, &mut result)?;
    result.push_str(BETWEEN);
    result.push_str(&structured);
    result.push_str(tail);
    result.push('}');
    debug_assert!(
        serde_json::from_str::<&RawValue>(&result).is_ok(),
        "a prepared result is JSON: {result}"
    );
    Some(result)
}

/// `meta` (its text as the body has it) with `facts` added, as `enrich` writes it; `Ok(None)`
/// when it is not an object, which is left as it is. When the body is compact text its
/// operation's serializer vouched for (`compact`), its members are `serde_json`'s own text, and
/// the facts, when it holds none of their keys, are written after them: what `enrich` would
/// give, without reading `meta` into a map and writing it again. Otherwise, that is what is
/// done. `None` if the map cannot be written.
fn enriched_meta(meta: &str, facts: &MetaFacts<'_>, compact: bool) -> Option<Option<String>> {
    if compact
        && let Ok(Members(inside)) = serde_json::from_str::<Members<'_>>(meta)
        && !inside
            .iter()
            .any(|(key, _)| facts.keys().any(|added| added == *key))
    {
        let mut text = String::with_capacity(meta.len() + 96);
        text.push_str(meta.strip_suffix('}')?);
        let start = text.len();
        facts.write_members(&mut text);
        if inside.is_empty() {
            // `{` then the first member: no comma before it.
            text.remove(start);
        }
        text.push('}');
        return Some(Some(text));
    }
    match serde_json::from_str::<Map<String, Value>>(meta) {
        Ok(mut object) => {
            object.extend(facts.map());
            Some(Some(serde_json::to_string(&object).ok()?))
        }
        Err(_) => Some(None),
    }
}

/// The top-level members of the answer's body, keys and values borrowed from its text: where
/// its serializer said it wrote them, when the operation vouched for the body
/// ([`crate::WrittenJson`]), else read by `serde_json`, which proves it JSON. `None` when it
/// is not a JSON object, or has a key with an escape. Debug builds, which every test runs,
/// read a vouched body both ways and check they agree.
fn members_of(answer: &Answer) -> Option<Vec<(&str, &str)>> {
    let proved = || {
        let Members(members) = serde_json::from_slice(&answer.body).ok()?;
        Some(
            members
                .into_iter()
                .map(|(k, v)| (k, v.get()))
                .collect::<Vec<_>>(),
        )
    };
    if let Some(written) = &answer.written
        && let Ok(text) = std::str::from_utf8(&answer.body)
        && let Some(members) = written.members(text)
    {
        debug_assert_eq!(Some(&members), proved().as_ref(), "a vouched body: {text}");
        return Some(members);
    }
    proved()
}

/// The members of a JSON object in their order, keys and values borrowed from its text.
struct Members<'a>(Vec<(&'a str, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Members<'de>, D::Error> {
        struct Object;
        impl<'de> Visitor<'de> for Object {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
                let mut members = Vec::with_capacity(map.size_hint().unwrap_or(8));
                while let Some(member) = map.next_entry::<&'de str, &'de RawValue>()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(Object)
    }
}

/// What an error answer says, as the service said it: its JSON body as it is (a problem
/// document, or the service's own shape such as `{"error": "..."}`), or, when the body is not
/// JSON, a problem document made of its status and text.
fn problem_of(answer: &Answer) -> Value {
    match serde_json::from_slice::<Value>(&answer.body) {
        Ok(value) => value,
        Err(_) => {
            let status = answer.status;
            let mut problem = json!({
                "type": "about:blank",
                "title": status.canonical_reason().unwrap_or("Error"),
                "status": status.as_u16(),
            });
            let text = String::from_utf8_lossy(&answer.body);
            if !text.trim().is_empty() {
                problem["detail"] = json!(text.chars().take(500).collect::<String>());
            }
            problem
        }
    }
}

/// A 500 problem for a fault of ours: the story goes to the log, the client reads
/// "internal error".
pub fn internal_problem(detail: &str) -> Value {
    tracing::error!("{detail}");
    json!({ "type": "about:blank", "title": "Internal Server Error", "status": 500, "detail": "internal error", "code": "internal_error", "errors": [] })
}

/// Describe a file instead of returning it: models gain nothing from base64.
fn binary(
    tool: &ToolSpec,
    arguments: &Map<String, Value>,
    answer: &Answer,
    declared: &str,
) -> Value {
    let content_type = header(answer, &header::CONTENT_TYPE)
        .unwrap_or(declared)
        .to_string();
    let resource_uri = tool
        .resource_uri
        .map(|template| fill_template(template, arguments));
    let note = match &resource_uri {
        Some(uri) => format!(
            "Binary payload ({content_type}, {} bytes), not included. Read it as the MCP resource {uri}, or download {} from the REST API with a token issued for the API.",
            answer.body_size, answer.path
        ),
        None => format!(
            "Binary payload ({content_type}, {} bytes), not included. Download {} from the REST API with a token issued for the API.",
            answer.body_size, answer.path
        ),
    };
    let mut descriptor = json!({
        "content_type": content_type,
        "byte_size": answer.body_size,
        "download_path": answer.path,
        "note": note,
    });
    let mut content = vec![json!({ "type": "text", "text": pretty(&descriptor) })];
    if let Some(uri) = resource_uri {
        descriptor["resource_uri"] = json!(uri);
        content[0] = json!({ "type": "text", "text": pretty(&descriptor) });
        content.push(json!({
            "type": "resource_link",
            "uri": uri,
            "name": tool.name,
            "mimeType": declared,
        }));
    }
    json!({ "content": content, "structuredContent": descriptor })
}

/// Fill `{name}` variables of a URI template from the arguments.
pub fn fill_template(template: &str, arguments: &Map<String, Value>) -> String {
    let mut out = template.to_string();
    for (key, value) in arguments {
        let text = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        out = out.replace(&format!("{{{key}}}"), &text);
    }
    out
}

#[cfg(test)]
mod tests {
    use http::{HeaderMap, HeaderValue, StatusCode};

    use super::*;

    /// A tool answering a JSON object.
    fn json_tool() -> &'static ToolSpec {
        crate::test_catalog::CATALOG
            .tools
            .iter()
            .find(|t| t.response == ResponseKind::Json)
            .expect("a JSON tool")
    }

    fn answer(status: StatusCode, headers: &[(&'static str, &'static str)], body: &str) -> Answer {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            map.insert(*name, HeaderValue::from_static(value));
        }
        Answer {
            status,
            headers: map,
            body: body.to_string().into(),
            body_size: body.len() as u64,
            written: None,
            path: "/v1/things/1".into(),
            response_meta: true,
        }
    }

    /// Where the members of `body`, a compact object, are: as its serializer would say.
    fn members_in(body: &str) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
        let Members(members) = serde_json::from_str(body).unwrap();
        let at = |piece: &str| {
            let start = piece.as_ptr() as usize - body.as_ptr() as usize;
            start..start + piece.len()
        };
        members.iter().map(|(k, v)| (at(k), at(v.get()))).collect()
    }

    const RATE: &[(&str, &str)] = &[
        ("ratelimit-limit", "600"),
        ("ratelimit-remaining", "599"),
        ("ratelimit-reset", "42"),
    ];

    #[test]
    fn a_prepared_result_is_the_text_of_the_general_one() {
        let idempotent: &[(&str, &str)] = &[
            ("ratelimit-limit", "600"),
            ("ratelimit-remaining", "7"),
            ("ratelimit-reset", "1"),
            ("etag", "\"v3\""),
            ("idempotency-key", "k-1"),
            ("idempotent-replayed", "true"),
        ];
        let bodies = [
            r#"{"data":{"id":"chg_1","amount":389.9,"paid_amount":0.0,"tags":["varejo"],"agreement_id":null,"n":-3,"big":12345678901234}}"#,
            r#"{"data":[],"meta":{"page":1,"per_page":25,"total":0}}"#,
            r#"{"data":[{"a":{}},{"b":[[]]}],"meta":{"total":10000,"total_exact":false,"etag":"old"}}"#,
            r#"{"text":"quote \" backslash \\ line\nfeed tab\t unicode ç 💸 \u0001 /","":"empty key"}"#,
            r#"{"meta":7,"x":1}"#,
            // An empty `meta`: the facts written into it have no comma before the first.
            r#"{"data":1,"meta":{}}"#,
            "{\n  \"spaced\" : [ 1 , 2 ] ,\n  \"o\" : { }\n}",
            r#"{}"#,
        ];
        let tool = json_tool();
        for body in bodies {
            for headers in [&[][..], RATE, idempotent] {
                let expected = serde_json::to_string(&from_response(
                    tool,
                    &Map::new(),
                    answer(StatusCode::OK, headers, body),
                ))
                .unwrap();
                let written = prepared(tool, &answer(StatusCode::OK, headers, body), "")
                    .unwrap_or_else(|| panic!("not prepared: {body}"));
                if body.contains('\n') {
                    // A body written with spaces keeps them inside `structuredContent`: the
                    // same JSON, another text (the API writes compact bodies).
                    let same: Value = serde_json::from_str(&written).unwrap();
                    assert_eq!(same, serde_json::from_str::<Value>(&expected).unwrap());
                } else {
                    assert_eq!(written, expected, "body {body}, headers {headers:?}");
                    // Vouched for by its writer, the body gives the same result.
                    let mut vouched = answer(StatusCode::OK, headers, body);
                    vouched.written = Some(crate::WrittenJson {
                        body: vouched.body.clone(),
                        members: members_in(body),
                    });
                    assert_eq!(prepared(tool, &vouched, "").as_ref(), Some(&written));
                }
            }
        }
    }

    #[test]
    fn answers_the_general_path_shapes_are_not_prepared() {
        let tool = json_tool();
        for (status, body) in [
            (StatusCode::NOT_FOUND, r#"{"status":404}"#),
            (StatusCode::NO_CONTENT, ""),
            (StatusCode::OK, "[1,2]"),
            (StatusCode::OK, "not json"),
            (StatusCode::OK, ""),
        ] {
            assert!(
                prepared(tool, &answer(status, RATE, body), "").is_none(),
                "{body}"
            );
        }
    }

    #[test]
    fn meta_takes_each_header_at_its_first_value_as_a_lookup_would() {
        let mut repeated = answer(StatusCode::OK, RATE, "{}");
        for (name, value) in [
            ("ratelimit-limit", "1"),
            ("etag", "\"a\""),
            ("etag", "\"b\""),
            ("idempotency-key", "k"),
        ] {
            repeated
                .headers
                .append(name, HeaderValue::from_static(value));
        }
        let facts = MetaFacts::of(&repeated);
        assert_eq!(facts.rate_limit, Some([600, 599, 42]));
        assert_eq!(facts.etag, Some("\"a\""));
        assert_eq!(facts.idempotency, Some(("k", false)));

        // A first value that is not a number leaves the rate limit out, whatever follows.
        let mut not_a_number = answer(StatusCode::OK, &[("ratelimit-limit", "many")], "{}");
        for (name, value) in RATE {
            not_a_number
                .headers
                .append(*name, HeaderValue::from_static(value));
        }
        assert_eq!(MetaFacts::of(&not_a_number).rate_limit, None);
    }
}
