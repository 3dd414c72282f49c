//! Customers, the organization's debtors: created once per CPF or CNPJ, changed, and deleted
//! with their settled charges once none is collected any more, each with its event. The
//! `/v1/customers` handlers call these after checking the request's fields.

use dunning_domain::document::TaxDocument;
use dunning_models::response::{CustomerCreatedData, CustomerDeletedData, CustomerUpdatedData};
use dunning_store::customers::{self as store, Customer, CustomerFields};
use dunning_store::events::Actor;
use dunning_store::{Connection, erasure, ids, retry};

use crate::{Refused, Result, events, refusals, refuse};

/// Create a customer with `document` and `fields` (checked by the caller) and its
/// `customer.created` event; its id. Refused when the organization has a customer with that
/// document already.
pub async fn create(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    document: &TaxDocument,
    fields: &CustomerFields,
    now: &str,
) -> Result<String> {
    if store::find_by_document(tx, org, &document.value)
        .await?
        .is_some()
    {
        return refuse(taken(document));
    }
    let id = ids::new_id("cus");
    let inserted = store::insert(
        tx,
        org,
        &id,
        (&document.value, document.kind.as_str()),
        fields,
        now,
    )
    .await;
    match inserted {
        // On PostgreSQL a racer with the same document can commit between our check and our
        // insert; the id is new, so the unique key it breaks is (organization, document).
        Err(e) if retry::is_unique_violation(&e) => return refuse(taken(document)),
        other => other?,
    }
    events::record(
        tx,
        org,
        "customer.created",
        ("customer", &id),
        actor,
        &CustomerCreatedData { name: &fields.name },
    )
    .await?;
    Ok(id)
}

/// `customer_document_taken`.
fn taken(document: &TaxDocument) -> Refused {
    Refused::rule(
        refusals::CUSTOMER_DOCUMENT_TAKEN,
        format!(
            "A customer with document {} already exists in this organization",
            document.formatted()
        ),
    )
}

/// Store `fields` (the caller's patch over `current`, which it locked and read) with the
/// `customer.updated` event.
pub async fn update(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    current: &Customer,
    fields: &CustomerFields,
    now: &str,
) -> Result<()> {
    let id = &current.id;
    if !store::update(tx, org, id, current.version, fields, now).await? {
        return refuse(Refused::Concurrent("customer"));
    }
    events::record(
        tx,
        org,
        "customer.updated",
        ("customer", id),
        actor,
        &CustomerUpdatedData {
            changed: &changed_fields(current, fields),
        },
    )
    .await?;
    Ok(())
}

/// Delete customer `id` with its settled charges, their disputes and agreements, and record
/// `customer.deleted` (events stay in the audit trail). Refused while any of its charges is
/// still collected (pending, overdue or in an agreement).
pub async fn delete(tx: &mut Connection, org: &str, actor: &Actor, id: &str) -> Result<()> {
    let Some(customer) = store::get_in(tx, org, id).await? else {
        return refuse(Refused::Missing {
            what: "customer",
            id: id.to_string(),
        });
    };
    let open = store::open_charge_count(tx, org, id).await?;
    if open > 0 {
        return refuse(Refused::rule(
            refusals::CUSTOMER_HAS_OPEN_CHARGES,
            format!(
                "Customer {id} has {open} charge(s) pending, overdue or in an agreement; cancel or settle them first"
            ),
        ));
    }
    let charges = erasure::delete_customer(tx, org, id).await?;
    events::record(
        tx,
        org,
        "customer.deleted",
        ("customer", id),
        actor,
        &CustomerDeletedData {
            name: &customer.name,
            charges_deleted: i64::try_from(charges).unwrap_or(i64::MAX),
        },
    )
    .await?;
    Ok(())
}

/// The fields `fields` changes in `current`, by their API names (what `customer.updated` says).
fn changed_fields(current: &Customer, fields: &CustomerFields) -> Vec<String> {
    let address = |a: &Option<dunning_store::customers::Address>| {
        a.as_ref()
            .map(|a| serde_json::to_value(a).unwrap_or_default())
    };
    let set = [
        ("name", current.name != fields.name),
        ("email", current.email != fields.email),
        ("phone", current.phone != fields.phone),
        (
            "address",
            address(&current.address) != address(&fields.address),
        ),
        (
            "channel_opt_outs",
            current.channel_opt_outs != fields.channel_opt_outs,
        ),
        ("tags", current.tags != fields.tags),
        ("notes", current.notes != fields.notes),
    ];
    set.iter()
        .filter(|(_, changed)| *changed)
        .map(|(name, _)| (*name).to_owned())
        .collect()
}
