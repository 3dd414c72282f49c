//! Pix Automático at the PSP (BACEN's API Pix: `/locrec`, `/rec`, `/cobr`): the requests the
//! organization made for its agreements (`dunning_app::automatic_pix`), taken to the PSP and
//! followed, and each instalment's recurring charge.
//!
//! A request due is one of:
//! - `requested` (its agreement accepted): the webhooks of recurrences and recurring charges
//!   registered once per connection (`PUT /webhookrec`, `/webhookcobr`: our callback URL, the
//!   PSP adds `/rec` and `/cobr`), a location (`POST /locrec`), the recurrence (`POST /rec`:
//!   the debtor, the agreement as the contract, each instalment's amount, monthly from the
//!   first instalment to the last, the retry policy) and its code (`GET /rec/{idRec}`, with the
//!   down payment's cobv txid for the journey that pays it and authorizes at once). A PSP that
//!   answers 404 offers no Pix Automático: the request fails and the agreement goes on as
//!   before.
//! - canceled by the organization (or its agreement ended): `PATCH /rec/{idRec}` `CANCELADA`.
//! - waiting or authorized: looked at (`GET /rec/{idRec}`) every sweep interval, which finds
//!   what a lost callback did not say; an authorized one gets a recurring charge for each
//!   instalment entering its lead window (`dunning_app::automatic_pix::schedule_debits`).
//!
//! A debit due is sent (`PUT /cobr/{txid}`, its txid naming the instalment charge) or looked at
//! (`GET /cobr/{txid}`), or canceled (`PATCH /cobr/{txid}`) once its recurrence ended; each
//! answer goes through the same path as a callback (`dunning_app::automatic_pix::debit_reported`).
//!
//! Work is claimed with a lease and retried after a wait that doubles when the PSP cannot be
//! reached, as the rest of the Pix worker.

use serde_json::{Value, json};
use time::OffsetDateTime;

use super::client::{PspClient, PspError};
use super::{LEASE, callback_url};
use crate::Engine;
use dunning_app::automatic_pix::{self as app, DebitReport, RecReport};
use dunning_domain::calendar;
use dunning_domain::money::Cents;
use dunning_domain::pix_cobv::decimal;
use dunning_store::agreements::{self as agreements, Agreement};
use dunning_store::automatic_pix::{
    self as store, AutomaticPix, AutomaticPixStatus, Created, Debit, DebitStatus, Journey, Move,
    Queue, RetryPolicy,
};
use dunning_store::events::Actor;
use dunning_store::pix_psp::{self as connections, SealedConnection};
use dunning_store::retry::{self, Failure};
use dunning_store::{Result, StoreError, customers, ids, now_text, timestamp_text};

/// Rows of each queue taken up per tick.
const BATCH: i64 = 20;

fn actor() -> Actor {
    Actor {
        kind: "system",
        id: None,
        name: Some("pix automatico".into()),
    }
}

/// Take up every request and every debit due at `now`: how many were.
pub(super) async fn automatic_due(engine: &Engine, now: OffsetDateTime) -> Result<usize> {
    let now_text = timestamp_text(now);
    let until = timestamp_text(now + crate::lease(engine, LEASE));
    let mut done = 0;
    for queue in [Queue::Recurrences, Queue::Charges] {
        for (org, id) in store::due(&engine.db, queue, &now_text, BATCH).await? {
            let token = ids::new_id("clm");
            let key = (org.as_str(), id.as_str());
            if !store::claim(&engine.db, queue, key, &token, &now_text, &until).await? {
                continue;
            }
            let outcome = match queue {
                Queue::Recurrences => take_up_recurrence(engine, key, now).await,
                Queue::Charges => take_up_debit(engine, key, now).await,
            };
            let (next, error) = match outcome {
                Ok(next) => (next, None),
                Err(Step::Store(e)) => return Err(e),
                Err(Step::Psp(e)) => {
                    tracing::info!(organization = %org, id = %id, "Pix Automático not taken to the PSP: {e}");
                    let attempts = attempts(engine, queue, key).await?;
                    (
                        Some(now + engine.settings.pix.backoff(attempts + 1)),
                        Some(e.to_string()),
                    )
                }
            };
            let mut conn = engine.db.pool.acquire().await?;
            let next = next.map(timestamp_text);
            store::release(
                &mut conn,
                queue,
                key,
                &token,
                next.as_deref(),
                error.as_deref(),
                &now_text,
            )
            .await?;
            done += 1;
        }
    }
    Ok(done)
}

