// The TypeScript SDK's OAuth support (@modelcontextprotocol/sdk, its OAuthClientProvider and
// auth()) against the live server from the bare MCP URL: discovery, dynamic registration, the
// sign-in and consent forms (submitted with fetch, cookies kept by hand), the code exchange, a
// tool call, and — the server's access tokens living one second — a refresh on the next call.
//
//   node ts_oauth_client.mjs MCP_URL EMAIL PASSWORD
//
// The last line of stdout is one JSON object with what happened.
const [url, email, password] = process.argv.slice(2);
const { Client } = await import('sdk-1-32/client/index.js');
const { StreamableHTTPClientTransport } = await import('sdk-1-32/client/streamableHttp.js');
const { UnauthorizedError } = await import('sdk-1-32/client/auth.js');

const REDIRECT = 'http://127.0.0.1:3032/callback';

function hidden(page, name) {
  const found = page.match(new RegExp(`name="${name}" value="([^"]*)"`));
  if (!found) throw new Error(`no hidden field ${name}: ${page.slice(0, 300)}`);
  // Character references as a browser reads them, in one pass (`&#38;`, `&#x26;`, `&amp;`).
  const named = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return found[1].replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref) => {
    if (ref[0] !== '#') return named[ref.toLowerCase()] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return String.fromCodePoint(code);
  });
}

/** A person at a browser: cookies kept, redirects looked at one by one. */
class Person {
  cookies = new Map();
  pages = [];
  code = undefined;
  async fetch(target, init = {}) {
    const headers = { ...(init.headers ?? {}), cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
    const response = await fetch(target, { ...init, headers, redirect: 'manual' });
    for (const set of response.headers.getSetCookie()) {
      const [pair] = set.split(';');
      const i = pair.indexOf('=');
      this.cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
    return response;
  }
  async signInAndConsent(authorizationUrl) {
    const signIn = await (await this.fetch(authorizationUrl)).text();
    this.pages.push('sign-in');
    const signed = await this.fetch(new URL('/oauth/sign-in', authorizationUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: hidden(signIn, 'csrf'), return_to: hidden(signIn, 'return_to'), email, password }),
    });
    if (signed.status !== 303) throw new Error(`sign-in answered ${signed.status}: ${await signed.text()}`);
    const consent = await (await this.fetch(new URL(signed.headers.get('location'), authorizationUrl))).text();
    if (!consent.includes('Autorizar')) throw new Error(`no consent page: ${consent.slice(0, 300)}`);
    this.pages.push('consent');
    const form = new URLSearchParams({ csrf: hidden(consent, 'csrf'), request: hidden(consent, 'request'), decision: 'allow' });
    for (const [, scope] of consent.matchAll(/name="scope" value="([^"]*)"/g)) form.append('scope', scope);
    const allowed = await this.fetch(new URL('/oauth/consent', authorizationUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    if (allowed.status !== 303) throw new Error(`consent answered ${allowed.status}`);
    this.code = new URL(allowed.headers.get('location')).searchParams.get('code');
  }
}

const person = new Person();
const saved = { tokens: [], client: undefined, verifier: undefined };
const provider = {
  get redirectUrl() { return REDIRECT; },
  get clientMetadata() {
    return {
      client_name: 'TypeScript SDK (teste)', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: 'none',
    };
  },
  clientInformation() { return saved.client; },
  saveClientInformation(info) { saved.client = info; },
  tokens() { return saved.tokens.at(-1); },
  saveTokens(tokens) { saved.tokens.push(tokens); },
  async redirectToAuthorization(authorizationUrl) { await person.signInAndConsent(authorizationUrl); },
  saveCodeVerifier(verifier) { saved.verifier = verifier; },
  codeVerifier() { return saved.verifier; },
};

const report = { pages: person.pages };
async function connect() {
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  const client = new Client({ name: 'ts-oauth', version: '1.0.0' });
  try {
    await client.connect(transport);
    return client;
  } catch (error) {
    if (!(error instanceof UnauthorizedError) || !person.code) throw error;
    // The browser came back with a code: exchange it, then connect again.
    await transport.finishAuth(person.code);
    const again = new Client({ name: 'ts-oauth', version: '1.0.0' });
    await again.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
    return again;
  }
}
const client = await connect();
const first = await client.callTool({ name: 'dunning_me', arguments: {} });
report.first_call_error = Boolean(first.isError);
report.first_text = first.content?.[0]?.text ?? '';
await new Promise((resolve) => setTimeout(resolve, 2500));
const second = await client.callTool({ name: 'dunning_charges_list', arguments: {} });
report.second_call_error = Boolean(second.isError);
report.client_id = saved.client?.client_id;
report.tokens_received = saved.tokens.length;
report.refresh_tokens_distinct = new Set(saved.tokens.map((t) => t.refresh_token)).size;
report.scope = saved.tokens.at(-1)?.scope;
await client.close();
console.log(JSON.stringify(report));
