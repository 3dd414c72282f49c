// ---- The host bridge (MCP Apps 2026-01-26), written once in templates/ui/_bridge.js --------
// JSON-RPC 2.0 over postMessage with window.parent, the host's theme and the size we report.
// The view defines onHostNotification(method, params) and calls connect(name) last.

const bridgeWaiting = new Map();
let bridgeNextId = 1;
/** What the host said of itself and its surroundings (`hostContext`), updates merged in. */
const hostContext = {};

function post(message) {
  // The view lives in an opaque-origin sandbox, so '*' is the only target that arrives.
  window.parent.postMessage(Object.assign({ jsonrpc: '2.0' }, message), '*');
}
/** A request to the host; rejects with the JSON-RPC error (it has a `message`). */
function request(method, params) {
  const id = bridgeNextId++;
  return new Promise((resolve, reject) => {
    bridgeWaiting.set(id, { resolve, reject });
    post({ id, method, params });
  });
}
function notify(method, params) {
  post({ method, params: params || {} });
}

window.addEventListener('message', (event) => {
  if (event.source !== window.parent) return; // only the host speaks to us
  const msg = event.data;
  if (!msg || typeof msg !== 'object' || msg.jsonrpc !== '2.0') return;
  if (msg.method === undefined && msg.id !== undefined) {
    const waiter = bridgeWaiting.get(msg.id);
    if (!waiter) return;
    bridgeWaiting.delete(msg.id);
    if (msg.error) waiter.reject(msg.error);
    else waiter.resolve(msg.result);
    return;
  }
  if (typeof msg.method !== 'string') return;
  if (msg.id !== undefined) {
    // Requests from the host: we keep no state to save before a teardown.
    if (msg.method === 'ping' || msg.method === 'ui/resource-teardown') post({ id: msg.id, result: {} });
    else post({ id: msg.id, error: { code: -32601, message: 'Method not found' } });
    return;
  }
  const params = msg.params && typeof msg.params === 'object' ? msg.params : {};
  if (msg.method === 'ui/notifications/host-context-changed') applyHostContext(params);
  else onHostNotification(msg.method, params);
});

let hostVariables = [];

/**
 * The host's theme: `data-theme` on <html> and its style variables on :root. A new set of
 * variables replaces the last one whole, so that a value of the old theme the new set leaves
 * out falls back to our own palette for the new theme instead of lingering.
 */
function applyHostContext(context) {
  if (!context || typeof context !== 'object') return;
  Object.assign(hostContext, context);
  const root = document.documentElement;
  if (context.theme === 'light' || context.theme === 'dark') root.dataset.theme = context.theme;
  const variables = context.styles && context.styles.variables;
  if (variables && typeof variables === 'object') {
    for (const name of hostVariables) root.style.removeProperty(name);
    hostVariables = [];
    for (const [name, value] of Object.entries(variables)) {
      if (/^--[a-z0-9-]+$/.test(name) && typeof value === 'string') {
        root.style.setProperty(name, value);
        hostVariables.push(name);
      }
    }
  }
}

// ---- Tools, called through the host: the server's checks, limits and confirmations apply ----

/**
 * A tool's answer as {ok: true, data, meta}, or {ok: false, problem: {detail, code, errors}}:
 * an error result carries the server's problem JSON as its text.
 */
function toolOutcome(result) {
  const text = result && Array.isArray(result.content) && result.content[0] && typeof result.content[0].text === 'string'
    ? result.content[0].text : '';
  if (!result || result.isError) return { ok: false, problem: problemOf(text) };
  let body = result.structuredContent;
  if (!body || typeof body !== 'object') {
    try { body = JSON.parse(text); } catch (_) { body = null; }
  }
  if (!body || typeof body !== 'object' || !body.data || typeof body.data !== 'object') {
    return { ok: false, problem: { detail: 'A resposta da ferramenta veio num formato inesperado.', code: '', errors: [] } };
  }
  return { ok: true, data: body.data, meta: body.meta || {} };
}
function problemOf(text) {
  try {
    const p = JSON.parse(text);
    if (p && typeof p === 'object') {
      const errors = Array.isArray(p.errors)
        ? p.errors.filter((e) => e && e.message != null).map((e) => ({ field: e.field ? String(e.field) : '', message: String(e.message) }))
        : [];
      return { detail: String(p.detail || p.title || 'A ferramenta recusou o pedido.'), code: String(p.code || ''), errors };
    }
  } catch (_) { /* not JSON: the text itself is the message */ }
  return { detail: text || 'A ferramenta recusou o pedido.', code: '', errors: [] };
}
/** Calls a tool through the host; a JSON-RPC error (the host refused) becomes a problem too. */
function callTool(name, args) {
  return request('tools/call', { name, arguments: args }).then(toolOutcome, (error) => ({
    ok: false,
    problem: { detail: error && error.message ? String(error.message) : 'O host não completou a chamada.', code: '', errors: [] },
  }));
}

/** A problem as a view shows it: the detail (after `lead`), then the field messages the detail
 * does not already say. */
function problemNode(problem, lead) {
  const box = el('div');
  box.append(el('p', 'text', lead ? lead + ' ' + problem.detail : problem.detail));
  const extra = problem.errors.filter((e) => !problem.detail.includes(e.message));
  if (extra.length) {
    const list = el('ul', 'problem-list');
    for (const e of extra) list.append(el('li', 'text', (e.field ? e.field + ': ' : '') + e.message));
    box.append(list);
  }
  return box;
}

/** The host sizes the iframe to what we report: every change of our size, once. */
function reportSizes() {
  let last = '';
  new ResizeObserver(() => {
    const box = document.documentElement.getBoundingClientRect();
    const size = { width: Math.ceil(box.width), height: Math.ceil(box.height) };
    const key = size.width + 'x' + size.height;
    if (key !== last) {
      last = key;
      notify('ui/notifications/size-changed', size);
    }
  }).observe(document.documentElement);
}

/** Introduce ourselves, take the host's context, say we are ready, then report our size. */
function connect(name) {
  const ready = () => {
    notify('ui/notifications/initialized');
    reportSizes();
  };
  request('ui/initialize', {
    protocolVersion: '2026-01-26',
    appInfo: { name, version: '1.0.0' },
    appCapabilities: {},
  }).then((result) => {
    applyHostContext(result && result.hostContext);
    ready();
  }, ready); // a host that refuses the handshake may still send the result: keep listening
}
