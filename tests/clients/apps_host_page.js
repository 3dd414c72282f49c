// The host page of the views test (bundled by apps_host.mjs): it finds a tool's view, renders it
// in a sandboxed iframe, connects the official AppBridge to it, runs the tool and hands the view
// the arguments and the result, as a host does when the model calls the tool. The view's own
// calls (`tools/call`) go through the bridge to the MCP client in apps_host.mjs.
//
// URL: /?tool=NAME&args=JSON&theme=light|dark[&hostile=1]. What happened is in
// `window.hostLog`; the test switches the theme with `window.setTheme('dark')`.
//
// `hostile=1` plays a third party's data: every name, description, note and tag in what the
// server answers (the tool's result and the view's own calls) is replaced by markup, script, a
// bidi override and 10 000 characters, before the view sees it.

import { AppBridge, PostMessageTransport, buildAllowAttribute } from '@modelcontextprotocol/ext-apps/app-bridge';

const query = new URLSearchParams(location.search);
const toolName = query.get('tool');
const args = JSON.parse(query.get('args') || '{}');
window.hostLog = [];
const note = (kind, detail) => window.hostLog.push({ kind, ...detail });

async function rpc(method, params) {
  const response = await fetch('/rpc', { method: 'POST', body: JSON.stringify({ method, params }) });
  const answer = await response.json();
  if (answer.error) throw new Error(answer.error);
  return answer.result;
}

const MARKUP = '<script>document.body.dataset.pwned = "script"</script>' +
  '"><img src=x onerror="document.body.dataset.pwned = \'img\'">';
const HOSTILE = {
  name: `${MARKUP} \u202Eodivaf oãn \u202C${'Devedor '.repeat(1250)}`,
  description: `\u202E${MARKUP}\u202C ${'x'.repeat(10000)}`,
  note: `${MARKUP}${'y'.repeat(10000)}`,
  tag: `${MARKUP}${'T'.repeat(10000)}`,
};
// The result with every third party's string replaced (text content blocks re-written from the
// structured content, as the server writes them).
function poison(result) {
  const walk = (value, key) => {
    if (Array.isArray(value)) {
      return value.map((item) => (key === 'tags' && typeof item === 'string' ? HOSTILE.tag : walk(item)));
    }
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    }
    if (typeof value === 'string' && key in HOSTILE) return HOSTILE[key];
    return value;
  };
  if (!result || !result.structuredContent) return result;
  const structuredContent = walk(result.structuredContent);
  return { ...result, structuredContent, content: [{ type: 'text', text: JSON.stringify(structuredContent, null, 2) }] };
}
const hostile = query.get('hostile') === '1';
const fromServer = (result) => (hostile ? poison(result) : result);

// Two palettes in the spec's style variables, as a host hands them over.
const PALETTES = {
  light: {
    '--color-background-primary': '#ffffff',
    '--color-background-secondary': '#f4f4f6',
    '--color-background-tertiary': '#e9e9ee',
    '--color-text-primary': '#1b1b1f',
    '--color-text-secondary': '#55555f',
    '--color-text-tertiary': '#7a7a85',
    '--color-text-danger': '#b3261e',
    '--color-text-success': '#1e7b34',
    '--color-text-warning': '#8a5a00',
    '--color-text-info': '#1d5fb8',
    '--color-border-primary': '#c9c9d1',
    '--color-border-secondary': '#dedee4',
    '--color-ring-primary': '#3b6fd8',
    '--font-sans': 'system-ui, -apple-system, "Segoe UI", sans-serif',
    '--font-mono': 'ui-monospace, "DejaVu Sans Mono", monospace',
    '--border-radius-md': '8px',
  },
  dark: {
    '--color-background-primary': '#1c1c21',
    '--color-background-secondary': '#26262d',
    '--color-background-tertiary': '#31313a',
    '--color-text-primary': '#ececf1',
    '--color-text-secondary': '#b4b4bf',
    '--color-text-tertiary': '#8c8c98',
    '--color-text-danger': '#ff8a80',
    '--color-text-success': '#7bd88f',
    '--color-text-warning': '#f5c26b',
    '--color-text-info': '#8ab4f8',
    '--color-border-primary': '#464652',
    '--color-border-secondary': '#383842',
    '--color-ring-primary': '#8ab4f8',
    '--font-sans': 'system-ui, -apple-system, "Segoe UI", sans-serif',
    '--font-mono': 'ui-monospace, "DejaVu Sans Mono", monospace',
    '--border-radius-md': '8px',
  },
};