/// Why a step stopped: the PSP (tried again later) or the database.
enum Step {
    Psp(PspError),
    Store(StoreError),
}

impl From<StoreError> for Step {
    fn from(e: StoreError) -> Step {
        Step::Store(e)
    }
}

impl From<PspError> for Step {
    fn from(e: PspError) -> Step {
        Step::Psp(e)
    }
}

/// When a step wants the row looked at again (`None`: not until something makes it due).
type Next = std::result::Result<Option<OffsetDateTime>, Step>;

async fn attempts(engine: &Engine, queue: Queue, (org, id): (&str, &str)) -> Result<i64> {
    let table = match queue {
        Queue::Recurrences => store::get_in(&mut *engine.db.pool.acquire().await?, org, id)
            .await?
            .map(|a| a.attempts),
        Queue::Charges => store::debit_in(&mut *engine.db.pool.acquire().await?, org, id)
            .await?
            .map(|d| d.attempts),
    };
    Ok(table.unwrap_or(0))
}

/// The connection's client, or why there is none.
async fn client(
    engine: &Engine,
    org: &str,
) -> std::result::Result<(SealedConnection, std::sync::Arc<PspClient>), Step> {
    let connection = connections::sealed(&engine.db, org)
        .await?
        .ok_or_else(|| PspError::Setup("the organization has no PSP connection".into()))?;
    let client = engine.pix.get(&engine.settings.pix, &connection)?;
    Ok((connection, client))
}

async fn take_up_recurrence(engine: &Engine, (org, id): (&str, &str), now: OffsetDateTime) -> Next {
    let mut conn = engine.db.pool.acquire().await.map_err(StoreError::from)?;
    let Some(automatic) = store::get_in(&mut conn, org, id).await? else {
        return Ok(None);
    };
    drop(conn);
    if automatic.status.is_final() {
        return Ok(None);
    }
    let (connection, client) = match client(engine, org).await {
        Ok(found) => found,
        // No connection any more: nothing at a PSP can be reached, so the request ends.
        Err(Step::Psp(PspError::Setup(why))) if automatic.rec_id.is_none() => {
            fail(engine, org, &automatic, &why).await?;
            return Ok(None);
        }
        Err(e) => return Err(e),
    };
    if automatic.cancel_requested {
        return cancel_at_psp(engine, org, &client, &automatic).await;
    }
    match automatic.status {
        AutomaticPixStatus::Requested => {
            create(engine, &connection, &client, &automatic, now).await
        }
        _ => follow(engine, org, &client, &automatic, now).await,
    }
}

/// The request ends `failed` with `why` (the PSP refused it, or offers no Pix Automático).
async fn fail(engine: &Engine, org: &str, automatic: &AutomaticPix, why: &str) -> Result<()> {
    let how = &Move {
        ended_by: Some("psp"),
        end_reason: Some(why),
        ..Move::default()
    };
    retry::run(|| async move {
        let mut tx = engine.db.begin().await?;
        let status = AutomaticPixStatus::Failed;
        app::moved(&mut tx, org, &actor(), automatic, status, how, &now_text()).await?;
        tx.commit().await?;
        Ok::<(), Failure<StoreError>>(())
    })
    .await
}

