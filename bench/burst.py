"""A due-day burst: how long the server takes to send the notices of CHARGES charges falling due
the same day with the demo plan (issue 49).

    python3 bench/burst.py                              # 100 000 charges, SQLite and PostgreSQL
    python3 bench/burst.py --charges 20000 --write      # also into bench/RESULTS.md
    python3 bench/burst.py --no-postgres                # SQLite only
    python3 bench/burst.py --profile                    # and where the CPU went (perf, whole machine)
    python3 bench/burst.py --progress                   # every 10 s: deliveries made and still queued
    NEW_BIN=/path/to/kobana-dunning python3 bench/burst.py   # that binary, not this tree's release one

The data: `kobana-dunning demo --customers G/20 --charges G` with G = 2 × CHARGES (the generator
leaves about 55 % of its charges open) once per engine, kept (SQLite in bench/.data/burst-G/,
PostgreSQL as the template database bench_burst_G_template), copied for each run. On the copy,
by SQL, CHARGES open undisputed charges of the first organization get the demo plan, attached
today: 95 % fall due in three days,
so that the plan's "3 days before, by e-mail" step is due today; 5 % fell due five days ago, so
that its "5 days after, by WhatsApp" step is (the plan's other steps are before the attachment and
never run). Customers without an e-mail address or a phone get one.

The parties: `bench/burst_parties.py` in its own process, an SMTP relay that accepts every
message (plain TCP on loopback, `?tls=none`) and a Twilio stand-in that takes at most 100
messages a second and answers the rest 429 with `Retry-After: 1`.

Each run starts the release server (one replica, or two on one PostgreSQL database) with the
collection worker ticking every second, and measures from the moment every replica answers
`/livez` (its first tick comes within a second) to the last message the relay or the stand-in
accepted: seconds, messages a second (e-mails alone too, from the first to the last), the
servers' CPU seconds (utime + stime of /proc/PID/stat, all replicas), on PostgreSQL the
backends' serving the bench database (read from pg_stat_activity as the burst ends), the parties' (what the
relay and the stand-in cost: they share the machine) and peak RSS (VmHWM, the largest replica). Figures only:
nothing here is asserted."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Callable

from results_md import write_block

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
ORGANIZATION = "Padaria Pão Dourado Ltda"
WHATSAPP_SHARE = 20  # one charge in 20
TIMEOUT_S = float(os.environ.get("TIMEOUT_S", "900"))
PG = "postgres://postgres@127.0.0.1:5432"
# Deliveries made, and those still waiting to be sent (`--progress`).
QUEUE_QUERY = "SELECT count(*), count(*) FILTER (WHERE status = 'queued') FROM deliveries"


def log(text: str) -> None:
    print(text, flush=True)


def release_binary() -> Path:
    if os.environ.get("NEW_BIN"):
        return Path(os.environ["NEW_BIN"])
    subprocess.run(["cargo", "build", "--release", "--locked", "-q"], cwd=ROOT, check=True)
    out = subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps", "--offline"],
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return Path(json.loads(out)["target_directory"]) / "release" / "kobana-dunning"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def psql(sql: str, database: str = "postgres") -> str:
    return subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", database, "-tAc", sql],
                          check=True, capture_output=True, text=True).stdout.strip()


def generate(binary: Path, url: str, charges: int, workdir: Path) -> float:
    started = time.monotonic()
    workdir.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(binary), "demo", "--customers", str(max(charges // 20, 1)), "--charges",
                    str(charges), "--database-url", url], cwd=workdir, check=True,
                   capture_output=True)
    return time.monotonic() - started


def generated(charges: int) -> int:
    """Charges to generate for `charges` open ones: the generator leaves about 55 % open."""
    return charges * 2


def sqlite_source(binary: Path, charges: int) -> Path:
    charges = generated(charges)
    data = HERE / ".data" / f"burst-{charges}"
    if not (data / "ready").exists():
        shutil.rmtree(data, ignore_errors=True)
        seconds = generate(binary, f"sqlite://{data / 'bench.db'}?mode=rwc", charges, data)
        with sqlite3.connect(data / "bench.db") as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        (data / "ready").write_text(f"{seconds:.0f}\n")
        log(f"  generated {charges} charges on SQLite in {seconds:.0f} s")
    return data / "bench.db"


def postgres_template(binary: Path, charges: int) -> str:
    charges = generated(charges)
    name = f"bench_burst_{charges}_template"
    if psql(f"SELECT 1 FROM pg_database WHERE datname = '{name}'") != "1" or \
            psql("SELECT COUNT(*) FROM schema_migrations", name) == "0":
        psql(f"DROP DATABASE IF EXISTS {name}")
        psql(f"CREATE DATABASE {name}")
        seconds = generate(binary, f"{PG}/{name}", charges, HERE / ".data" / f"burst-{charges}-pg")
        log(f"  generated {charges} charges on PostgreSQL in {seconds:.0f} s")
    return name


def brasilia_day(offset_days: int) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(time.time() - 3 * 3600 + offset_days * 86400))


def burst_statements(charges: int) -> list[str]:
    """The SQL (both engines) that makes today the due day of the demo plan's notices."""
    org = f"(SELECT id FROM organizations WHERE name = '{ORGANIZATION}')"
    plan = f"(SELECT MIN(id) FROM collection_plans WHERE organization_id = {org})"
    attached = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() - 60))
    collectable = f"organization_id = {org} AND state = 'open' AND open_dispute_id IS NULL"
    return [
        f"UPDATE customers SET email = 'cliente.' || id || '@example.com.br' "
        f"WHERE organization_id = {org} AND email IS NULL",
        f"UPDATE customers SET phone = '+5511990000000' WHERE organization_id = {org} AND phone IS NULL",
        f"UPDATE customers SET channel_opt_outs = '[]' WHERE organization_id = {org}",
        f"UPDATE charges SET collection_plan_id = {plan}, plan_attached_at = '{attached}', "
        f"due_date = '{brasilia_day(3)}', steps_due_on = '0000-01-01', "
        f"steps_revision = steps_revision + 1 WHERE id IN (SELECT id FROM charges "
        f"WHERE {collectable} ORDER BY id LIMIT {charges})",
        f"UPDATE charges SET due_date = '{brasilia_day(-5)}' WHERE id IN (SELECT id FROM charges "
        f"WHERE {collectable} AND collection_plan_id IS NOT NULL ORDER BY id "
        f"LIMIT {charges // WHATSAPP_SHARE})",
    ]


