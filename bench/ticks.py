"""What an idle server's background work costs as the tables grow (issue 49).

    .venv/bin/python bench/ticks.py                     # SIZES="10000 100000 1000000"
    OLD_BIN=/path/to/an/older/kobana-dunning .venv/bin/python bench/ticks.py    # A/B
    NEW_BIN=... uses that binary instead of building this tree's release one
    .venv/bin/python bench/ticks.py --write             # also into bench/RESULTS.md
    ENGINE=postgres .venv/bin/python bench/ticks.py     # on PostgreSQL (server + backends' CPU)

For each size: a SQLite database with the demo organizations and SIZE more charges of the first
one (`kobana-dunning demo --customers SIZE/20 --charges SIZE`, by OLD_BIN when given, so both
binaries read the same rows; kept in bench/.data/ticks-SIZE and reused; above GENERATED charges —
1 000 000 on SQLite, 100 000 on PostgreSQL, where the generator writes ~550 a second — the demo
makes GENERATED and SQL copies that organization's charges under new ids until SIZE), then the demo's
collection plan attached to every open charge of that organization (by SQL: the generator
attaches none; attached as of tomorrow, so that no step is due today and every tick is idle),
so that the plans' worker has the most charges it could have to look at.

Each binary then runs on its own copy of that database with every worker ticking once a second
(`--collection-interval 1s`), after the first ticks have passed (the new binary's migration
asks it to look once at every charge with a plan: that first pass is timed and printed too),
and the server's CPU time (utime + stime of /proc/PID/stat) over WINDOW seconds (20) is read;
ROUNDS rounds (3) alternate the binaries. Printed: CPU milliseconds per second of an idle server
(about one tick of each worker), per size, and each size against the smallest. No timed
assertions: figures to compare, ratios first."""

from __future__ import annotations

