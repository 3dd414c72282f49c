//! Events recorded from the document's types: each event type is a webhook of
//! `openapi/v1.yaml` (its `webhooks` section), whose `data` is a generated type
//! (`dunning_models::response::ChargePaidData`, ...). Operations build that value and record it
//! here, in the caller's transaction; the store keeps it as JSON and the webhook worker sends it.
//!
//! In debug builds (every test run) each event is also checked against its webhook's schema
//! (`dunning_models::WEBHOOKS`) as the worker will send it: a type recorded under another
//! type's name, or a name the document does not declare, fails the write that made it. The
//! integration tests' webhook receivers check every body they get with [`check_body`].

use std::collections::HashMap;
use std::sync::OnceLock;

use dunning_store::events::{self, Actor, NewEvent};
use dunning_store::{Connection, Result, StoreError};
use serde::Serialize;
use serde_json::Value;

/// Record the event `kind` about `subject` (its type and id) with its `data`, a value of the
/// type its webhook declares.
pub async fn record(
    tx: &mut Connection,
    org: &str,
    kind: &str,
    subject: (&str, &str),
    actor: &Actor,
    data: &impl Serialize,
) -> Result<()> {
    record_returning_id(tx, org, kind, subject, actor, data)
        .await
        .map(drop)
}

/// As [`record`], returning the new event's id.
pub async fn record_returning_id(
    tx: &mut Connection,
    org: &str,
    kind: &str,
    subject: (&str, &str),
    actor: &Actor,
    data: &impl Serialize,
) -> Result<String> {
    let data = checked(kind, subject.0, actor, data)?;
    events::record_returning_id(tx, org, kind, subject, actor, &data).await
}

/// An event for [`record_many`]: its `data` already made by [`data_of`].
pub async fn record_many(tx: &mut Connection, events: &[NewEvent<'_>]) -> Result<()> {
    events::record_many(tx, events).await
}

/// The JSON of an event's `data` for [`record_many`], checked as [`record`] checks it.
pub fn data_of(
    kind: &str,
    subject_type: &str,
    actor: &Actor,
    data: &impl Serialize,
) -> Result<Value> {
    checked(kind, subject_type, actor, data)
}

/// An event's `data` as JSON, to record later (a worker that decides the event before it
/// records it); [`record`] checks it then. Serializing a generated type cannot fail.
pub fn to_data(data: &impl Serialize) -> Value {
    serde_json::to_value(data).expect("a generated payload type serializes")
}

/// `data` as JSON, and in debug builds checked with an envelope like the one the webhook
/// worker sends.
fn checked(kind: &str, subject_type: &str, actor: &Actor, data: &impl Serialize) -> Result<Value> {
    let data = serde_json::to_value(data)
        .map_err(|e| StoreError::Corrupt(format!("event {kind}: {e}")))?;
    if cfg!(debug_assertions) {
        let body = serde_json::json!({
            "id": "evt_checked",
            "type": kind,
            "subject_type": subject_type,
            "subject_id": "checked",
            "actor": {"type": actor.kind, "id": actor.id, "name": actor.name},
            "data": data,
            "created_at": "2026-01-01T00:00:00Z",
            "organization_id": "org_checked",
        });
        check_body(kind, &body)?;
    }
    Ok(data)
}

/// Whether `body` is what the webhook `kind` declares: an error naming every fault otherwise
/// (and for a `kind` the document does not declare).
pub fn check_body(kind: &str, body: &Value) -> Result<()> {
    let Some(validator) = validators().get(kind) else {
        return Err(StoreError::Corrupt(format!(
            "event type {kind} is not a webhook of openapi/v1.yaml: declare it there"
        )));
    };
    let faults: Vec<String> = validator
        .iter_errors(body)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    if faults.is_empty() {
        Ok(())
    } else {
        Err(StoreError::Corrupt(format!(
            "event {kind} does not match its webhook in openapi/v1.yaml: {}",
            faults.join("; ")
        )))
    }
}

/// The webhooks' schemas, compiled once.
fn validators() -> &'static HashMap<&'static str, jsonschema::Validator> {
    static VALIDATORS: OnceLock<HashMap<&'static str, jsonschema::Validator>> = OnceLock::new();
    VALIDATORS.get_or_init(|| {
        dunning_models::WEBHOOKS
            .iter()
            .map(|(name, schema)| {
                let schema: Value =
                    serde_json::from_str(schema).expect("the generator writes JSON");
                let validator = jsonschema::draft202012::new(&schema)
                    .unwrap_or_else(|e| panic!("webhook {name}: its schema does not compile: {e}"));
                (*name, validator)
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dunning_domain::money::Cents;
    use dunning_models::response::{ChargePaidData, CustomerCreatedData};

    fn system() -> Actor {
        Actor {
            kind: "system",
            id: None,
            name: Some("test".into()),
        }
    }

    #[test]
    fn an_event_of_its_declared_type_passes() {
        let paid = ChargePaidData {
            paid_amount: Cents(150_00),
            paid_at: dunning_domain::timestamp::Timestamp::parse("2026-03-01T10:00:00Z").unwrap(),
        };
        let data = checked("charge.paid", "charge", &system(), &paid).unwrap();
        assert_eq!(
            data,
            serde_json::json!({"paid_amount": 150.0, "paid_at": "2026-03-01T10:00:00.000Z"})
        );
    }

    #[test]
    fn a_payload_under_another_type_s_name_or_an_undeclared_name_is_refused() {
        let created = CustomerCreatedData { name: "Ana" };
        let wrong = checked("charge.paid", "charge", &system(), &created).unwrap_err();
        assert!(
            wrong.to_string().contains("does not match its webhook"),
            "{wrong}"
        );
        let subject = checked("customer.created", "charge", &system(), &created).unwrap_err();
        assert!(subject.to_string().contains("subject_type"), "{subject}");
        let unknown = checked("customer.renamed", "customer", &system(), &created).unwrap_err();
        assert!(unknown.to_string().contains("not a webhook"), "{unknown}");
        assert!(checked("customer.created", "customer", &system(), &created).is_ok());
    }
}