def counts_query() -> str:
    org = f"(SELECT id FROM organizations WHERE name = '{ORGANIZATION}')"
    return (f"SELECT COUNT(*) FROM charges WHERE organization_id = {org} AND state = 'open' "
            f"AND open_dispute_id IS NULL")


def due_today(collectable: int, charges: int) -> tuple[int, int]:
    """The e-mails and WhatsApp messages the burst sends."""
    if collectable < charges:
        sys.exit(f"only {collectable} collectable charges were generated, not {charges}")
    return charges - charges // WHATSAPP_SHARE, charges // WHATSAPP_SHARE


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def start_server(binary: Path, url: str, workdir: Path, smtp_port: int, twilio_port: int,
                 n: int) -> tuple[subprocess.Popen, int]:
    port = free_port()
    home = workdir / f"replica-{n}"
    home.mkdir(parents=True, exist_ok=True)
    server = subprocess.Popen(
        [str(binary), "--bind", f"127.0.0.1:{port}", "--database-url", url,
         "--collection-interval", "1s",
         "--smtp-url", f"smtp://127.0.0.1:{smtp_port}?tls=none&from=cobranca@paodourado.com.br",
         "--twilio-account-sid", "AC0123456789abcdef0123456789abcdef",
         "--twilio-auth-token", "bench-twilio-auth-token",
         "--twilio-sms-from", "+5511940000001",
         "--twilio-whatsapp-from", "whatsapp:+5511940000002",
         "--twilio-api-url", f"http://127.0.0.1:{twilio_port}"],
        cwd=home, stdout=subprocess.DEVNULL, stderr=open(home / "server.log", "w"),
        env={**os.environ, "RUST_LOG": "warn"})
    return server, port


def answers(port: int) -> bool:
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/livez", timeout=2).close()
        return True
    except OSError:
        return False


def wait_ready(server: subprocess.Popen, port: int, log_file: Path) -> None:
    deadline = time.monotonic() + 120
    while not answers(port):
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            sys.exit(f"the server did not start: {log_file.read_text()[-2000:]}")
        time.sleep(0.05)