import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from results_md import write_block

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SIZES = [int(s) for s in os.environ.get("SIZES", "10000 100000 1000000").split()]
WINDOW = float(os.environ.get("WINDOW", "20"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
ORGANIZATION = "Padaria Pão Dourado Ltda"
# ENGINE=postgres: each size a template database on 127.0.0.1:5432 (kept, as the SQLite files
# are), each run a copy of it; the idle cost then counts the PostgreSQL backends serving the
# server too, since that is where most of a tick's work is.
ENGINE = os.environ.get("ENGINE", "sqlite")
PG = "postgres://postgres@127.0.0.1:5432"
# STATEMENTS=1 (PostgreSQL): print what each window's statements cost (pg_stat_statements;
# planning time too with pg_stat_statements.track_planning on). Loading the library means
# restarting PostgreSQL: a server restarted from a shell belongs to that shell's session and
# stops when it ends, so on a machine whose CI runs after the session, restart it back the way
# the machine started it, or leave STATEMENTS off.
STATEMENTS = os.environ.get("STATEMENTS") == "1"
# Charges the demo generator writes; a larger size copies them (`copy_charges`).
GENERATED = int(os.environ.get("GENERATED", "100000" if ENGINE == "postgres" else "1000000"))


def psql(sql: str, database: str = "postgres") -> str:
    return subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", database, "-tAc", sql],
                          check=True, capture_output=True, text=True).stdout.strip()


def release_binary() -> Path:
    subprocess.run(["cargo", "build", "--release", "--locked", "-q"], cwd=ROOT, check=True)
    out = subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps", "--offline"],
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout
    import json
    return Path(json.loads(out)["target_directory"]) / "release" / "kobana-dunning"


def database_url(path: Path) -> str:
    return f"sqlite://{path}?mode=rwc"


def copy_charges(execute, columns: list[str], org_sql: str, generated: int, size: int) -> None:
    """Copy the organization's generated charges under new ids (`chg_` + `kN` + the original's
    tail, so a copy's id is two characters longer than any generated one) until it has about
    `size`; the copies share the originals' customers, which is all the ticks read."""
    listed = ", ".join(columns)
    copied = ", ".join("'chg_k{n}' || substr(id, 5)" if c == "id" else c for c in columns)
    for n in range(1, max(size // generated, 1)):
        execute(f"INSERT INTO charges ({listed}) SELECT {copied.format(n=n)} FROM charges "
                f"WHERE organization_id = {org_sql} AND length(id) = 20")
        print(f"  copy {n} of {size // generated - 1} made", flush=True)


def generate_postgres(binary: Path, size: int) -> str:
    """The size's template database, made once and kept; its name."""
    name = f"bench_ticks_{size}_template"
    data = HERE / ".data" / f"ticks-{size}-pg"
    if (data / "ready").exists():
        return name
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    psql(f"DROP DATABASE IF EXISTS {name}")
    psql(f"CREATE DATABASE {name}")
    started = time.monotonic()
    generated = min(size, GENERATED)
    subprocess.run([str(binary), "demo", "--customers", str(max(generated // 20, 1)), "--charges", str(generated),
                    "--database-url", f"{PG}/{name}"], cwd=data, check=True, capture_output=True)
    if size > generated:
        columns = psql("SELECT string_agg(column_name, ' ' ORDER BY ordinal_position) FROM information_schema.columns "
                       "WHERE table_name = 'charges'", name).split()
        copy_charges(lambda sql: psql(sql, name), columns,
                     f"(SELECT id FROM organizations WHERE name = '{ORGANIZATION}')", generated, size)
    tomorrow = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 86400))
    org = f"(SELECT id FROM organizations WHERE name = '{ORGANIZATION}')"
    psql(f"UPDATE charges SET collection_plan_id = (SELECT id FROM collection_plans WHERE organization_id = {org} "
         f"ORDER BY id LIMIT 1), plan_attached_at = '{tomorrow}' WHERE organization_id = {org} "
         f"AND state = 'open' AND collection_plan_id IS NULL", name)
    psql("UPDATE charges SET steps_due_on = '0000-01-01' WHERE collection_plan_id IS NOT NULL", name)
    psql("VACUUM ANALYZE", name)
    open_with_plan = psql("SELECT COUNT(*) FROM charges WHERE state = 'open' AND collection_plan_id IS NOT NULL",
                          name)
    (data / "ready").write_text(f"{open_with_plan}\n")
    print(f"  generated {size} charges on PostgreSQL in {time.monotonic() - started:.0f} s "
          f"({open_with_plan} open with a plan)", flush=True)
    return name


def generate(binary: Path, size: int) -> Path:
    """The size's database, made once and kept."""
    data = HERE / ".data" / f"ticks-{size}"
    db = data / "bench.db"
    if (data / "ready").exists():
        return db
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    started = time.monotonic()
    generated = min(size, GENERATED)
    subprocess.run([str(binary), "demo", "--customers", str(max(generated // 20, 1)), "--charges", str(generated),
                    "--database-url", database_url(db)], cwd=data, check=True, capture_output=True)
    with sqlite3.connect(db) as conn:
        org = conn.execute("SELECT id FROM organizations WHERE name = ?", (ORGANIZATION,)).fetchone()[0]
        if size > generated:
            columns = [row[1] for row in conn.execute("PRAGMA table_info(charges)")]
            copy_charges(lambda sql: (conn.execute(sql), conn.commit()), columns, f"'{org}'", generated, size)
        plan = conn.execute("SELECT id FROM collection_plans WHERE organization_id = ? ORDER BY id LIMIT 1",
                            (org,)).fetchone()[0]
        # Attached "tomorrow": no step is due today (a step whose day is before the plan's
        # attachment never runs), so every tick measured is an idle one for both binaries,
        # not one sending the notices of the day.
        tomorrow = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 86400))
        conn.execute("UPDATE charges SET collection_plan_id = ?, plan_attached_at = ? "
                     "WHERE organization_id = ? AND state = 'open' AND collection_plan_id IS NULL",
                     (plan, tomorrow, org))
        columns = [row[1] for row in conn.execute("PRAGMA table_info(charges)")]
        if "steps_due_on" in columns:
            # What the migration writes for a charge with a plan: look at it once.
            conn.execute("UPDATE charges SET steps_due_on = '0000-01-01' WHERE collection_plan_id IS NOT NULL")
        open_with_plan = conn.execute("SELECT COUNT(*) FROM charges WHERE state = 'open' "
                                      "AND collection_plan_id IS NOT NULL").fetchone()[0]
    (data / "ready").write_text(f"{open_with_plan}\n")
    print(f"  generated {size} charges in {time.monotonic() - started:.0f} s "
          f"({open_with_plan} open with a plan)", flush=True)
    return db


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def waiting_for_a_look(db: Path) -> int:
    """Charges the new binary still has to look at once (0 for a schema without the column)."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as conn:
        columns = [row[1] for row in conn.execute("PRAGMA table_info(charges)")]
        if "steps_due_on" not in columns:
            return 0
        return conn.execute("SELECT COUNT(*) FROM charges WHERE steps_due_on = '0000-01-01' "
                            "AND state = 'open' AND open_dispute_id IS NULL").fetchone()[0]


def backends_cpu_seconds(database: str) -> float:
    """CPU seconds of the PostgreSQL backends serving `database`'s clients now (the server's
    connections: not an autovacuum worker, whose work the first pass caused)."""
    total = 0.0
    for pid in psql(f"SELECT pid FROM pg_stat_activity WHERE datname = '{database}' "
                    f"AND backend_type = 'client backend' AND pid <> pg_backend_pid()").split():
        try:
            total += cpu_seconds(int(pid))
        except OSError:
            pass
    return total


def print_statements(database: str, elapsed: float) -> None:
    """The statements the window ran on `database`, most time first (STATEMENTS=1; needs
    `shared_preload_libraries = 'pg_stat_statements'` and the extension in `postgres`)."""
    rows = psql("SELECT round((total_exec_time / " + f"{elapsed})::numeric, 3), "
                "round((total_plan_time / " + f"{elapsed})::numeric, 3), calls, rows, "
                "shared_blks_hit + shared_blks_read, left(regexp_replace(query, '\\s+', ' ', 'g'), 150) "
                "FROM pg_stat_statements JOIN pg_database d ON d.oid = dbid "
                f"WHERE d.datname = '{database}' ORDER BY total_exec_time DESC LIMIT 12")
    print("    exec ms/s | plan ms/s | calls | rows | buffers | statement")
    for row in rows.splitlines():
        print("    " + " | ".join(row.split("|", 5)))


def wait_for_autovacuum(database: str) -> None:
    """Until autovacuum has been through the charges the first pass rewrote (their dead rows
    under 2 % of the live ones), and no autovacuum worker runs on the database.

    The first pass writes every charge with a plan once (its next day replaces the migration's
    mark), which leaves as many dead entries at the low end of `charges_steps_due`; the due read
    walks them from the index's start, every tick, until a vacuum removes them (at 1 000 000
    charges: 7 000 buffers a tick, 2× the idle cost). That is the first pass's cost, not an
    idle tick's; autovacuum comes to the table within a minute or two of the pass. Where
    autovacuum is off (as on the machines this project is tested on; PostgreSQL's default is
    on), the script runs the VACUUM autovacuum would have run."""
    started = time.monotonic()
    if psql("SHOW autovacuum", database) == "off":
        psql("VACUUM charges", database)
        print(f"  autovacuum is off: VACUUM charges in {time.monotonic() - started:.0f} s", flush=True)
        return
    while True:
        dead, live, workers = psql(
            "SELECT n_dead_tup, n_live_tup, (SELECT COUNT(*) FROM pg_stat_activity WHERE datname = "
            f"current_database() AND backend_type = 'autovacuum worker') FROM pg_stat_user_tables "
            "WHERE relname = 'charges'", database).split("|")
        if int(dead) * 50 <= int(live) and workers == "0":
            break
        if time.monotonic() - started > 900:
            print(f"  (autovacuum not done after 15 minutes: {dead} dead charges of {live}; measured anyway)")
            break
        time.sleep(5)
    print(f"  waited {time.monotonic() - started:.0f} s for autovacuum", flush=True)


def measure(binary: Path, source: Path | str, work: Path) -> tuple[float, float]:
    """(seconds until the first pass was done, CPU ms per second idle afterwards: the server's,
    and on PostgreSQL its backends' too)."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    if isinstance(source, str):
        database = f"bench_ticks_run_{work.name.replace('-', '_')}"
        psql(f"DROP DATABASE IF EXISTS {database}")
        psql(f"CREATE DATABASE {database} TEMPLATE {source}")
        url = f"{PG}/{database}"
        look = lambda: int(psql("SELECT COUNT(*) FROM charges WHERE steps_due_on = '0000-01-01' "  # noqa: E731
                                "AND state = 'open' AND open_dispute_id IS NULL", database))
        database_cpu = lambda: backends_cpu_seconds(database)  # noqa: E731
    else:
        database = None
        db = work / "bench.db"
        shutil.copy(source, db)
        url = database_url(db)
        look = lambda: waiting_for_a_look(db)  # noqa: E731
        database_cpu = lambda: 0.0  # noqa: E731
    port = free_port()
    server = subprocess.Popen(
        [str(binary), "--bind", f"127.0.0.1:{port}", "--database-url", url,
         "--collection-interval", "1s"],
        cwd=work, stdout=subprocess.DEVNULL, stderr=open(work / "server.log", "w"),
        env={**os.environ, "RUST_LOG": "warn"})
    try:
        started = time.monotonic()
        time.sleep(3)
        while look() > 0:
            if server.poll() is not None:
                raise SystemExit(f"the server stopped: {(work / 'server.log').read_text()[-2000:]}")
            time.sleep(1)
        first_pass = time.monotonic() - started
        # The ticks after the first pass settle what it left; and the housekeeping worker's
        # first round (a minute after the start) refreshes the planner's statistics, once, of
        # a table the first pass just rewrote: not an idle tick, so not measured.
        time.sleep(max(3.0, 70 - (time.monotonic() - started)))
        if database:
            wait_for_autovacuum(database)
        if database and STATEMENTS:
            psql("SELECT pg_stat_statements_reset()")
        server_before, backends_before, at = cpu_seconds(server.pid), database_cpu(), time.monotonic()
        time.sleep(WINDOW)
        server_used = cpu_seconds(server.pid) - server_before
        used = server_used + database_cpu() - backends_before
        elapsed = time.monotonic() - at
        if database:
            print(f"    server {server_used * 1000 / elapsed:.1f} CPU-ms/s, its backends "
                  f"{(used - server_used) * 1000 / elapsed:.1f}", flush=True)
        if database and STATEMENTS:
            print_statements(database, elapsed)
        return first_pass, used * 1000 / elapsed
    finally:
        server.terminate()
        try:
            server.wait(timeout=120)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        if database:
            psql(f"DROP DATABASE IF EXISTS {database}")


def main() -> None:
    new = Path(os.environ["NEW_BIN"]) if os.environ.get("NEW_BIN") else release_binary()
    old = Path(os.environ["OLD_BIN"]) if os.environ.get("OLD_BIN") else None
    binaries = [("new", new)] + ([("old", old)] if old else [])
    load = Path("/proc/loadavg").read_text().split()[:3]
    results: dict[tuple[str, int], list[float]] = {}
    passes: dict[tuple[str, int], float] = {}
    for size in SIZES:
        source = generate_postgres(old or new, size) if ENGINE == "postgres" else generate(old or new, size)
        for round_ in range(ROUNDS):
            for label, binary in (binaries if round_ % 2 == 0 else list(reversed(binaries))):
                first, idle = measure(binary, source, HERE / ".data" / f"ticks-{size}-{label}")
                results.setdefault((label, size), []).append(idle)
                passes[(label, size)] = first
                print(f"  {label} {size:>9} charges: first pass {first:6.1f} s, idle {idle:7.1f} CPU-ms/s",
                      flush=True)
    lines = ["| binary | charges | open with a plan | first pass (s) | idle CPU-ms per second (median of rounds) | vs smallest |",
             "|---|---:|---:|---:|---:|---:|"]
    for label, _ in binaries:
        smallest = None
        for size in SIZES:
            values = sorted(results[(label, size)])
            median = values[len(values) // 2]
            smallest = smallest or median
            suffix = "-pg" if ENGINE == "postgres" else ""
            with_plan = (HERE / ".data" / f"ticks-{size}{suffix}" / "ready").read_text().strip()
            lines.append(f"| {label} | {size:,} | {int(with_plan):,} | {passes[(label, size)]:.1f} | "
                         f"{median:.1f} | {median / smallest:.1f}× |")
    table = "\n".join([f"Load average before: {' '.join(load)}; WINDOW={WINDOW:.0f} s, ROUNDS={ROUNDS}, "
                       f"{'PostgreSQL (server + its backends)' if ENGINE == 'postgres' else 'SQLite'}, "
                       f"every worker ticking each second.", "", *lines])
    print(table)
    if "--write" in sys.argv:
        write_block("ticks", "An idle server's background work by table size (`bench/ticks.py`)", table)

if __name__ == "__main__":
    main()
