//! Pix Automático for an agreement's instalments: the organization asks for it (a recurrence
//! at its PSP, which the debtor authorizes once in their bank app), and every move the PSP
//! reports is recorded with its event on the agreement.
//!
//! A request made while the agreement is proposed waits for its acceptance (the instalment
//! charges exist only then); once accepted it is the Pix worker's to create at the PSP
//! (`engine::pix::automatic`). Ending the agreement (canceled, broken, fulfilled) or the
//! organization's cancel tells the PSP to cancel the recurrence; the debtor's own
//! cancellation, a rejection or an expiry arrive from the PSP. Every change gives the agreement
//! a new version (what its answer shows changed) and records an event
//! `agreement.automatic_pix_<status>` the organization's receivers get.
//!
//! Each operation runs inside the caller's transaction, with the agreement locked by the
//! caller (the `/v1` handlers) or by the operation itself (the worker and the callbacks).

use serde_json::Value;
use time::Date;

use dunning_domain::pix_txid;
use dunning_models::response::{AgreementAutomaticPixData, ChargeAutomaticPixData};
use dunning_store::agreements::{self as agreements, Agreement, AgreementStatus};
use dunning_store::automatic_pix::{
    self as store, AutomaticPix, AutomaticPixStatus, Created, DebitMove, DebitStatus, Journey,
    Move, NewAutomaticPix, NewDebit, RetryPolicy,
};
use dunning_store::events::Actor;
use dunning_store::locks::{self, Table};
use dunning_store::retry::{self, Failure};
use dunning_store::{
    Connection, Db, Result as StoreResult, StoreError, charges, ids, now_text, pix_psp,
};

use crate::collection::{ActionContext, NoticeText};
use crate::pix_received::{self, PixItem};
use crate::{Refused, Result, events, refusals, refuse};

/// The organization's account at its PSP, which Pix Automático debits into, or `None` (none,
/// so none can be asked for). Set with the connection, which a PUT replaces whole.
pub async fn set_account(
    tx: &mut Connection,
    org: &str,
    account: Option<pix_psp::Account<'_>>,
    now: &str,
) -> StoreResult<()> {
    pix_psp::set_account(tx, org, account, now).await
}

/// Ask for Pix Automático on `agreement` (locked and read by the caller): its id.
pub async fn request(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    agreement: &Agreement,
    journey: Journey,
    retry_policy: RetryPolicy,
    now: &str,
) -> Result<String> {
    let agreement_id = &agreement.id;
    if !matches!(
        agreement.status,
        AgreementStatus::Proposed | AgreementStatus::Accepted
    ) {
        return refuse(Refused::rule(
            refusals::AGREEMENT_NOT_LIVE,
            format!(
                "Agreement {agreement_id} is {}; Pix Automático is for a proposed or accepted agreement",
                agreement.status
            ),
        ));
    }
    let Some(connection) = pix_psp::get_in(tx, org).await? else {
        return refuse(Refused::rule(
            refusals::AUTOMATIC_PIX_UNAVAILABLE,
            "The organization has no PSP connection; connect one (pix_psp_set) first",
        ));
    };
    if connection.account_number.is_none() {
        return refuse(Refused::rule(
            refusals::AUTOMATIC_PIX_UNAVAILABLE,
            "The PSP connection has no account for Pix Automático; set automatic_pix_account with pix_psp_set",
        ));
    }
    if journey == Journey::QrWithDownPayment {
        down_payment_open(tx, org, agreement).await?;
    }
    if let Some(live) = store::live_of_agreement(tx, org, agreement_id).await? {
        return refuse(Refused::rule(
            refusals::AUTOMATIC_PIX_EXISTS,
            format!(
                "Agreement {agreement_id} already has Pix Automático {} ({}); cancel it first",
                live.id, live.status
            ),
        ));
    }
    let id = ids::new_id("apx");
    let accepted = agreement.status == AgreementStatus::Accepted;
    let new = NewAutomaticPix {
        id: &id,
        agreement_id,
        journey,
        retry_policy,
        next_attempt_at: accepted.then_some(now),
    };
    store::insert(tx, org, &new, now).await?;
    agreements::touch(tx, org, agreement_id, now).await?;
    let automatic = store::get_in(tx, org, &id).await?;
    if let Some(automatic) = automatic {
        record(tx, org, actor, &automatic).await?;
    }
    Ok(id)
}

