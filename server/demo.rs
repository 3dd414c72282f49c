//! Demo data for a new database: two organizations (each with a Pix key), a person per role
//! with API and MCP tokens, customers, and charges in every status. The tokens exist in plain text only in
//! the credentials file written for the operator.

use serde::{Deserialize, Serialize};
use time::Duration;

use crate::auth::{Audience, roles, tokens};
use dunning_app::events;
use dunning_domain::document::{cnpj_with_check_digits, cpf_with_check_digits};
use dunning_domain::money::Cents;
use dunning_domain::pix::PixSettings;
use dunning_domain::timestamp::Timestamp;
use dunning_models::response::{
    ChargeCanceledData, ChargeCreatedData, ChargePaidData, CollectionPlanCreatedData,
    CustomerCreatedData,
};
use dunning_store::charges::{self, ChargeFields};
use dunning_store::customers::{self, Address, CustomerFields};
use dunning_store::events::Actor;
use dunning_store::orgs::{self, NewToken};
use dunning_store::plans;
use dunning_store::{Db, Result, ids, now_text, today};

/// What the credentials file holds.
#[derive(Debug, Serialize, Deserialize)]
pub struct Credentials {
    pub base_url: String,
    pub organizations: Vec<OrganizationCredentials>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct OrganizationCredentials {
    pub id: String,
    pub name: String,
    pub people: Vec<PersonCredentials>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct PersonCredentials {
    pub name: String,
    pub email: String,
    pub role: String,
    pub api_token: String,
    pub mcp_token: String,
    /// For the OAuth sign-in page.
    pub password: String,
}

struct DemoOrganization {
    name: &'static str,
    cnpj_base: &'static str,
    domain: &'static str,
    /// Its Pix key (the CNPJ when `None`) and the city its codes carry.
    pix_key: Option<&'static str>,
    city: &'static str,
    people: [&'static str; 4],
    customers: &'static [DemoCustomer],
}

struct DemoCustomer {
    name: &'static str,
    /// 9-digit CPF base, or 12-character CNPJ base.
    document_base: &'static str,
    email: Option<&'static str>,
    phone: Option<&'static str>,
    city: &'static str,
    state: &'static str,
}

const ORGANIZATIONS: [DemoOrganization; 2] = [
    DemoOrganization {
        name: "Padaria Pão Dourado Ltda",
        cnpj_base: "112223330001",
        domain: "paodourado.com.br",
        pix_key: None,
        city: "São Paulo",
        people: [
            "Ana Beatriz Gonçalves",
            "Marcos Antônio Ribeiro",
            "Júlia Conceição Lima",
            "Otávio Sá Mendes",
        ],
        customers: &[
            DemoCustomer {
                name: "Conceição Araújo",
                document_base: "529982247",
                email: Some("conceicao.araujo@example.com.br"),
                phone: Some("+5511987654321"),
                city: "São Paulo",
                state: "SP",
            },
            DemoCustomer {
                name: "João Pedro Magalhães",
                document_base: "123456789",
                email: Some("joao.magalhaes@example.com.br"),
                phone: Some("+5511912345678"),
                city: "Campinas",
                state: "SP",
            },
            DemoCustomer {
                name: "Lanchonete Esquina Feliz ME",
                document_base: "458231670001",
                email: Some("financeiro@esquinafeliz.example.com.br"),
                phone: None,
                city: "Santo André",
                state: "SP",
            },
            DemoCustomer {
                name: "Márcia Helena Brandão",
                document_base: "987654321",
                email: None,
                phone: Some("+5521998877665"),
                city: "Niterói",
                state: "RJ",
            },
            DemoCustomer {
                name: "Raimundo Nonato Câmara",
                document_base: "314159265",
                email: Some("raimundo.camara@example.com.br"),
                phone: Some("+5585991234567"),
                city: "Fortaleza",
                state: "CE",
            },
        ],
    },
    DemoOrganization {
        name: "Clínica Sorriso Feliz S/A",
        cnpj_base: "334445550001",
        domain: "sorrisofeliz.com.br",
        pix_key: Some("7d4e2a91-5c3b-4f60-8e1d-9a2b3c4d5e6f"),
        city: "Belo Horizonte",
        people: [
            "Helena Würth Bastos",
            "Caio Estêvão Prado",
            "Luíza Fernandes Assunção",
            "Tomás Ícaro Nogueira",
        ],
        customers: &[
            DemoCustomer {
                name: "Gabriela Simões Farias",
                document_base: "271828182",
                email: Some("gabriela.farias@example.com.br"),
                phone: Some("+5531987651234"),
                city: "Belo Horizonte",
                state: "MG",
            },
            DemoCustomer {
                name: "Sebastião Peçanha",
                document_base: "161803398",
                email: Some("sebastiao.pecanha@example.com.br"),
                phone: Some("+5541991112222"),
                city: "Curitiba",
                state: "PR",
            },
            DemoCustomer {
                name: "Academia Corpo São Ltda",
                document_base: "778899000001",
                email: Some("contas@corposao.example.com.br"),
                phone: Some("+5551933334444"),
                city: "Porto Alegre",
                state: "RS",
            },
            DemoCustomer {
                name: "Íris Mendonça Lobo",
                document_base: "141421356",
                email: Some("iris.lobo@example.com.br"),
                phone: None,
                city: "Salvador",
                state: "BA",
            },
        ],
    },
];

/// Charges per customer: (description, amount in centavos, days from today to the due date,
/// final state, paid centavos).
const CHARGES: &[(&str, i64, i64, &str, i64)] = &[
    ("Mensalidade de outubro", 349_90, -45, "open", 0),
    ("Mensalidade de novembro", 349_90, -15, "open", 100_00),
    ("Mensalidade de dezembro", 349_90, 12, "open", 0),
    (
        "Serviço avulso de setembro",
        1_234_56,
        -70,
        "paid",
        1_234_56,
    ),
    ("Pedido cancelado nº 4471", 89_00, -30, "canceled", 0),
    (
        "Parcelas renegociadas de agosto",
        780_00,
        -90,
        "in_agreement",
        0,
    ),
];

/// Seed the demo into a new database and return the credentials (plain tokens).
pub async fn seed(db: &Db, base_url: &str) -> Result<Credentials> {
    let mut organizations = Vec::new();
    for demo in &ORGANIZATIONS {
        let org = orgs::create_organization(db, demo.name, &cnpj_with_check_digits(demo.cnpj_base))
            .await?;
        let mut people = Vec::new();
        for (name, role) in demo.people.iter().zip(roles::ROLES) {
            let email = format!("{}@{}", email_local(name), demo.domain);
            let person = orgs::create_person(db, &org.id, name, &email, role).await?;
            let password = format!("demo-{}", ids::new_secret(12));
            let hashed = {
                let password = password.clone();
                tokio::task::spawn_blocking(move || crate::oauth::passwords::hash(&password))
                    .await
                    .map_err(|e| dunning_store::StoreError::Corrupt(e.to_string()))?
            };
            dunning_store::oauth::set_password(db, &person.id, &hashed).await?;
            let scopes: Vec<String> = roles::permissions(role)
                .iter()
                .map(|s| s.to_string())
                .collect();
            let mut issued = Vec::new();
            for audience in [Audience::Api, Audience::Mcp] {
                let token = tokens::generate(audience);
                orgs::create_token(
                    db,
                    NewToken {
                        organization_id: &org.id,
                        person_id: &person.id,
                        audience: audience.as_str(),
                        scopes: &scopes,
                        toolsets: None,
                        discovery: None,
                        token_hash: &tokens::hash(&token),
                        label: Some("demo"),
                        rate_limit: None,
                    },
                )
                .await?;
                issued.push(token);
            }
            let mcp_token = issued.pop().unwrap_or_default();
            let api_token = issued.pop().unwrap_or_default();
            people.push(PersonCredentials {
                name: name.to_string(),
                email,
                role: role.to_string(),
                api_token,
                mcp_token,
                password,
            });
        }
        seed_customers(db, &org.id, demo.customers).await?;
        seed_pix(db, &org, demo).await?;
        organizations.push(OrganizationCredentials {
            id: org.id,
            name: org.name,
            people,
        });
    }
    Ok(Credentials {
        base_url: base_url.to_string(),
        organizations,
    })
}

/// The organization's Pix key, so that every open charge of the demo has a code.
async fn seed_pix(db: &Db, org: &orgs::Organization, demo: &DemoOrganization) -> Result<()> {
    let key = demo.pix_key.unwrap_or(&org.legal_document);
    let settings = PixSettings::new(key, demo.name, demo.city)
        .map_err(|faults| dunning_store::StoreError::Corrupt(format!("demo Pix: {faults:?}")))?;
    let system = Actor {
        kind: "system",
        id: None,
        name: Some("demo seed".into()),
    };
    let mut tx = db.begin().await?;
    dunning_app::pix::set_settings(&mut tx, &org.id, &settings, &system).await?;
    tx.commit().await?;
    Ok(())
}

fn email_local(name: &str) -> String {
    let plain = customers::search_key(name);
    let mut parts = plain.split_whitespace();
    let first = parts.next().unwrap_or("pessoa");
    let last = parts.last().unwrap_or("demo");
    format!("{first}.{last}")
}

async fn seed_customers(db: &Db, organization_id: &str, demo: &[DemoCustomer]) -> Result<()> {
    let system = Actor {
        kind: "system",
        id: None,
        name: Some("demo seed".into()),
    };
    let today = today();
    let mut tx = db.begin().await?;
    seed_plan(&mut tx, organization_id, &system).await?;
    for (index, c) in demo.iter().enumerate() {
        let (document, kind) = if c.document_base.len() == 9 {
            (cpf_with_check_digits(c.document_base), "cpf")
        } else {
            (cnpj_with_check_digits(c.document_base), "cnpj")
        };
        let id = ids::new_id("cus");
        let fields = CustomerFields {
            name: c.name.to_string(),
            email: c.email.map(str::to_string),
            phone: c.phone.map(str::to_string),
            address: Some(Address {
                street: "Rua das Acácias".into(),
                number: format!("{}", 100 + index * 17),
                complement: (index % 2 == 0).then(|| "Apto 12".to_string()),
                district: "Centro".into(),
                city: c.city.into(),
                state: c.state.into(),
                zip_code: format!("{:08}", 1_310_100 + index * 1_111),
            }),
            channel_opt_outs: if index == 3 {
                vec!["whatsapp".into()]
            } else {
                Vec::new()
            },
            tags: if index % 2 == 0 {
                vec!["varejo".into()]
            } else {
                vec!["recorrente".into()]
            },
            notes: None,
        };
        let now = now_text();
        customers::insert(
            &mut tx,
            organization_id,
            &id,
            (&document, kind),
            &fields,
            &now,
        )
        .await?;
        events::record(
            &mut tx,
            organization_id,
            "customer.created",
            ("customer", &id),
            &system,
            &CustomerCreatedData { name: c.name },
        )
        .await?;
        for (description, amount, due_in, state, paid) in CHARGES {
            let charge_id = ids::new_id("chg");
            let due = today + Duration::days(*due_in - index as i64);
            let fields = ChargeFields {
                description: description.to_string(),
                amount_cents: amount + index as i64 * 10_00,
                fine_bp: 200,
                interest_bp: 100,
                due_date: due,
                tags: fields.tags.clone(),
                collection_plan_id: None,
            };
            charges::insert(&mut tx, organization_id, &charge_id, &id, &fields, &now).await?;
            events::record(
                &mut tx,
                organization_id,
                "charge.created",
                ("charge", &charge_id),
                &system,
                &ChargeCreatedData {
                    customer_id: &id,
                    amount: Cents(fields.amount_cents),
                    due_date: fields.due_date.into(),
                    agreement_id: None,
                    installment: None,
                },
            )
            .await?;
            if *state != "open" || *paid > 0 {
                let paid = if *state == "paid" {
                    fields.amount_cents
                } else {
                    *paid
                };
                // Paid by the due date (or today, for one not due yet).
                let paid_on = due.min(today);
                charges::set_state(
                    &mut tx,
                    organization_id,
                    &charge_id,
                    state,
                    paid,
                    paid_on,
                    &now,
                )
                .await?;
                // The events of the states the demo sets whole: a partial payment and an
                // agreement have no payment or agreement row here to name.
                let paid_at =
                    Timestamp::new(paid_on.midnight().assume_offset(time::macros::offset!(-3)));
                match *state {
                    "paid" => {
                        let data = ChargePaidData {
                            paid_amount: Cents(paid),
                            paid_at,
                        };
                        events::record(
                            &mut tx,
                            organization_id,
                            "charge.paid",
                            ("charge", &charge_id),
                            &system,
                            &data,
                        )
                        .await?;
                    }
                    "canceled" => {
                        let data = ChargeCanceledData {
                            reason: Some("Pedido cancelado pelo cliente"),
                            dispute_id: None,
                            agreement_id: None,
                        };
                        events::record(
                            &mut tx,
                            organization_id,
                            "charge.canceled",
                            ("charge", &charge_id),
                            &system,
                            &data,
                        )
                        .await?;
                    }
                    _ => {}
                }
            }
        }
    }
    tx.commit().await?;
    Ok(())
}

/// The steps of the demo's standard collection plan: (days from the due date, action,
/// channel, bureau).
const PLAN_STEPS: &[(i64, &str, Option<&str>, Option<&str>)] = &[
    (-3, "notify", Some("email"), None),
    (1, "notify", Some("email"), None),
    (5, "notify", Some("whatsapp"), None),
    (20, "negativate", None, Some("serasa")),
];

async fn seed_plan(
    conn: &mut sqlx::AnyConnection,
    organization_id: &str,
    system: &Actor,
) -> Result<String> {
    let id = ids::new_id("cpl");
    let now = now_text();
    let description = "Lembrete 3 dias antes, e-mail no dia seguinte ao vencimento, WhatsApp após 5 dias, negativação na Serasa após 20.";
    plans::insert_plan(
        conn,
        organization_id,
        &id,
        "Cobrança padrão",
        Some(description),
        &now,
    )
    .await?;
    for (offset_days, action, channel, bureau) in PLAN_STEPS {
        let fields = plans::StepFields {
            offset_days: *offset_days,
            day_count: dunning_domain::collection::DayCount::Calendar,
            action: action.to_string(),
            channel: channel.map(str::to_string),
            template: None,
            bureau: bureau.map(str::to_string),
        };
        plans::insert_step(
            conn,
            organization_id,
            &id,
            &ids::new_id("stp"),
            &fields,
            None,
            &now,
        )
        .await?;
    }
    events::record(
        conn,
        organization_id,
        "collection_plan.created",
        ("collection_plan", &id),
        system,
        &CollectionPlanCreatedData {
            name: "Cobrança padrão",
            steps: i64::try_from(PLAN_STEPS.len()).unwrap_or(i64::MAX),
        },
    )
    .await?;
    Ok(id)
}

/// Write the credentials file readable by its owner only (mode 0600 on Unix): it holds every
/// demo token in clear. The file is written beside its final path and renamed over it, so an
/// older, wider-open file is replaced rather than reused and no reader sees half a file.
pub fn write_credentials(
    path: &std::path::Path,
    credentials: &Credentials,
) -> std::result::Result<(), String> {
    use std::io::Write;
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    std::fs::create_dir_all(parent)
        .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    let text = serde_json::to_string_pretty(credentials).map_err(|e| e.to_string())? + "\n";
    let temporary = path.with_extension("json.tmp");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = (|| {
        // A leftover temporary file keeps its old mode through `open`: set it again.
        let mut file = options.open(&temporary)?;
        #[cfg(unix)]
        file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        format!("cannot write {}: {e}", path.display())
    })
}
