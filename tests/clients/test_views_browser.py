"""The MCP Apps views in a real host, in a real browser: the official AppBridge and
PostMessageTransport (@modelcontextprotocol/ext-apps) and the official TypeScript MCP client
(apps_host.mjs, apps_host_page.js) against the live server, in headless Chromium driven over the
DevTools protocol (browser.py).

Each view loads from the server's `ui://dunning/...` resource, initializes with the host, draws
the tool's result, reports its size, follows the host's theme, and its buttons call tools
through the host (a destructive one is confirmed through the server's own question). Third
parties' data stays text. Screenshots of each view, light and dark, go to
tests/clients/screenshots/ (git-ignored); the ones docs/choosing-tools.md shows are docs/views/*.png.

The assertions read the view's DOM from an isolated world (the view's document, none of its
script), so an empty or broken view fails them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
import uuid
from datetime import date, timedelta

import pytest

from browser import Browser
from harness import HERE, NODE, cpf


def brl(amount: float) -> str:
    """R$ 1.234,56 as pt-BR writes it (Intl's non-breaking space read as a space)."""
    whole, cents = f"{amount:,.2f}".split(".")
    return f"R$ {whole.replace(',', '.')},{cents}"


class Host:
    """apps_host.mjs: the host page and the MCP client it speaks through."""

    def __init__(self, server, workdir) -> None:
        context = workdir / "apps-host.json"
        context.write_text(json.dumps({"url": server.mcp_url, "token": server.mint_token("admin", "100000/hour")}))
        self.log_file = open(workdir / "apps-host.log", "w")
        self.proc = subprocess.Popen(
            [str(NODE), str(HERE / "apps_host.mjs"), str(context)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log_file, text=True, cwd=HERE,
        )
        line = self.proc.stdout.readline()
        if not line:
            self.log_file.flush()
            raise RuntimeError(f"apps_host.mjs did not start: {(workdir / 'apps-host.log').read_text()[-2000:]}")
        started = json.loads(line)
        self.url = started["url"]
        self.protocol = started["protocol"]

    def log(self) -> list[dict]:
        return json.loads(urllib.request.urlopen(f"{self.url}/log").read())["log"]

    def answer(self, answer: str) -> None:
        """What the person answers when the server asks to confirm a destructive tool."""
        request = urllib.request.Request(f"{self.url}/answer", data=json.dumps({"answer": answer}).encode(), method="POST")
        urllib.request.urlopen(request).read()

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log_file.close()


@pytest.fixture(scope="module")
def host(server, workdir):
    h = Host(server, workdir)
    yield h
    h.close()


@pytest.fixture(scope="module")
def browser():
    b = Browser()
    b.send("Page.enable")
    yield b
    b.close()


def open_view(browser: Browser, host: Host, tool: str, args: dict, theme: str = "light", hostile: bool = False) -> None:
    """The host page with the view of `tool`, once the view has drawn the tool's result."""
    browser.send("Emulation.clearDeviceMetricsOverride")
    query = urllib.parse.urlencode({"tool": tool, "args": json.dumps(args), "theme": theme, "hostile": int(hostile)})
    browser.send("Page.navigate", url=f"{host.url}/?{query}")
    browser.wait_for("(window.hostLog || []).some(e => e.kind === 'tool-result' || e.kind === 'host-error')",
                     "the tool's result handed to the view")
    errors = browser.eval("window.hostLog.filter(e => e.kind === 'host-error')")
    assert not errors, errors
    browser.frame_wait_for("document.body && document.body.dataset.state === 'ready'", "a drawn result")
    # The view sized itself through the host.
    browser.wait_for("window.hostLog.some(e => e.kind === 'size-changed' && e.height > 100)", "a size-changed")
    log = browser.eval("window.hostLog")
    kinds = [e["kind"] for e in log]
    assert kinds.index("resource") < kinds.index("initialized") < kinds.index("tool-result"), kinds
    resource = next(e for e in log if e["kind"] == "resource")
    assert resource["mimeType"] == "text/html;profile=mcp-app"


def view_text(browser: Browser) -> str:
    return (browser.frame_eval("document.body.innerText") or "").replace("\xa0", " ").replace("\u202f", " ")


def text_colour(browser: Browser) -> str:
    return browser.frame_eval("getComputedStyle(document.body).color")


def follows_the_theme(browser: Browser, name: str) -> None:
    """Light, then the host switches to dark: the view repaints from the host's variables."""
    browser.screenshot_of("iframe", f"view-{name}-light.png")
    assert text_colour(browser) == "rgb(27, 27, 31)", text_colour(browser)  # light --color-text-primary
    browser.eval("window.setTheme('dark')")
    browser.frame_wait_for("getComputedStyle(document.body).color === 'rgb(236, 236, 241)'", "the dark theme")
    browser.screenshot_of("iframe", f"view-{name}-dark.png")


def test_the_host_speaks_the_2026_era_and_is_offered_the_views(host):
    assert host.protocol == "2026-07-28"


def test_the_aging_view_draws_the_report_and_opens_a_debtors_charges_by_keyboard(server, host, browser):
    report = server.rest("/v1/reports/aging")["data"]
    open_view(browser, host, "dunning_reports_aging", {})
    text = view_text(browser)
    assert brl(report["total"]["amount"]) in text, text[:800]
    bars = browser.frame_eval("[...document.querySelectorAll('[data-testid=aging-bucket]')].length")
    assert bars == 5
    # Each bar is drawn: the largest bucket has a visible bar.
    widths = browser.frame_eval(
        "[...document.querySelectorAll('[data-testid=aging-bucket]')].map(b => Math.max(...[...b.querySelectorAll('*')]"
        ".map(e => e.getBoundingClientRect().width)))")
    assert max(widths) > 50, widths
    debtors = report["top_debtors"]
    assert debtors and all(d["name"] in text for d in debtors[:3])
    follows_the_theme(browser, "aging")

    # Keyboard: focus the first debtor and press Enter; the view asks the host for the charges.
    # A click on the view's edge gives its frame the focus, as a person's would.
    box = browser.eval("(() => { const r = document.querySelector('iframe').getBoundingClientRect();"
                       " return {x: r.x, y: r.y}; })()")
    browser.click_at(box["x"] + 4, box["y"] + 4)
    browser.frame_eval("document.querySelector('[data-testid=aging-debtor]').focus()")
    assert browser.frame_eval("document.activeElement.dataset.testid") == "aging-debtor"
    browser.press("Enter", 13, in_frame=True)
    browser.frame_wait_for(
        "(() => { const p = document.querySelector('[data-testid=debtor-charges]');"
        " return p && p.offsetHeight > 0 && p.innerText.includes('/'); })()", "the debtor's charges")
    called = [e for e in browser.eval("window.hostLog") if e["kind"] == "view-called"]
    assert called[-1]["name"] == "dunning_charges_list"
    assert called[-1]["arguments"]["customer_id"] == debtors[0]["customer_id"]
    charges = server.rest(f"/v1/charges?customer_id={debtors[0]['customer_id']}&status=pending,overdue&per_page=100")["data"]
    panel = browser.frame_eval("document.querySelector('[data-testid=debtor-charges]').innerText").replace("\xa0", " ")
    for charge in charges:
        assert brl(charge["amount_due"]) in panel, (charge, panel[:600])
    browser.screenshot_of("iframe", "view-aging-debtor-dark.png")


def new_customer_with_charges(server, amounts: list[float], days: int = 20) -> tuple[str, list[str]]:
    customer = server.rest("/v1/customers", method="POST", body={
        "name": f"Cliente Visão {uuid.uuid4().hex[:6]}", "document": cpf(),
        "email": f"visao.{uuid.uuid4().hex[:8]}@example.com", "phone": "+5511987654321",
    })["data"]
    due = (date.today() + timedelta(days=days)).isoformat()
    charges = [server.rest("/v1/charges", method="POST", body={
        "customer_id": customer["id"], "description": f"Mensalidade {i + 1}", "amount": amount, "due_date": due,
    })["data"]["id"] for i, amount in enumerate(amounts)]
    return customer["id"], charges


def test_the_charge_view_shows_what_is_owed_and_its_actions_go_through_the_host(server, host, browser):
    overdue = server.rest("/v1/charges?status=overdue&per_page=1")["data"][0]
    open_view(browser, host, "dunning_charges_get", {"id": overdue["id"]})
    text = view_text(browser)
    for amount in (overdue["amount_due"], overdue["fine_due"], overdue["interest_due"], overdue["principal_due"]):
        assert brl(amount) in text, (amount, text[:1000])
    assert "vencida" in text.lower()
    # The view fetched the rest through the host: the name, the timeline, the Pix code.
    browser.wait_for("['dunning_customers_get', 'dunning_charges_events', 'dunning_charges_pix'].every("
                     "n => window.hostLog.some(e => e.kind === 'view-called' && e.name === n))",
                     "the view's calls for the name, the timeline and the Pix code")
    pix = server.rest(f"/v1/charges/{overdue['id']}/pix")["data"]
    # The view asks for the code through the host and draws it when the answer comes.
    code = ("(() => { const f = document.querySelector('[data-testid=charge-pix-code]');"
            " return f ? (f.value !== undefined && f.value !== '' ? f.value : f.textContent) : ''; })()")
    browser.frame_wait_for(f"{code}.length > 0", "the Pix code")
    shown = browser.frame_eval(code)
    assert pix["payload"] in shown.replace("\n", ""), (pix, shown)
    scans_to(browser, pix["payload"])
    follows_the_theme(browser, "charge")

    # A fresh charge for the actions, so that the demo's stay as they are.
    _, (charge,) = new_customer_with_charges(server, [321.0])
    open_view(browser, host, "dunning_charges_get", {"id": charge})
    browser.frame_wait_for("document.querySelector('[data-testid=charge-notify-email]') !== null", "the actions")

    # Notify is destructive: the server asks, the person declines, nothing is sent.
    host.answer("decline")
    asked = len([e for e in host.log() if e["kind"] == "elicitation"])
    browser.frame_eval("document.querySelector('[data-testid=charge-notify-email]').click()")
    browser.frame_wait_for("/não confirm/i.test(document.querySelector('[data-testid=charge-action-result]')"
                           "?.innerText || '')", "the declined confirmation")
    questions = [e for e in host.log() if e["kind"] == "elicitation"]
    assert len(questions) == asked + 1 and questions[-1]["answer"] == "decline"
    assert server.rest(f"/v1/deliveries?charge_id={charge}")["data"] == []

    # Accepted: the notice goes out.
    host.answer("accept")
    browser.frame_eval("document.querySelector('[data-testid=charge-notify-email]').click()")
    deadline = time.monotonic() + 20
    while not server.rest(f"/v1/deliveries?charge_id={charge}")["data"] and time.monotonic() < deadline:
        time.sleep(0.2)
    deliveries = server.rest(f"/v1/deliveries?charge_id={charge}")["data"]
    assert [d["channel"] for d in deliveries] == ["email"], deliveries
    questions = [e for e in host.log() if e["kind"] == "elicitation"]
    assert len(questions) == asked + 2 and questions[-1]["answer"] == "accept"
    assert questions[-1]["message"] == f"Send a notice by email to the debtor of charge {charge}?", questions[-1]

    # Record a payment of the whole amount: the charge is paid, and the view says so. (Its form
    # is submitted by its button's script: a frame sandboxed without `allow-forms`, as hosts
    # sandbox views, submits no form.)
    browser.frame_eval("document.querySelector('[data-testid=charge-pay]').click()")
    browser.frame_wait_for("document.querySelector('[data-testid=charge-pay-submit]')?.offsetHeight > 0",
                           "the payment form")
    browser.frame_eval("document.querySelector('[data-testid=charge-pay-submit]').click()")
    deadline = time.monotonic() + 20
    while server.rest(f"/v1/charges/{charge}")["data"]["status"] != "paid" and time.monotonic() < deadline:
        time.sleep(0.2)
    assert server.rest(f"/v1/charges/{charge}")["data"]["status"] == "paid"
    browser.frame_wait_for("/paga/i.test(document.querySelector('[data-testid=charge-status]').innerText)",
                           "the paid status")
    calls = [e["name"] for e in host.log() if e["kind"] == "tools/call"]
    assert "dunning_charges_pay" in calls and "dunning_charges_notify" in calls


def scans_to(browser: Browser, payload: str) -> None:
    """The QR code as a person sees it, read by zbar from a screenshot: the Pix payload."""
    zbarimg = shutil.which("zbarimg")
    if not zbarimg:
        if os.environ.get("CI"):
            pytest.fail("zbarimg is not installed, and CI must have it (tests/setup-system.sh)", pytrace=False)
        print("zbarimg is not installed (tests/setup-system.sh as root): the QR code is not scanned")
        return
    frame = browser.eval("(() => { const r = document.querySelector('iframe').getBoundingClientRect();"
                         " return {x: r.x, y: r.y}; })()")
    browser.frame_wait_for("document.querySelector('[data-testid=charge-qr] img')?.complete", "the QR image")
    box = browser.frame_eval("(() => { const r = document.querySelector('[data-testid=charge-qr] img')"
                             ".getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height}; })()")
    clip = {"x": frame["x"] + box["x"], "y": frame["y"] + box["y"], "width": box["width"], "height": box["height"]}
    path = browser.screenshot_clip(clip, "view-charge-qr.png")
    read = subprocess.run([zbarimg, "--raw", "-q", "-Sbinary", str(path)], capture_output=True, timeout=30)
    assert read.returncode == 0, read.stderr
    assert read.stdout.rstrip(b"\n").decode() == payload


def test_the_agreement_view_previews_and_proposes_through_the_tool(server, host, browser):
    customer, charges = new_customer_with_charges(server, [250.0, 149.9])
    first_due = (date.today() + timedelta(days=10)).isoformat()
    args = {"customer_id": customer, "charge_ids": charges, "installments": 3, "first_due_date": first_due}
    open_view(browser, host, "dunning_agreements_create", args)
    proposal = server.rest(f"/v1/agreements?customer_id={customer}")["data"]
    assert len(proposal) == 1 and proposal[0]["status"] == "proposed"
    rows = "[...document.querySelectorAll('[data-testid=agreement-schedule] tbody tr')].length"
    assert browser.frame_eval(rows) >= 3
    assert "399,90" in view_text(browser)
    follows_the_theme(browser, "agreement")

    # New terms typed in (R$ 50,00 down, 7 instalments, 12,5 % off): the preview follows before
    # anything is proposed, and is checked below against what the server then computes.
    browser.frame_eval("""(() => {
        const set = (name, value) => {
            const field = document.querySelector(`input[name=${name}]`);
            field.value = value;
            field.dispatchEvent(new Event('input', {bubbles: true}));
            field.dispatchEvent(new Event('change', {bubbles: true}));
        };
        set('down_payment', '50,00');
        set('installments', '7');
        set('discount_percent', '12,5');
    })()""")
    preview_rows = "[...document.querySelectorAll('[data-testid=agreement-preview] tbody tr')]"
    browser.frame_wait_for(f"{preview_rows}.length === 8", "a preview of a down payment and seven instalments")
    preview = browser.frame_eval(f"{preview_rows}.map(r => r.innerText.replace(/\\s+/g, ' ').trim())")
    assert len(server.rest(f"/v1/agreements?customer_id={customer}")["data"]) == 1

    # Proposing replaces the proposal: the cancel is destructive and confirmed, then the tool runs.
    host.answer("accept")
    browser.frame_eval("document.querySelector('[data-testid=agreement-propose]').click()")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        agreements = server.rest(f"/v1/agreements?customer_id={customer}")["data"]
        if len(agreements) == 2 and any(a["status"] == "proposed" for a in agreements):
            break
        time.sleep(0.2)
    by_status = {a["status"]: a for a in server.rest(f"/v1/agreements?customer_id={customer}")["data"]}
    assert set(by_status) == {"canceled", "proposed"}, by_status
    proposed = by_status["proposed"]
    assert proposed["installments"] == 7 and proposed["down_payment"] == 50.0
    # The preview said what the server computed: each row's date and amount.
    schedule = proposed["installments_schedule"]
    assert len(schedule) == 8
    for row, part in zip(preview, schedule):
        day = date.fromisoformat(part["due_date"]).strftime("%d/%m/%Y")
        assert day in row and brl(part["amount"]) in row.replace("\xa0", " "), (row, part)
    questions = [e for e in host.log() if e["kind"] == "elicitation"]
    assert questions and questions[-1]["answer"] == "accept"
    calls = [e["name"] for e in host.log() if e["kind"] == "tools/call"][-2:]
    assert calls == ["dunning_agreements_cancel", "dunning_agreements_create"], calls
    browser.frame_wait_for(rows.replace("length", "length >= 8"), "the server's new schedule")


HOSTILE_CHECK = """(() => {
    const text = document.body.innerText;
    // (The charge's QR code is the one image a view has: the server's SVG as a data: URL.)
    const offenders = [...document.querySelectorAll('img, script, iframe, object, embed')]
        .filter(e => !(e.tagName === 'IMG' && e.getAttribute('src').startsWith('data:image/svg+xml')))
        .filter(e => !(e.tagName === 'SCRIPT' && e === document.scripts[0]))
        .map(e => e.outerHTML.slice(0, 80));
    // The markup is shown as text, and the bidi override stays inside its own element.
    const holder = [...document.querySelectorAll('body *')].find(e => e.children.length === 0
        && e.textContent.includes('<script>document.body.dataset.pwned'));
    const isolated = holder && (holder.closest('bdi') !== null
        || ['isolate', 'isolate-override', 'plaintext'].includes(getComputedStyle(holder).unicodeBidi));
    return {
        pwned: document.body.dataset.pwned || null,
        offenders,
        markupShownAsText: text.includes('<script>document.body.dataset.pwned'),
        isolated: Boolean(isolated),
        overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        state: document.body.dataset.state,
    };
})()"""


@pytest.mark.parametrize("tool", ["dunning_reports_aging", "dunning_charges_get", "dunning_agreements_create"])
def test_third_party_data_stays_text_in_every_view(server, host, browser, tool):
    if tool == "dunning_reports_aging":
        args = {}
    elif tool == "dunning_charges_get":
        args = {"id": server.rest("/v1/charges?status=overdue&per_page=1")["data"][0]["id"]}
    else:
        customer, charges = new_customer_with_charges(server, [99.0])
        args = {"customer_id": customer, "charge_ids": charges, "installments": 2,
                "first_due_date": (date.today() + timedelta(days=5)).isoformat(), "note": "nota"}
    open_view(browser, host, tool, args, hostile=True)
    time.sleep(1)  # time for anything injected to have run
    seen = browser.frame_eval(HOSTILE_CHECK)
    assert seen["pwned"] is None, seen
    assert seen["offenders"] == [], seen
    assert seen["markupShownAsText"], seen
    assert seen["isolated"], seen
    assert seen["overflow"] <= 1, seen  # 10 000 characters wrap or clip; the layout holds
    browser.screenshot_of("iframe", f"view-{tool.removeprefix('dunning_')}-hostile.png")


def test_the_views_own_policy_blocks_inline_handlers_that_the_hosts_would_allow(server, host, browser):
    """Markup that reached the page anyway (here, put there by the test) runs no handler: the
    view's sealed policy names only its own script. The control: a host's policy alone (inline
    allowed, as hosts must for self-contained views) would have run it."""
    open_view(browser, host, "dunning_reports_aging", {})
    browser.frame_eval("document.body.insertAdjacentHTML('beforeend',"
                       " '<img id=probe src=\"data:,\" onerror=\"document.body.dataset.pwned = 1\">')")
    time.sleep(0.5)
    assert browser.frame_eval("document.getElementById('probe') !== null")
    assert browser.frame_eval("document.body.dataset.pwned || null") is None
    # Control: the same markup in a document under the host's policy only.
    browser.eval("""(() => {
        const f = document.createElement('iframe');
        f.name = 'control';
        f.setAttribute('sandbox', 'allow-scripts');
        f.srcdoc = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline';`
            + ` img-src data:"><body><img src="data:," onerror="document.body.dataset.pwned = 1"></body>`;
        document.body.prepend(f);
    })()""")
    time.sleep(0.5)
    assert browser.frame_eval("document.body.dataset.pwned || null", name="control") == "1"
