// The interoperability cases, run through an official TypeScript SDK.
//
//   node ts_client.mjs PACKAGE CONTEXT.json
//
// PACKAGE is one of the npm aliases of package.json: sdk-1-26, sdk-1-32 (@modelcontextprotocol/sdk
// 1.x) or client-2-3, client-2-latest (@modelcontextprotocol/client 2.x). CONTEXT.json is written by
// the pytest harness (harness.py). Every case is caught: the last line of stdout is one JSON object
// {"client", "sdk_version", "era", "protocol", "cases": {case: {"status", "detail"}}}.
//
// The SDKs validate structuredContent against the tool's outputSchema themselves (callTool throws
// when it does not match); the script validates it once more with Ajv's 2020-12 dialect.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;
const addFormats = addFormatsModule.default ?? addFormatsModule;
const here = dirname(fileURLToPath(import.meta.url));
const [pkg, ctxPath] = process.argv.slice(2);
const ctx = JSON.parse(readFileSync(ctxPath, 'utf8'));
const sdkVersion = JSON.parse(readFileSync(join(here, 'node_modules', pkg, 'package.json'), 'utf8')).version;
const v2 = Number(sdkVersion.split('.')[0]) >= 2;

let Client, StreamableHTTPClientTransport, ElicitRequestSchema;
if (v2) {
  ({ Client, StreamableHTTPClientTransport } = await import(pkg));
} else {
  ({ Client } = await import(`${pkg}/client/index.js`));
  ({ StreamableHTTPClientTransport } = await import(`${pkg}/client/streamableHttp.js`));
  ({ ElicitRequestSchema } = await import(`${pkg}/types.js`));
}

class CaseFailed extends Error {}
const check = (cond, msg) => {
  if (!cond) throw new CaseFailed(msg);
};
const short = (o, n = 300) => {
  const s = typeof o === 'string' ? o : JSON.stringify(o);
  return s && s.length > n ? s.slice(0, n) + '…' : s;
};

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

