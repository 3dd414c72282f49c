//! Collection rules and notice texts, without storage: when a charge may be notified,
//! negativated or protested, and what the debtor reads.
//!
//! The API and the collection engine ask the same questions here, so a plan step obeys exactly
//! the rules of the operation a person would call, and refuses with the same stable code.

use time::Date;

use crate::calendar::Calendar;
use crate::refusals;

use super::charge_math::ChargeState;
use super::money::Cents;

/// Why a collection action is refused: a stable code (the API's problem `code`, the plan's
/// recorded reason) and a sentence for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: &'static str,
    pub detail: String,
}

impl Refusal {
    fn new(code: &'static str, detail: impl Into<String>) -> Refusal {
        Refusal {
            code,
            detail: detail.into(),
        }
    }
}

/// Result of a rule check.
pub type Check = Result<(), Refusal>;

/// Credit bureaus a debt can be reported to.
pub const BUREAUS: &[&str] = &["serasa", "boa_vista", "spc"];

/// Channels a debtor can be reached on.
pub const CHANNELS: &[&str] = &["email", "sms", "whatsapp"];

crate::words! {
    /// Where a charge's report to a credit bureau (negativação) stands: asked for, in force,
    /// its removal asked for, removed.
    pub enum NegativationStatus {
        None = "none",
        Requested = "requested",
        Active = "active",
        RemovalRequested = "removal_requested",
        Removed = "removed",
    }
}

crate::words! {
    /// Where a charge's notary protest (protesto) stands: asked for, done, its cancellation
    /// asked for, canceled.
    pub enum ProtestStatus {
        None = "none",
        Requested = "requested",
        Protested = "protested",
        CancelRequested = "cancel_requested",
        Canceled = "canceled",
    }
}

/// What the rules need to know about a charge, as stored.
#[derive(Debug, Clone)]
pub struct ChargeFacts<'a> {
    pub id: &'a str,
    pub state: ChargeState,
    /// The effective due date: the due date, or the next business day when it is none. A
    /// charge is overdue only after it.
    pub due_date: Date,
    pub in_dispute: bool,
    pub negativation_status: NegativationStatus,
    pub protest_status: ProtestStatus,
}

impl ChargeFacts<'_> {
    fn require_open(&self) -> Check {
        if self.state == ChargeState::Open {
            Ok(())
        } else {
            Err(Refusal::new(
                refusals::CHARGE_NOT_OPEN,
                format!(
                    "Charge {} is {}; only pending or overdue charges can be collected",
                    self.id,
                    state_label(self.state)
                ),
            ))
        }
    }

    fn require_overdue(&self, today: Date) -> Check {
        self.require_open()?;
        if self.due_date < today {
            Ok(())
        } else {
            Err(Refusal::new(
                refusals::CHARGE_NOT_OVERDUE,
                format!(
                    "Charge {} is not overdue yet (payable without fine until {}); wait until after that day",
                    self.id, self.due_date
                ),
            ))
        }
    }

    fn require_no_dispute(&self) -> Check {
        if self.in_dispute {
            Err(Refusal::new(
                refusals::CHARGE_IN_DISPUTE,
                format!(
                    "Charge {} has an open dispute, which pauses its collection; resolve the dispute first",
                    self.id
                ),
            ))
        } else {
            Ok(())
        }
    }

    /// A negativation is requested, active, or being removed.
    fn negativation_in_force(&self) -> bool {
        match self.negativation_status {
            NegativationStatus::Requested
            | NegativationStatus::Active
            | NegativationStatus::RemovalRequested => true,
            NegativationStatus::None | NegativationStatus::Removed => false,
        }
    }

    /// A protest is requested, done, or being canceled.
    fn protest_in_force(&self) -> bool {
        match self.protest_status {
            ProtestStatus::Requested
            | ProtestStatus::Protested
            | ProtestStatus::CancelRequested => true,
            ProtestStatus::None | ProtestStatus::Canceled => false,
        }
    }
}

fn state_label(state: ChargeState) -> &'static str {
    match state {
        ChargeState::InAgreement => "in an agreement",
        other => other.as_str(),
    }
}

