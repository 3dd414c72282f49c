//! The PDF documents a creditor sends a debtor: the statement of what they owe ("Extrato de
//! débitos"), the letter confirming a charge was paid in full ("Carta de quitação") and the
//! term of a renegotiation ("Termo de acordo e confissão de dívida").
//!
//! Each document is a pure function from a plain input struct to PDF bytes. The inputs own
//! their data and know nothing of the store, so the API layer decides what goes in (amounts
//! due today, the moment of issue in São Paulo time) and these functions only lay it out in
//! Portuguese, with Brazilian formatting for money, dates and CPF/CNPJ. When the creditor
//! has Pix, the statement and the term carry the code of each charge to pay, as a QR code
//! and as "Pix copia e cola". [`pdf`] holds the page layout and PDF writing they share.

pub mod pdf;

use time::{Date, Month, OffsetDateTime};

pub use crate::charge_math::ChargeStatus;
use crate::document::format_document;
use crate::money::Cents;
use crate::pix::qr::QrCode;
use pdf::{Align, Column, Document};

/// The creditor issuing the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issuer {
    /// Legal or trade name, e.g. "Kobana Cobranças Ltda.".
    pub name: String,
    /// CNPJ (or CPF) as stored: digits, and uppercase letters for an alphanumeric CNPJ.
    pub document: String,
    /// Where debtors can write about the debt.
    pub email: Option<String>,
    /// Where debtors can call about the debt, formatted as it should be shown.
    pub phone: Option<String>,
}

/// The person or company the document is addressed to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Debtor {
    /// Full name or company name.
    pub name: String,
    /// CPF or CNPJ as stored: digits, and uppercase letters for an alphanumeric CNPJ.
    pub document: String,
    /// Postal address, one line per entry; may be empty.
    pub address_lines: Vec<String>,
    /// E-mail address, if known.
    pub email: Option<String>,
}

/// One charge on a statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatementCharge {
    /// What the charge is for, e.g. "Mensalidade outubro/2026".
    pub description: String,
    /// Due date ("vencimento").
    pub due_date: Date,
    /// Amount originally charged.
    pub original: Cents,
    /// Amount paid so far.
    pub paid: Cents,
    /// Amount due on the statement's date, with fine and interest, less payments.
    pub amount_due: Cents,
    /// Where the charge stands.
    pub status: ChargeStatus,
}

/// The Pix code that pays one charge, as a document prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixPayment {
    /// What it pays, e.g. "Mensalidade outubro/2026" or "Entrada do acordo".
    pub description: String,
    /// The charge's due date.
    pub due_date: Date,
    /// The amount the code carries: what is due on the document's date.
    pub amount: Cents,
    /// The BR Code ("Pix copia e cola").
    pub payload: String,
}

/// Everything an "Extrato de débitos" shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatementInput {
    /// The creditor.
    pub issuer: Issuer,
    /// The debtor the statement is for.
    pub debtor: Debtor,
    /// The debtor's charges, in the order they should be listed.
    pub charges: Vec<StatementCharge>,
    /// When the statement is issued, in the offset its dates should be read in (São Paulo's
    /// for Brazilian debtors); also the PDF's creation date.
    pub issued_at: OffsetDateTime,
    /// How to pay, replacing the standard paragraph when the creditor has its own words.
    pub payment_instructions: Option<String>,
    /// The Pix code of each open charge, in the order they should be shown; empty when the
    /// creditor has no Pix key.
    pub pix: Vec<PixPayment>,
}

/// Everything a "Carta de quitação" states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DischargeInput {
    /// The creditor declaring the payment.
    pub issuer: Issuer,
    /// The debtor who paid.
    pub debtor: Debtor,
    /// What the charge was for.
    pub description: String,
    /// Amount originally charged.
    pub original: Cents,
    /// Amount received in total, with fine and interest if any.
    pub paid: Cents,
    /// Due date of the charge.
    pub due_date: Date,
    /// Date the payment settled the charge.
    pub paid_on: Date,
    /// City the letter is dated from, e.g. "São Paulo".
    pub place: String,
    /// When the letter is issued (its date line and the PDF's creation date).
    pub issued_at: OffsetDateTime,
}

