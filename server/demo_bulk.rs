//! Bulk demo data for measuring at real size: `kobana-dunning demo --customers N --charges M`
//! adds N customers and M charges to one organization, fast enough for a million charges in
//! minutes. Rows go in as multi-row `INSERT`s (one statement per `BATCH` rows, the
//! organization and timestamp bound once per statement), many statements per transaction,
//! in SQL both engines accept. The request path's one-row inserts would spend most of the
//! time in round trips and commits.
//!
//! The data looks like a real book of receivables: valid CPFs, a spread of due dates from a
//! year ago to three months ahead, amounts from R$ 20 to about R$ 5 000, and about 55 % open
//! (pending or overdue by due date, some partly paid), 30 % paid, 8 % canceled and 7 % in an
//! agreement. No history events are written and no collection plan is attached, so the
//! engine has no work to do on these rows and reads measure reads only.

use time::Duration;

use dunning_domain::document::cpf_with_check_digits;
use dunning_store::{Backend, Db, Result, ids, now_text, today};

/// Rows per `INSERT` statement: 10 bound values per charge row stays far below SQLite's
/// 32 766 and PostgreSQL's 65 535 parameters.
const BATCH: usize = 1_000;
/// Rows per transaction: large enough that commits cost nothing, small enough that a
/// PostgreSQL transaction or a SQLite WAL does not grow without bound.
const PER_TRANSACTION: usize = 50_000;

/// SQLite page cache of a generating connection, in KiB (negative: a size, not pages). The
/// charges table carries some fifteen indexes whose pages are written in random order (ids
/// are random); with the default 2 MiB cache each insert reads them back from the file
/// (200 000 charges: 19 s of system time, 7 s with this cache).
const SQLITE_GENERATOR_CACHE: &str = "PRAGMA cache_size = -1048576";

/// CPF bases of generated customers start with this prefix, which no hand-written demo
/// customer uses; the rest is a counter, so runs add to each other without a duplicate.
const CPF_PREFIX: &str = "00";

const FIRST_NAMES: &[&str] = &[
    "Ana",
    "Bruno",
    "Carla",
    "Diego",
    "Eduarda",
    "Felipe",
    "Gabriela",
    "Heitor",
    "Isabela",
    "João",
    "Larissa",
    "Mateus",
    "Natália",
    "Otávio",
    "Patrícia",
    "Rafael",
    "Sofia",
    "Thiago",
    "Vitória",
    "Wesley",
    "Conceição",
    "Raimundo",
    "Íris",
    "Sebastião",
];
const LAST_NAMES: &[&str] = &[
    "Silva",
    "Santos",
    "Oliveira",
    "Souza",
    "Rodrigues",
    "Ferreira",
    "Alves",
    "Pereira",
    "Lima",
    "Gomes",
    "Costa",
    "Ribeiro",
    "Martins",
    "Carvalho",
    "Araújo",
    "Melo",
    "Barbosa",
    "Peçanha",
    "Simões",
    "Magalhães",
];
const CITIES: &[(&str, &str)] = &[
    ("São Paulo", "SP"),
    ("Rio de Janeiro", "RJ"),
    ("Belo Horizonte", "MG"),
    ("Curitiba", "PR"),
    ("Porto Alegre", "RS"),
    ("Salvador", "BA"),
    ("Fortaleza", "CE"),
    ("Recife", "PE"),
    ("Goiânia", "GO"),
    ("Manaus", "AM"),
];
const DESCRIPTIONS: &[&str] = &[
    "Mensalidade",
    "Parcela do contrato",
    "Serviço avulso",
    "Pedido",
    "Assinatura anual",
    "Consulta",
];

/// How many rows a run added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Generated {
    pub customers: usize,
    pub charges: usize,
}

/// A small deterministic generator (SplitMix64): the data only needs to look varied, and a
/// seed makes two runs of the same size comparable.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

