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

use catalog::{ResponseKind, ToolSpec};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::dispatch::Answer;
use super::written;

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

fn header<'a>(answer: &'a Answer, name: &str) -> Option<&'a str> {
    answer.headers.get(name).and_then(|v| v.to_str().ok())
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
    let additions = meta_additions(answer);
    if additions.is_empty() {
        return structured;
    }
    let meta = object.entry("meta").or_insert_with(|| json!({}));
    if let Some(meta) = meta.as_object_mut() {
        meta.extend(additions);
    }
    structured
}

/// What the response headers add to `meta`: rate limit, ETag, idempotency.
fn meta_additions(answer: &Answer) -> Map<String, Value> {
    let mut additions = Map::new();
    let number = |name: &str| header(answer, name).and_then(|v| v.parse::<u64>().ok());
    if let (Some(limit), Some(remaining), Some(reset)) = (
        number("ratelimit-limit"),
        number("ratelimit-remaining"),
        number("ratelimit-reset"),
    ) {
        additions.insert(
            "rate_limit".into(),
            json!({ "limit": limit, "remaining": remaining, "reset": reset }),
        );
    }
    if let Some(etag) = header(answer, "etag") {
        additions.insert("etag".into(), json!(etag));
    }
    if let Some(key) = header(answer, "idempotency-key") {
        additions.insert("idempotency_key".into(), json!(key));
        additions.insert(
            "idempotent_replay".into(),
            json!(header(answer, "idempotent-replayed") == Some("true")),
        );
    }
    additions
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
    let additions = meta_additions(answer);
    // The enriched `meta`, when there is something to add: written in place of the body's.
    let mut enriched: Option<Box<RawValue>> = None;
    if !additions.is_empty() {
        let at = match members.iter().position(|(key, _)| *key == "meta") {
            Some(at) => at,
            None => {
                members.push(("meta", "{}"));
                members.len() - 1
            }
        };
        // A `meta` that is not an object is left as it is, as `enrich` does.
        if let Ok(mut object) = serde_json::from_str::<Map<String, Value>>(members[at].1) {
            object.extend(additions);
            enriched = Some(serde_json::value::to_raw_value(&object).ok()?);
        }
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
            (Some(meta), true) => structured.push_str(meta.get()),
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
    push_indented_string(&structured, &mut result)?;
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

/// `json`, indented as `serde_json::to_string_pretty` writes it (two spaces, `": "`, empty
/// containers as `{}` and `[]`). Strings are copied as they are written; whitespace between
/// tokens is dropped first. `None` if `json` is not well nested.
#[cfg(test)]
fn indented(json: &str) -> Option<String> {
    let mut out = String::with_capacity(json.len() * 2);
    indent(json, &mut out, false)?;
    Some(out)
}

/// [`indented`] as a JSON string, quotes included: what `serde_json::to_string` of the
/// indented text gives.
#[cfg(test)]
fn indented_string(json: &str) -> Option<String> {
    let mut out = String::with_capacity(json.len() * 2 + 2);
    push_indented_string(json, &mut out)?;
    Some(out)
}

/// Append [`indented_string`]'s text to `out` (the text content of a prepared result).
fn push_indented_string(json: &str, out: &mut String) -> Option<()> {
    out.push('"');
    indent(json, out, true)?;
    out.push('"');
    Some(())
}

/// Spaces for the indentation of the usual depths, written in one copy.
const SPACES: &str = "                                                                ";

/// Write `json` indented to `out`; when `escaped`, as the contents of a JSON string (an MCP
/// result's text content is the structured content indented), in the same pass. Escaping a
/// well-formed JSON text needs only `"` and `\` escaped and the new lines written `\n`: it
/// holds no other control characters. Runs of text between the bytes that matter are copied
/// whole (a byte at a time, this was a tenth of an MCP list's CPU).
fn indent(json: &str, out: &mut String, escaped: bool) -> Option<()> {
    let bytes = json.as_bytes();
    let (quote, backslash, newline) = if escaped {
        ("\\\"", "\\\\", "\\n")
    } else {
        ("\"", "\\", "\n")
    };
    let line = |out: &mut String, depth: usize| {
        out.push_str(newline);
        let mut spaces = 2 * depth;
        while spaces > 0 {
            let now = spaces.min(SPACES.len());
            out.push_str(&SPACES[..now]);
            spaces -= now;
        }
    };
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                out.push_str(quote);
                i += 1;
                // Every cut below is at an ASCII byte, so at a character boundary.
                loop {
                    let at = i + written::quote_or_backslash(&bytes[i..])?;
                    out.push_str(&json[i..at]);
                    if bytes[at] == b'"' {
                        out.push_str(quote);
                        i = at + 1;
                        break;
                    }
                    // An escape: the backslash and the ASCII character after it.
                    let next = *bytes.get(at + 1).filter(|c| c.is_ascii())?;
                    out.push_str(backslash);
                    match next {
                        b'"' => out.push_str(quote),
                        b'\\' => out.push_str(backslash),
                        _ => out.push(char::from(next)),
                    }
                    i = at + 2;
                }
            }
            open @ (b'{' | b'[') => {
                let close = if open == b'{' { b'}' } else { b']' };
                let next = bytes[i + 1..].iter().position(|c| !c.is_ascii_whitespace());
                if next.map(|n| bytes[i + 1 + n]) == Some(close) {
                    out.push(char::from(open));
                    out.push(char::from(close));
                    i += 2 + next?;
                } else {
                    out.push(char::from(open));
                    depth += 1;
                    line(out, depth);
                    i += 1;
                }
            }
            close @ (b'}' | b']') => {
                depth = depth.checked_sub(1)?;
                line(out, depth);
                out.push(char::from(close));
                i += 1;
            }
            b',' => {
                out.push(',');
                line(out, depth);
                i += 1;
            }
            b':' => {
                out.push_str(": ");
                i += 1;
            }
            b' ' | b'\n' | b'\r' | b'\t' => i += 1,
            _ => {
                // A number or a literal, up to the next byte that matters.
                let end = bytes[i..]
                    .iter()
                    .position(|c| {
                        matches!(
                            c,
                            b',' | b'}'
                                | b']'
                                | b':'
                                | b'"'
                                | b'{'
                                | b'['
                                | b' '
                                | b'\n'
                                | b'\r'
                                | b'\t'
                        )
                    })
                    .map_or(bytes.len(), |n| i + n);
                out.push_str(json.get(i..end)?);
                i = end;
            }
        }
    }
    Some(())
}