/// The "Extrato de débitos": who issues it and for whom, every charge with its amount due
/// today and status, the total still open, and how to pay.
pub fn debtor_statement(input: &StatementInput) -> Vec<u8> {
    let title = format!("Extrato de débitos — {}", input.debtor.name);
    let mut doc = Document::new(&title, input.issued_at);
    letterhead(&mut doc, &input.issuer);
    doc.title("Extrato de débitos");
    let issued = date_br(crate::calendar::day_of(input.issued_at));
    doc.key_values(&[("Data de emissão", &issued)]);

    doc.heading("Devedor");
    debtor_block(&mut doc, &input.debtor);

    doc.heading("Cobranças");
    if input.charges.is_empty() {
        doc.paragraph("Não há cobranças registradas para este devedor.");
    } else {
        doc.table(&statement_columns(), &statement_rows(&input.charges));
    }
    let open = total_open(&input.charges).to_brl();
    doc.totals(&[("Total em aberto", &open)]);
    doc.note(&format!(
        "Valores atualizados até {issued}, com multa e juros de mora quando aplicáveis. \
         Pagamentos feitos nos últimos dias úteis podem ainda não constar deste extrato."
    ));

    doc.heading("Como pagar");
    let standard = if input.pix.is_empty() {
        "Para quitar os débitos em aberto, utilize as instruções de pagamento enviadas a \
         você. Se precisar de segunda via ou quiser negociar as condições de pagamento, \
         entre em contato conosco."
    } else {
        "Para quitar os débitos em aberto, utilize o código Pix de cada cobrança, abaixo; os \
         avisos de cobrança também trazem um. Se quiser negociar as condições de pagamento, \
         entre em contato conosco."
    };
    doc.paragraph(input.payment_instructions.as_deref().unwrap_or(standard));
    for payment in &input.pix {
        pix_block(&mut doc, payment, crate::calendar::day_of(input.issued_at));
    }
    doc.paragraph(&contact_sentence(&input.issuer));
    doc.finish()
}

/// Side of a printed QR code, quiet zone included: about 4.5 cm, so that a module of the
/// largest code a Pix key makes (an e-mail key: version 11, 69 modules with the zone) is
/// 0.65 mm, which a phone reads from paper at arm's length.
const QR_SIDE: f32 = 128.0;
/// What a heading and a line of text below it take, with the gaps around them.
const HEADING_ROOM: f32 = 60.0;

/// One charge's Pix: its QR code with what it pays beside it, then the code to copy. An
/// overdue charge's amount is today's (fine and interest grow daily); a pending one's holds
/// until the due date.
fn pix_block(doc: &mut Document, payment: &PixPayment, on: Date) {
    let Some(qr) = QrCode::encode(&payment.payload) else {
        return;
    };
    let due = date_br(payment.due_date);
    let amount = format!("Valor: {}", payment.amount.to_brl());
    let validity = if payment.due_date < on {
        format!(
            "Vencida em {due}. Valor atualizado até {}, com multa e juros; depois dessa data, \
             peça um novo código.",
            date_br(on)
        )
    } else {
        format!("Vence em {due}. Valor para pagamento até o vencimento.")
    };
    doc.qr_code(
        &qr,
        QR_SIDE,
        &payment.description,
        &[
            &amount,
            &validity,
            "Leia o QR Code no aplicativo do seu banco ou use o código Pix copia e cola abaixo.",
        ],
    );
    doc.code(&payment.payload);
    doc.spacer();
}

/// Pix Automático's authorization: what it does, its QR and its copy-and-paste code.
fn automatic_pix_block(doc: &mut Document, automatic: &AutomaticPixCode) {
    let Some(qr) = QrCode::encode(&automatic.payload) else {
        return;
    };
    doc.keep_together(HEADING_ROOM + QR_SIDE);
    doc.heading("Pix Automático");
    doc.paragraph(
        "Com o Pix Automático, as parcelas do acordo são debitadas da conta do(a) DEVEDOR(A) \
         nas datas indicadas, sem precisar pagar uma a uma. A autorização é dada uma única vez \
         no aplicativo do banco e pode ser cancelada a qualquer momento por ele.",
    );
    let what = if automatic.with_down_payment {
        "Este código paga a entrada e autoriza o débito das parcelas."
    } else {
        "Este código autoriza o débito das parcelas."
    };
    doc.qr_code(
        &qr,
        QR_SIDE,
        "Autorização do Pix Automático",
        &[
            what,
            "Leia o QR Code no aplicativo do seu banco ou use o código Pix copia e cola abaixo.",
        ],
    );
    doc.code(&automatic.payload);
    doc.spacer();
}

/// The "Carta de quitação": the creditor declares that the debtor paid one charge in full,
/// dated from a place and signed with the creditor's name.
pub fn discharge_letter(input: &DischargeInput) -> Vec<u8> {
    let title = format!("Carta de quitação — {}", input.debtor.name);
    let mut doc = Document::new(&title, input.issued_at);
    letterhead(&mut doc, &input.issuer);
    doc.title("Carta de quitação");
    doc.spacer();
    doc.paragraph(&format!(
        "{}, {}, declara, para os devidos fins, que {}, {}, efetuou o pagamento integral \
         do débito abaixo identificado.",
        input.issuer.name,
        registration(&input.issuer.document),
        input.debtor.name,
        registration(&input.debtor.document),
    ));
    let original = input.original.to_brl();
    let paid = input.paid.to_brl();
    let due = date_br(input.due_date);
    let paid_on = date_br(input.paid_on);
    doc.key_values(&[
        ("Descrição", &input.description),
        ("Vencimento", &due),
        ("Valor original", &original),
        ("Valor pago", &paid),
        ("Data do pagamento", &paid_on),
    ]);
    doc.paragraph(
        "Com o recebimento desse valor, damos plena, geral e irrevogável quitação do débito \
         acima, nada mais havendo a reclamar a esse título. Esta declaração refere-se \
         exclusivamente a esse débito e não abrange outras obrigações eventualmente \
         existentes.",
    );
    doc.spacer();
    let place_date = format!(
        "{}, {}.",
        input.place,
        date_long_br(crate::calendar::day_of(input.issued_at))
    );
    doc.paragraph(&place_date);
    let issuer_document = format!(
        "{} {}",
        document_kind(&input.issuer.document),
        format_document(&input.issuer.document)
    );
    doc.signature(&[&input.issuer.name, &issuer_document]);
    doc.finish()
}