/// Add `customers` customers and `charges` charges to `organization_id`. Charges go to the
/// new customers (to the organization's existing ones when `customers` is 0).
pub async fn generate(
    db: &Db,
    organization_id: &str,
    customers: usize,
    charges: usize,
    mut progress: impl FnMut(&str, usize, usize),
) -> Result<Generated> {
    let mut mix = Mix(0x4B4F_4241_4E41 ^ (customers as u64) << 20 ^ charges as u64);
    let now = now_text();
    let start = existing_generated(db, organization_id).await?;
    let mut customer_ids = Vec::with_capacity(customers);
    let mut done = 0;
    while done < customers {
        let mut tx = db.begin().await?;
        let end = (done + PER_TRANSACTION).min(customers);
        while done < end {
            let rows = BATCH.min(end - done);
            let batch: Vec<[Option<String>; 9]> = (0..rows)
                .map(|k| customer_row(&mut mix, start + done + k + 1))
                .collect();
            insert_customers(&mut tx, organization_id, &now, &batch).await?;
            customer_ids.extend(
                batch
                    .into_iter()
                    .map(|row| row[0].clone().unwrap_or_default()),
            );
            done += rows;
        }
        tx.commit().await?;
        progress("customers", done, customers);
    }
    if customer_ids.is_empty() && charges > 0 {
        customer_ids = sqlx::query_scalar("SELECT id FROM customers WHERE organization_id = $1")
            .bind(organization_id)
            .fetch_all(&db.pool)
            .await?;
        if customer_ids.is_empty() {
            return Err(dunning_store::StoreError::Corrupt(
                "the organization has no customer to bill: pass --customers".into(),
            ));
        }
    }
    let today = today();
    let mut done = 0;
    while done < charges {
        let mut tx = db.begin().await?;
        if db.backend == Backend::Sqlite {
            sqlx::query(SQLITE_GENERATOR_CACHE)
                .execute(&mut *tx)
                .await?;
        }
        let end = (done + PER_TRANSACTION).min(charges);
        while done < end {
            let rows = BATCH.min(end - done);
            let batch: Vec<ChargeRow> = (0..rows)
                .map(|_| {
                    let customer = &customer_ids[mix.below(customer_ids.len() as u64) as usize];
                    charge_row(&mut mix, customer, today, &now)
                })
                .collect();
            insert_charges(&mut tx, organization_id, &now, &batch).await?;
            done += rows;
        }
        tx.commit().await?;
        progress("charges", done, charges);
    }
    Ok(Generated { customers, charges })
}

/// How many generated customers the organization already has: the next CPF counter.
async fn existing_generated(db: &Db, organization_id: &str) -> Result<usize> {
    let count: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM customers WHERE organization_id = $1 AND document LIKE $2",
    )
    .bind(organization_id)
    .bind(format!("{CPF_PREFIX}%"))
    .fetch_one(&db.pool)
    .await?;
    Ok(count as usize)
}

/// id, name, search_name, document, email, phone, address, channel_opt_outs, tags.
fn customer_row(mix: &mut Mix, serial: usize) -> [Option<String>; 9] {
    let name = format!(
        "{} {} {}",
        mix.pick(FIRST_NAMES),
        mix.pick(LAST_NAMES),
        mix.pick(LAST_NAMES)
    );
    let search = dunning_store::customers::search_key(&name);
    let document = cpf_with_check_digits(&format!("{CPF_PREFIX}{serial:07}"));
    let local = search.split_whitespace().collect::<Vec<_>>().join(".");
    let email = (mix.below(10) < 8).then(|| format!("{local}.{serial}@example.com.br"));
    let phone = (mix.below(10) < 7).then(|| format!("+55119{:08}", mix.below(100_000_000)));
    let (city, state) = CITIES[mix.below(CITIES.len() as u64) as usize];
    let address = serde_json::json!({
        "street": "Rua das Acácias",
        "number": format!("{}", 1 + mix.below(2_000)),
        "complement": null,
        "district": "Centro",
        "city": city,
        "state": state,
        "zip_code": format!("{:08}", 1_000_000 + mix.below(98_000_000)),
    });
    let opt_outs = if mix.below(20) == 0 {
        r#"["whatsapp"]"#
    } else {
        "[]"
    };
    let tags = if mix.below(2) == 0 {
        r#"["varejo"]"#
    } else {
        r#"["recorrente"]"#
    };
    [
        Some(ids::new_id("cus")),
        Some(name),
        Some(search),
        Some(document),
        email,
        phone,
        Some(address.to_string()),
        Some(opt_outs.to_string()),
        Some(tags.to_string()),
    ]
}

async fn insert_customers(
    conn: &mut sqlx::AnyConnection,
    organization_id: &str,
    now: &str,
    rows: &[[Option<String>; 9]],
) -> Result<()> {
    let mut sql = String::from(
        "INSERT INTO customers (organization_id, created_at, updated_at, version, notes, document_type,
             id, name, search_name, document, email, phone, address, channel_opt_outs, tags) VALUES ",
    );
    push_rows(&mut sql, rows.len(), "$1, $2, $2, 1, NULL, 'cpf'", 9);
    // Only placeholders are spliced into the text; every value is bound.
    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(now);
    for row in rows {
        for value in row {
            query = query.bind(value.clone());
        }
    }
    query.execute(conn).await?;
    Ok(())
}

struct ChargeRow {
    id: String,
    customer_id: String,
    description: String,
    amount_cents: i64,
    paid_cents: i64,
    due_date: String,
    state: &'static str,
    tags: &'static str,
    paid_at: Option<String>,
    canceled_at: Option<String>,
}

