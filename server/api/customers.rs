//! `/v1/customers`: debtors of the organization.

use axum::body::Bytes;
use axum::extract::{Path, RawQuery};
use http::HeaderMap;
use serde_json::{Map, Value, json};

use super::caller::{Caller, find};
use super::idempotency::{commit, commit_read, commit_written};
use super::input::{Input, Patch};
use super::reply::{Reply, check_if_match, created, data_with_etag, list as list_reply};
use crate::http::problem::{ApiError, ApiResult};
use dunning_domain::document::TaxDocument;
use dunning_store::customers::{self as store, Address, Customer, CustomerFields, CustomerFilter};
use dunning_store::locks::{self, Table};
use dunning_store::retry::{self, Failure};
use dunning_store::{events, ids, now_text};

pub async fn list(Caller(state, p): Caller, RawQuery(raw): RawQuery) -> ApiResult<Reply> {
    let mut input = Input::from_raw_query(raw);
    let page = input.page();
    let mut filter = read_filter(&mut input);
    filter.sort_by_name = input.choice("sort_by", &["name", "created_at"]) == Some("name");
    filter.descending = input
        .choice("sort_order", &["asc", "desc"])
        .unwrap_or("desc")
        == "desc";
    input.finish()?;
    let page_rows = store::list(&state.db, &p.organization_id, &filter, page).await?;
    Ok(list_reply(page_rows.map(|c| to_json(&c)), page))
}

/// A customer as the API shows it.
fn to_json(c: &Customer) -> Value {
    json!({
        "id": c.id,
        "name": c.name,
        "document": c.document,
        "document_type": c.document_type,
        "email": c.email,
        "phone": c.phone,
        "address": c.address.as_ref().map(address_json),
        "channel_opt_outs": c.channel_opt_outs,
        "tags": c.tags,
        "notes": c.notes,
        "created_at": c.created_at,
        "updated_at": c.updated_at,
    })
}

/// A postal address as the API shows it (the same keys as stored, but written here so that
/// the storage format can change without the API noticing).
fn address_json(a: &Address) -> Value {
    json!({
        "street": a.street,
        "number": a.number,
        "complement": a.complement,
        "district": a.district,
        "city": a.city,
        "state": a.state,
        "zip_code": a.zip_code,
    })
}

/// The filters of `customers_list` (also those of a customers export), oldest first.
pub fn read_filter(input: &mut Input) -> CustomerFilter {
    CustomerFilter {
        q: input.text("q"),
        document: input.text("document").map(|d| {
            d.chars()
                .filter(char::is_ascii_alphanumeric)
                .collect::<String>()
                .to_uppercase()
        }),
        email: read_email(input),
        tag: input.text("tag"),
        sort_by_name: false,
        descending: false,
    }
}

pub async fn get(Caller(state, p): Caller, Path(id): Path<String>) -> ApiResult<Reply> {
    let customer = find::<Customer>(&state, &p, &id).await?;
    Ok(data_with_etag(to_json(&customer), customer.version))
}

pub async fn create(Caller(state, p): Caller, body: Bytes) -> ApiResult<Reply> {
    let mut input = Input::from_body(&body)?;
    let name = input.required_text("name");
    let document = match input
        .required_text("document")
        .map(|d| TaxDocument::parse(&d))
    {
        Some(Ok(doc)) => Some(doc),
        Some(Err(e)) => {
            input.error(
                "document",
                "invalid",
                format!("Not a valid CPF or CNPJ: {e}"),
            );
            None
        }
        None => None,
    };
    let blank = CustomerFields {
        name: String::new(),
        email: None,
        phone: None,
        address: None,
        channel_opt_outs: Vec::new(),
        tags: Vec::new(),
        notes: None,
    };
    let mut fields = read_fields(&mut input, blank);
    input.finish()?;
    let (Some(name), Some(document)) = (name, document) else {
        return Err(ApiError::internal("validated fields missing"));
    };
    fields.name = name;

    let taken = || {
        ApiError::conflict(
            "customer_document_taken",
            format!(
                "A customer with document {} already exists in this organization",
                document.formatted()
            ),
        )
    };
    let mut tx = state.db.begin().await?;
    if store::find_by_document(&mut tx, &p.organization_id, &document.value)
        .await?
        .is_some()
    {
        return Err(taken());
    }
    let id = ids::new_id("cus");
    let now = now_text();
    let inserted = store::insert(
        &mut tx,
        &p.organization_id,
        &id,
        (&document.value, document.kind.as_str()),
        &fields,
        &now,
    )
    .await;
    match inserted {
        // On PostgreSQL a racer with the same document can commit between our check and our
        // insert; the id is new, so the unique key it breaks is (organization, document).
        Err(e) if retry::is_unique_violation(&e) => return Err(taken()),
        other => other?,
    }
    events::record(
        &mut tx,
        &p.organization_id,
        "customer.created",
        ("customer", &id),
        &p.actor(),
        &json!({ "name": fields.name }),
    )
    .await?;
    commit_read(
        store::get_in(&mut tx, &p.organization_id, &id).await?,
        "customer",
        tx,
        |customer| created(to_json(&customer), customer.version),
    )
    .await
}

