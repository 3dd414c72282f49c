//! PostgreSQL reads outside a transaction (`dunning_store`'s `pg_reads`): what they send to
//! the server, and how many connections a process holds. Through a relay on 127.0.0.1 that
//! counts what the client writes; skipped without PostgreSQL (failed under `CI=true`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use dunning_store::customers::{self, CustomerFilter};
use dunning_store::{Conditions, Db, DbSettings, ListQuery, PageRequest};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::postgres::fresh_postgres_url;

/// A TCP relay to 127.0.0.1:5432 counting the client's writes (each arrives as one read here,
/// since a client that waits for an answer between two writes cannot have them merged), and
/// holding each of the server's answers back for `delay` milliseconds once it is set.
pub(crate) struct CountingRelay {
    pub(crate) port: u16,
    writes: Arc<AtomicUsize>,
    delay: Arc<AtomicU64>,
}

impl CountingRelay {
    pub(crate) async fn start() -> CountingRelay {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind relay");
        let port = listener.local_addr().expect("address").port();
        let writes = Arc::new(AtomicUsize::new(0));
        let counted = writes.clone();
        let delay = Arc::new(AtomicU64::new(0));
        let delays = delay.clone();
        tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                let counted = counted.clone();
                let delay = delays.clone();
                tokio::spawn(async move {
                    let Ok(outbound) = TcpStream::connect("127.0.0.1:5432").await else {
                        return;
                    };
                    let (mut from_client, mut to_client) = inbound.into_split();
                    let (mut from_server, mut to_server) = outbound.into_split();
                    tokio::spawn(async move {
                        let mut buffer = vec![0u8; 64 * 1024];
                        while let Ok(n) = from_server.read(&mut buffer).await {
                            let held = delay.load(Ordering::SeqCst);
                            tokio::time::sleep(std::time::Duration::from_millis(held)).await;
                            if n == 0 || to_client.write_all(&buffer[..n]).await.is_err() {
                                break;
                            }
                        }
                    });
                    let mut buffer = vec![0u8; 64 * 1024];
                    while let Ok(n) = from_client.read(&mut buffer).await {
                        if n == 0 || to_server.write_all(&buffer[..n]).await.is_err() {
                            break;
                        }
                        counted.fetch_add(1, Ordering::SeqCst);
                    }
                });
            }
        });
        CountingRelay {
            port,
            writes,
            delay,
        }
    }

    pub(crate) fn writes(&self) -> usize {
        self.writes.load(Ordering::SeqCst)
    }
}

/// The client's writes while `reads` reads run one after another.
pub(crate) async fn writes_during<F: Future<Output = ()>>(
    relay: &CountingRelay,
    reads: F,
) -> usize {
    let before = relay.writes();
    reads.await;
    // An exchange after the last read's answer (a ping on release) comes at once.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    relay.writes() - before
}

// sqlx's pool pinged every connection it took back (a second round trip per read, with no
// setting to turn it off): these reads run on connections of their own, pinged only when
// they sat idle.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_reads_outside_a_transaction_are_one_exchange_per_statement() {
    let Some(url) = fresh_postgres_url().await else {
        return;
    };
    let relay = CountingRelay::start().await;
    let relayed = url.replace("127.0.0.1:5432", &format!("127.0.0.1:{}", relay.port));
    assert_ne!(relayed, url, "the test database is on 127.0.0.1:5432");
    let (db, _) = Db::open(&relayed).await.expect("open");
    let page = PageRequest {
        page: 1,
        per_page: 25,
    };
    let everyone = CustomerFilter::default();
    let list = || customers::list(&db, "org_relay", &everyone, page);
    // The first read of each kind connects and prepares its statements.
    customers::get(&db, "org_relay", "cus_none")
        .await
        .expect("read");
    list().await.expect("list");

    let by_id = writes_during(&relay, async {
        for _ in 0..10 {
            let found = customers::get(&db, "org_relay", "cus_none").await;
            assert!(found.expect("read").is_none());
        }
    })
    .await;
    assert_eq!(by_id, 10, "one exchange per read by id");
    let lists = writes_during(&relay, async {
        for _ in 0..10 {
            assert_eq!(list().await.expect("list").total, 0);
        }
    })
    .await;
    assert_eq!(
        lists, 10,
        "a list page is one statement: its rows carry their count"
    );
    // An empty page past the first has no row to carry the count: it is asked apart.
    let past_the_end = PageRequest { page: 2, ..page };
    let first = customers::list(&db, "org_relay", &everyone, past_the_end).await;
    first.expect("list (prepares its statements)");
    let empty = writes_during(&relay, async {
        for _ in 0..10 {
            let read = customers::list(&db, "org_relay", &everyone, past_the_end).await;
            assert_eq!(read.expect("list").total, 0);
        }
    })
    .await;
    assert_eq!(
        empty, 20,
        "an empty page past the first is its rows, then its count"
    );
    // What `GET /v1/me` says of Pix (the key's type, a PSP connection): one statement, where
    // reading the two rows was two.
    dunning_store::pix::status(&db, "org_relay")
        .await
        .expect("status (prepares its statement)");
    let status = writes_during(&relay, async {
        for _ in 0..10 {
            let (key_type, dynamic) = dunning_store::pix::status(&db, "org_relay")
                .await
                .expect("status");
            assert!(key_type.is_none() && !dynamic);
        }
    })
    .await;
    assert_eq!(status, 10, "one exchange per Pix status");
}