fn charge_row(mix: &mut Mix, customer_id: &str, today: time::Date, now: &str) -> ChargeRow {
    // Due dates from a year ago to three months ahead; amounts skewed towards small ones
    // (R$ 20 plus a square of a uniform draw, up to about R$ 5 000).
    let due = today + Duration::days(mix.below(456) as i64 - 365);
    let draw = mix.below(1_000) as i64;
    let amount_cents = 20_00 + draw * draw / 200 * 100 + mix.below(100) as i64;
    let roll = mix.below(100);
    let (state, paid_cents, paid_at, canceled_at) = match roll {
        0..=54 => {
            let partial = if mix.below(10) == 0 {
                amount_cents / 3
            } else {
                0
            };
            ("open", partial, None, None)
        }
        55..=84 => ("paid", amount_cents, Some(now.to_string()), None),
        85..=92 => ("canceled", 0, None, Some(now.to_string())),
        _ => ("in_agreement", 0, None, None),
    };
    let month = due.month() as u8;
    ChargeRow {
        id: ids::new_id("chg"),
        customer_id: customer_id.to_string(),
        description: format!("{} {month:02}/{}", mix.pick(DESCRIPTIONS), due.year()),
        amount_cents,
        paid_cents,
        due_date: due.to_string(),
        state,
        tags: if mix.below(3) == 0 {
            r#"["varejo"]"#
        } else {
            "[]"
        },
        paid_at,
        canceled_at,
    }
}

async fn insert_charges(
    conn: &mut sqlx::AnyConnection,
    organization_id: &str,
    now: &str,
    rows: &[ChargeRow],
) -> Result<()> {
    let mut sql = String::from(
        "INSERT INTO charges (organization_id, created_at, updated_at, fine_bp, interest_bp, collection_plan_id,
             agreement_id, negativation_status, protest_status, version,
             id, customer_id, description, amount_cents, paid_cents, due_date, state, tags, paid_at, canceled_at) VALUES ",
    );
    push_rows(
        &mut sql,
        rows.len(),
        "$1, $2, $2, 200, 100, NULL, NULL, 'none', 'none', 1",
        10,
    );
    // Only placeholders are spliced into the text; every value is bound.
    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(organization_id)
        .bind(now);
    for row in rows {
        query = query
            .bind(row.id.clone())
            .bind(row.customer_id.clone())
            .bind(row.description.clone())
            .bind(row.amount_cents)
            .bind(row.paid_cents)
            .bind(row.due_date.clone())
            .bind(row.state)
            .bind(row.tags)
            .bind(row.paid_at.clone())
            .bind(row.canceled_at.clone());
    }
    query.execute(conn).await?;
    Ok(())
}

/// Append `rows` tuples to a multi-row `INSERT ... VALUES`: each starts with `fixed` (the
/// columns every row shares, `$1` and `$2` among them) and then takes `per_row` placeholders
/// of its own, numbered on from `$3`.
fn push_rows(sql: &mut String, rows: usize, fixed: &str, per_row: usize) {
    let mut n = 3;
    for i in 0..rows {
        if i > 0 {
            sql.push(',');
        }
        sql.push('(');
        sql.push_str(fixed);
        for _ in 0..per_row {
            sql.push_str(&format!(", ${n}"));
            n += 1;
        }
        sql.push(')');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dunning_domain::document::TaxDocument;

    #[test]
    fn generated_customers_have_valid_distinct_cpfs() {
        let mut mix = Mix(1);
        let rows: Vec<_> = (1..=500).map(|s| customer_row(&mut mix, s)).collect();
        let mut documents: Vec<&str> = rows.iter().filter_map(|r| r[3].as_deref()).collect();
        for document in &documents {
            assert!(TaxDocument::parse(document).is_ok(), "{document}");
        }
        documents.sort();
        documents.dedup();
        assert_eq!(documents.len(), 500);
    }

    #[test]
    fn charges_spread_over_statuses_and_amounts() {
        let mut mix = Mix(2);
        let today = today();
        let rows: Vec<_> = (0..2_000)
            .map(|_| charge_row(&mut mix, "cus_x", today, "2026-01-01T00:00:00Z"))
            .collect();
        for state in ["open", "paid", "canceled", "in_agreement"] {
            assert!(rows.iter().any(|r| r.state == state), "{state}");
        }
        assert!(
            rows.iter()
                .all(|r| r.amount_cents >= 20_00 && r.paid_cents <= r.amount_cents)
        );
        assert!(rows.iter().any(|r| r.due_date < today.to_string()));
        assert!(rows.iter().any(|r| r.due_date > today.to_string()));
    }
}