/// A notice can go to the debtor of an open charge that is not in dispute, on a channel the
/// customer did not opt out of and has a contact for.
pub fn can_notify(
    charge: &ChargeFacts<'_>,
    channel: &str,
    opt_outs: &[String],
    contact: Option<&str>,
) -> Check {
    charge.require_open()?;
    charge.require_no_dispute()?;
    if opt_outs.iter().any(|c| c == channel) {
        return Err(Refusal::new(
            refusals::CUSTOMER_OPTED_OUT,
            format!("The customer opted out of {channel} messages"),
        ));
    }
    if contact.is_none_or(str::is_empty) {
        let what = if channel == "email" {
            "an e-mail address"
        } else {
            "a phone number"
        };
        return Err(Refusal::new(
            refusals::CUSTOMER_CONTACT_MISSING,
            format!("The customer has no {what} for {channel}; add it with customers_update"),
        ));
    }
    Ok(())
}

/// Negativation: overdue, no dispute, no negativation in force, no protest in force (they
/// are exclusive), and a notice delivered to the debtor at least `notice_days` before.
/// `notice_sent_on` is the date the oldest delivered notice was sent, if any.
pub fn can_negativate(
    charge: &ChargeFacts<'_>,
    today: Date,
    notice_days: i64,
    notice_sent_on: Option<Date>,
) -> Check {
    charge.require_overdue(today)?;
    charge.require_no_dispute()?;
    if charge.negativation_in_force() {
        return Err(Refusal::new(
            refusals::NEGATIVATION_ALREADY_REQUESTED,
            format!(
                "Charge {} already has a negativation ({})",
                charge.id, charge.negativation_status
            ),
        ));
    }
    if charge.protest_in_force() {
        return Err(Refusal::new(
            refusals::PROTEST_ACTIVE,
            format!(
                "Charge {} has a protest ({}); negativation and protest are exclusive: cancel the protest first",
                charge.id, charge.protest_status
            ),
        ));
    }
    let old_enough = notice_sent_on.is_some_and(|sent| (today - sent).whole_days() >= notice_days);
    if !old_enough {
        return Err(Refusal::new(
            refusals::NEGATIVATION_NOTICE_MISSING,
            format!(
                "A negativation needs a notice delivered to the debtor at least {notice_days} days before; send one with charges_notify"
            ),
        ));
    }
    Ok(())
}

/// Protest: overdue, no dispute, no protest in force, no negativation in force.
pub fn can_protest(charge: &ChargeFacts<'_>, today: Date) -> Check {
    charge.require_overdue(today)?;
    charge.require_no_dispute()?;
    if charge.protest_in_force() {
        return Err(Refusal::new(
            refusals::PROTEST_ALREADY_REQUESTED,
            format!(
                "Charge {} already has a protest ({})",
                charge.id, charge.protest_status
            ),
        ));
    }
    if charge.negativation_in_force() {
        return Err(Refusal::new(
            refusals::NEGATIVATION_ACTIVE,
            format!(
                "Charge {} has a negativation ({}); negativation and protest are exclusive: remove it first",
                charge.id, charge.negativation_status
            ),
        ));
    }
    Ok(())
}

/// Removal needs a negativation requested or active.
pub fn can_remove_negativation(charge: &ChargeFacts<'_>) -> Check {
    if matches!(
        charge.negativation_status,
        NegativationStatus::Requested | NegativationStatus::Active
    ) {
        Ok(())
    } else {
        Err(Refusal::new(
            refusals::NEGATIVATION_NOT_ACTIVE,
            format!(
                "Charge {} has no negativation to remove ({})",
                charge.id, charge.negativation_status
            ),
        ))
    }
}

/// Cancellation needs a protest requested or done.
pub fn can_cancel_protest(charge: &ChargeFacts<'_>) -> Check {
    if matches!(
        charge.protest_status,
        ProtestStatus::Requested | ProtestStatus::Protested
    ) {
        Ok(())
    } else {
        Err(Refusal::new(
            refusals::PROTEST_NOT_ACTIVE,
            format!(
                "Charge {} has no protest to cancel ({})",
                charge.id, charge.protest_status
            ),
        ))
    }
}

