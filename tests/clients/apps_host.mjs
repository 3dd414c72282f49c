// An MCP Apps host for the views test (test_views_browser.py): the official pieces, put
// together as the ext-apps repository's examples/basic-host does.
//
//   node apps_host.mjs CONTEXT.json
//
// - Here, in Node: the official TypeScript MCP client (@modelcontextprotocol/client 2.x) against
//   the live server, in the 2026-07-28 era, declaring the MCP Apps extension
//   (`io.modelcontextprotocol/ui` with `text/html;profile=mcp-app`) and elicitation, so that a
//   destructive tool asks for confirmation (the server's MRTR round trip); the person's answer
//   is the test's (`POST /answer`), and every question asked is logged.
// - In the page it serves (apps_host_page.js, bundled here with esbuild): the official
//   `AppBridge` and `PostMessageTransport` (@modelcontextprotocol/ext-apps), an iframe per view
//   sandboxed as a host does, and `/rpc` back to this process for what the MCP client does.
//
// CONTEXT.json: {"url": MCP endpoint, "token": bearer token}. Prints one line of JSON,
// {"url": the host page's base URL}, once it listens; stops when stdin closes.

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Client, StreamableHTTPClientTransport } from 'client-2-latest';

const here = dirname(fileURLToPath(import.meta.url));
const ctx = JSON.parse(readFileSync(process.argv[2], 'utf8'));

// The page's script: AppBridge and PostMessageTransport with their dependencies, for a browser.
const bundle = await build({
  entryPoints: [join(here, 'apps_host_page.js')],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  write: false,
  logLevel: 'error',
});
const pageScript = bundle.outputFiles[0].text;

const log = [];
let answer = 'accept';

const client = new Client(
  { name: 'kobana-views-test-host', version: '1.0.0' },
  {
    versionNegotiation: { mode: 'auto' },
    capabilities: {
      elicitation: { form: {} },
      extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
    },
  },
);
// The server asks before a destructive tool runs: a host shows the message to the person.
client.setRequestHandler('elicitation/create', (request) => {
  log.push({ kind: 'elicitation', message: request.params.message, answer });
  return answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: answer };
});
await client.connect(
  new StreamableHTTPClientTransport(new URL(ctx.url), {
    requestInit: { headers: { Authorization: `Bearer ${ctx.token}` } },
  }),
);
const protocol = client.getNegotiatedProtocolVersion ? client.getNegotiatedProtocolVersion() : '?';

// What the page may ask of the MCP client: a host's own calls and the views' calls.
async function rpc(method, params) {
  switch (method) {
    case 'tools/list': {
      const tools = [];
      let cursor;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined);
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      return { tools };
    }
    case 'tools/call':
      log.push({ kind: 'tools/call', name: params.name, arguments: params.arguments ?? {} });
      return client.callTool(params);
    case 'resources/read':
      return client.readResource(params);
    default:
      throw new Error(`the host page may not call ${method}`);
  }
}

const PAGE = `<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>Host de teste</title>
<style>
  body { margin: 0; padding: 16px; font: 14px system-ui, sans-serif; background: #e8e8ec; }
  body.dark { background: #101014; }
  iframe { display: block; width: 860px; height: 200px; border: 0; border-radius: 12px; }
</style></head>
<body><div id="views"></div><script src="/host.js"></script></body></html>`;

function readBody(req) {
  return new Promise((resolve, reject) => {
    const parts = [];
    req.on('data', (p) => parts.push(p));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

const server = createServer(async (req, res) => {
  const send = (status, type, body) => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
    res.end(body);
  };
  try {
    const path = new URL(req.url, 'http://host').pathname;
    if (req.method === 'GET' && path === '/') return send(200, 'text/html; charset=utf-8', PAGE);
    if (req.method === 'GET' && path === '/host.js') return send(200, 'text/javascript', pageScript);
    if (req.method === 'GET' && path === '/log') return send(200, 'application/json', JSON.stringify({ protocol, log }));
    if (req.method === 'POST' && path === '/answer') {
      answer = JSON.parse(await readBody(req)).answer;
      return send(200, 'application/json', '{}');
    }
    if (req.method === 'POST' && path === '/rpc') {
      const { method, params } = JSON.parse(await readBody(req));
      try {
        return send(200, 'application/json', JSON.stringify({ result: await rpc(method, params) }));
      } catch (e) {
        return send(200, 'application/json', JSON.stringify({ error: String(e && e.message) }));
      }
    }
    send(404, 'text/plain', 'not found');
  } catch (e) {
    send(500, 'text/plain', String(e && e.stack));
  }
});
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}`, protocol }));
});
process.stdin.resume();
process.stdin.on('end', async () => {
  server.close();
  await client.close().catch(() => {});
  process.exit(0);
});