/// One original charge renegotiated by an agreement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermCharge {
    /// What the charge was for.
    pub description: String,
    /// Its due date.
    pub due_date: Date,
    /// Amount originally charged.
    pub original: Cents,
    /// What it owed when the agreement was proposed (fine and interest included, payments
    /// deducted).
    pub amount_due: Cents,
}

/// One payment of an agreement's schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TermPayment {
    /// 0 for the down payment ("entrada"), 1..n for the instalments.
    pub number: i64,
    /// Due date.
    pub due_date: Date,
    /// Amount.
    pub amount: Cents,
}

/// Everything a "Termo de acordo e confissão de dívida" states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgreementTermInput {
    /// The creditor.
    pub issuer: Issuer,
    /// The debtor who confesses the debt and agrees to pay it.
    pub debtor: Debtor,
    /// The agreement's id, quoted as its reference.
    pub reference: String,
    /// Where the agreement stands, in Portuguese (e.g. "proposta, aguardando aceite").
    pub situation: String,
    /// The day the agreement was proposed, when the amounts due were computed.
    pub proposed_on: Date,
    /// The original charges, in the agreement's order.
    pub charges: Vec<TermCharge>,
    /// Discount on the amount due, in basis points (1 000 = 10 %).
    pub discount_bp: i64,
    /// The amount agreed: amounts due less the discount.
    pub total: Cents,
    /// The schedule: the down payment (number 0) first when there is one.
    pub payments: Vec<TermPayment>,
    /// Days an instalment may stay unpaid before the agreement is broken.
    pub break_after_days: i64,
    /// City the term is dated from.
    pub place: String,
    /// When the term is issued (its date line and the PDF's creation date).
    pub issued_at: OffsetDateTime,
    /// The Pix code of the next payment of the schedule still open, when the agreement has
    /// been accepted and the creditor has a Pix key.
    pub pix: Option<PixPayment>,
    /// The code that authorizes Pix Automático for the instalments, while it waits for the
    /// debtor.
    pub automatic_pix: Option<AutomaticPixCode>,
}

/// The code a debtor reads to authorize Pix Automático (BACEN's recurrence QR).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutomaticPixCode {
    /// The BR Code ("Pix copia e cola").
    pub payload: String,
    /// Whether the same code pays the down payment too.
    pub with_down_payment: bool,
}