// The pool and the reads' connections share the configured number: replicas × it is what
// the server's `max_connections` is planned by.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_holds_no_more_connections_than_the_pool_size_under_concurrent_reads_and_writes() {
    let Some(url) = fresh_postgres_url().await else {
        return;
    };
    let settings = DbSettings {
        pool_size: Some(4),
        ..DbSettings::default()
    };
    let (db, _) = Db::open_with(&url, &settings).await.expect("open");
    let name = url.rsplit('/').next().expect("a database name").to_string();
    let mut tasks = Vec::new();
    for n in 0..24 {
        let db = db.clone();
        tasks.push(tokio::spawn(async move {
            for _ in 0..5 {
                if n % 3 == 0 {
                    let mut tx = db.begin().await.expect("begin");
                    sqlx::query("SELECT pg_sleep(0.005)")
                        .execute(&mut *tx)
                        .await
                        .expect("write side");
                    tx.commit().await.expect("commit");
                } else {
                    customers::list(
                        &db,
                        "org_busy",
                        &CustomerFilter::default(),
                        PageRequest {
                            page: 1,
                            per_page: 25,
                        },
                    )
                    .await
                    .expect("list");
                }
            }
        }));
    }
    for task in tasks {
        task.await.expect("task");
    }
    let mut probe = <sqlx::AnyConnection as sqlx::Connection>::connect(&url)
        .await
        .expect("probe");
    let held: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
    )
    .bind(&name)
    .fetch_one(&mut probe)
    .await
    .expect("count");
    assert!(held <= 4, "{held} connections held with a pool size of 4");
    assert!(held >= 2, "both the pool and the reads connected: {held}");
}

// A read whose caller gave up midway (a client that went away) must not leave its connection
// in the middle of an exchange for the next read to find the old answer on it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_read_dropped_midway_leaves_no_half_read_answer_for_the_next_one() {
    let Some(url) = fresh_postgres_url().await else {
        return;
    };
    let relay = CountingRelay::start().await;
    let relayed = url.replace("127.0.0.1:5432", &format!("127.0.0.1:{}", relay.port));
    let settings = DbSettings {
        pool_size: Some(2),
        connect_timeout: std::time::Duration::from_secs(10),
        ..DbSettings::default()
    };
    let (db, _) = Db::open_with(&relayed, &settings).await.expect("open");
    let organization = dunning_store::orgs::create_organization(&db, "Relay", "12345678000195")
        .await
        .expect("organization");
    let org = organization.id.as_str();
    let mut tx = db.begin().await.expect("begin");
    for (id, name, document) in [
        ("cus_a", "Ana", "52998224725"),
        ("cus_b", "Bia", "11144477735"),
    ] {
        let fields = customers::CustomerFields {
            name: name.into(),
            email: None,
            phone: None,
            address: None,
            channel_opt_outs: vec![],
            tags: vec![],
            notes: None,
        };
        customers::insert(
            &mut tx,
            org,
            id,
            (document, "cpf"),
            &fields,
            &dunning_store::now_text(),
        )
        .await
        .expect("insert");
    }
    tx.commit().await.expect("commit");
    // One reader connection, made and its statement prepared; then each answer is slow.
    let first = customers::get(&db, org, "cus_a").await.expect("read");
    assert_eq!(first.map(|c| c.name).as_deref(), Some("Ana"));
    let slow = std::time::Duration::from_millis(300);
    relay.delay.store(300, Ordering::SeqCst);
    for _ in 0..3 {
        // Given up while its answer is on the way...
        let gave_up = tokio::time::timeout(slow / 3, customers::get(&db, org, "cus_a")).await;
        assert!(gave_up.is_err(), "the relay holds the answer back");
        // ...the next read gets its own answer, not the one left on the wire.
        let next = customers::get(&db, org, "cus_b").await.expect("read");
        assert_eq!(next.map(|c| c.name).as_deref(), Some("Bia"));
    }
}

