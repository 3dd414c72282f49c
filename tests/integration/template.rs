//! The demo database, migrated and seeded once per build of this test binary and copied for
//! each test. Under nextest every test is a process of its own; seeding hashes eight Argon2id
//! passwords, and doing it in each of them was most of a short test's time.
//!
//! A template is named by [`build_key`]: a rebuilt binary (new migrations, new demo data)
//! never reuses an older one, and neither does a new day (the demo's due dates count from
//! today). The SQLite template lives in `CARGO_TARGET_TMPDIR`; the PostgreSQL one is a
//! database of its own (`crate::postgres`).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dunning_store::Db;
use kobana_dunning::demo::{self, Credentials};
use tokio::sync::OnceCell;

/// The base URL the demo's credentials name; tests never read it, the credentials file does.
pub const BASE_URL: &str = "http://127.0.0.1";

/// Templates of other builds older than this are deleted: a run of another build may still be
/// copying from a younger one.
pub const OLD_TEMPLATE: Duration = Duration::from_secs(3600);

/// What names this build's templates: the test executable's size and modification time, and
/// today's date (UTC, as the demo counts it). Lowercase letters, digits and `_` only, so that
/// it fits in a PostgreSQL name.
pub fn build_key() -> String {
    let exe = std::env::current_exe().expect("the test executable");
    let metadata = std::fs::metadata(&exe).expect("the test executable's metadata");
    let modified = metadata
        .modified()
        .expect("a modification time")
        .duration_since(UNIX_EPOCH)
        .expect("a modification time after 1970")
        .as_nanos();
    let today = dunning_store::today().to_string().replace('-', "");
    format!("{:x}_{modified:x}_{today}", metadata.len())
}

/// The demo seeded into a new database: what each test server gets, before anything else.
pub async fn seed_new(db: &Db, fresh: bool) -> Credentials {
    assert!(fresh, "a test database starts empty");
    demo::seed(db, BASE_URL).await.expect("seed demo")
}

/// The SQLite template of this build, made when no process made it yet.
pub struct SqliteTemplate {
    database: PathBuf,
    credentials: String,
}

impl SqliteTemplate {
    /// This build's template, the same for every test of the process.
    pub async fn get() -> &'static SqliteTemplate {
        static TEMPLATE: OnceCell<SqliteTemplate> = OnceCell::const_new();
        TEMPLATE.get_or_init(SqliteTemplate::find_or_make).await
    }

    /// Copy the template to `file` (which must not exist: a test database starts as the
    /// demo and nothing else) and return the demo's credentials.
    pub fn copy_to(&self, file: &Path) -> Credentials {
        assert!(
            !file.exists(),
            "a test database starts empty: {}",
            file.display()
        );
        std::fs::copy(&self.database, file).expect("copy the template database");
        serde_json::from_str(&self.credentials).expect("template credentials")
    }

    async fn find_or_make() -> SqliteTemplate {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let key = build_key();
        let folder = root.join(format!("demo-{key}"));
        if !folder.exists() {
            sweep_old_templates(root, &key);
            make(&folder).await;
        }
        let credentials =
            std::fs::read_to_string(folder.join("credentials.json")).expect("credentials.json");
        SqliteTemplate {
            database: folder.join("demo.db"),
            credentials,
        }
    }
}

/// Build the template in a folder of its own and rename it to `folder`: a folder by that name
/// is always complete, its database and its credentials from the same seed. Two processes
/// may build at once; the rename of the second fails (the folder exists and is not empty) and
/// it uses the first one's.
async fn make(folder: &Path) {
    let building = folder.with_extension(format!(
        "building-{}-{}",
        std::process::id(),
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("clock")
            .as_nanos()
    ));
    std::fs::create_dir_all(&building).expect("template folder");
    let url = format!("sqlite://{}?mode=rwc", building.join("demo.db").display());
    let (db, fresh) = Db::open(&url).await.expect("open the template database");
    let credentials = seed_new(&db, fresh).await;
    // Everything into the main file, and every connection closed, before it is copied: the
    // copies take `demo.db` alone.
    sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
        .execute(&db.pool)
        .await
        .expect("checkpoint the template");
    db.pool.close().await;
    let json = serde_json::to_string(&credentials).expect("credentials JSON");
    std::fs::write(building.join("credentials.json"), json).expect("write credentials.json");
    if std::fs::rename(&building, folder).is_err() {
        assert!(
            folder.join("credentials.json").exists(),
            "cannot publish the template {}",
            folder.display()
        );
        let _ = std::fs::remove_dir_all(&building);
    }
}

/// Delete the templates of other builds (and unfinished ones) older than [`OLD_TEMPLATE`], so
/// that rebuilding all day does not pile them up.
fn sweep_old_templates(root: &Path, key: &str) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if !name.starts_with("demo-") || name.starts_with(&format!("demo-{key}")) {
            continue;
        }
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > OLD_TEMPLATE);
        if old {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}