/// Refuse the down-payment journey when the agreement has no down payment, or its charge is
/// not open any more (paid, or canceled).
async fn down_payment_open(tx: &mut Connection, org: &str, agreement: &Agreement) -> Result<()> {
    let Some(entry) = agreement
        .installments_schedule
        .iter()
        .find(|entry| entry.number == 0)
    else {
        return refuse(Refused::Field {
            field: "journey",
            code: refusals::NO_DOWN_PAYMENT,
            message: format!(
                "Agreement {} has no down payment; use the journey qr",
                agreement.id
            ),
        });
    };
    let Some(charge_id) = &entry.charge_id else {
        return Ok(()); // proposed: the down payment is not a charge yet
    };
    let open = charges::get_in(tx, org, charge_id)
        .await?
        .is_some_and(|charge| charge.is_open());
    if !open {
        return refuse(Refused::rule(
            refusals::DOWN_PAYMENT_NOT_OPEN,
            format!(
                "The down payment of agreement {} (charge {charge_id}) is no longer open; use the journey qr",
                agreement.id
            ),
        ));
    }
    Ok(())
}

/// The organization cancels the live Pix Automático of `agreement` (locked by the caller): one
/// not yet at the PSP ends here; one at the PSP is canceled there by the worker, which
/// records the end when the PSP confirms it.
pub async fn cancel(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    agreement: &Agreement,
    now: &str,
) -> Result<()> {
    let Some(live) = store::live_of_agreement(tx, org, &agreement.id).await? else {
        return refuse(Refused::rule(
            refusals::AUTOMATIC_PIX_NOT_LIVE,
            format!(
                "Agreement {} has no Pix Automático requested, waiting or authorized",
                agreement.id
            ),
        ));
    };
    end_by_organization(tx, org, actor, &live, "Canceled by the organization", now).await?;
    Ok(())
}

/// The agreement `agreement_id` was accepted: its waiting request goes to the PSP now.
pub async fn agreement_accepted(
    tx: &mut Connection,
    org: &str,
    agreement_id: &str,
    now: &str,
) -> StoreResult<()> {
    if let Some(live) = store::live_of_agreement(tx, org, agreement_id).await? {
        store::make_due(tx, org, &live.id, false, now).await?;
    }
    Ok(())
}

/// The agreement `agreement_id` ended (canceled, broken or fulfilled): no more instalments to
/// debit, so its Pix Automático ends too.
pub async fn agreement_ended(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    agreement_id: &str,
    now: &str,
) -> StoreResult<()> {
    if let Some(live) = store::live_of_agreement(tx, org, agreement_id).await? {
        end_by_organization(tx, org, actor, &live, "The agreement ended", now).await?;
    }
    Ok(())
}

async fn end_by_organization(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    live: &AutomaticPix,
    reason: &str,
    now: &str,
) -> StoreResult<()> {
    if live.rec_id.is_none() {
        // Nothing at the PSP yet. (A worker holding its claim now may still create it; it
        // writes what it made only while the request is `requested`, and otherwise cancels
        // what it made: `engine::pix::automatic`.)
        let ended = Move {
            ended_by: Some("organization"),
            end_reason: Some(reason),
            ..Move::default()
        };
        moved(
            tx,
            org,
            actor,
            live,
            AutomaticPixStatus::Canceled,
            &ended,
            now,
        )
        .await?;
        return Ok(());
    }
    store::make_due(tx, org, &live.id, true, now).await?;
    agreements::touch(tx, org, &live.agreement_id, now).await
}

/// The recurrence was created at the PSP (the worker): waiting for the debtor, with its code.
/// False when the request was not `requested` any more (canceled meanwhile).
pub async fn created(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    automatic: &AutomaticPix,
    created: &Created<'_>,
    now: &str,
) -> StoreResult<bool> {
    locks::lock(tx, Table::Agreements, org, &automatic.agreement_id).await?;
    if !store::set_created(tx, org, &automatic.id, created, now).await? {
        return Ok(false);
    }
    after_move(tx, org, actor, &automatic.id, &automatic.agreement_id, now).await?;
    invite(tx, org, actor, automatic, created.qr_code, now).await?;
    Ok(true)
}