pub async fn update(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Reply> {
    // Checked against the row as read now, so that a bad body is refused before any lock.
    patched(&body, &find::<Customer>(&state, &p, &id).await?)?;
    let (db, p, org, id, headers, body) = (
        &state.db,
        &p,
        p.organization_id.as_str(),
        &id,
        &headers,
        &body,
    );
    // The patch applies to the row as stored when the customer is locked, not as read above:
    // PATCHes of different fields then all apply, one after the other. Only an `If-Match`
    // naming a version that is gone is a conflict.
    retry::run(|| async move {
        let mut transaction = db.begin().await?;
        let tx = &mut *transaction;
        locks::lock(tx, Table::Customers, org, id).await?;
        let current = store::get_in(tx, org, id)
            .await?
            .ok_or_else(|| Failure::Refused(ApiError::not_found("customer", id)))?;
        check_if_match(headers, current.version).map_err(Failure::Refused)?;
        let fields = patched(body, &current).map_err(Failure::Refused)?;
        if !store::update(tx, org, id, current.version, &fields, &now_text()).await? {
            return Err(Failure::Refused(ApiError::concurrent_update("customer")));
        }
        events::record(
            tx,
            org,
            "customer.updated",
            ("customer", id),
            &p.actor(),
            &json!({}),
        )
        .await?;
        commit_written(
            store::get_in(tx, org, id).await?,
            "customer",
            transaction,
            |customer| data_with_etag(to_json(&customer), customer.version),
        )
        .await
    })
    .await
}

/// The fields of `current` with the PATCH `body` applied, or the 400 listing what is wrong.
fn patched(body: &Bytes, current: &Customer) -> ApiResult<CustomerFields> {
    let mut input = Input::from_body(body)?;
    if input.has("document") {
        let _ = input.text("document");
        input.error(
            "document",
            "read_only",
            "The document of a customer cannot be changed; create a new customer instead",
        );
    }
    let name = input.text("name");
    let mut fields = read_fields(
        &mut input,
        CustomerFields {
            name: current.name.clone(),
            email: current.email.clone(),
            phone: current.phone.clone(),
            address: current.address.clone(),
            channel_opt_outs: current.channel_opt_outs.clone(),
            tags: current.tags.clone(),
            notes: current.notes.clone(),
        },
    );
    input.finish()?;
    if let Some(name) = name {
        fields.name = name;
    }
    Ok(fields)
}

/// Read the optional writable fields over `base` (the current values on update).
fn read_fields(input: &mut Input, mut fields: CustomerFields) -> CustomerFields {
    match input.patch_text("email") {
        Patch::Value(email) => {
            if is_plausible_email(&email) {
                fields.email = Some(email.to_lowercase());
            } else {
                not_an_email(input);
            }
        }
        Patch::Null => fields.email = None,
        Patch::Absent => {}
    }
    // E.164, as the document's pattern says.
    match input.patch_text("phone") {
        Patch::Value(phone) => fields.phone = Some(phone),
        Patch::Null => fields.phone = None,
        Patch::Absent => {}
    }
    match input.object("address") {
        Patch::Value(map) => fields.address = Some(read_address(&map)),
        Patch::Null => fields.address = None,
        Patch::Absent => {}
    }
    if let Some(opt_outs) = input.text_list("channel_opt_outs") {
        fields.channel_opt_outs = opt_outs;
    }
    if let Some(tags) = input.text_list("tags") {
        fields.tags = tags;
    }
    match input.patch_text("notes") {
        Patch::Value(notes) => fields.notes = Some(notes),
        Patch::Null => fields.notes = None,
        Patch::Absent => {}
    }
    fields
}

/// `format: email`, which the document states and its validator does not assert (a format is
/// an annotation in JSON Schema 2020-12): judged here, the one format a handler judges.
fn is_plausible_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !email.contains(char::is_whitespace)
        && !domain.contains('@')
}

fn not_an_email(input: &mut Input) {
    input.error(
        "email",
        "format",
        "Must be an email address such as maria@example.com.br",
    );
}

/// The `email` filter: an address, as in a customer.
fn read_email(input: &mut Input) -> Option<String> {
    let email = input.text("email")?;
    if is_plausible_email(&email) {
        Some(email)
    } else {
        not_an_email(input);
        None
    }
}

/// The address as stored: trimmed, the state in upper case, the CEP as 8 digits. Which keys it
/// has, how long they are and what a state or a CEP looks like is the document's (`Address`).
fn read_address(map: &Map<String, Value>) -> Address {
    let text = |key: &str| {
        map.get(key)
            .and_then(Value::as_str)
            .map(|s| s.trim().to_string())
    };
    Address {
        street: text("street").unwrap_or_default(),
        number: text("number").unwrap_or_default(),
        complement: text("complement"),
        district: text("district").unwrap_or_default(),
        city: text("city").unwrap_or_default(),
        state: text("state").unwrap_or_default().to_uppercase(),
        zip_code: text("zip_code")
            .unwrap_or_default()
            .chars()
            .filter(char::is_ascii_digit)
            .collect(),
    }
}

/// `DELETE /v1/customers/{id}`: refused while any of its charges is still collected (pending,
/// overdue or in an agreement); otherwise the customer goes with its settled charges, their
/// disputes and agreements. Events stay in the audit trail.
pub async fn delete(Caller(state, p): Caller, Path(id): Path<String>) -> ApiResult<Reply> {
    let mut tx = state.db.begin().await?;
    let customer = store::get_in(&mut tx, &p.organization_id, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("customer", &id))?;
    let open = store::open_charge_count(&mut tx, &p.organization_id, &id).await?;
    if open > 0 {
        return Err(ApiError::conflict(
            "customer_has_open_charges",
            format!(
                "Customer {id} has {open} charge(s) pending, overdue or in an agreement; cancel or settle them first"
            ),
        ));
    }
    let charges = dunning_store::erasure::delete_customer(&mut tx, &p.organization_id, &id).await?;
    events::record(
        &mut tx,
        &p.organization_id,
        "customer.deleted",
        ("customer", &id),
        &p.actor(),
        &json!({ "name": customer.name, "charges_deleted": charges }),
    )
    .await?;
    commit(
        tx,
        axum::response::IntoResponse::into_response(http::StatusCode::NO_CONTENT),
    )
    .await
}