/// The values a notice can mention.
#[derive(Debug, Clone)]
pub struct NoticeValues<'a> {
    pub customer_name: &'a str,
    pub organization_name: &'a str,
    pub description: &'a str,
    pub amount_due: Cents,
    pub due_date: Date,
    /// The day by the end of which it is paid without fine or interest: `due_date`, or the
    /// next business day when that is none.
    pub effective_due_date: Date,
    /// The day the notice is written, to choose the standard text.
    pub today: Date,
    /// The charge's Pix code ("Pix copia e cola") for `amount_due`, when the creditor has Pix.
    pub pix_code: Option<&'a str>,
}

/// A notice ready to send: the e-mail subject (e-mail only) and the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub subject: Option<String>,
    pub body: String,
}

crate::words! {
    /// How a plan step counts its `offset_days`.
    pub enum DayCount {
        /// Calendar days.
        Calendar = "calendar",
        /// Business days of the organization's calendar.
        Business = "business",
    }
}

/// The day a plan step `offset` days from the due date runs for a charge due on `due_date`.
/// Counting calendar days, a step after the due date counts from the effective due date (a
/// charge due on a Saturday is not late on the Sunday, so "1 day after due" is the Tuesday),
/// one on or before it from the due date itself; counting business days, both count from
/// the effective due date, over business days only.
pub fn step_day(calendar: &Calendar, due_date: Date, offset: i64, count: DayCount) -> Date {
    let effective = calendar.effective_due_date(due_date);
    match count {
        DayCount::Calendar if offset > 0 => effective.saturating_add(time::Duration::days(offset)),
        DayCount::Calendar => due_date.saturating_add(time::Duration::days(offset)),
        DayCount::Business => calendar.add_business_days(effective, offset),
    }
}

/// `dd/mm/aaaa`.
pub fn date_br(date: Date) -> String {
    format!(
        "{:02}/{:02}/{:04}",
        date.day(),
        u8::from(date.month()),
        date.year()
    )
}

/// Fill the placeholders of `template`. `{{charge.amount_due}}` becomes `R$ 1.234,56`, or
/// only `1.234,56` where the text already writes `R$` before it; `{{charge.pix_code}}` the
/// Pix code (nothing without one); unknown placeholders stay.
pub fn render(template: &str, v: &NoticeValues<'_>) -> String {
    let amount = v.amount_due.to_brl();
    let number = amount.trim_start_matches("R$ ").to_string();
    let mut out = String::with_capacity(template.len() + 64);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let Some(len) = rest[start..].find("}}") else {
            break;
        };
        let name = rest[start + 2..start + len].trim();
        let before = &rest[..start];
        let value = match name {
            "customer.name" => Some(v.customer_name.to_string()),
            "organization.name" => Some(v.organization_name.to_string()),
            "charge.description" => Some(v.description.to_string()),
            "charge.due_date" => Some(date_br(v.due_date)),
            "charge.amount_due" if before.trim_end().ends_with("R$") => Some(number.clone()),
            "charge.amount_due" => Some(amount.clone()),
            PIX_PLACEHOLDER => Some(v.pix_code.unwrap_or_default().to_string()),
            _ => None,
        };
        out.push_str(before);
        match value {
            Some(value) => out.push_str(&value),
            None => out.push_str(&rest[start..start + len + 2]),
        }
        rest = &rest[start + len + 2..];
    }
    out.push_str(rest);
    out
}

/// The placeholder of the Pix code in a template.
const PIX_PLACEHOLDER: &str = "charge.pix_code";

