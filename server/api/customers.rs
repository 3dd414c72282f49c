//! `/v1/customers`: debtors of the organization.

use axum::extract::Path;
use axum::response::IntoResponse;
use http::{HeaderMap, StatusCode};

use super::answers::refused::{answered, problem};
use super::answers::reply::{Reply, answer, check_if_match, page_meta, page_request};
use super::steps::caller::{Caller, find};
use super::steps::idempotency::{commit, commit_read, commit_written};
use super::steps::server_rules::{Rules, distinct};
use super::steps::typed_input::{Body, Query};
use crate::generated::models::{
    Channel, CustomerDocumentType, Patch, customers_create, customers_list, customers_update,
    request, response,
};
use crate::http::problem::{ApiError, ApiResult, FieldError};
use dunning_app::customers as app;
use dunning_domain::document::TaxDocument;
use dunning_store::customers::{self as store, Address, Customer, CustomerFields, CustomerFilter};
use dunning_store::locks::{self, Table};
use dunning_store::now_text;
use dunning_store::retry::{self, Failure};

pub async fn list(
    Caller(state, p): Caller,
    Query(query): Query<customers_list::Query>,
) -> ApiResult<Reply> {
    let page = page_request(query.page, query.per_page);
    let mut rules = Rules::default();
    let mut filter = filter(&query, &mut rules);
    rules.finish()?;
    filter.sort_by_name = query.sort_by == Some(customers_list::SortBy::Name);
    filter.descending = query.sort_order != Some(customers_list::SortOrder::Asc);
    let rows = store::list(&state.db, &p.organization_id, &filter, page).await?;
    let opt_outs = rows
        .items
        .iter()
        .map(opt_outs)
        .collect::<ApiResult<Vec<_>>>()?;
    let body = customers_list::Response200 {
        data: rows
            .items
            .iter()
            .zip(&opt_outs)
            .map(|(c, opt_outs)| view(c, opt_outs))
            .collect::<ApiResult<_>>()?,
        meta: page_meta(&rows, page),
    };
    Ok(answer(StatusCode::OK, &body, None))
}

/// The channels a customer opted out of, as the document's words (stored as text: a word the
/// document does not list is our own fault). Apart from [`view`], which borrows them.
fn opt_outs(c: &Customer) -> ApiResult<Vec<Channel>> {
    c.channel_opt_outs
        .iter()
        .map(|word| {
            Channel::from_word(word).ok_or_else(|| {
                ApiError::internal(format!("customer {} opted out of '{word}'", c.id))
            })
        })
        .collect()
}

/// A customer as the API shows it, with its opt-outs as [`opt_outs`] read them.
fn view<'a>(c: &'a Customer, opt_outs: &'a [Channel]) -> ApiResult<response::Customer<'a>> {
    let document_type = CustomerDocumentType::from_word(&c.document_type).ok_or_else(|| {
        ApiError::internal(format!(
            "customer {} has document type '{}'",
            c.id, c.document_type
        ))
    })?;
    Ok(response::Customer {
        id: &c.id,
        name: &c.name,
        document: &c.document,
        document_type,
        email: c.email.as_deref(),
        phone: c.phone.as_deref(),
        address: c.address.as_ref().map(address_view),
        channel_opt_outs: opt_outs,
        tags: &c.tags,
        notes: c.notes.as_deref(),
        created_at: c.created_at,
        updated_at: c.updated_at,
    })
}

/// A postal address as the API shows it (the same keys as stored, but written here so that
/// the storage format can change without the API noticing); no complement is `null`.
fn address_view(a: &Address) -> response::Address<'_> {
    response::Address {
        street: &a.street,
        number: &a.number,
        complement: a.complement.as_deref().map_or(Patch::Null, Patch::Value),
        district: &a.district,
        city: &a.city,
        state: &a.state,
        zip_code: &a.zip_code,
    }
}

