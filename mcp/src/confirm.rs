//! Confirmation of destructive tools in the stateless era, by multi round-trip request
//! (MRTR): the first call answers `input_required` with an elicitation form and a signed
//! `requestState`; the retry carries the user's answer and the state back.
//!
//! The state is `base64url(payload).base64url(HMAC-SHA256(payload))`, the payload binding
//! the caller, the tool, a digest of the arguments and an expiry, so that a state cannot be
//! forged, reused by someone else, moved to another tool or arguments, or kept for later.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use mcpgen_catalog::{ToolSpec, canonical_json};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::jsonrpc::RpcError;
use super::observe::{Confirmation, note_confirmation};
use super::protocol::Context;
use super::results::fill_template;
use super::{Caller, Settings};

/// How long a confirmation request stays valid.
pub const TTL_SECS: i64 = 600;
/// Key of the confirmation in `inputRequests` / `inputResponses`.
const KEY: &str = "confirm";

/// What to do with a call to a destructive tool.
#[derive(Debug)]
pub enum Decision {
    /// Run the tool.
    Run,
    /// Answer with this result instead (ask, or refuse).
    Answer(Value),
}

/// Decide whether the call may run now. Non-destructive tools always may.
pub fn decide(
    settings: &Settings,
    context: &Context,
    caller: &Caller,
    tool: &ToolSpec,
    arguments: &Map<String, Value>,
    params: &Value,
) -> Result<Decision, RpcError> {
    if !tool.destructive {
        return Ok(Decision::Run);
    }
    if !context.version.is_stateless() {
        // The handshake era has no way to ask: the host's own confirmation applies (the
        // annotations and `anthropic/requiresUserInteraction` ask for it), unless the
        // operator chose to refuse instead.
        return Ok(if settings.reject_unconfirmed_in_handshake_era {
            note_confirmation(Confirmation::Refused);
            Decision::Answer(refusal(
                settings,
                "confirmation_required",
                428,
                "This destructive tool needs the user's confirmation, which this protocol revision cannot ask for; use revision 2026-07-28 with elicitation",
            ))
        } else {
            Decision::Run
        });
    }
    let digest = arguments_digest(arguments);
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    if let Some(state) = params.get("requestState") {
        let state = state
            .as_str()
            .ok_or_else(|| RpcError::invalid_params("requestState must be a string"))?;
        verify(
            &settings.confirmation_secret,
            state,
            &caller.subject,
            tool.name,
            &digest,
            now,
        )
        .map_err(|why| {
            note_confirmation(if why == "expired" {
                Confirmation::Expired
            } else {
                Confirmation::Invalid
            });
            RpcError::invalid_params(format!("Invalid requestState: {why}"))
        })?;
        let answer = params.get("inputResponses").and_then(|r| r.get(KEY));
        return Ok(match answer {
            None => Decision::Answer(ask(settings, caller, tool, arguments, &digest, now)),
            Some(answer) => {
                let accepted = answer.get("action").and_then(Value::as_str) == Some("accept")
                    && answer.get("content").and_then(|c| c.get(KEY)) == Some(&Value::Bool(true));
                if accepted {
                    note_confirmation(Confirmation::Accepted);
                    Decision::Run
                } else {
                    note_confirmation(Confirmation::Declined);
                    Decision::Answer(refusal(
                        settings,
                        "confirmation_declined",
                        409,
                        "The user did not confirm; nothing was done",
                    ))
                }
            }
        });
    }
    let can_elicit = context
        .client_capabilities
        .get("elicitation")
        .is_some_and(Value::is_object);
    if !can_elicit {
        note_confirmation(Confirmation::Refused);
        return Ok(Decision::Answer(refusal(
            settings,
            "confirmation_required",
            428,
            "This destructive tool needs the user's confirmation, and this client did not declare the elicitation capability",
        )));
    }
    Ok(Decision::Answer(ask(
        settings, caller, tool, arguments, &digest, now,
    )))
}

/// The `input_required` result: a yes/no form saying exactly what will happen.
fn ask(
    settings: &Settings,
    caller: &Caller,
    tool: &ToolSpec,
    arguments: &Map<String, Value>,
    digest: &str,
    now: i64,
) -> Value {
    note_confirmation(Confirmation::Asked);
    let title = tool_title(tool);
    let message = match tool.confirm {
        Some(template) => fill_template(template, arguments),
        None => format!("Run \"{title}\" ({})?", tool.name),
    };
    let state = sign(
        &settings.confirmation_secret,
        &caller.subject,
        tool.name,
        digest,
        now + TTL_SECS,
    );
    json!({
        "resultType": "input_required",
        "inputRequests": {
            KEY: {
                "method": "elicitation/create",
                "params": {
                    "mode": "form",
                    "message": message,
                    "requestedSchema": {
                        "type": "object",
                        "properties": {
                            KEY: {
                                "type": "boolean",
                                "title": "Confirm",
                                "description": format!("Yes, {}", title.to_lowercase()),
                            }
                        },
                        "required": [KEY],
                    }
                }
            }
        },
        "requestState": state,
    })
}

fn tool_title(tool: &ToolSpec) -> String {
    serde_json::from_str::<Value>(tool.tool_json)
        .ok()
        .and_then(|t| t.get("title").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| tool.name.to_string())
}

/// An `isError` result with a problem the caller can act on.
fn refusal(settings: &Settings, code: &str, status: u16, detail: &str) -> Value {
    let problem = json!({
        "type": settings.problem_type(&code.replace('_', "-")),
        "title": http::StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason()).unwrap_or("Error"),
        "status": status,
        "detail": detail,
        "code": code,
        "errors": [],
    });
    super::results::error(&problem)
}