dunning_store::row! {
    /// A row of the `readings` table below, read as a list reads its rows.
    struct Reading {
        id: String,
        n: i64,
    }
}

dunning_store::row! {
    /// A row of the `notes` table below: a field that may be `NULL`.
    struct Note {
        id: String,
        n: Option<i64>,
    }
}

fn readings() -> ListQuery {
    ListQuery::new(
        Conditions::for_organization("org_1"),
        "id, n",
        "FROM readings",
        "id",
    )
}

// A column's values after its first that is not `NULL` are read without checking their type
// (every row of an answer has the same column types): that first check stands guard, so a
// column of another type than its field is an error naming it, never a value misread from
// its bytes (`'12345678'` is eight bytes, as a `BIGINT` is).
#[tokio::test]
async fn postgres_lists_check_each_column_type_at_its_first_value_and_read_every_row() {
    let Some(url) = fresh_postgres_url().await else {
        return;
    };
    let (db, _) = Db::open(&url).await.expect("open");
    let page = PageRequest {
        page: 1,
        per_page: 25,
    };
    execute(
        &db,
        &[
            "CREATE TABLE readings (organization_id TEXT, id TEXT, n BIGINT)",
            "INSERT INTO readings VALUES ('org_1', 'a', 1), ('org_1', 'b', -2), ('org_1', 'c', 9007199254740993), ('org_2', 'd', 4)",
        ],
    )
    .await;
    let read = readings().fetch_rows::<Reading>(&db, page).await;
    let read = read.expect("a list of the right types");
    let values: Vec<_> = read.items.iter().map(|r| (r.id.as_str(), r.n)).collect();
    assert_eq!(values, [("a", 1), ("b", -2), ("c", 9_007_199_254_740_993)]);
    assert_eq!((read.total, read.total_exact), (3, true));

    execute(
        &db,
        &[
            "ALTER TABLE readings ALTER COLUMN n TYPE TEXT USING '12345678'",
            "UPDATE readings SET n = '1234567' || id",
        ],
    )
    .await;
    // Another page size is another statement, prepared for the new column type (the one
    // prepared before would be refused by the server: its result type changed).
    let other = PageRequest {
        per_page: 24,
        ..page
    };
    let read = readings().fetch_rows::<Reading>(&db, other).await;
    assert_undecodable_column(read.map(drop), "n");

    // A column whose first value is `NULL` is checked at its first value that is not.
    execute(
        &db,
        &[
            "CREATE TABLE notes (organization_id TEXT, id TEXT, n TEXT)",
            "INSERT INTO notes VALUES ('org_1', 'a', NULL), ('org_1', 'b', '12345678')",
        ],
    )
    .await;
    let notes = ListQuery::new(
        Conditions::for_organization("org_1"),
        "id, n",
        "FROM notes",
        "id",
    );
    let read = notes.fetch_rows::<Note>(&db, page).await;
    assert_undecodable_column(read.map(drop), "n");
}

/// `read` failed on a value its field cannot hold, naming the column.
fn assert_undecodable_column(read: dunning_store::Result<()>, column: &str) {
    let error = read.expect_err("text is not a BIGINT");
    assert!(
        matches!(&error, dunning_store::StoreError::Sql(sqlx::Error::ColumnDecode { index, .. }) if index == column),
        "{error}"
    );
}

async fn execute(db: &Db, statements: &[&str]) {
    for &sql in statements {
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&db.pool)
            .await
            .expect(sql);
    }
}