/// `{"data": customer}` with its ETag and `status`; a stored word the document does not list
/// answers our own fault instead.
fn customer_answer(status: StatusCode, c: &Customer) -> Reply {
    let written = opt_outs(c).and_then(|opt_outs| {
        let body = response::CustomerResponse {
            data: view(c, &opt_outs)?,
        };
        Ok(answer(status, &body, Some(c.version)))
    });
    written.unwrap_or_else(IntoResponse::into_response)
}

/// The query parameters of `customers_list` that are filters (what a customers export takes).
pub const FILTERS: &[&str] = &["q", "document", "email", "tag"];

/// The filters of `customers_list` (also those of a customers export), oldest first.
pub fn filter(query: &customers_list::Query, rules: &mut Rules) -> CustomerFilter {
    CustomerFilter {
        q: query.q.clone(),
        document: query.document.as_ref().map(|d| {
            d.chars()
                .filter(char::is_ascii_alphanumeric)
                .collect::<String>()
                .to_uppercase()
        }),
        email: match &query.email {
            Some(email) if !is_plausible_email(email) => {
                not_an_email(rules);
                None
            }
            email => email.clone(),
        },
        tag: query.tag.clone(),
        sort_by_name: false,
        descending: false,
    }
}

pub async fn get(Caller(state, p): Caller, Path(id): Path<String>) -> ApiResult<Reply> {
    let customer = find::<Customer>(&state, &p, &id).await?;
    Ok(customer_answer(StatusCode::OK, &customer))
}

/// The [`Writable`] fields moved out of a create or an update body (two types that both
/// have them).
macro_rules! writable {
    ($body:expr) => {
        Writable {
            email: $body.email,
            phone: $body.phone,
            address: $body.address,
            channel_opt_outs: $body.channel_opt_outs,
            tags: $body.tags,
            notes: $body.notes,
        }
    };
}

pub async fn create(
    Caller(state, p): Caller,
    Body(body): Body<customers_create::Body>,
) -> ApiResult<Reply> {
    let mut rules = Rules::default();
    let document = match TaxDocument::parse(&body.document) {
        Ok(doc) => Some(doc),
        Err(e) => {
            rules.error(
                "document",
                "invalid",
                format!("Not a valid CPF or CNPJ: {e}"),
            );
            None
        }
    };
    let blank = CustomerFields {
        name: body.name,
        email: None,
        phone: None,
        address: None,
        channel_opt_outs: Vec::new(),
        tags: Vec::new(),
        notes: None,
    };
    let writable = writable!(body);
    let fields = writable.over(blank, &mut rules);
    rules.finish()?;
    let Some(document) = document else {
        return Err(ApiError::internal("validated document missing"));
    };

    let org = p.organization_id.as_str();
    let mut tx = state.db.begin().await?;
    let id = app::create(&mut tx, org, &p.actor(), &document, &fields, &now_text())
        .await
        .map_err(problem)?;
    commit_read(
        store::get_in(&mut tx, org, &id).await?,
        "customer",
        tx,
        |customer| customer_answer(StatusCode::CREATED, &customer),
    )
    .await
}

pub async fn update(
    Caller(state, p): Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Body<customers_update::Body>, ApiError>,
) -> ApiResult<Reply> {
    // An unknown customer is a 404 before any complaint about the body; checked against the
    // row as read now, so that a bad body is refused before any lock.
    let current = find::<Customer>(&state, &p, &id).await?;
    let Body(body) = body.map_err(document_is_read_only)?;
    patched(&body, &current)?;
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
        app::update(tx, org, &p.actor(), &current, &fields, &now_text())
            .await
            .map_err(answered)?;
        commit_written(
            store::get_in(tx, org, id).await?,
            "customer",
            transaction,
            |customer| customer_answer(StatusCode::OK, &customer),
        )
        .await
    })
    .await
}

/// A PATCH may not name `document` (the document's `CustomerUpdate` has no such field): the
/// server says why instead of "unknown field", after the faults of the text rule about it.
fn document_is_read_only(problem: ApiError) -> ApiError {
    if !problem.errors.iter().any(|e| e.field == "document") {
        return problem;
    }
    let mut errors = problem.errors;
    errors.retain(|e| !(e.field == "document" && e.code == "unknown"));
    let at = errors
        .iter()
        .rposition(|e| e.field == "document")
        .map_or(0, |i| i + 1);
    errors.insert(
        at,
        FieldError::new(
            "document",
            "read_only",
            "The document of a customer cannot be changed; create a new customer instead",
        ),
    );
    ApiError::validation(errors)
}