/// The standard notice for the charge's situation on `today`: a reminder before the due
/// date, a notice on the day, a collection notice after it. SMS and WhatsApp get the short
/// form; e-mail the long one with a subject. With a Pix code, both end their message with
/// it ([`pix_text`]).
pub fn standard_notice(channel: &str, v: &NoticeValues<'_>) -> Notice {
    let amount = v.amount_due.to_brl();
    let due = date_br(v.due_date);
    // A due date on a weekend or holiday is payable, as it is, through the next business
    // day: the notices say so, and none calls the charge late before that day has ended.
    let moved = (v.effective_due_date != v.due_date).then(|| date_br(v.effective_due_date));
    let until = moved.as_ref().map_or(String::new(), |day| {
        format!(" Por cair em dia não útil, pode ser paga sem multa ou juros até {day}.")
    });
    let (subject, short, situation) = if v.today < v.due_date {
        (
            format!("Lembrete de vencimento: {}", v.description),
            format!(
                "{}: lembrete. \"{}\" de {amount} vence em {due}. Se já pagou, desconsidere.",
                v.organization_name, v.description
            ),
            format!(
                "Lembramos que a cobrança \"{}\", no valor de {amount}, vence em {due}.{until}",
                v.description
            ),
        )
    } else if v.today == v.due_date && moved.is_none() {
        (
            format!("Vence hoje: {}", v.description),
            format!(
                "{}: \"{}\" de {amount} vence hoje ({due}). Se já pagou, desconsidere.",
                v.organization_name, v.description
            ),
            format!(
                "A cobrança \"{}\", no valor de {amount}, vence hoje, {due}.",
                v.description
            ),
        )
    } else if let Some(until_day) = moved.as_ref().filter(|_| v.today <= v.effective_due_date) {
        (
            format!("Pague sem encargos até {until_day}: {}", v.description),
            format!(
                "{}: \"{}\" de {amount} venceu em {due}, dia não útil: pague sem multa ou juros até {until_day}. Se já pagou, desconsidere.",
                v.organization_name, v.description
            ),
            format!(
                "A cobrança \"{}\", no valor de {amount}, venceu em {due}, dia não útil, e pode ser paga sem multa ou juros até {until_day}.",
                v.description
            ),
        )
    } else {
        (
            format!("Cobrança vencida: {}", v.description),
            format!(
                "{}: \"{}\" venceu em {due}. Valor atualizado: {amount}. Regularize ou fale conosco para negociar.",
                v.organization_name, v.description
            ),
            format!(
                "Não identificamos o pagamento da cobrança \"{}\", vencida em {due}. \
                 O valor atualizado, com multa e juros, é de {amount}.\n\n\
                 Regularize o pagamento ou entre em contato conosco para negociar.",
                v.description
            ),
        )
    };
    let pix = pix_text(channel, v).map_or(String::new(), |text| format!("\n\n{text}"));
    if channel == "email" {
        Notice {
            subject: Some(subject),
            body: format!(
                "Olá, {}.\n\n{situation}{pix}\n\n\
                 Se o pagamento já foi feito, por favor desconsidere esta mensagem.\n\nAtenciosamente,\n{}",
                v.customer_name, v.organization_name
            ),
        }
    } else {
        Notice {
            subject: None,
            body: format!("{short}{pix}"),
        }
    }
}

/// How a notice offers the Pix code: in an e-mail, a sentence and then the code alone in its
/// own paragraph (which the HTML part sets apart, easy to select); in an SMS or WhatsApp
/// message, one line. `None` without a code.
pub fn pix_text(channel: &str, v: &NoticeValues<'_>) -> Option<String> {
    let code = v.pix_code?;
    let amount = v.amount_due.to_brl();
    Some(if channel == "email" {
        format!(
            "Pague com Pix: copie o código abaixo e cole no aplicativo do seu banco, na opção \
             Pix Copia e Cola. O código já traz o valor, {amount}.\n\n{code}"
        )
    } else {
        format!("Pix Copia e Cola ({amount}): {code}")
    })
}

/// The notice for a channel: the template filled in when there is one, else the standard
/// text. E-mails keep the standard subject. A template that does not place the Pix code
/// (`{{charge.pix_code}}`) gets it at its end, so that every notice can be paid.
pub fn notice(channel: &str, template: Option<&str>, v: &NoticeValues<'_>) -> Notice {
    let standard = standard_notice(channel, v);
    match template {
        Some(t) => {
            let mut body = render(t, v);
            if !places_pix(t)
                && let Some(pix) = pix_text(channel, v)
            {
                body = format!("{}\n\n{pix}", body.trim_end());
            }
            Notice {
                subject: standard.subject,
                body,
            }
        }
        None => standard,
    }
}