/// Create the recurrence at the PSP: webhooks, location, recurrence, code.
async fn create(
    engine: &Engine,
    connection: &SealedConnection,
    client: &PspClient,
    automatic: &AutomaticPix,
    now: OffsetDateTime,
) -> Next {
    let org = connection.organization_id.as_str();
    let Some(agreement) = agreements::get(&engine.db, org, &automatic.agreement_id).await? else {
        return Ok(None);
    };
    if agreement.status != agreements::AgreementStatus::Accepted {
        return Ok(None); // made due again when it is accepted
    }
    if connection.account_number.is_none() {
        fail(engine, org, automatic, "The PSP connection has no account for Pix Automático (automatic_pix_account of pix_psp_set)").await?;
        return Ok(None);
    }
    // The down payment's cobv must be at the PSP before the QR that pays it can be made.
    let down_payment_txid = match automatic.journey {
        Journey::Qr => None,
        Journey::QrWithDownPayment => match down_payment_cobv(engine, org, &agreement).await? {
            Some(txid) => Some(txid),
            None => return Ok(Some(now + engine.settings.pix.backoff(1))),
        },
    };
    if connection.automatic_webhooks_at.is_none() {
        register_webhooks(engine, connection, client).await?;
    }
    let body = match rec_body(engine, org, &agreement, automatic).await? {
        Ok(body) => body,
        Err(why) => {
            fail(engine, org, automatic, &why).await?;
            return Ok(None);
        }
    };
    let made = async {
        let location = client.post_locrec().await?;
        let location_id = match &location["id"] {
            Value::Number(n) => n.to_string(),
            Value::String(s) => s.clone(),
            _ => return Err(PspError::Invalid("POST /locrec answered no id".into())),
        };
        let mut body = body;
        body["loc"] = location["id"].clone();
        let rec = client.post_rec(&body).await?;
        let rec_id = rec["idRec"]
            .as_str()
            .filter(|id| app::is_rec_id(id))
            .ok_or_else(|| PspError::Invalid("POST /rec answered no idRec".into()))?
            .to_string();
        let full = client
            .get_rec(&rec_id, down_payment_txid.as_deref())
            .await?;
        let qr_code = full["dadosQR"]["pixCopiaECola"]
            .as_str()
            .filter(|code| !code.is_empty() && code.len() <= 512)
            .ok_or_else(|| PspError::Invalid("GET /rec answered no dadosQR.pixCopiaECola".into()))?
            .to_string();
        let location = location["location"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        Ok((rec_id, location_id, location, qr_code))
    }
    .await;
    let (rec_id, location_id, location, qr_code) = match made {
        Ok(made) => made,
        Err(e) if e.not_found() => {
            fail(
                engine,
                org,
                automatic,
                "The PSP does not offer Pix Automático (it answered 404)",
            )
            .await?;
            return Ok(None);
        }
        Err(e) if e.refused_request() => {
            fail(engine, org, automatic, &e.to_string()).await?;
            return Ok(None);
        }
        Err(e) => return Err(Step::Psp(e)),
    };
    let made = Created {
        rec_id: &rec_id,
        location_id: &location_id,
        location: &location,
        qr_code: &qr_code,
    };
    let made = &made;
    let kept = retry::run(|| async move {
        let mut tx = engine.db.begin().await?;
        let kept = app::created(&mut tx, org, &actor(), automatic, made, &now_text()).await?;
        tx.commit().await?;
        Ok::<bool, Failure<StoreError>>(kept)
    })
    .await?;
    if !kept {
        // Canceled while we were creating it: cancel what we made, so that the debtor is never
        // asked to authorize a recurrence nobody wants.
        let canceled = client
            .patch_rec(&rec_id, &json!({ "status": "CANCELADA" }))
            .await;
        if let Err(e) = canceled {
            tracing::warn!(organization = %org, rec = %rec_id, "a recurrence made after its cancel could not be canceled: {e}");
        }
        return Ok(None);
    }
    Ok(Some(now + follow_interval(engine)))
}

/// How often a live recurrence is looked at besides its callbacks.
fn follow_interval(engine: &Engine) -> time::Duration {
    time::Duration::try_from(engine.settings.pix.sweep_interval()).unwrap_or(time::Duration::HOUR)
}

/// `PUT /webhookrec` and `/webhookcobr` with our callback URL, once per connection.
async fn register_webhooks(
    engine: &Engine,
    connection: &SealedConnection,
    client: &PspClient,
) -> std::result::Result<(), Step> {
    let url = callback_url(&engine.settings.pix, connection)?;
    let outcome = client.put_automatic_webhooks(&url).await;
    let now = now_text();
    let error = outcome.as_ref().err().map(ToString::to_string);
    connections::automatic_webhooks(
        &engine.db,
        &connection.organization_id,
        error.as_deref().map_or(Ok(()), Err),
        &now,
    )
    .await?;
    // Without its callbacks the recurrence is still followed by the sweep: go on.
    if let Some(error) = error {
        tracing::info!(organization = %connection.organization_id, "webhooks of Pix Automático not registered: {error}");
    }
    Ok(())
}

/// The down payment's cobv txid once the PSP has it active; `None` while it does not.
async fn down_payment_cobv(
    engine: &Engine,
    org: &str,
    agreement: &Agreement,
) -> Result<Option<String>> {
    let Some(charge_id) = agreement
        .installments_schedule
        .iter()
        .find(|entry| entry.number == 0)
        .and_then(|entry| entry.charge_id.clone())
    else {
        return Ok(None);
    };
    let cobv = connections::cobv(&engine.db, org, &charge_id).await?;
    Ok(cobv
        .filter(|c| c.psp_status.as_deref() == Some("ATIVA"))
        .map(|c| c.txid))
}

/// `RecSolicitada` for the agreement: or why it cannot be asked for.
async fn rec_body(
    engine: &Engine,
    org: &str,
    agreement: &Agreement,
    automatic: &AutomaticPix,
) -> Result<std::result::Result<Value, String>> {
    let Some(customer) = customers::get(&engine.db, org, &agreement.customer_id).await? else {
        return Ok(Err("the agreement's customer is missing".into()));
    };
    let instalments: Vec<_> = agreement
        .installments_schedule
        .iter()
        .filter(|entry| entry.number > 0)
        .collect();
    let (Some(first), Some(last)) = (instalments.first(), instalments.last()) else {
        return Ok(Err("the agreement has no instalments".into()));
    };
    let document = customer
        .document
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>();
    let debtor = match customer.document_type.as_str() {
        "cpf" => json!({ "cpf": document, "nome": clip(&customer.name, 140) }),
        _ => json!({ "cnpj": document, "nome": clip(&customer.name, 140) }),
    };
    let amounts: Vec<Cents> = instalments.iter().map(|e| e.amount_cents).collect();
    let smallest = amounts.iter().copied().min().unwrap_or(Cents(0));
    // A fixed amount when every instalment is the same; otherwise the smallest as the floor
    // the debtor's own limit cannot go under.
    let value = if amounts.iter().all(|a| *a == smallest) {
        json!({ "valorRec": decimal(smallest) })
    } else {
        json!({ "valorMinimoRecebedor": decimal(smallest) })
    };
    let mut calendar = json!({
        "dataInicial": first.due_date.to_string(),
        "periodicidade": "MENSAL",
    });
    if instalments.len() > 1 {
        calendar["dataFinal"] = json!(last.due_date.to_string());
    }
    Ok(Ok(json!({
        "vinculo": {
            "contrato": agreement.id,
            "devedor": debtor,
            "objeto": clip(&format!("Acordo {}", agreement.id), 35),
        },
        "calendario": calendar,
        "valor": value,
        "politicaRetentativa": automatic.retry_policy.bacen(),
    })))
}

/// Cancel the recurrence at the PSP (the organization asked, or its agreement ended), and
/// record where the PSP says it stands.
async fn cancel_at_psp(
    engine: &Engine,
    org: &str,
    client: &PspClient,
    automatic: &AutomaticPix,
) -> Next {
    let Some(rec_id) = &automatic.rec_id else {
        return Ok(None);
    };
    let answer = match client
        .patch_rec(rec_id, &json!({ "status": "CANCELADA" }))
        .await
    {
        Ok(answer) if answer["status"].is_string() => answer,
        // A recurrence that has ended already is refused: ask where it stands.
        Ok(_) => client.get_rec(rec_id, None).await?,
        Err(e) if e.refused_request() => client.get_rec(rec_id, None).await?,
        Err(e) => return Err(Step::Psp(e)),
    };
    let mut report = RecReport::read(&answer)
        .or_else(|_| RecReport::read(&json!({ "idRec": rec_id, "status": answer["status"] })))
        .map_err(|why| PspError::Invalid(format!("the recurrence {rec_id}: {why}")))?;
    if report.status == AutomaticPixStatus::Canceled && report.ended_by.is_none() {
        report.ended_by = Some("organization");
    }
    apply_rec(engine, org, &report).await?;
    Ok(None)
}

/// Look at a live recurrence: where it stands at the PSP, and its instalments to send.
async fn follow(
    engine: &Engine,
    org: &str,
    client: &PspClient,
    automatic: &AutomaticPix,
    now: OffsetDateTime,
) -> Next {
    let Some(rec_id) = &automatic.rec_id else {
        return Ok(None);
    };
    let answer = client.get_rec(rec_id, None).await?;
    let report = RecReport::read(&answer)
        .map_err(|why| PspError::Invalid(format!("the recurrence {rec_id}: {why}")))?;
    apply_rec(engine, org, &report).await?;
    let today = calendar::day_of(now);
    let id = automatic.id.as_str();
    let scheduled = retry::run(|| async move {
        let mut tx = engine.db.begin().await?;
        let Some(current) = store::get_in(&mut tx, org, id).await? else {
            return Ok(0);
        };
        let scheduled = app::schedule_debits(&mut tx, org, &current, today, &now_text()).await?;
        tx.commit().await?;
        Ok::<usize, Failure<StoreError>>(scheduled)
    })
    .await?;
    if scheduled > 0 {
        tracing::info!(organization = %org, rec = %rec_id, scheduled, "instalments sent for debit");
    }
    Ok(Some(now + follow_interval(engine)))
}

async fn apply_rec(engine: &Engine, org: &str, report: &RecReport) -> Result<bool> {
    app::rec_reported_once(&engine.db, org, &actor(), report).await
}

async fn take_up_debit(engine: &Engine, (org, id): (&str, &str), now: OffsetDateTime) -> Next {
    let mut conn = engine.db.pool.acquire().await.map_err(StoreError::from)?;
    let Some(debit) = store::debit_in(&mut conn, org, id).await? else {
        return Ok(None);
    };
    let Some(automatic) = store::get_in(&mut conn, org, &debit.automatic_pix_id).await? else {
        return Ok(None);
    };
    drop(conn);
    if debit.status.is_final() {
        return Ok(None);
    }
    let (connection, client) = client(engine, org).await?;
    let Some(rec_id) = automatic.rec_id.as_deref() else {
        return Ok(None);
    };
    let answer = if automatic.status.is_final() {
        // The recurrence ended: its debits not made yet are canceled.
        match client
            .patch_cobr(&debit.txid, &json!({ "status": "CANCELADA" }))
            .await
        {
            Ok(answer) if answer["status"].is_string() => answer,
            Ok(_) => client.get_cobr(&debit.txid).await?,
            Err(e) if e.refused_request() || e.not_found() => {
                if debit.status == DebitStatus::Scheduling {
                    cancel_unsent(engine, org, &debit).await?;
                    return Ok(None);
                }
                client.get_cobr(&debit.txid).await?
            }
            Err(e) => return Err(Step::Psp(e)),
        }
    } else if debit.status == DebitStatus::Scheduling {
        match client
            .put_cobr(&debit.txid, &cobr_body(&connection, rec_id, &debit))
            .await
        {
            Ok(answer) => answer,
            // Refused (past the lead window, the recurrence not authorized at the PSP): the
            // instalment goes the ordinary way.
            Err(e) if e.refused_request() => json!({
                "txid": debit.txid,
                "status": "REJEITADA",
                "encerramento": { "rejeicao": { "codigo": "", "descricao": clip(&e.to_string(), 400) } },
            }),
            Err(e) => return Err(Step::Psp(e)),
        }
    } else {
        let answer = client.get_cobr(&debit.txid).await?;
        let today = calendar::day_of(now);
        retry_or_fail(&client, &automatic, &debit, answer, today).await?
    };
    let report = DebitReport::read(&answer)
        .map_err(|why| PspError::Invalid(format!("the recurring charge {}: {why}", debit.txid)))?;
    apply_debit(engine, org, &report).await?;
    if report.status.is_final() {
        return Ok(None);
    }
    // Looked at again the day after its date, when the debit has been made (its callback
    // usually says so first), and at least every sweep interval.
    let after_date = calendar::start_of(debit.due_date.next_day().unwrap_or(debit.due_date));
    let sweep = now + follow_interval(engine);
    Ok(Some(if after_date > now {
        after_date.min(sweep)
    } else {
        sweep
    }))
}

/// A recurring charge still active whose last attempt was rejected: the debit is tried again
/// tomorrow when the recurrence's policy allows it (`PERMITE_3R_7D`: at most three retries,
/// within seven days of its date; `POST /cobr/{txid}/retentativa/{data}`), else it has failed
/// (and the instalment falls back to its own code). Any other answer is kept as it is.
async fn retry_or_fail(
    client: &PspClient,
    automatic: &AutomaticPix,
    debit: &Debit,
    answer: Value,
    today: time::Date,
) -> std::result::Result<Value, Step> {
    let attempts = answer["tentativas"].as_array().cloned().unwrap_or_default();
    let rejected =
        answer["status"] == "ATIVA" && attempts.last().is_some_and(|a| a["status"] == "REJEITADA");
    if !rejected {
        return Ok(answer);
    }
    let retries = attempts.iter().filter(|a| a["tipo"] == "RIFL").count();
    let tomorrow = today.next_day().unwrap_or(today);
    let allowed = automatic.retry_policy == RetryPolicy::ThreeInSevenDays
        && retries < 3
        && tomorrow <= debit.due_date + time::Duration::days(7);
    if allowed {
        match client.retry_cobr(&debit.txid, tomorrow).await {
            Ok(retried) => return Ok(retried),
            Err(e) if !e.refused_request() => return Err(Step::Psp(e)),
            Err(_) => {} // refused: the debit has failed
        }
    }
    let rejection = attempts
        .last()
        .map(|a| a["rejeicao"].clone())
        .unwrap_or_default();
    Ok(json!({
        "txid": debit.txid,
        "status": "REJEITADA",
        "encerramento": { "rejeicao": rejection },
    }))
}

/// A debit the PSP never had: canceled here.
async fn cancel_unsent(engine: &Engine, org: &str, debit: &Debit) -> Result<()> {
    let report = DebitReport {
        txid: debit.txid.clone(),
        status: DebitStatus::Canceled,
        pix: Vec::new(),
        end_code: None,
        end_reason: Some("The recurrence ended before it was sent".into()),
        last_attempt_rejected: false,
    };
    apply_debit(engine, org, &report).await.map(drop)
}

/// What the PSP said of a debit, recorded as a callback's would be: whether it moved.
async fn apply_debit(engine: &Engine, org: &str, report: &DebitReport) -> Result<bool> {
    app::debit_reported_once(&engine.db, org, &actor(), report, "sweep").await
}

/// `CobRSolicitada` of a debit.
fn cobr_body(connection: &SealedConnection, rec_id: &str, debit: &Debit) -> Value {
    let kind = match connection.account_type.as_deref() {
        Some("savings") => "POUPANCA",
        Some("payment") => "PAGAMENTO",
        _ => "CORRENTE",
    };
    let mut receiver = json!({
        "conta": connection.account_number.clone().unwrap_or_default(),
        "tipoConta": kind,
    });
    if let Some(branch) = &connection.account_branch {
        receiver["agencia"] = json!(branch);
    }
    json!({
        "idRec": rec_id,
        "infoAdicional": clip(&format!("Parcela do acordo, cobrança {}", debit.charge_id), 140),
        "calendario": { "dataDeVencimento": debit.due_date.to_string() },
        "valor": { "original": decimal(debit.amount_cents) },
        "ajusteDiaUtil": true,
        "recebedor": receiver,
    })
}

fn clip(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}