/// The fields of `current` with the PATCH `body` applied, or the 400 listing what is wrong.
fn patched(body: &customers_update::Body, current: &Customer) -> ApiResult<CustomerFields> {
    let body = body.clone();
    let mut rules = Rules::default();
    let mut fields = writable!(body).over(
        CustomerFields {
            name: current.name.clone(),
            email: current.email.clone(),
            phone: current.phone.clone(),
            address: current.address.clone(),
            channel_opt_outs: current.channel_opt_outs.clone(),
            tags: current.tags.clone(),
            notes: current.notes.clone(),
        },
        &mut rules,
    );
    rules.finish()?;
    if let Some(name) = body.name {
        fields.name = name;
    }
    Ok(fields)
}

/// The optional writable fields of a customer's body (create's and update's alike).
struct Writable {
    email: Patch<String>,
    phone: Patch<String>,
    address: Patch<request::Address>,
    channel_opt_outs: Option<Vec<Channel>>,
    tags: Option<Vec<String>>,
    notes: Patch<String>,
}

impl Writable {
    /// These fields over `fields` (the current values on update): absent keeps, `null` clears.
    fn over(self, mut fields: CustomerFields, rules: &mut Rules) -> CustomerFields {
        match self.email {
            Patch::Value(email) if is_plausible_email(&email) => {
                fields.email = Some(email.to_lowercase());
            }
            Patch::Value(_) => not_an_email(rules),
            Patch::Null => fields.email = None,
            Patch::Absent => {}
        }
        // E.164, as the document's pattern says.
        patch(&mut fields.phone, self.phone);
        match self.address {
            Patch::Value(address) => fields.address = Some(stored_address(address)),
            Patch::Null => fields.address = None,
            Patch::Absent => {}
        }
        if let Some(opt_outs) = self.channel_opt_outs {
            let words = opt_outs.iter().map(|c| c.as_str().to_string()).collect();
            fields.channel_opt_outs = distinct(words);
        }
        if let Some(tags) = self.tags {
            fields.tags = distinct(tags);
        }
        patch(&mut fields.notes, self.notes);
        fields
    }
}

/// A text field set (a value), cleared (`null`) or kept (absent).
fn patch(field: &mut Option<String>, change: Patch<String>) {
    match change {
        Patch::Value(text) => *field = Some(text),
        Patch::Null => *field = None,
        Patch::Absent => {}
    }
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

fn not_an_email(rules: &mut Rules) {
    rules.error(
        "email",
        "format",
        "Must be an email address such as maria@example.com.br",
    );
}

/// The address as stored: the state in upper case, the CEP as 8 digits (its strings arrive
/// trimmed). Which keys it has, how long they are and what a state or a CEP looks like is the
/// document's (`Address`).
fn stored_address(a: request::Address) -> Address {
    Address {
        street: a.street,
        number: a.number,
        complement: a.complement.into_option(),
        district: a.district,
        city: a.city,
        state: a.state.to_uppercase(),
        zip_code: a.zip_code.chars().filter(char::is_ascii_digit).collect(),
    }
}

/// `DELETE /v1/customers/{id}`: refused while any of its charges is still collected (pending,
/// overdue or in an agreement); otherwise the customer goes with its settled charges, their
/// disputes and agreements. Events stay in the audit trail.
pub async fn delete(Caller(state, p): Caller, Path(id): Path<String>) -> ApiResult<Reply> {
    let mut tx = state.db.begin().await?;
    app::delete(&mut tx, &p.organization_id, &p.actor(), &id)
        .await
        .map_err(problem)?;
    commit(
        tx,
        axum::response::IntoResponse::into_response(http::StatusCode::NO_CONTENT),
    )
    .await
}