def read_status(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def start_profile(workdir: Path) -> subprocess.Popen:
    """`perf record` of the whole machine (the servers, the database, the parties, and whatever
    else runs): where the burst's CPU goes, by process and by function."""
    return subprocess.Popen(["perf", "record", "-a", "-F", "99", "-o", str(workdir / "perf.data")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop_profile(perf: subprocess.Popen, workdir: Path) -> str:
    perf.send_signal(2)
    perf.wait(timeout=60)
    report = []
    for sort, limit in (("comm", "1"), ("comm,dso,sym", "1.5")):
        out = subprocess.run(["perf", "report", "-i", str(workdir / "perf.data"), "--stdio",
                              "--sort", sort, "--percent-limit", limit],
                             capture_output=True, text=True).stdout
        report += [line for line in out.splitlines() if line and not line.startswith("#")]
    text = "\n".join(report)
    (workdir / "profile.txt").write_text(text)
    return text


def backends_cpu_seconds(database: str) -> float:
    """CPU seconds of the PostgreSQL backends serving `database` now (each since its
    connection: the servers connect at start, so about the burst's share of the database)."""
    pids = psql(f"SELECT pid FROM pg_stat_activity WHERE datname = '{database}' "
                f"AND pid <> pg_backend_pid()").split()
    total = 0.0
    for pid in pids:
        try:
            total += cpu_seconds(int(pid))
        except OSError:
            pass
    return total


def run(binary: Path, url: str, replicas: int, workdir: Path, expected: tuple[int, int],
        profile: bool = False, database: str | None = None,
        queue: Callable[[], str] | None = None) -> dict:
    """`queue`, when given, says every 10 s how many deliveries exist and how many wait: which
    side of the burst bounds it (the plans queuing notices, or the senders)."""
    smtp_port, twilio_port = free_port(), free_port()
    status_file = workdir / "parties.json"
    parties = subprocess.Popen([sys.executable, str(HERE / "burst_parties.py"), str(smtp_port),
                                str(twilio_port), str(status_file)])
    servers = []
    try:
        while not status_file.exists():
            time.sleep(0.05)
        servers = [start_server(binary, url, workdir, smtp_port, twilio_port, n)
                   for n in range(replicas)]
        for n, (server, port) in enumerate(servers):
            wait_ready(server, port, workdir / f"replica-{n}" / "server.log")
        perf = start_profile(workdir) if profile else None
        t0 = time.time()
        cpu_before = [cpu_seconds(s.pid) for s, _ in servers]
        parties_before = cpu_seconds(parties.pid)
        emails, whatsapp = expected
        status, last_change, last_total = {}, time.monotonic(), -1
        next_progress = time.monotonic() + 10
        while True:
            time.sleep(0.5)
            status = read_status(status_file)
            if queue and time.monotonic() >= next_progress:
                next_progress += 10
                log(f"    {time.time() - t0:6.1f} s: accepted {status.get('emails', 0) + status.get('twilio', 0)}, "
                    f"deliveries {queue()}")
            total = status.get("emails", 0) + status.get("twilio", 0)
            if total != last_total:
                last_total, last_change = total, time.monotonic()
            if status.get("emails", 0) >= emails and status.get("twilio", 0) >= whatsapp:
                break
            if time.monotonic() - last_change > 60 or time.time() - t0 > TIMEOUT_S:
                log(f"  stopped waiting: {status}")
                break
        cpu = sum(cpu_seconds(s.pid) - before for (s, _), before in zip(servers, cpu_before))
        rss = max(peak_rss_mib(s.pid) for s, _ in servers)
        parties_cpu = cpu_seconds(parties.pid) - parties_before
        database_cpu = backends_cpu_seconds(database) if database else None
        if perf:
            log(stop_profile(perf, workdir))
    finally:
        for server, _ in servers:
            server.terminate()
        for server, _ in servers:
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                server.kill()
        parties.terminate()
        parties.wait(timeout=30)
    status = read_status(status_file) or status
    last = max(status["last_email_at"], status["last_twilio_at"])
    seconds = last - t0
    sent = status["emails"] + status["twilio"]
    email_seconds = status["last_email_at"] - t0
    return {
        "seconds": seconds, "emails": status["emails"], "whatsapp": status["twilio"],
        "msgs_per_s": sent / seconds if seconds > 0 else 0.0,
        "emails_per_s": status["emails"] / email_seconds if email_seconds > 0 else 0.0,
        "email_seconds": email_seconds, "first_email_s": status["first_email_at"] - t0,
        "emails_per_s_sending": status["emails"] / max(
            status["last_email_at"] - status["first_email_at"], 1e-9),
        "parties_cpu_s": parties_cpu, "database_cpu_s": database_cpu,
        "cpu_s": cpu, "rss_mib": rss, "most_sessions": status["most_sessions"],
        "throttled": status["throttled"],
    }


def sqlite_run(binary: Path, charges: int, profile: bool, progress: bool) -> dict:
    source = sqlite_source(binary, charges)
    workdir = HERE / ".data" / f"burst-{charges}-run"
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    db = workdir / "bench.db"
    shutil.copy(source, db)
    with sqlite3.connect(db) as conn:
        for statement in burst_statements(charges):
            conn.execute(statement)
        collectable = conn.execute(counts_query()).fetchone()[0]
    expected = due_today(collectable, charges)
    log(f"  SQLite: {collectable} charges due today ({expected[0]} e-mails, {expected[1]} WhatsApp)")
    def queue() -> str:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            made, waiting = conn.execute(QUEUE_QUERY).fetchone()
        return f"{made} made, {waiting} queued"

    return {"engine": "SQLite", "replicas": 1,
            **run(binary, f"sqlite://{db}?mode=rwc", 1, workdir, expected, profile,
                  queue=queue if progress else None)}


def postgres_run(binary: Path, charges: int, replicas: int, profile: bool, progress: bool) -> dict:
    template = postgres_template(binary, charges)
    name = f"bench_burst_{charges}_run"
    psql(f"DROP DATABASE IF EXISTS {name}")
    psql(f"CREATE DATABASE {name} TEMPLATE {template}")
    try:
        for statement in burst_statements(charges):
            psql(statement, name)
        collectable = int(psql(counts_query(), name))
        expected = due_today(collectable, charges)
        log(f"  PostgreSQL: {collectable} charges due today ({expected[0]} e-mails, "
            f"{expected[1]} WhatsApp), {replicas} replica(s)")
        workdir = HERE / ".data" / f"burst-{charges}-pg-run-{replicas}"
        shutil.rmtree(workdir, ignore_errors=True)
        workdir.mkdir(parents=True)
        def queue() -> str:
            made, waiting = psql(QUEUE_QUERY, name).split("|")
            return f"{made} made, {waiting} queued"

        return {"engine": "PostgreSQL", "replicas": replicas,
                **run(binary, f"{PG}/{name}", replicas, workdir, expected, profile, name,
                      queue=queue if progress else None)}
    finally:
        psql(f"DROP DATABASE IF EXISTS {name}")


def table(results: list[dict], charges: int) -> str:
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    lines = [
        f"{charges:,} charges due today (of {generated(charges):,} generated); 95 % by e-mail (the demo plan's step 3 days "
        f"before), 5 % by WhatsApp (5 days after). Local relay and Twilio stand-in "
        f"(100 msg/s, then 429 `Retry-After: 1`); defaults: 4 SMTP connections, WhatsApp 80 msg/s. "
        f"Load average after: {load}.", "",
        "| engine | replicas | e-mails | WhatsApp | seconds to the last message | msgs/s | "
        "first e-mail at (s) | e-mails/s (first→last e-mail) | CPU-s (servers) | "
        "CPU-s (PostgreSQL backends) | CPU-s (relay + stand-in) | peak RSS (MiB) | "
        "relay sessions at once | 429s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['engine']} | {r['replicas']} | {r['emails']:,} | {r['whatsapp']:,} | "
            f"{r['seconds']:.1f} | {r['msgs_per_s']:.0f} | {r['first_email_s']:.1f} | "
            f"{r['emails_per_s_sending']:.0f} | {r['cpu_s']:.1f} | "
            f"{'-' if r['database_cpu_s'] is None else format(r['database_cpu_s'], '.1f')} | "
            f"{r['parties_cpu_s']:.1f} | "
            f"{r['rss_mib']:.0f} | {r['most_sessions']} | {r['throttled']} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--charges", type=int, default=100_000)
    parser.add_argument("--sqlite", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--postgres", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--replicas", type=int, nargs="+", default=[1, 2],
                        help="PostgreSQL runs: with one replica, two, or both (the default)")
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--profile", action="store_true",
                        help="perf record of the machine during each burst, printed by process "
                             "and function (bench/.data/burst-*-run/profile.txt)")
    parser.add_argument("--progress", action="store_true",
                        help="every 10 s, the deliveries made and those still queued")
    args = parser.parse_args()
    binary = release_binary()
    results = []
    if args.sqlite:
        results.append(sqlite_run(binary, args.charges, args.profile, args.progress))
        log(json.dumps(results[-1]))
    if args.postgres:
        for replicas in args.replicas:
            results.append(postgres_run(binary, args.charges, replicas, args.profile, args.progress))
            log(json.dumps(results[-1]))
    text = table(results, args.charges)
    log(text)
    if args.write:
        write_block("burst", "A due-day burst (`bench/burst.py`)", text)


if __name__ == "__main__":
    main()