/// The "Termo de acordo e confissão de dívida": the debtor acknowledges the charges and what
/// they owed, the creditor grants the discount and the schedule, the clauses say what
/// happens if an instalment goes unpaid; dated, with lines for both parties and two
/// witnesses (which makes the confession an enforceable instrument, CPC art. 784, III).
pub fn agreement_term(input: &AgreementTermInput) -> Vec<u8> {
    let title = format!("Termo de acordo — {}", input.debtor.name);
    let mut doc = Document::new(&title, input.issued_at);
    letterhead(&mut doc, &input.issuer);
    doc.title("Termo de acordo e confissão de dívida");
    let proposed = date_br(input.proposed_on);
    doc.key_values(&[
        ("Acordo", &input.reference),
        ("Situação", &input.situation),
        ("Data da proposta", &proposed),
    ]);

    doc.heading("Partes");
    doc.paragraph(&format!(
        "CREDORA: {}, {}.",
        input.issuer.name,
        registration(&input.issuer.document)
    ));
    doc.paragraph(&format!(
        "DEVEDOR(A): {}, {}.",
        input.debtor.name,
        registration(&input.debtor.document)
    ));
    debtor_block(&mut doc, &input.debtor);

    doc.heading("Débitos renegociados");
    let subtotal = Cents(input.charges.iter().map(|c| c.amount_due.0).sum());
    doc.paragraph(&format!(
        "O(A) DEVEDOR(A) reconhece e confessa dever à CREDORA a importância de {}, \
         correspondente às cobranças abaixo, atualizada até {proposed} com multa e juros de \
         mora e deduzidos os pagamentos já feitos.",
        subtotal.to_brl()
    ));
    doc.table(&term_charge_columns(), &term_charge_rows(&input.charges));
    let discount = Cents(subtotal.0 - input.total.0);
    let discount_label = format!("Desconto ({} %)", percent_br(input.discount_bp));
    let subtotal_text = subtotal.to_brl();
    let discount_text = discount.to_brl();
    let total_text = input.total.to_brl();
    doc.totals(&[
        ("Total dos débitos", &subtotal_text),
        (&discount_label, &discount_text),
        ("Valor do acordo", &total_text),
    ]);

    doc.heading("Forma de pagamento");
    doc.paragraph(&payment_sentence(input));
    doc.table(&term_payment_columns(), &term_payment_rows(input));
    doc.totals(&[("Total", &total_text)]);
    if let Some(payment) = &input.pix {
        // The heading, its sentence and the code on one page.
        doc.keep_together(HEADING_ROOM + QR_SIDE);
        doc.heading("Pagamento com Pix");
        doc.paragraph("O próximo pagamento do acordo pode ser feito com o Pix abaixo.");
        pix_block(&mut doc, payment, crate::calendar::day_of(input.issued_at));
    }
    if let Some(automatic) = &input.automatic_pix {
        automatic_pix_block(&mut doc, automatic);
    }

    doc.heading("Condições");
    let clauses = [
        "1. Enquanto o acordo estiver em dia, a CREDORA suspende a cobrança das dívidas \
         originais, inclusive a negativação em órgãos de proteção ao crédito e o protesto, \
         cujas baixas serão solicitadas."
            .to_string(),
        "2. Cada parcela é cobrada como um novo título, com vencimento na data indicada; \
         pagamentos após o vencimento sofrem multa de 2 % e juros de mora de 1 % ao mês, \
         calculados dia a dia."
            .to_string(),
        format!(
            "3. A falta de pagamento de qualquer parcela por mais de {} dias após o seu \
             vencimento rompe o acordo: o desconto concedido fica sem efeito, as parcelas em \
             aberto são canceladas e o saldo volta a ser cobrado nas cobranças originais, com \
             os encargos nelas previstos, abatidos os valores pagos.",
            input.break_after_days
        ),
        "4. O pagamento de todas as parcelas quita integralmente os débitos renegociados."
            .to_string(),
    ];
    for clause in &clauses {
        doc.paragraph(clause);
    }

    doc.spacer();
    let place_date = format!(
        "{}, {}.",
        input.place,
        date_long_br(crate::calendar::day_of(input.issued_at))
    );
    doc.paragraph(&place_date);
    let issuer_document = format!(
        "{} {}",
        document_kind(&input.issuer.document),
        format_document(&input.issuer.document)
    );
    doc.signature(&[&input.issuer.name, &issuer_document, "CREDORA"]);
    let debtor_document = format!(
        "{} {}",
        document_kind(&input.debtor.document),
        format_document(&input.debtor.document)
    );
    doc.signature(&[&input.debtor.name, &debtor_document, "DEVEDOR(A)"]);
    doc.signature(&["Testemunha 1 — Nome e CPF"]);
    doc.signature(&["Testemunha 2 — Nome e CPF"]);
    doc.finish()
}

/// "10", "12,5" or "7,25": a percentage in basis points, Brazilian style.
fn percent_br(bp: i64) -> String {
    let text = format!("{},{:02}", bp / 100, bp % 100);
    text.trim_end_matches('0').trim_end_matches(',').to_string()
}

fn payment_sentence(input: &AgreementTermInput) -> String {
    let instalments: Vec<&TermPayment> = input.payments.iter().filter(|p| p.number > 0).collect();
    let count = instalments.len();
    let plural = if count == 1 {
        "1 parcela mensal".to_string()
    } else {
        format!("{count} parcelas mensais")
    };
    match input.payments.iter().find(|p| p.number == 0) {
        Some(down) => format!(
            "O valor do acordo, {}, será pago com entrada de {} em {} e {plural}, conforme a \
             tabela abaixo.",
            input.total.to_brl(),
            down.amount.to_brl(),
            date_br(down.due_date)
        ),
        None => format!(
            "O valor do acordo, {}, será pago em {plural}, conforme a tabela abaixo.",
            input.total.to_brl()
        ),
    }
}

fn term_charge_columns() -> [Column; 4] {
    [
        Column::new("Descrição", 46.0, Align::Left),
        Column::new("Vencimento", 16.0, Align::Left),
        Column::new("Valor original", 19.0, Align::Right),
        Column::new("Valor atualizado", 19.0, Align::Right),
    ]
}

fn term_charge_rows(charges: &[TermCharge]) -> Vec<Vec<String>> {
    charges
        .iter()
        .map(|c| {
            vec![
                c.description.clone(),
                date_br(c.due_date),
                c.original.to_brl(),
                c.amount_due.to_brl(),
            ]
        })
        .collect()
}

fn term_payment_columns() -> [Column; 3] {
    [
        Column::new("Parcela", 40.0, Align::Left),
        Column::new("Vencimento", 30.0, Align::Left),
        Column::new("Valor", 30.0, Align::Right),
    ]
}

fn term_payment_rows(input: &AgreementTermInput) -> Vec<Vec<String>> {
    let count = input.payments.iter().filter(|p| p.number > 0).count();
    input
        .payments
        .iter()
        .map(|p| {
            let label = if p.number == 0 {
                "Entrada".to_string()
            } else {
                format!("{}/{count}", p.number)
            };
            vec![label, date_br(p.due_date), p.amount.to_brl()]
        })
        .collect()
}

/// `29/11/2026`.
pub fn date_br(date: Date) -> String {
    format!(
        "{:02}/{:02}/{:04}",
        date.day(),
        u8::from(date.month()),
        date.year()
    )
}