/// The debtor's notice with the authorization code (e-mail, else WhatsApp), on the charge
/// the code is for: the down payment's when the code pays it too, else the first instalment's.
/// Nothing when the debtor opted out of the channel or cannot be reached there.
async fn invite(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    automatic: &AutomaticPix,
    code: &str,
    now: &str,
) -> StoreResult<()> {
    let Some(agreement) = agreements::get_in(tx, org, &automatic.agreement_id).await? else {
        return Ok(());
    };
    let number = match automatic.journey {
        Journey::QrWithDownPayment => 0,
        Journey::Qr => 1,
    };
    let Some(charge_id) = agreement
        .installments_schedule
        .iter()
        .find(|entry| entry.number == number)
        .and_then(|entry| entry.charge_id.as_deref())
    else {
        return Ok(());
    };
    let customer = crate::collection::read_customer(tx, org, &agreement.customer_id).await?;
    let channel = if crate::collection::contact(&customer, "email").is_some() {
        "email"
    } else {
        "whatsapp"
    };
    let also = if automatic.journey == Journey::QrWithDownPayment {
        " O mesmo código paga a entrada do acordo."
    } else {
        ""
    };
    let body = format!(
        "Olá, {}.\n\nAs parcelas do seu acordo {} podem ser debitadas automaticamente com o Pix \
         Automático, nas datas combinadas. Para autorizar, cole o código abaixo na opção Pix copia \
         e cola do aplicativo do seu banco (ou leia o QR Code do termo do acordo).{also} A \
         autorização pode ser cancelada a qualquer momento no aplicativo.\n\n{code}\n",
        customer.name, agreement.id
    );
    let at = time::OffsetDateTime::parse(now, &time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| dunning_domain::timestamp::now());
    let cx = ActionContext {
        organization_id: org,
        charge_id,
        version: None,
        actor,
        now: at,
    };
    let text = NoticeText::Given {
        subject: "Autorize o Pix Automático do seu acordo",
        body: &body,
    };
    // Refused (opted out, no contact, the charge no longer open): the code is still in the
    // agreement and its term.
    let _refused = crate::collection::notify(tx, &cx, channel, text, None).await?;
    Ok(())
}

/// Move `automatic` to `status` as the PSP reported it (or as the worker decided): the
/// agreement's new version and the event, once. False when it was there already, or has
/// ended.
pub async fn moved(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    automatic: &AutomaticPix,
    status: AutomaticPixStatus,
    how: &Move<'_>,
    now: &str,
) -> StoreResult<bool> {
    locks::lock(tx, Table::Agreements, org, &automatic.agreement_id).await?;
    if !store::set_status(tx, org, &automatic.id, status, how, now).await? {
        return Ok(false);
    }
    if status.is_final() {
        // Its instalments' debits are canceled at the PSP (or found ended there).
        store::make_open_debits_due(tx, org, &automatic.id, now).await?;
    } else if status == AutomaticPixStatus::Authorized {
        // The instalments already in their lead window are sent at the worker's next look,
        // not at its next sweep.
        store::make_due(tx, org, &automatic.id, false, now).await?;
    }
    after_move(tx, org, actor, &automatic.id, &automatic.agreement_id, now).await?;
    Ok(true)
}

async fn after_move(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    id: &str,
    agreement_id: &str,
    now: &str,
) -> StoreResult<()> {
    agreements::touch(tx, org, agreement_id, now).await?;
    if let Some(automatic) = store::get_in(tx, org, id).await? {
        record(tx, org, actor, &automatic).await?;
    }
    Ok(())
}

/// The event of where `automatic` stands now: `agreement.automatic_pix_<status>`.
async fn record(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    automatic: &AutomaticPix,
) -> StoreResult<()> {
    events::record(
        tx,
        org,
        &format!("agreement.automatic_pix_{}", automatic.status),
        ("agreement", &automatic.agreement_id),
        actor,
        &AgreementAutomaticPixData {
            automatic_pix_id: &automatic.id,
            status: automatic.status.as_str(),
            journey: Some(automatic.journey.as_str()),
            retry_policy: automatic.retry_policy.as_str(),
            rec_id: automatic.rec_id.as_deref(),
            authorized_journey: automatic.authorized_journey.as_deref(),
            ended_by: automatic.ended_by.as_deref(),
            end_code: automatic.end_code.as_deref(),
            end_reason: automatic.end_reason.as_deref(),
        },
    )
    .await
}