/// SHA-256 of the arguments in canonical form (keys sorted), without the idempotency key:
/// confirming a call and retrying it with a fresh key is the same decision.
pub fn arguments_digest(arguments: &Map<String, Value>) -> String {
    let mut args = arguments.clone();
    args.remove("idempotency_key");
    hex::encode(Sha256::digest(
        canonical_json(&Value::Object(args)).as_bytes(),
    ))
}

fn mac(secret: &[u8], payload: &[u8]) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes keys of any length");
    mac.update(payload);
    mac
}

/// `base64url(claims).base64url(HMAC-SHA256(claims))`: a state the client carries between
/// rounds and cannot alter.
pub(crate) fn seal(secret: &[u8], claims: &Value) -> String {
    let payload = claims.to_string();
    let signature = mac(secret, payload.as_bytes()).finalize().into_bytes();
    format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(payload),
        URL_SAFE_NO_PAD.encode(signature)
    )
}

/// The claims of a sealed state, when its signature holds.
pub(crate) fn open(secret: &[u8], state: &str) -> Result<Value, &'static str> {
    let (payload, signature) = state.split_once('.').ok_or("malformed")?;
    let payload = URL_SAFE_NO_PAD.decode(payload).map_err(|_| "malformed")?;
    let signature = URL_SAFE_NO_PAD.decode(signature).map_err(|_| "malformed")?;
    mac(secret, &payload)
        .verify_slice(&signature)
        .map_err(|_| "signature does not match")?;
    serde_json::from_slice(&payload).map_err(|_| "malformed")
}

fn sign(secret: &[u8], subject: &str, tool: &str, digest: &str, expires: i64) -> String {
    seal(
        secret,
        &json!({ "v": 1, "sub": subject, "tool": tool, "args": digest, "exp": expires }),
    )
}

fn verify(
    secret: &[u8],
    state: &str,
    subject: &str,
    tool: &str,
    digest: &str,
    now: i64,
) -> Result<(), &'static str> {
    let claims = open(secret, state)?;
    // States the `input` module seals for operations that ask for input carry a `kind`;
    // only a confirmation's own state confirms.
    if claims.get("kind").is_some() {
        return Err("not a confirmation state");
    }
    if claims["sub"] != subject {
        return Err("issued to another caller");
    }
    if claims["tool"] != tool {
        return Err("issued for another tool");
    }
    if claims["args"] != digest {
        return Err("issued for other arguments");
    }
    if claims["exp"].as_i64().is_none_or(|exp| exp < now) {
        return Err("expired");
    }
    Ok(())
}

/// The key the server uses for tools that must not repeat on a blind retry, when the caller
/// sent none: the same caller, tool and arguments give the same key for 24 hours.
pub fn derived_idempotency_key(
    caller: &Caller,
    tool: &ToolSpec,
    arguments: &Map<String, Value>,
) -> String {
    let material = format!(
        "{}\n{}\n{}",
        caller.subject,
        tool.name,
        arguments_digest(arguments)
    );
    format!(
        "auto-{}",
        &hex::encode(Sha256::digest(material.as_bytes()))[..40]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"test secret";

    #[test]
    fn a_signed_state_verifies_for_its_binding_only() {
        let state = sign(SECRET, "tok_a", "dunning_charges_cancel", "d1", 1_000);
        assert_eq!(
            verify(SECRET, &state, "tok_a", "dunning_charges_cancel", "d1", 999),
            Ok(())
        );
        assert_eq!(
            verify(SECRET, &state, "tok_b", "dunning_charges_cancel", "d1", 999),
            Err("issued to another caller")
        );
        assert_eq!(
            verify(
                SECRET,
                &state,
                "tok_a",
                "dunning_customers_delete",
                "d1",
                999
            ),
            Err("issued for another tool")
        );
        assert_eq!(
            verify(SECRET, &state, "tok_a", "dunning_charges_cancel", "d2", 999),
            Err("issued for other arguments")
        );
        assert_eq!(
            verify(
                SECRET,
                &state,
                "tok_a",
                "dunning_charges_cancel",
                "d1",
                1_001
            ),
            Err("expired")
        );
        assert_eq!(
            verify(
                b"other secret",
                &state,
                "tok_a",
                "dunning_charges_cancel",
                "d1",
                999
            ),
            Err("signature does not match")
        );
    }

    #[test]
    fn a_tampered_payload_fails_the_signature() {
        let state = sign(SECRET, "tok_a", "t", "d", 1_000);
        let (_, signature) = state.split_once('.').unwrap();
        let forged =
            json!({ "v": 1, "sub": "tok_a", "tool": "t", "args": "d", "exp": 9_999_999_999i64 })
                .to_string();
        let tampered = format!("{}.{signature}", URL_SAFE_NO_PAD.encode(forged));
        assert_eq!(
            verify(SECRET, &tampered, "tok_a", "t", "d", 999),
            Err("signature does not match")
        );
        assert_eq!(
            verify(SECRET, "garbage", "tok_a", "t", "d", 999),
            Err("malformed")
        );
    }

    #[test]
    fn the_digest_ignores_key_order_and_the_idempotency_key() {
        let a: Map<String, Value> =
            serde_json::from_value(json!({"id": "x", "reason": "r", "idempotency_key": "k1"}))
                .unwrap();
        let b: Map<String, Value> =
            serde_json::from_value(json!({"reason": "r", "id": "x"})).unwrap();
        assert_eq!(arguments_digest(&a), arguments_digest(&b));
    }
}