/// `29 de novembro de 2026`; the first of the month is written `1º`, as Brazilian usage
/// (and the style of official documents) has it.
pub fn date_long_br(date: Date) -> String {
    let day = match date.day() {
        1 => "1º".to_string(),
        day => day.to_string(),
    };
    format!("{day} de {} de {}", month_name(date.month()), date.year())
}

/// The month's name in Portuguese, lowercase as it is written inside a date.
pub fn month_name(month: Month) -> &'static str {
    match month {
        Month::January => "janeiro",
        Month::February => "fevereiro",
        Month::March => "março",
        Month::April => "abril",
        Month::May => "maio",
        Month::June => "junho",
        Month::July => "julho",
        Month::August => "agosto",
        Month::September => "setembro",
        Month::October => "outubro",
        Month::November => "novembro",
        Month::December => "dezembro",
    }
}

/// "CPF" or "CNPJ", from the length of a stored document.
fn document_kind(document: &str) -> &'static str {
    match document.len() {
        11 => "CPF",
        14 => "CNPJ",
        _ => "CPF/CNPJ",
    }
}

/// How a letter introduces a party's registration. Companies take the feminine ("a
/// empresa"); for a person the letter cannot know, so it uses the customary "inscrito(a)".
fn registration(document: &str) -> String {
    let formatted = format_document(document);
    match document_kind(document) {
        "CPF" => format!("inscrito(a) no CPF sob o nº {formatted}"),
        "CNPJ" => format!("inscrita no CNPJ sob o nº {formatted}"),
        _ => format!("documento nº {formatted}"),
    }
}

/// Name and registration of the creditor, with its contacts, above a rule.
fn letterhead(doc: &mut Document, issuer: &Issuer) {
    doc.heading(&issuer.name);
    let mut details = vec![format!(
        "{} {}",
        document_kind(&issuer.document),
        format_document(&issuer.document)
    )];
    details.extend(issuer.email.iter().cloned());
    details.extend(issuer.phone.iter().cloned());
    doc.note(&details.join("  ·  "));
    doc.separator();
}

fn debtor_block(doc: &mut Document, debtor: &Debtor) {
    let document = format_document(&debtor.document);
    let address = debtor.address_lines.join("\n");
    let mut pairs = vec![
        ("Nome", debtor.name.as_str()),
        (document_kind(&debtor.document), document.as_str()),
    ];
    if !address.is_empty() {
        pairs.push(("Endereço", address.as_str()));
    }
    if let Some(email) = &debtor.email {
        pairs.push(("E-mail", email.as_str()));
    }
    doc.key_values(&pairs);
}

/// The amount due today comes last, so that the open total below the table lines up with
/// it; the shares fit "Valor atualizado" and amounts up to R$ 999.999,99 on one line.
fn statement_columns() -> [Column; 6] {
    [
        Column::new("Descrição", 33.0, Align::Left),
        Column::new("Vencimento", 12.0, Align::Left),
        Column::new("Situação", 11.0, Align::Left),
        Column::new("Valor original", 14.0, Align::Right),
        Column::new("Pago", 14.0, Align::Right),
        Column::new("Valor atualizado", 16.0, Align::Right),
    ]
}

fn statement_rows(charges: &[StatementCharge]) -> Vec<Vec<String>> {
    charges
        .iter()
        .map(|c| {
            vec![
                c.description.clone(),
                date_br(c.due_date),
                c.status.label().to_string(),
                c.original.to_brl(),
                c.paid.to_brl(),
                c.amount_due.to_brl(),
            ]
        })
        .collect()
}

/// What the debtor still owes today across the open charges.
fn total_open(charges: &[StatementCharge]) -> Cents {
    Cents(
        charges
            .iter()
            .filter(|c| c.status.is_open())
            .map(|c| c.amount_due.0)
            .sum(),
    )
}