/// A recurrence as the PSP reports it (`RecNotification` in a callback, `RecCompleta` from
/// `GET /rec/{idRec}`), read and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecReport {
    pub rec_id: String,
    pub status: AutomaticPixStatus,
    /// `ativacao.tipoJornada`, once the debtor authorized it.
    pub journey: Option<String>,
    /// Who ended it: `payer`, `organization` or `psp`.
    pub ended_by: Option<&'static str>,
    pub end_code: Option<String>,
    pub end_reason: Option<String>,
}

/// BACEN's `idRec`: 29 letters and digits.
pub fn is_rec_id(text: &str) -> bool {
    text.len() == 29 && text.bytes().all(|b| b.is_ascii_alphanumeric())
}

impl RecReport {
    /// Read one recurrence; what is wrong with it, otherwise.
    pub fn read(value: &Value) -> std::result::Result<RecReport, String> {
        let rec_id = value["idRec"]
            .as_str()
            .filter(|id| is_rec_id(id))
            .ok_or("idRec must be 29 letters and digits")?
            .to_string();
        let status = value["status"]
            .as_str()
            .and_then(AutomaticPixStatus::from_bacen)
            .ok_or("status must be one of CRIADA, APROVADA, REJEITADA, EXPIRADA, CANCELADA")?;
        let journey = value["ativacao"]["tipoJornada"]
            .as_str()
            .filter(|j| j.starts_with("JORNADA_"))
            .map(|j| clip(j, 20));
        let ending = &value["encerramento"];
        let (ended_by, detail) = if ending["cancelamento"].is_object() {
            let who = match ending["cancelamento"]["solicitante"].as_str() {
                Some("USUARIO_PAGADOR" | "PSP_PAGADOR") => "payer",
                Some("USUARIO_RECEBEDOR") => "organization",
                _ => "psp",
            };
            (Some(who), &ending["cancelamento"])
        } else if ending["rejeicao"].is_object() {
            (Some("payer"), &ending["rejeicao"])
        } else {
            (None, &Value::Null)
        };
        Ok(RecReport {
            rec_id,
            status,
            journey,
            ended_by,
            end_code: detail["codigo"].as_str().map(|c| clip(c, 4)),
            end_reason: detail["descricao"].as_str().map(|d| clip(d, 400)),
        })
    }
}

/// Apply what the PSP reported of a recurrence to the request it is ours for: whether it
/// moved. A recurrence that is not ours is ignored (false).
pub async fn rec_reported(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    report: &RecReport,
    now: &str,
) -> StoreResult<bool> {
    let Some(automatic) = store::by_rec_id(tx, org, &report.rec_id).await? else {
        return Ok(false);
    };
    if automatic.status == report.status {
        return Ok(false);
    }
    let how = Move {
        authorized_journey: report.journey.as_deref(),
        ended_by: report.ended_by,
        end_code: report.end_code.as_deref(),
        end_reason: report.end_reason.as_deref(),
    };
    moved(tx, org, actor, &automatic, report.status, &how, now).await
}

/// [`rec_reported`] in a transaction of its own, committed: what the callback and the worker
/// run.
pub async fn rec_reported_once(
    db: &Db,
    org: &str,
    actor: &Actor,
    report: &RecReport,
) -> StoreResult<bool> {
    retry::run(|| async move {
        let mut tx = db.begin().await?;
        let moved = rec_reported(&mut tx, org, actor, report, &now_text()).await?;
        tx.commit().await?;
        Ok::<bool, Failure<StoreError>>(moved)
    })
    .await
}