/// Whether a template writes `{{charge.pix_code}}` (spaces inside the braces allowed).
fn places_pix(template: &str) -> bool {
    template.split("{{").skip(1).any(|rest| {
        rest.split_once("}}")
            .is_some_and(|(name, _)| name.trim() == PIX_PLACEHOLDER)
    })
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;

    fn facts(state: ChargeState, due: Date) -> ChargeFacts<'static> {
        ChargeFacts {
            id: "chg_x",
            state,
            due_date: due,
            in_dispute: false,
            negativation_status: NegativationStatus::None,
            protest_status: ProtestStatus::None,
        }
    }

    fn values() -> NoticeValues<'static> {
        NoticeValues {
            customer_name: "Conceição Araújo",
            organization_name: "Padaria Pão Dourado Ltda",
            description: "Mensalidade de março",
            amount_due: Cents(1_234_56),
            due_date: date!(2026 - 03 - 10),
            effective_due_date: date!(2026 - 03 - 10),
            today: date!(2026 - 03 - 20),
            pix_code: None,
        }
    }

    #[test]
    fn a_step_after_the_due_date_counts_from_the_effective_due_date() {
        let national = Calendar::national();
        let saturday = date!(2026 - 12 - 05);
        let calendar = |offset| step_day(&national, saturday, offset, DayCount::Calendar);
        assert_eq!(
            calendar(1),
            date!(2026 - 12 - 08),
            "1 day after Monday the 7th"
        );
        assert_eq!(calendar(0), saturday);
        assert_eq!(calendar(-3), date!(2026 - 12 - 02));
        let business = |offset| step_day(&national, saturday, offset, DayCount::Business);
        assert_eq!(business(3), date!(2026 - 12 - 10));
        assert_eq!(business(0), date!(2026 - 12 - 07));
        assert_eq!(business(-3), date!(2026 - 12 - 02));
        // Over Christmas: due Thursday 24 December 2026, 1 business day later is Monday 28.
        assert_eq!(
            step_day(&national, date!(2026 - 12 - 24), 1, DayCount::Business),
            date!(2026 - 12 - 28)
        );
    }

    #[test]
    fn a_charge_due_on_a_day_off_is_not_called_late_before_the_next_business_day() {
        // Due Saturday 5 December 2026, payable as it is through Monday the 7th.
        let v = NoticeValues {
            due_date: date!(2026 - 12 - 05),
            effective_due_date: date!(2026 - 12 - 07),
            ..values()
        };
        let before = standard_notice(
            "email",
            &NoticeValues {
                today: date!(2026 - 12 - 01),
                ..v
            },
        );
        assert!(before.body.contains("vence em 05/12/2026. Por cair em dia não útil, pode ser paga sem multa ou juros até 07/12/2026."), "{}", before.body);
        for today in [
            date!(2026 - 12 - 05),
            date!(2026 - 12 - 06),
            date!(2026 - 12 - 07),
        ] {
            let on = standard_notice("sms", &NoticeValues { today, ..v });
            assert!(
                on.body.contains("pague sem multa ou juros até 07/12/2026"),
                "{today}: {}",
                on.body
            );
            assert!(
                !on.body.contains("Valor atualizado"),
                "{today}: {}",
                on.body
            );
        }
        let late = standard_notice(
            "sms",
            &NoticeValues {
                today: date!(2026 - 12 - 08),
                ..v
            },
        );
        assert!(
            late.body.contains("venceu em 05/12/2026. Valor atualizado"),
            "{}",
            late.body
        );
    }

    const CODE: &str = "00020101021226360014br.gov.bcb.pix0114112223330001815204000053039865407 1234.565802BR5913Padaria Pao D6009Sao Paulo62230519chgk3j9x0a2b7c4d1e86304ABCD";

    #[test]
    fn with_pix_every_notice_ends_with_the_code_and_its_amount() {
        let v = NoticeValues {
            pix_code: Some(CODE),
            ..values()
        };
        let email = standard_notice("email", &v).body;
        assert!(
            email.contains(&format!(
                "na opção Pix Copia e Cola. O código já traz o valor, R$ 1.234,56.\n\n{CODE}\n\nSe o pagamento"
            )),
            "{email}"
        );
        let sms = standard_notice("sms", &v).body;
        assert!(
            sms.ends_with(&format!(
                "negociar.\n\nPix Copia e Cola (R$ 1.234,56): {CODE}"
            )),
            "{sms}"
        );
        // A template gets the code at its end, or where it places it.
        let appended = notice("whatsapp", Some("Olá {{customer.name}}.\n"), &v).body;
        assert_eq!(
            appended,
            format!("Olá Conceição Araújo.\n\nPix Copia e Cola (R$ 1.234,56): {CODE}")
        );
        let placed = notice("sms", Some("Pague: {{ charge.pix_code }} hoje"), &v).body;
        assert_eq!(placed, format!("Pague: {CODE} hoje"));
        // Without Pix, nothing is added and the placeholder is empty.
        let plain = notice("sms", Some("Pague: {{charge.pix_code}}"), &values()).body;
        assert_eq!(plain, "Pague: ");
        assert!(!standard_notice("email", &values()).body.contains("Pix"));
    }

    #[test]
    fn placeholders_are_filled_with_brazilian_formats() {
        let text = render(
            "{{customer.name}}: {{charge.description}} {{charge.amount_due}} em {{ charge.due_date }} — {{organization.name}} {{unknown}}",
            &values(),
        );
        assert_eq!(
            text,
            "Conceição Araújo: Mensalidade de março R$ 1.234,56 em 10/03/2026 — Padaria Pão Dourado Ltda {{unknown}}"
        );
    }

    #[test]
    fn an_amount_after_a_written_currency_sign_is_not_signed_twice() {
        assert_eq!(
            render("de R$ {{charge.amount_due}}", &values()),
            "de R$ 1.234,56"
        );
    }

    #[test]
    fn the_standard_text_follows_the_situation() {
        let mut v = values();
        assert!(
            standard_notice("email", &v)
                .body
                .contains("vencida em 10/03/2026")
        );
        v.today = date!(2026 - 03 - 10);
        assert!(standard_notice("sms", &v).body.contains("vence hoje"));
        v.today = date!(2026 - 03 - 01);
        let n = standard_notice("email", &v);
        assert!(n.subject.unwrap().starts_with("Lembrete"));
        assert!(n.body.contains("R$ 1.234,56"));
    }

    #[test]
    fn negativation_rules_in_order() {
        let today = date!(2026 - 04 - 01);
        let due = date!(2026 - 03 - 01);
        let sent = Some(date!(2026 - 03 - 20));
        assert_eq!(
            can_negativate(&facts(ChargeState::Paid, due), today, 10, sent)
                .unwrap_err()
                .code,
            refusals::CHARGE_NOT_OPEN
        );
        assert_eq!(
            can_negativate(&facts(ChargeState::Open, today), today, 10, sent)
                .unwrap_err()
                .code,
            refusals::CHARGE_NOT_OVERDUE
        );
        let mut f = facts(ChargeState::Open, due);
        f.in_dispute = true;
        assert_eq!(
            can_negativate(&f, today, 10, sent).unwrap_err().code,
            refusals::CHARGE_IN_DISPUTE
        );
        f.in_dispute = false;
        f.protest_status = ProtestStatus::Requested;
        assert_eq!(
            can_negativate(&f, today, 10, sent).unwrap_err().code,
            refusals::PROTEST_ACTIVE
        );
        f.protest_status = ProtestStatus::Canceled;
        assert_eq!(
            can_negativate(&f, today, 10, Some(date!(2026 - 03 - 25)))
                .unwrap_err()
                .code,
            refusals::NEGATIVATION_NOTICE_MISSING
        );
        assert_eq!(
            can_negativate(&f, today, 10, None).unwrap_err().code,
            refusals::NEGATIVATION_NOTICE_MISSING
        );
        assert!(can_negativate(&f, today, 10, sent).is_ok());
        f.negativation_status = NegativationStatus::Active;
        assert_eq!(
            can_negativate(&f, today, 10, sent).unwrap_err().code,
            refusals::NEGATIVATION_ALREADY_REQUESTED
        );
        assert_eq!(
            can_protest(&f, today).unwrap_err().code,
            refusals::NEGATIVATION_ACTIVE
        );
    }

    #[test]
    fn notices_respect_opt_outs_and_contacts() {
        let f = facts(ChargeState::Open, date!(2026 - 03 - 01));
        let opt = vec!["sms".to_string()];
        assert_eq!(
            can_notify(&f, "sms", &opt, Some("+5511999999999"))
                .unwrap_err()
                .code,
            refusals::CUSTOMER_OPTED_OUT
        );
        assert_eq!(
            can_notify(&f, "email", &opt, None).unwrap_err().code,
            refusals::CUSTOMER_CONTACT_MISSING
        );
        assert!(can_notify(&f, "email", &opt, Some("a@b.c")).is_ok());
    }
}