async function connect(token, elicitation) {
  const opts = {};
  if (v2) {
    opts.versionNegotiation = { mode: ctx.era === 'modern' ? 'auto' : 'legacy' };
    if (elicitation) opts.capabilities = { elicitation: { form: {} } };
  } else if (elicitation) {
    opts.capabilities = { elicitation: {} };
  }
  const client = new Client({ name: `kobana-interop-${pkg}`, version: sdkVersion }, opts);
  if (elicitation) {
    if (v2) client.setRequestHandler('elicitation/create', (req) => elicitation(req.params));
    else client.setRequestHandler(ElicitRequestSchema, (req) => elicitation(req.params));
  }
  const transport = new StreamableHTTPClientTransport(new URL(ctx.url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  const protocol =
    (client.getNegotiatedProtocolVersion && client.getNegotiatedProtocolVersion()) ||
    transport.protocolVersion ||
    '?';
  return { client, protocol };
}

async function listTools(client) {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

function problemOf(result) {
  check(result.isError === true, `expected isError: true, got ${short(result)}`);
  check(result.structuredContent === undefined, 'an error result must not carry structuredContent');
  const c0 = (result.content || [])[0];
  check(c0 && c0.type === 'text', 'error result without a text block');
  let p;
  try {
    p = JSON.parse(c0.text);
  } catch {
    throw new CaseFailed(`error text is not a problem JSON: ${short(c0.text, 200)}`);
  }
  for (const k of ['type', 'title', 'status', 'detail']) check(k in p, `problem lacks ${k}: ${short(p)}`);
  return p;
}

function okResult(result, schema) {
  check(!result.isError, `unexpected isError: ${short(result.content)}`);
  const sc = result.structuredContent;
  check(sc && typeof sc === 'object', 'no structuredContent');
  check(schema, 'tool has no outputSchema');
  const validate = ajv.compile(schema);
  check(validate(sc), `structuredContent does not match outputSchema: ${short(ajv.errorsText(validate.errors), 400)}`);
  return sc;
}

const cases = {};
const state = {};
const elicited = [];
let answer = 'accept';
const onElicit = async (params) => {
  elicited.push(params);
  return answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: answer };
};

let admin, viewer, protocol;
try {
  ({ client: admin, protocol } = await connect(ctx.tokens.admin, onElicit));
  ({ client: viewer } = await connect(ctx.tokens.viewer));
} catch (e) {
  const detail = `connect threw ${short(String(e && e.stack ? e.message : e), 400)}`;
  for (const c of ctx.cases) cases[c] = { status: 'fail', detail };
  console.log(JSON.stringify({ client: ctx.client, sdk_version: sdkVersion, era: ctx.era, protocol: '?', cases }));
  process.exit(0);
}

const schemas = {};
const call = (client, name, args) => client.callTool({ name, arguments: args });
const writeArgs = {
  name: ctx.write.name,
  document: ctx.write.document,
  email: ctx.write.email,
  tags: ['interop'],
  idempotency_key: ctx.write.idempotency_key,
};

const plan = {
  async tools_list() {
    const tools = await listTools(admin);
    for (const t of tools) schemas[t.name] = t.outputSchema;
    const vtools = await listTools(viewer);
    const want = ctx.expected_tool_counts;
    check(tools.length === want.admin, `admin sees ${tools.length} tools, expected ${want.admin}`);
    check(vtools.length === want.viewer, `viewer sees ${vtools.length} tools, expected ${want.viewer}`);
    return `admin ${tools.length}, viewer ${vtools.length} tools`;
  },
  async read() {
    const args = { status: 'pending,overdue', sort_by: 'amount', per_page: 3 };
    const sc = okResult(await call(admin, 'dunning_charges_list', args), schemas.dunning_charges_list);
    const data = sc.data;
    check(Array.isArray(data) && data.length >= 1 && data.length <= 3, `expected 1..3 charges, got ${short(data)}`);
    check(data.every((c) => ['pending', 'overdue'].includes(c.status)), 'status filter not applied');
    const amounts = data.map((c) => c.amount);
    check(amounts.every((a, i) => i === 0 || amounts[i - 1] <= a), `not sorted by amount: ${amounts}`);
    check(sc.meta.per_page === 3, 'meta.per_page is not 3');
    return `${data.length} charges of ${sc.meta.total}`;
  },
  async write() {
    const sc = okResult(await call(admin, 'dunning_customers_create', writeArgs), schemas.dunning_customers_create);
    state.customerId = sc.data.id;
    check(sc.data.document === ctx.write.document, 'document not stored');
    check(!(sc.meta && sc.meta.idempotent_replay), 'first write reported as a replay');
    return sc.data.id;
  },
  async replay() {
    const sc = okResult(await call(admin, 'dunning_customers_create', writeArgs), schemas.dunning_customers_create);
    check(sc.meta && sc.meta.idempotent_replay === true, `meta.idempotent_replay is not true: ${short(sc.meta)}`);
    check(state.customerId, 'no first write to compare with');
    check(sc.data.id === state.customerId, `replay returned ${sc.data.id}, first was ${state.customerId}`);
    return 'idempotent_replay: true, same id';
  },
  async err_400() {
    const p = problemOf(await call(admin, 'dunning_charges_list', { per_page: 1000 }));
    check(p.status === 400 && p.code === 'VALIDATION_ERROR', `expected 400 VALIDATION_ERROR: ${short(p)}`);
    return p.detail.slice(0, 80);
  },
  async err_403() {
    const p = problemOf(await call(viewer, 'dunning_customers_create', { name: 'Viewer Attempt', document: ctx.viewer_document }));
    check(p.status === 403 && p.code === 'insufficient_scope', `expected 403 insufficient_scope: ${short(p)}`);
    return p.detail.slice(0, 80);
  },
  async err_404() {
    const p = problemOf(await call(admin, 'dunning_charges_get', { id: 'chg_doesnotexist0000' }));
    check(p.status === 404, `expected 404: ${short(p)}`);
    return p.detail.slice(0, 80);
  },
  async err_429() {
    const { client: tiny } = await connect(ctx.tokens.tiny);
    try {
      for (let i = 1; i <= 6; i++) {
        const r = await call(tiny, 'dunning_me', {});
        if (r.isError) {
          const p = problemOf(r);
          check(p.status === 429, `call ${i}: expected 429: ${short(p)}`);
          check(typeof p.retry_after === 'number', `429 without retry_after: ${short(p)}`);
          return `429 on call ${i}, retry_after ${p.retry_after}`;
        }
      }
      throw new CaseFailed('no 429 after 6 calls with a 5/day token');
    } finally {
      await tiny.close();
    }
  },
  async res_json() {
    const r = await admin.readResource({ uri: 'kobana://dunning/me' });
    const c0 = (r.contents || [])[0];
    check(c0, 'empty contents');
    check(c0.mimeType === 'application/json', `mimeType ${c0.mimeType}`);
    check(typeof c0.text === 'string', 'JSON resource without text');
    const doc = JSON.parse(c0.text);
    check(doc && typeof doc === 'object', 'not a JSON object');
    return `${c0.text.length} chars`;
  },
  async res_pdf() {
    const r = await admin.readResource({ uri: `kobana://dunning/customers/${ctx.statement_customer_id}/statement.pdf` });
    const c0 = (r.contents || [])[0];
    check(c0, 'empty contents');
    check(c0.mimeType === 'application/pdf', `mimeType ${c0.mimeType}`);
    check(typeof c0.blob === 'string', 'PDF resource without blob');
    const raw = Buffer.from(c0.blob, 'base64');
    check(raw.subarray(0, 5).toString('latin1') === '%PDF-', 'blob is not a PDF');
    return `${raw.length} bytes`;
  },
  async prompt() {
    const { prompts } = await admin.listPrompts();
    check(prompts.length > 0, 'no prompts listed');
    const p = prompts.find((x) => x.name === ctx.prompt.name) || prompts[0];
    const args = {};
    for (const a of p.arguments || []) {
      if (a.required || a.name in ctx.prompt.arguments) args[a.name] = ctx.prompt.arguments[a.name] ?? ctx.prompt.fallback;
    }
    const r = await admin.getPrompt({ name: p.name, arguments: args });
    check((r.messages || []).length >= 1, 'prompt has no messages');
    check(((r.messages[0].content || {}).text || '').length > 0, 'first message has no text');
    return `${p.name} (${r.messages.length} messages) of ${prompts.map((x) => x.name)}`;
  },
  async complete() {
    const r = await admin.complete({
      ref: { type: 'ref/resource', uri: ctx.completion.template },
      argument: { name: ctx.completion.argument, value: ctx.completion.value },
    });
    const values = r.completion && r.completion.values;
    check(Array.isArray(values) && values.length >= 1, `no completion values: ${short(r)}`);
    check(values.length <= 100, 'more than 100 values');
    if (ctx.completion.expect) check(values.includes(ctx.completion.expect), `${ctx.completion.expect} not among ${values.slice(0, 10)}`);
    return `${values.length} values, total ${r.completion.total}`;
  },
  confirm_accept: () => confirm('accept'),
  confirm_decline: () => confirm('decline'),
};

async function confirm(action) {
  check(protocol === '2026-07-28', `negotiated ${protocol}, not 2026-07-28: no confirmation round trip possible`);
  answer = action;
  const before = elicited.length;
  const charge = ctx.confirm[action];
  const r = await call(admin, 'dunning_charges_cancel', { id: charge, reason: 'interop harness' });
  check(elicited.length === before + 1, `the SDK asked the user ${elicited.length - before} times, expected once`);
  const props = (elicited.at(-1).requestedSchema || {}).properties || {};
  check('confirm' in props, `elicitation schema lacks confirm: ${short(elicited.at(-1))}`);
  if (action === 'accept') {
    const sc = okResult(r, schemas.dunning_charges_cancel);
    check(sc.data.status === 'canceled', `charge status ${sc.data.status}`);
    return `canceled ${charge}`;
  }
  const p = problemOf(r);
  check(p.code === 'confirmation_declined', `expected confirmation_declined: ${short(p)}`);
  const after = await call(admin, 'dunning_charges_get', { id: charge });
  check(!after.isError && ['pending', 'overdue'].includes(after.structuredContent.data.status), 'declined charge is no longer open');
  return 'declined, charge still open';
}

for (const name of ctx.cases) {
  try {
    cases[name] = { status: 'pass', detail: (await plan[name]()) || '' };
  } catch (e) {
    cases[name] =
      e instanceof CaseFailed
        ? { status: 'fail', detail: e.message }
        : { status: 'fail', detail: `threw ${short(`${e && e.constructor ? e.constructor.name : 'Error'}: ${e && e.message}`, 400)}` };
  }
}
await admin.close().catch(() => {});
await viewer.close().catch(() => {});
console.log(JSON.stringify({ client: ctx.client, sdk_version: sdkVersion, era: ctx.era, protocol, cases }));
process.exit(0);