/// A recurring charge as the PSP reports it (`CobRNotification`, `CobRCompleta`), read and
/// checked: where it stands, the Pix it brought, and why its last attempt failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DebitReport {
    pub txid: String,
    pub status: DebitStatus,
    pub pix: Vec<PixItem>,
    pub end_code: Option<String>,
    pub end_reason: Option<String>,
    /// Its last attempt was rejected while the charge stays active: a retry may be asked for
    /// (`PERMITE_3R_7D`), else the debit failed.
    pub last_attempt_rejected: bool,
}

impl DebitReport {
    pub fn read(value: &Value) -> std::result::Result<DebitReport, String> {
        let txid = value["txid"]
            .as_str()
            .filter(|t| {
                (26..=35).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_alphanumeric())
            })
            .ok_or("txid must be 26 to 35 letters and digits")?
            .to_string();
        let status = value["status"]
            .as_str()
            .and_then(DebitStatus::from_bacen)
            .ok_or(
                "status must be one of CRIADA, ATIVA, CONCLUIDA, EXPIRADA, REJEITADA, CANCELADA",
            )?;
        let pix = match &value["pix"] {
            Value::Null => Vec::new(),
            Value::Array(list) => list
                .iter()
                .map(|item| {
                    PixItem::read(item)
                        .map_err(|bad| format!("pix[].{} {}", bad.field, bad.message))
                })
                .collect::<std::result::Result<_, _>>()?,
            _ => return Err("pix must be a list".into()),
        };
        // Why it failed: the charge's own ending, else its last attempt's rejection.
        let ending = &value["encerramento"];
        let last_attempt = value["tentativas"]
            .as_array()
            .and_then(|attempts| attempts.last())
            .unwrap_or(&Value::Null);
        let detail = [
            &ending["rejeicao"],
            &ending["cancelamento"],
            &last_attempt["rejeicao"],
        ]
        .into_iter()
        .find(|d| d.is_object())
        .unwrap_or(&Value::Null);
        Ok(DebitReport {
            txid,
            status,
            pix,
            end_code: detail["codigo"].as_str().map(|c| clip(c, 4)),
            end_reason: detail["descricao"].as_str().map(|d| clip(d, 400)),
            last_attempt_rejected: status == DebitStatus::Scheduled
                && last_attempt["status"] == "REJEITADA",
        })
    }
}

/// Apply what the PSP reported of a recurring charge: its Pix received like any other
/// (`pix_received::receive`: once per `endToEndId`, a payment on the instalment, partial or
/// kept for review by the same rules), and its status. A failed debit falls back to the
/// ordinary way: a notice with the instalment's own Pix code. Whether the debit moved.
pub async fn debit_reported(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    report: &DebitReport,
    source: &'static str,
    now: &str,
) -> Result<bool> {
    let Some(debit) = store::debit_by_txid(tx, org, &report.txid).await? else {
        return Ok(false);
    };
    for pix in &report.pix {
        pix_received::receive(tx, org, pix, source, now).await?;
    }
    if report.last_attempt_rejected {
        // The worker asks for a retry, or ends the debit, at its next look.
        store::make_debit_due(tx, org, &debit.id, now).await?;
    }
    if debit.status == report.status {
        return Ok(false);
    }
    let how = DebitMove {
        end_to_end_id: report.pix.first().map(|p| p.end_to_end_id.as_str()),
        end_code: report.end_code.as_deref(),
        end_reason: report.end_reason.as_deref(),
    };
    if !store::set_debit_status(tx, org, &debit.id, report.status, &how, now).await? {
        return Ok(false);
    }
    events::record(
        tx,
        org,
        &format!("charge.automatic_pix_{}", report.status),
        ("charge", &debit.charge_id),
        actor,
        &ChargeAutomaticPixData {
            automatic_pix_id: &debit.automatic_pix_id,
            txid: &debit.txid,
            due_date: debit.due_date.into(),
            amount: debit.amount_cents,
            end_code: report.end_code.as_deref(),
            end_reason: report.end_reason.as_deref(),
        },
    )
    .await?;
    if report.status == DebitStatus::Failed {
        fall_back(tx, org, actor, &debit.charge_id, now).await?;
    }
    Ok(true)
}