/// The problem document of an error answer, or one made up when the body is not one.
fn problem_of(answer: &Answer) -> Value {
    match serde_json::from_slice::<Value>(&answer.body) {
        Ok(Value::Object(map)) if map.contains_key("status") => Value::Object(map),
        _ => {
            let status = answer.status;
            json!({
                "type": "about:blank",
                "title": status.canonical_reason().unwrap_or("Error"),
                "status": status.as_u16(),
                "detail": String::from_utf8_lossy(&answer.body).chars().take(500).collect::<String>(),
                "code": format!("http_{}", status.as_u16()),
                "errors": [],
            })
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
    let content_type = header(answer, "content-type")
        .unwrap_or(declared)
        .to_string();
    let resource_uri = tool
        .resource_uri
        .map(|template| fill_template(template, arguments));
    let note = match &resource_uri {
        Some(uri) => format!(
            "Binary payload ({content_type}, {} bytes), not included. Read it as the MCP resource {uri}, or download {} from the REST API with a token issued for the API.",
            answer.body.len(),
            answer.path
        ),
        None => format!(
            "Binary payload ({content_type}, {} bytes), not included. Download {} from the REST API with a token issued for the API.",
            answer.body.len(),
            answer.path
        ),
    };
    let mut descriptor = json!({
        "content_type": content_type,
        "byte_size": answer.body.len(),
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
            written: None,
            path: "/v1/things/1".into(),
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
    fn indenting_matches_serde_json_pretty() {
        for text in [
            r#"{"a":[1,{"b":[]},{}],"c":"x\"y,{}[]:","d":{"e":null}}"#,
            "[]",
            r#"[[],[[]],{"k":[{}]}]"#,
            r#"{"nome":"Conceição \\ \"Araújo\"","linhas":"um\ndois\u0001","x":-1500.5}"#,
            r#"{"escapes":"\\\"\/\b\f\r\t\u00e7\ud83d\udcb8","":"","n":[1e-7,-0,true,false,null]}"#,
        ] {
            // Escapes are copied as written: the escaped text is the JSON string of the text.
            let as_written = indented(text).unwrap();
            assert_eq!(
                indented_string(text).unwrap(),
                serde_json::to_string(&as_written).unwrap()
            );
            // What the API writes (serde_json's compact text) comes out as serde_json indents.
            let value: Value = serde_json::from_str(text).unwrap();
            let compact = serde_json::to_string(&value).unwrap();
            let pretty = serde_json::to_string_pretty(&value).unwrap();
            assert_eq!(indented(&compact).unwrap(), pretty);
            assert_eq!(
                indented_string(&compact).unwrap(),
                serde_json::to_string(&pretty).unwrap()
            );
        }
        // Deeper than the spaces written in one copy.
        let deep = format!("{}{}{}", "[{\"k\":".repeat(40), "\"v\"", "}]".repeat(40));
        let pretty = serde_json::to_string_pretty(&serde_json::from_str::<Value>(&deep).unwrap());
        assert_eq!(indented(&deep).unwrap(), pretty.unwrap());
        assert_eq!(indented(r#"{"a":1}}"#), None);
        assert_eq!(indented(r#"{"a":"unterminated}"#), None);
    }
}