fn contact_sentence(issuer: &Issuer) -> String {
    let channels: Vec<String> = [
        issuer.email.as_ref().map(|e| format!("pelo e-mail {e}")),
        issuer.phone.as_ref().map(|p| format!("pelo telefone {p}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    if channels.is_empty() {
        format!("Em caso de dúvidas, fale com {}.", issuer.name)
    } else {
        format!(
            "Em caso de dúvidas, fale com {} {}.",
            issuer.name,
            channels.join(" ou ")
        )
    }
}

#[cfg(test)]
mod tests {
    use time::macros::{date, datetime};

    use super::pdf::shown_text;
    use super::*;

    fn issuer() -> Issuer {
        Issuer {
            name: "Escola Aurora Ltda.".to_string(),
            document: "11222333000181".to_string(),
            email: Some("financeiro@aurora.com.br".to_string()),
            phone: Some("(11) 3456-7890".to_string()),
        }
    }

    fn debtor() -> Debtor {
        Debtor {
            name: "Conceição Araújo".to_string(),
            document: "52998224725".to_string(),
            address_lines: vec![
                "Rua São Benedito, 120, ap. 3º andar".to_string(),
                "São Paulo - SP, 04735-000".to_string(),
            ],
            email: Some("conceicao@example.com".to_string()),
        }
    }

    fn charge(
        description: &str,
        due: Date,
        original: f64,
        due_now: f64,
        status: ChargeStatus,
    ) -> StatementCharge {
        let (original, amount_due) = (reais(original), reais(due_now));
        StatementCharge {
            description: description.to_string(),
            due_date: due,
            original,
            paid: Cents((original.0 - amount_due.0).max(0)),
            amount_due,
            status,
        }
    }

    fn reais(value: f64) -> Cents {
        Cents::from_reais(value).expect("two decimals")
    }

    fn statement(charges: Vec<StatementCharge>) -> StatementInput {
        StatementInput {
            issuer: issuer(),
            debtor: debtor(),
            charges,
            issued_at: datetime!(2026-11-29 10:15:00 -3),
            payment_instructions: None,
            pix: Vec::new(),
        }
    }

    fn sample_statement() -> StatementInput {
        use ChargeStatus::*;
        let charges = [
            (
                "Mensalidade setembro/2026",
                date!(2026 - 09 - 10),
                1200.00,
                1234.56,
                Overdue,
            ),
            (
                "Mensalidade outubro/2026",
                date!(2026 - 10 - 10),
                1200.00,
                0.00,
                Paid,
            ),
            (
                "Mensalidade dezembro/2026",
                date!(2026 - 12 - 10),
                1200.00,
                1200.00,
                Pending,
            ),
            (
                "Material didático",
                date!(2026 - 08 - 05),
                350.00,
                350.00,
                Canceled,
            ),
            (
                "Acordo nº 17 (parcelas)",
                date!(2026 - 07 - 10),
                980.00,
                980.00,
                InAgreement,
            ),
        ];
        statement(
            charges
                .into_iter()
                .map(|(what, due, original, now, status)| charge(what, due, original, now, status))
                .collect(),
        )
    }

    fn sample_discharge() -> DischargeInput {
        DischargeInput {
            issuer: issuer(),
            debtor: debtor(),
            description: "Mensalidade setembro/2026".to_string(),
            original: reais(1200.00),
            paid: reais(1234.56),
            due_date: date!(2026 - 09 - 10),
            paid_on: date!(2026 - 11 - 27),
            place: "São Paulo".to_string(),
            issued_at: datetime!(2026-11-29 10:15:00 -3),
        }
    }

    /// All shown text as one string, so that checks do not depend on where lines wrap.
    fn text_of(pdf: &[u8]) -> String {
        shown_text(pdf).join(" ")
    }

    #[test]
    fn dates_are_written_day_first_with_padding() {
        let cases = [
            (date!(2026 - 11 - 29), "29/11/2026"),
            (date!(2026 - 01 - 05), "05/01/2026"),
            (date!(2027 - 12 - 31), "31/12/2027"),
        ];
        for (date, expected) in cases {
            assert_eq!(date_br(date), expected);
        }
    }

    #[test]
    fn long_dates_name_the_month_in_portuguese() {
        let cases = [
            (date!(2026 - 11 - 29), "29 de novembro de 2026"),
            (date!(2026 - 03 - 15), "15 de março de 2026"),
            (date!(2026 - 12 - 01), "1º de dezembro de 2026"),
            (date!(2027 - 02 - 02), "2 de fevereiro de 2027"),
        ];
        for (date, expected) in cases {
            assert_eq!(date_long_br(date), expected);
        }
    }

    #[test]
    fn statuses_read_in_portuguese_and_parse_from_the_api() {
        let cases = [
            ("pending", ChargeStatus::Pending, "pendente", true),
            ("overdue", ChargeStatus::Overdue, "vencida", true),
            ("paid", ChargeStatus::Paid, "paga", false),
            ("canceled", ChargeStatus::Canceled, "cancelada", false),
            (
                "in_agreement",
                ChargeStatus::InAgreement,
                "em acordo",
                false,
            ),
        ];
        for (api, status, label, open) in cases {
            assert_eq!(ChargeStatus::from_api(api), Some(status));
            assert_eq!((status.label(), status.is_open()), (label, open), "{api}");
        }
        assert_eq!(ChargeStatus::from_api("open"), None);
    }

    #[test]
    fn registration_follows_the_kind_of_document() {
        let cases = [
            ("52998224725", "inscrito(a) no CPF sob o nº 529.982.247-25"),
            (
                "11222333000181",
                "inscrita no CNPJ sob o nº 11.222.333/0001-81",
            ),
            (
                "12ABC34501DE35",
                "inscrita no CNPJ sob o nº 12.ABC.345/01DE-35",
            ),
            ("123", "documento nº 123"),
        ];
        for (document, expected) in cases {
            assert_eq!(registration(document), expected);
        }
    }

    #[test]
    fn statement_shows_issuer_debtor_charges_and_total() {
        let text = text_of(&debtor_statement(&sample_statement()));
        for expected in [
            "Escola Aurora Ltda.",
            "CNPJ 11.222.333/0001-81",
            "Extrato de débitos",
            "Data de emissão 29/11/2026",
            "Conceição Araújo",
            "CPF 529.982.247-25",
            "Rua São Benedito, 120, ap. 3º andar",
            "conceicao@example.com",
            "Mensalidade setembro/2026 10/09/2026 vencida R$ 1.200,00 R$ 0,00 R$ 1.234,56",
            "paga",
            "pendente",
            "cancelada",
            "em acordo",
            "Total em aberto R$ 2.434,56",
            "financeiro@aurora.com.br",
            "Página 1 de 1",
        ] {
            assert!(text.contains(expected), "{expected:?} not in {text}");
        }
    }

    #[test]
    fn the_open_total_leaves_out_paid_cancelled_and_agreed_charges() {
        assert_eq!(total_open(&sample_statement().charges), reais(2434.56));
        assert_eq!(total_open(&[]), Cents(0));
    }

    #[test]
    fn a_statement_without_charges_says_so() {
        let text = text_of(&debtor_statement(&statement(Vec::new())));
        assert!(text.contains("Não há cobranças registradas"), "{text}");
        assert!(text.contains("Total em aberto R$ 0,00"), "{text}");
    }

    #[test]
    fn a_long_statement_numbers_every_page() {
        let charges = (1..=120)
            .map(|i| {
                charge(
                    &format!("Parcela {i}/120"),
                    date!(2026 - 01 - 10),
                    100.00,
                    100.00,
                    ChargeStatus::Overdue,
                )
            })
            .collect();
        let shown = shown_text(&debtor_statement(&statement(charges)));
        let pages = shown.iter().filter(|t| t.starts_with("Página ")).count();
        assert!(pages >= 3, "{pages} pages");
        assert!(shown.contains(&format!("Página {pages} de {pages}")));
        assert_eq!(
            shown.iter().filter(|t| *t == "Valor atualizado").count(),
            pages
        );
        assert!(
            shown.iter().any(|t| t == "R$ 12.000,00"),
            "total of 120 × R$ 100,00"
        );
    }

    #[test]
    fn the_discharge_letter_declares_the_payment() {
        let text = text_of(&discharge_letter(&sample_discharge()));
        for expected in [
            "Carta de quitação",
            "Escola Aurora Ltda., inscrita no CNPJ sob o nº 11.222.333/0001-81, declara",
            "Conceição Araújo, inscrito(a) no CPF sob o nº 529.982.247-25",
            "pagamento integral",
            "Descrição Mensalidade setembro/2026",
            "Vencimento 10/09/2026",
            "Valor original R$ 1.200,00",
            "Valor pago R$ 1.234,56",
            "Data do pagamento 27/11/2026",
            "São Paulo, 29 de novembro de 2026.",
            "Escola Aurora Ltda. CNPJ 11.222.333/0001-81 Carta de quitação — Conceição Araújo",
        ] {
            assert!(text.contains(expected), "{expected:?} not in {text}");
        }
    }

    fn sample_term() -> AgreementTermInput {
        AgreementTermInput {
            issuer: issuer(),
            debtor: debtor(),
            reference: "agr_7q2w5e8r1t4y6u9i".to_string(),
            situation: "aceito em 14/03/2026".to_string(),
            proposed_on: date!(2026 - 03 - 14),
            charges: vec![
                TermCharge {
                    description: "Mensalidade janeiro/2026".to_string(),
                    due_date: date!(2026 - 01 - 10),
                    original: reais(1200.00),
                    amount_due: reais(1263.49),
                },
                TermCharge {
                    description: "Mensalidade fevereiro/2026".to_string(),
                    due_date: date!(2026 - 02 - 10),
                    original: reais(1200.00),
                    amount_due: reais(1218.40),
                },
            ],
            discount_bp: 1000,
            total: reais(2233.70),
            payments: vec![
                TermPayment {
                    number: 0,
                    due_date: date!(2026 - 04 - 10),
                    amount: reais(500.00),
                },
                TermPayment {
                    number: 1,
                    due_date: date!(2026 - 05 - 10),
                    amount: reais(866.85),
                },
                TermPayment {
                    number: 2,
                    due_date: date!(2026 - 06 - 10),
                    amount: reais(866.85),
                },
            ],
            break_after_days: 30,
            place: "São Paulo".to_string(),
            issued_at: datetime!(2026-03-15 09:00:00 -3),
            pix: None,
            automatic_pix: None,
        }
    }

    #[test]
    fn the_agreement_term_states_parties_debts_discount_and_schedule() {
        let text = text_of(&agreement_term(&sample_term()));
        for expected in [
            "Termo de acordo e confissão de dívida",
            "Acordo agr_7q2w5e8r1t4y6u9i",
            "CREDORA: Escola Aurora Ltda., inscrita no CNPJ sob o nº 11.222.333/0001-81.",
            "DEVEDOR(A): Conceição Araújo, inscrito(a) no CPF sob o nº 529.982.247-25.",
            "a importância de R$ 2.481,89",
            "Mensalidade janeiro/2026 10/01/2026 R$ 1.200,00 R$ 1.263,49",
            "Total dos débitos R$ 2.481,89",
            "Desconto (10 %) R$ 248,19",
            "Valor do acordo R$ 2.233,70",
            "entrada de R$ 500,00 em 10/04/2026 e 2 parcelas mensais",
            "Entrada 10/04/2026 R$ 500,00",
            "1/2 10/05/2026 R$ 866,85",
            "2/2 10/06/2026 R$ 866,85",
            "por mais de 30 dias",
            "São Paulo, 15 de março de 2026.",
            "DEVEDOR(A)",
            "Testemunha 1",
        ] {
            assert!(text.contains(expected), "{expected:?} not in {text}");
        }
    }

    #[test]
    fn percentages_are_written_with_a_decimal_comma() {
        for (bp, expected) in [
            (1000, "10"),
            (1250, "12,5"),
            (725, "7,25"),
            (0, "0"),
            (10_000, "100"),
        ] {
            assert_eq!(percent_br(bp), expected);
        }
    }

    fn pix(description: &str, due_date: Date, amount: f64) -> PixPayment {
        let settings =
            crate::pix::PixSettings::new("11.222.333/0001-81", "Escola Aurora Ltda.", "São Paulo")
                .unwrap();
        PixPayment {
            description: description.to_string(),
            due_date,
            amount: reais(amount),
            payload: settings
                .charge_code("chg_k3j9x0a2b7c4d1e8", reais(amount))
                .unwrap(),
        }
    }

    /// Whether the PDF draws a QR code: hundreds of rectangles (a table draws one a page).
    fn draws_black_rectangles(pdf: &[u8]) -> bool {
        String::from_utf8_lossy(pdf).matches(" re\n").count() > 100
    }

    #[test]
    fn with_pix_the_statement_prints_each_open_charges_qr_code_and_code() {
        let mut input = sample_statement();
        input.pix = vec![
            pix("Mensalidade setembro/2026", date!(2026 - 09 - 10), 1234.56),
            pix("Mensalidade dezembro/2026", date!(2026 - 12 - 10), 1200.00),
        ];
        let pdf = debtor_statement(&input);
        let text = text_of(&pdf);
        let shown = shown_text(&pdf).concat();
        for payment in &input.pix {
            assert!(shown.contains(&payment.payload), "{shown}");
        }
        for expected in [
            "utilize o código Pix de cada cobrança",
            "Mensalidade setembro/2026 Valor: R$ 1.234,56 Vencida em 10/09/2026. Valor atualizado até 29/11/2026",
            "Mensalidade dezembro/2026 Valor: R$ 1.200,00 Vence em 10/12/2026. Valor para pagamento até o vencimento.",
            "Leia o QR Code no aplicativo do seu banco",
        ] {
            assert!(text.contains(expected), "{expected:?} not in {text}");
        }
        assert!(draws_black_rectangles(&pdf));
        assert!(String::from_utf8_lossy(&pdf).contains("/BaseFont /Courier"));
    }

    #[test]
    fn without_pix_the_statement_promises_no_code() {
        let pdf = debtor_statement(&sample_statement());
        let text = text_of(&pdf);
        assert!(!text.contains("Pix"), "{text}");
        assert!(text.contains("utilize as instruções de pagamento enviadas a você"));
        assert!(!draws_black_rectangles(&pdf));
    }

    #[test]
    fn an_accepted_terms_next_payment_comes_with_its_pix() {
        let mut input = sample_term();
        input.pix = Some(pix("Entrada do acordo", date!(2026 - 04 - 10), 500.00));
        let pdf = agreement_term(&input);
        let text = text_of(&pdf);
        for expected in [
            "Pagamento com Pix",
            "Entrada do acordo Valor: R$ 500,00 Vence em 10/04/2026.",
        ] {
            assert!(text.contains(expected), "{expected:?} not in {text}");
        }
        let payload = &input.pix.as_ref().unwrap().payload;
        assert!(shown_text(&pdf).concat().contains(payload.as_str()));
        assert!(draws_black_rectangles(&pdf));
        assert!(!text_of(&agreement_term(&sample_term())).contains("Pix"));
    }

    #[test]
    fn a_term_waiting_for_pix_automatico_carries_its_authorization_code() {
        let mut input = sample_term();
        let payload = "00020101021226700014br.gov.bcb.pix2548pix.example.com/qr/v2/rec/2353c790eefb11eaadc10242ac1200025204000053039865802BR5913PADARIA PAO D6009SAO PAULO62070503***6304ABCD";
        input.automatic_pix = Some(AutomaticPixCode {
            payload: payload.into(),
            with_down_payment: true,
        });
        let pdf = agreement_term(&input);
        let text = text_of(&pdf);
        for expected in [
            "Pix Automático",
            "Autorização do Pix Automático",
            "Este código paga a entrada e autoriza o débito das parcelas.",
        ] {
            assert!(text.contains(expected), "{expected:?} not in {text}");
        }
        assert!(shown_text(&pdf).concat().contains(payload));
        assert!(draws_black_rectangles(&pdf));
        assert!(!text_of(&agreement_term(&sample_term())).contains("Automático"));
    }

    #[test]
    fn documents_are_the_same_bytes_for_the_same_input() {
        assert_eq!(
            debtor_statement(&sample_statement()),
            debtor_statement(&sample_statement())
        );
        assert_eq!(
            discharge_letter(&sample_discharge()),
            discharge_letter(&sample_discharge())
        );
    }
}