/// [`debit_reported`] in a transaction of its own, committed: what the callback and the
/// worker run. The debit's charge is locked and its row exists, so a refusal is a fault of
/// ours.
pub async fn debit_reported_once(
    db: &Db,
    org: &str,
    actor: &Actor,
    report: &DebitReport,
    source: &'static str,
) -> StoreResult<bool> {
    retry::run(|| async move {
        let mut tx = db.begin().await?;
        let moved = debit_reported(&mut tx, org, actor, report, source, &now_text())
            .await
            .map_err(|failure| match failure {
                Failure::Store(e) => Failure::Store(e),
                Failure::Refused(refused) => Failure::Store(StoreError::Corrupt(format!(
                    "the recurring charge {} could not be recorded: {refused:?}",
                    report.txid
                ))),
            })?;
        tx.commit().await?;
        Ok::<bool, Failure<StoreError>>(moved)
    })
    .await
}

/// A failed debit: the debtor gets a notice with the instalment's own Pix code, by e-mail or
/// else WhatsApp, as the plan's notices go (refused quietly when the charge is not open any
/// more, or the debtor opted out or cannot be reached).
async fn fall_back(
    tx: &mut Connection,
    org: &str,
    actor: &Actor,
    charge_id: &str,
    now: &str,
) -> Result<()> {
    let Some(charge) = charges::get_in(tx, org, charge_id).await? else {
        return Ok(());
    };
    let customer = crate::collection::read_customer(tx, org, &charge.customer_id).await?;
    let channel = if crate::collection::contact(&customer, "email").is_some() {
        "email"
    } else {
        "whatsapp"
    };
    let at = time::OffsetDateTime::parse(now, &time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| dunning_domain::timestamp::now());
    let cx = ActionContext {
        organization_id: org,
        charge_id,
        version: None,
        actor,
        now: at,
    };
    // A refusal (the charge closed, the debtor opted out or has no contact) sends nothing;
    // the failed debit's event says what happened either way.
    let _refused = crate::collection::notify(
        tx,
        &cx,
        channel,
        NoticeText::Compose { template: None },
        None,
    )
    .await?;
    Ok(())
}

/// The fewest and most days before its date that an instalment's recurring charge may be
/// sent to the PSP: the Pix Automático rule (the receiver sends each charge from ten to two
/// days ahead of its date).
pub const LEAD_DAYS: (i64, i64) = (2, 10);

/// The instalments of an authorized recurrence whose date is within the lead window on
/// `today` and that have no debit yet: each gets one, due to be sent now. How many.
pub async fn schedule_debits(
    tx: &mut Connection,
    org: &str,
    automatic: &AutomaticPix,
    today: Date,
    now: &str,
) -> StoreResult<usize> {
    if automatic.status != AutomaticPixStatus::Authorized || automatic.cancel_requested {
        return Ok(0);
    }
    let Some(agreement) = agreements::get_in(tx, org, &automatic.agreement_id).await? else {
        return Ok(0);
    };
    let known: Vec<String> = store::debits_of(tx, org, &automatic.id)
        .await?
        .into_iter()
        .map(|d| d.charge_id)
        .collect();
    let mut scheduled = 0;
    for entry in agreement
        .installments_schedule
        .iter()
        .filter(|e| e.number > 0)
    {
        let Some(charge_id) = &entry.charge_id else {
            continue;
        };
        let ahead = (entry.due_date - today).whole_days();
        if ahead < LEAD_DAYS.0 || ahead > LEAD_DAYS.1 || known.contains(charge_id) {
            continue;
        }
        let Some(charge) = charges::get_in(tx, org, charge_id).await? else {
            continue;
        };
        if !charge.is_open() {
            continue;
        }
        let revision = store::debits_of_charge(tx, org, charge_id).await?;
        let Some(txid) =
            pix_txid::cobr_txid(charge_id, u16::try_from(revision).unwrap_or(u16::MAX))
        else {
            continue;
        };
        let id = ids::new_id("apd");
        let new = NewDebit {
            id: &id,
            automatic_pix_id: &automatic.id,
            charge_id,
            txid: &txid,
            due_date: entry.due_date,
            amount_cents: crate::collection::amount_due_on(&charge, entry.due_date),
        };
        store::insert_debit(tx, org, &new, now).await?;
        scheduled += 1;
    }
    Ok(scheduled)
}

/// `text` cut to at most `max` characters.
fn clip(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}
