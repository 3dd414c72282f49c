#!/usr/bin/env python3
"""An export of every charge at size, measured (not part of ./test.sh; a benchmark, not a test).

For each engine asked (SQLite by default, PostgreSQL with --postgres): make N charges
(`kobana-dunning demo --customers N/20 --charges N`, N = --charges, 1 000 000 by default), start
the release server over them, start an export of all charges, poll `exports_get` until it is
completed, then download the file. Prints the build time and rows/s, the server's peak RSS
during the build (VmHWM after resetting it through /proc/PID/clear_refs, and the largest VmRSS
sampled every 50 ms), the download's time, bytes and the RSS during it, and checks that the bytes
are the export's `byte_size` and that a Range request is answered 206. Target: peak RSS at most
64 MiB while exporting 1 000 000 charges.

    bench/exports.py [--charges N] [--postgres] [--sqlite/--no-sqlite] [--keep-data] [--write]

--keep-data keeps the generated SQLite database in the git-ignored bench/.data/exports-N/ and
reuses it in later runs (a million charges take minutes to make). --write appends the figures
to bench/RESULTS.md as a section with the machine, its load average and the date. PostgreSQL
is the local server (127.0.0.1:5432, trust authentication); the database `bench_exports_N` is
made anew and dropped after. Loopback only; every loop is bounded in time.
"""

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import datetime, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PORT = int(os.environ.get("PORT", "18556"))
BASE = f"http://127.0.0.1:{PORT}"
TARGET_MIB = 64
# The longest any one wait may take (generation excepted): the run stops by itself.
BUILD_TIMEOUT_S = 1800


def log(*args):
    print(*args, flush=True)


def binary():
    """Build the release server and say where it is (cargo follows CARGO_TARGET_DIR), or the
    binary NEW_BIN names."""
    if os.environ.get("NEW_BIN"):
        return os.environ["NEW_BIN"]
    subprocess.run(["cargo", "build", "--release", "--locked", "-q"], cwd=ROOT, check=True)
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps", "--offline"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    )
    return os.path.join(json.loads(meta.stdout)["target_directory"], "release", "kobana-dunning")


def status_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return 0
    return 0


def smaps_rollup_kib(pid):
    """The process's memory by kind (/proc/PID/smaps_rollup: Rss, Anonymous, Pss_File, ...)."""
    kinds = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                parts = line.split()
                if len(parts) == 3 and parts[2] == "kB":
                    kinds[parts[0].rstrip(":")] = int(parts[1])
    except OSError:
        pass
    return kinds


def shown_kinds_mib(kinds_kib):
    """The kinds of memory reported, in MiB: anonymous memory against the binary's mapped
    pages, and how much of it is in transparent huge pages (2 MiB each, resident whole)."""
    shown = ("Rss", "Anonymous", "Pss_File", "AnonHugePages")
    return {k: v / 1024 for k, v in kinds_kib.items() if k in shown}