function hostContext(theme, tool) {
  return {
    theme,
    styles: { variables: PALETTES[theme] },
    locale: 'pt-BR',
    timeZone: 'America/Sao_Paulo',
    displayMode: 'inline',
    availableDisplayModes: ['inline'],
    containerDimensions: { width: 860, maxHeight: 4000 },
    platform: 'web',
    toolInfo: { tool },
  };
}

// The host's policy for the view, from its `_meta.ui.csp` (every list empty: nothing from
// outside), as a host builds it: inline code must be allowed for a self-contained view to run.
function hostPolicy(csp = {}) {
  const list = (domains, fallback) => (domains && domains.length ? domains.join(' ') : fallback);
  const resources = list(csp.resourceDomains, '');
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resources}`.trim(),
    `style-src 'unsafe-inline' ${resources}`.trim(),
    `img-src data: ${resources}`.trim(),
    `font-src data: ${resources}`.trim(),
    `connect-src ${list(csp.connectDomains, "'none'")}`,
    `frame-src ${list(csp.frameDomains, "'none'")}`,
    `base-uri ${list(csp.baseUriDomains, "'none'")}`,
  ].join('; ');
}

function withHostPolicy(html, csp) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${hostPolicy(csp)}">`;
  const head = html.search(/<head[\s>]/i);
  if (head < 0) return meta + html;
  const end = html.indexOf('>', head) + 1;
  return html.slice(0, end) + meta + html.slice(end);
}

async function main() {
  const theme = query.get('theme') === 'dark' ? 'dark' : 'light';
  document.body.classList.toggle('dark', theme === 'dark');
  const { tools } = await rpc('tools/list');
  const tool = tools.find((t) => t.name === toolName);
  if (!tool) throw new Error(`no tool ${toolName}`);
  const uri = tool._meta?.ui?.resourceUri;
  if (!uri) throw new Error(`${toolName} has no view`);
  const read = await rpc('resources/read', { uri });
  const content = read.contents[0];
  note('resource', { uri, mimeType: content.mimeType, bytes: content.text.length });
  const ui = content._meta?.ui ?? {};

  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.setAttribute('allow', buildAllowAttribute(ui.permissions));
  iframe.title = tool.title ?? toolName;
  document.getElementById('views').append(iframe);

  const bridge = new AppBridge(
    null,
    { name: 'kobana-views-test-host', version: '1.0.0' },
    { serverTools: {}, openLinks: {}, logging: {} },
    { hostContext: hostContext(theme, tool) },
  );
  bridge.onsizechange = ({ width, height }) => {
    note('size-changed', { width, height });
    if (height) iframe.style.height = `${Math.ceil(height)}px`;
  };
  bridge.oncalltool = async (params) => {
    note('view-called', { name: params.name, arguments: params.arguments ?? {} });
    return fromServer(await rpc('tools/call', params));
  };
  bridge.onopenlink = async ({ url }) => {
    note('open-link', { url });
    return {};
  };
  bridge.onmessage = async (params) => {
    note('message', { params });
    return {};
  };
  bridge.oninitialized = async () => {
    note('initialized', { app: bridge.getAppVersion() });
    await bridge.sendToolInput({ arguments: args });
    const result = await rpc('tools/call', { name: toolName, arguments: args });
    note('tool-result', { isError: Boolean(result.isError) });
    await bridge.sendToolResult(fromServer(result));
  };
  window.setTheme = (next) => {
    document.body.classList.toggle('dark', next === 'dark');
    bridge.setHostContext(hostContext(next, tool));
    note('theme', { theme: next });
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = withHostPolicy(content.text, ui.csp);
}

main().catch((e) => note('host-error', { message: String(e && e.message) }));