class RssSampler:
    """The largest VmRSS of a process, sampled every 50 ms while running, and what it was made
    of at that moment (smaps_rollup: anonymous memory against the binary's mapped pages)."""

    def __init__(self, pid):
        self.pid, self.peak, self.at_peak, self._stop = pid, 0, {}, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            rss = status_kib(self.pid, "VmRSS")
            if rss > self.peak:
                self.peak, self.at_peak = rss, smaps_rollup_kib(self.pid)
            self._stop.wait(0.05)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def reset_peak(pid):
    """Reset VmHWM to the current RSS (Linux: writing 5 to clear_refs); False when refused."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def request(method, path, token, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(BASE + path, data=data, method=method)
    req.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        req.add_header(name, value)
    return urllib.request.urlopen(req, timeout=60)


def json_request(method, path, token, body=None):
    with request(method, path, token, body) as answer:
        return json.load(answer)


def start_server(binary_path, workdir, url):
    env = dict(os.environ, RUST_LOG="warn")
    log_file = open(os.path.join(workdir, "server.log"), "w")
    # The collection worker's sweep of every open charge would land in the measurement.
    server = subprocess.Popen(
        [binary_path, "--bind", f"127.0.0.1:{PORT}", "--database-url", url,
         "--collection-interval", "1h"],
        cwd=workdir, env=env, stdout=log_file, stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(BASE + "/.well-known/oauth-protected-resource", timeout=2).close()
            return server
        except OSError:
            if server.poll() is not None:
                break
            time.sleep(0.1)
    server.kill()
    sys.exit(f"bench: the server did not start; see {workdir}/server.log")


def admin_token(binary_path, workdir, url):
    with open(os.path.join(workdir, "data", "demo-credentials.json")) as f:
        org = json.load(f)["organizations"][0]
    person = next(p["email"] for p in org["people"] if p["role"] == "admin")
    made = subprocess.run(
        [binary_path, "token", "create", "--organization", org["id"], "--person", person,
         "--audience", "api", "--rate-limit", "100000000/minute", "--database-url", url],
        cwd=workdir, check=True, capture_output=True, text=True,
    )
    return made.stdout.strip().splitlines()[-1]


def generate(binary_path, workdir, url, charges):
    t0 = time.monotonic()
    subprocess.run(
        [binary_path, "demo", "--customers", str(charges // 20), "--charges", str(charges),
         "--database-url", url],
        cwd=workdir, check=True, stdout=subprocess.DEVNULL,
    )
    return time.monotonic() - t0


def sqlite_data(binary_path, workdir, charges, keep):
    """A SQLite database of `charges` charges in `workdir`: made, or copied from an earlier run."""
    kept = os.path.join(ROOT, "bench", ".data", f"exports-{charges}")
    url = f"sqlite://{workdir}/bench.db?mode=rwc"
    if keep and os.path.exists(os.path.join(kept, "bench.db")):
        shutil.copytree(kept, workdir, dirs_exist_ok=True)
        with open(os.path.join(kept, "generated-seconds")) as f:
            return url, f"{f.read().strip()} s (an earlier run; reused)"
    seconds = generate(binary_path, workdir, url, charges)
    if keep:
        subprocess.run(["sqlite3", f"{workdir}/bench.db", "PRAGMA wal_checkpoint(TRUNCATE)"],
                       check=False, capture_output=True)
        shutil.rmtree(kept, ignore_errors=True)
        shutil.copytree(workdir, kept)
        with open(os.path.join(kept, "generated-seconds"), "w") as f:
            f.write(f"{seconds:.0f}")
    return url, f"{seconds:.0f} s"


def psql(sql, database="postgres"):
    return subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", database, "-tAc", sql],
        check=True, capture_output=True, text=True,
    ).stdout.strip()


def measure(binary_path, workdir, url, engine, charges, generated):
    server = start_server(binary_path, workdir, url)
    try:
        token = admin_token(binary_path, workdir, url)
        pid = server.pid
        idle_kib = status_kib(pid, "VmRSS")
        idle_kinds = smaps_rollup_kib(pid)
        hwm_reset = reset_peak(pid)
        with RssSampler(pid) as sampled:
            t0 = time.monotonic()
            export = json_request("POST", "/v1/exports", token, {"kind": "charges"})["data"]
            first_progress = None
            deadline = t0 + BUILD_TIMEOUT_S
            last_log = 0.0
            while time.monotonic() < deadline:
                data = json_request("GET", f"/v1/exports/{export['id']}", token)["data"]
                now = time.monotonic() - t0
                if data["progress"] and first_progress is None:
                    first_progress = now
                if data["status"] in ("completed", "failed"):
                    break
                if data["progress"] and now - last_log >= 5:
                    p = data["progress"]
                    log(f"  {now:6.1f} s: {p['rows_done']} of {p['rows_total']} rows")
                    last_log = now
                time.sleep(0.2)
            build_s = time.monotonic() - t0
        if data["status"] != "completed":
            sys.exit(f"bench: the export ended {data['status']}: {data.get('error')}")
        build_hwm_kib = status_kib(pid, "VmHWM") if hwm_reset else 0
        rows, size = data["row_count"], data["byte_size"]
        # From the moment a builder counted the rows (the worker ticks every 2 s).
        from_first_progress = build_s - (first_progress or 0)

        reset_peak(pid)
        with RssSampler(pid) as download_sampled:
            t0 = time.monotonic()
            received = 0
            with request("GET", f"/v1/exports/{export['id']}/download", token) as answer:
                declared = int(answer.headers["Content-Length"])
                while True:
                    block = answer.read(1 << 20)
                    if not block:
                        break
                    received += len(block)
            download_s = time.monotonic() - t0
        download_hwm_kib = status_kib(pid, "VmHWM") if hwm_reset else 0
        with request("GET", f"/v1/exports/{export['id']}/download", token,
                     headers={"Range": f"bytes={size // 2}-{size // 2 + 99}"}) as part:
            ranged = (part.status, len(part.read()), part.headers["Content-Range"])
        assert received == size == declared, (received, size, declared)
        assert ranged[0] == 206 and ranged[1] == 100, ranged
    finally:
        server.terminate()
        server.wait(timeout=30)
    peak_kib = max(build_hwm_kib, sampled.peak)
    return {
        "engine": engine,
        "charges": charges,
        "generated": generated,
        "rows": rows,
        "bytes": size,
        "build_s": build_s,
        "counted_to_done_s": from_first_progress,
        "rows_per_s": rows / build_s,
        "idle_mib": idle_kib / 1024,
        "build_peak_mib": peak_kib / 1024,
        "build_hwm_mib": build_hwm_kib / 1024,
        "build_sampled_mib": sampled.peak / 1024,
        "download_s": download_s,
        "download_mib_s": size / download_s / (1 << 20),
        "download_peak_mib": max(download_hwm_kib, download_sampled.peak) / 1024,
        "idle_kinds_mib": shown_kinds_mib(idle_kinds),
        "peak_kinds_mib": shown_kinds_mib(sampled.at_peak),
        "range": ranged[2],
    }


def kinds(mib):
    return ", ".join(f"{k} {v:.1f}" for k, v in sorted(mib.items())) or "-"


def report(r):
    met = "met" if r["build_peak_mib"] <= TARGET_MIB else "NOT met"
    return "\n".join([
        f"{r['engine']}, {r['charges']} charges (generated in {r['generated']}): "
        f"{r['rows']} rows, {r['bytes'] / (1 << 20):.1f} MiB",
        f"  build: {r['build_s']:.1f} s from POST to completed ({r['counted_to_done_s']:.1f} s "
        f"from the first progress), {r['rows_per_s']:,.0f} rows/s",
        f"  server RSS: {r['idle_mib']:.0f} MiB before, peak {r['build_peak_mib']:.1f} MiB during "
        f"the build (VmHWM {r['build_hwm_mib']:.1f}, sampled {r['build_sampled_mib']:.1f}); "
        f"target <= {TARGET_MIB} MiB: {met}",
        "  by kind (smaps_rollup, MiB): idle " + kinds(r["idle_kinds_mib"])
        + "; at the peak " + kinds(r["peak_kinds_mib"]),
        f"  download: {r['download_s']:.1f} s, {r['bytes']} bytes ({r['download_mib_s']:.0f} MiB/s), "
        f"peak RSS {r['download_peak_mib']:.1f} MiB; Range -> 206 {r['range']}",
    ])


def write_results(results, load_before):
    load_after = open("/proc/loadavg").read().split()[:3]
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), platform.processor())
    lines = [
        "",
        f"## Exports of any size (issue 49), {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC",
        "",
        f"`bench/exports.py`: {os.cpu_count()} cores ({cpu}), "
        f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / (1 << 30):.0f} GiB; "
        f"load average {' '.join(load_before)} before, {' '.join(load_after)} after "
        "(the machine is shared with another engineer's builds). Release build; pages of "
        f"{os.environ.get('DUNNING_EXPORT_PAGE_ROWS', '250 (the default)')} rows, pieces of "
        f"{os.environ.get('DUNNING_EXPORT_PIECE_KIB', '256 (the default)')} KiB.",
        "",
        "| engine | rows | file | build | rows/s | peak RSS during the build (≤ 64 MiB) | download | RSS during it |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['engine']} | {r['rows']:,} | {r['bytes'] / (1 << 20):.0f} MiB | {r['build_s']:.1f} s | "
            f"{r['rows_per_s']:,.0f} | {r['build_peak_mib']:.1f} MiB (idle {r['idle_mib']:.0f}) | "
            f"{r['download_s']:.1f} s | {r['download_peak_mib']:.1f} MiB |"
        )
    with open(os.path.join(ROOT, "bench", "RESULTS.md"), "a") as f:
        f.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--charges", type=int, default=1_000_000)
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument("--sqlite", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--keep-data", action="store_true")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    load_before = open("/proc/loadavg").read().split()[:3]
    binary_path = binary()
    results = []
    if args.sqlite:
        with tempfile.TemporaryDirectory() as workdir:
            url, generated = sqlite_data(binary_path, workdir, args.charges, args.keep_data)
            results.append(measure(binary_path, workdir, url, "SQLite", args.charges, generated))
            log(report(results[-1]))
    if args.postgres:
        name = f"bench_exports_{args.charges}"
        psql(f"DROP DATABASE IF EXISTS {name}")
        psql(f"CREATE DATABASE {name}")
        url = f"postgres://postgres@127.0.0.1:5432/{name}"
        try:
            with tempfile.TemporaryDirectory() as workdir:
                generated = f"{generate(binary_path, workdir, url, args.charges):.0f} s"
                results.append(measure(binary_path, workdir, url, "PostgreSQL", args.charges, generated))
                log(report(results[-1]))
        finally:
            psql(f"DROP DATABASE IF EXISTS {name}")
    if args.write:
        write_results(results, load_before)


if __name__ == "__main__":
    main()
