// MCP Apps in the inspector, in a real Chromium: the ext-apps example Apps from npm (server-basic-vanillajs, its own
// SDK's App class) rendered in a sandboxed frame, its button's tool call held for the person's approval, the App
// unable to reach the inspector (tried from inside its frame); server-system-monitor (an App-only polling tool) and
// server-budget-allocator (built from the structured result, its own controls); then mcpkit's dice App with its calls audited by the
// server, and bad Apps (no App MIME type, a CSP asking for the inspector's origin and wildcards). Screenshots in
// dist/test-output/apps/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { registerDiceApp } from '../../examples/everything/app.js';
import type { ServerConfig } from '../../src/host/config/types.js';
import {
  type AuditRecord,
  appToolMeta,
  createLinkedTransports,
  McpServer,
  registerAppResource,
} from '../../src/index.js';
import { type RunningInspector, startInspector } from '../../src/inspector/server.js';
import { type Browser, launch, outputDir, ROOT } from './chromium.js';

const out = outputDir('apps');
/** An ext-apps example server from npm (each bundles its dependencies: it runs offline). */
const npmApp = (name: string) =>
  join(ROOT, 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');
const BASIC = npmApp('server-basic-vanillajs');
const MONITOR = npmApp('server-system-monitor');
const BUDGET = npmApp('server-budget-allocator');
let browser: Browser;
let page: Page;
let npmInspector: RunningInspector;
let monitorInspector: RunningInspector;
let budgetInspector: RunningInspector;
let hostInspector: RunningInspector;
let ownInspector: RunningInspector;
const audited: AuditRecord[] = [];

/** mcpkit's dice App beside two bad Apps, served in-process with an audit sink. */
function fixtureServer(): McpServer {
  const server = new McpServer(
    { name: 'apps-fixture', version: '1.0.0' },
    { audit: { sink: (record) => audited.push(record) } },
  );
  registerDiceApp(server);
  // An App resource declared as plain HTML: a host must refuse to render it.
  server.resource(
    'ui://fixture/plain.html',
    { name: 'plain', mimeType: 'text/html' },
    () => '<p>not an App</p>',
  );
  server.tool(
    'plain_app',
    {
      description: 'Names a resource without the App MIME type',
      _meta: appToolMeta('ui://fixture/plain.html'),
    },
    () => ({ content: [{ type: 'text', text: 'plain' }] }),
  );
  return server;
}

/** A fixture App whose CSP asks for the inspector's own origin and for wildcards; it tries to reach them. */
function greedyApp(server: McpServer, inspectorOrigin: string): void {
  registerAppResource(server, 'ui://fixture/greedy.html', {
    name: 'greedy',
    html: '<!doctype html><html><body><p id="greedy">greedy App</p></body></html>',
    csp: {
      connectDomains: [inspectorOrigin, '*', 'https:', 'https://api.example.com'],
      resourceDomains: ["'unsafe-eval'", 'http://cdn.example.com'],
    },
  });
  server.tool(
    'greedy_app',
    { description: 'An App asking for too much', _meta: appToolMeta('ui://fixture/greedy.html') },
    () => ({ content: [{ type: 'text', text: 'greedy' }] }),
  );
}

before(async () => {
  npmInspector = await startInspector({
    target: { kind: 'stdio', command: process.execPath, args: [BASIC, '--stdio'] },
  });
  let server: McpServer | undefined;
  // Started first, connected after: the greedy App names this inspector's own origin.
  ownInspector = await startInspector();
  const inspectorOrigin = ownInspector.origin;
  await ownInspector.session.connect({
    kind: 'transport',
    label: 'apps fixture (in process)',
    open: () => {
      const [client, end] = createLinkedTransports();
      server = fixtureServer();
      greedyApp(server, inspectorOrigin);
      void server.connect(end);
      return client;
    },
  });
  assert.equal(ownInspector.session.state.status, 'connected');
  monitorInspector = await startInspector({
    target: { kind: 'stdio', command: process.execPath, args: [MONITOR, '--stdio'] },
  });
  budgetInspector = await startInspector({
    target: { kind: 'stdio', command: process.execPath, args: [BUDGET, '--stdio'] },
  });
  // The configured host as the target: the basic App's server is one of its servers, its tools qualified.
  const basic: ServerConfig = {
    name: 'basic',
    transport: { type: 'stdio', command: process.execPath, args: [BASIC, '--stdio'], env: {}, namedEnv: [] },
    disabled: false,
    trusted: false,
    source: { file: 'test', format: 'mcpkit' },
  };
  // Another server beside it, whose tool the App must not reach.
  const other: ServerConfig = {
    ...basic,
    name: 'other',
    transport: {
      type: 'stdio',
      command: process.execPath,
      args: [join(ROOT, 'dist/test/skills/fixtures/skill-server.js')],
      env: {},
      namedEnv: [],
    },
  };
  // The system-monitor App's server on the host too: its polling tool is App-only.
  const monitor: ServerConfig = {
    ...basic,
    name: 'monitor',
    transport: {
      type: 'stdio',
      command: process.execPath,
      args: [MONITOR, '--stdio'],
      env: {},
      namedEnv: [],
    },
  };
  hostInspector = await startInspector({
    host: { config: [basic, other, monitor] },
    target: { kind: 'host' },
  });
  await hostInspector.connected;
  await npmInspector.connected;
  await monitorInspector.connected;
  await budgetInspector.connected;
  assert.ok(server);
  browser = await launch();
  page = browser.page;
});

after(async () => {
  await browser?.close();
  await npmInspector?.close();
  await monitorInspector?.close();
  await budgetInspector?.close();
  await hostInspector?.close();
  await ownInspector?.close();
});

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(out, `${name}.png`), fullPage: true });
}

async function callTool(name: string): Promise<void> {
  await page.click('[data-tab-button="tools"]');
  await page.click(`[data-tool="${name}"]`);
  await page.locator(`[data-tool-detail="${name}"]`).waitFor();
  await page.click('[data-call]');
}

/** The App frame's `Frame`, once its document loaded. */
async function appFrame(): Promise<Frame> {
  const handle = await page.locator('[data-app-frame]').elementHandle();
  const frame = await handle?.contentFrame();
  assert.ok(frame, 'the App frame');
  await frame.waitForLoadState();
  return frame;
}

/**
 * Waits until the App shows a server time other than `before`. A locator, not `waitForFunction`: the App's CSP has
 * no 'unsafe-eval', and Playwright evaluates a string predicate with `eval` on every poll after the first.
 */
async function newTime(frame: Frame, before: string | null): Promise<void> {
  const exactly = new RegExp(`^${(before ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  await frame
    .locator('#server-time', { hasText: /^\d{4}-/ })
    .filter({ hasNotText: exactly })
    .waitFor();
}

test('renders the ext-apps basic-vanillajs App from npm with the tool result it was sent', async () => {
  await page.goto(npmInspector.url);
  await page.locator('[data-status="connected"]').waitFor();
  await callTool('get-time');
  const frame = await appFrame();
  // The App shows the result of the call the person made (ui/notifications/tool-result after ui/initialize).
  await frame.locator('#server-time', { hasText: /^\d{4}-\d\d-\d\dT/ }).waitFor();
  // Sandboxed without allow-same-origin: an opaque origin.
  assert.equal(await frame.evaluate('window.origin'), 'null');
  assert.equal(await page.locator('[data-app-frame]').getAttribute('sandbox'), 'allow-scripts');
  await shot('01-basic-vanillajs-rendered');
});

test("the App's button calls a tool only after the person allows it, and a denial reaches the App", async () => {
  const frame = await appFrame();
  const before = await frame.locator('#server-time').textContent();
  await frame.click('#get-time-btn');
  const ask = page.locator('[data-ask="app-tool"]');
  await ask.waitFor();
  assert.equal(await ask.locator('[data-app-tool]').textContent(), 'get-time');
  assert.equal(await ask.locator('[data-app-uri]').textContent(), 'ui://get-time/mcp-app.html');
  // Held: nothing ran yet, the App still shows the old time.
  assert.equal(npmInspector.session.asks.pending().length, 1);
  assert.equal(await frame.locator('#server-time').textContent(), before);
  await shot('02-app-tool-call-waiting-for-approval');
  await ask.locator('[data-approve]').click();
  await newTime(frame, before);
  const snapshot = npmInspector.session.snapshot();
  assert.ok(
    snapshot.calls.some((c) => c.callId.startsWith('app-') && c.name === 'get-time' && c.status === 'ok'),
  );
  await shot('03-app-tool-call-approved');
  // Denied: the App gets an error answer (the example shows "[ERROR]").
  await frame.click('#get-time-btn');
  await ask.waitFor();
  await ask.locator('[data-decline]').click();
  await frame.locator('#server-time', { hasText: '[ERROR]' }).waitFor();
});

test("from inside its frame the App reaches neither the inspector's API, its token nor its page", async () => {
  const frame = await appFrame();
  const origin = npmInspector.origin;
  // Run inside the App's frame, as the App's own script would.
  const tried = (await frame.evaluate(`(async () => {
    const attempt = async (what) => {
      try {
        return 'reached: ' + String(await what());
      } catch (e) {
        return 'refused: ' + e.name;
      }
    };
    const inspector = ${JSON.stringify(origin)};
    return {
      relativeApi: await attempt(() => fetch('/api/state', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }).then((r) => r.status)),
      absoluteApi: await attempt(() => fetch(inspector + '/api/tools', { method: 'POST', body: '{}' }).then((r) => r.status)),
      events: await attempt(() => fetch(inspector + '/events').then((r) => r.status)),
      cookie: await attempt(() => document.cookie),
      parentPage: await attempt(() => window.parent.document.body.innerHTML.length),
      parentLocation: await attempt(() => window.parent.location.href),
      storage: await attempt(() => window.localStorage.length),
    };
  })()`)) as Record<string, string>;
  for (const [what, outcome] of Object.entries(tried))
    assert.match(outcome, /^refused: /, `${what}: ${outcome}`);
  // Even a request that got past the frame's CSP would carry no token: the server refuses an opaque origin.
  const response = await fetch(`${origin}/api/state`, {
    method: 'POST',
    headers: { Origin: 'null', 'Content-Type': 'application/json' },
    body: '{}',
  });
  assert.equal(response.status, 403);
});

test('a message posted by another window is ignored by the bridge', async () => {
  const frame = await appFrame();
  const call = `{ jsonrpc: '2.0', id: 777, method: 'tools/call', params: { name: 'get-time', arguments: {} } }`;
  // Another frame (the same App's document, opened a second time beside it) posts a tools/call to the page...
  const src = await page.locator('[data-app-frame]').getAttribute('src');
  await page.evaluate(
    `(() => { const f = document.createElement('iframe'); f.id = 'intruder'; f.setAttribute('sandbox', 'allow-scripts'); f.src = ${JSON.stringify(src)}; document.body.append(f); })()`,
  );
  const intruder = await (await page.locator('#intruder').elementHandle())?.contentFrame();
  assert.ok(intruder);
  await intruder.waitForLoadState();
  await intruder.evaluate(`window.parent.postMessage(${call}, '*')`);
  // ...and so does the page itself, as if it were the App.
  await page.evaluate(`window.postMessage(${call}, '*')`);
  // Then the App's own button: the only ask is the App's, and only one.
  await frame.click('#get-time-btn');
  await page.locator('[data-ask="app-tool"]').waitFor();
  assert.equal(npmInspector.session.asks.pending().length, 1);
  await page.locator('[data-ask="app-tool"] [data-decline]').click();
  await page.locator('[data-ask="app-tool"]').waitFor({ state: 'detached' });
  await page.evaluate(`document.getElementById('intruder').remove()`);
});

test('renders the ext-apps system-monitor App from npm; its App-only polling tool runs once allowed for the App', async () => {
  await page.goto(monitorInspector.url);
  await page.locator('[data-status="connected"]').waitFor();
  await callTool('get-system-info');
  const frame = await appFrame();
  // The App fills its info from the tool result it was sent.
  await frame.locator('#info-hostname', { hasNotText: '--' }).waitFor();
  // It starts polling by itself: its first poll waits for the person.
  const ask = page.locator('[data-ask="app-tool"]');
  await ask.waitFor();
  // poll-system-stats is App-only (visibility ["app"]): the App may call it, through the person.
  assert.equal(await ask.locator('[data-app-tool]').textContent(), 'poll-system-stats');
  await ask.locator('[data-approve-app]').click();
  await frame.locator('#memory-percent', { hasText: /^\d+(\.\d+)?%$/ }).waitFor();
  await shot('04-system-monitor');
  // Allowed while this App is open: the next polls ask nothing, and its Stop button is reachable.
  await frame.locator('#poll-toggle-btn', { hasText: 'Stop' }).click();
  await frame.locator('#poll-toggle-btn', { hasText: 'Start' }).waitFor();
  assert.equal(monitorInspector.session.asks.pending().length, 0);
});

test('renders the ext-apps budget-allocator App from npm from its structured result; its budget selector works', async () => {
  await page.goto(budgetInspector.url);
  await page.locator('[data-status="connected"]').waitFor();
  await callTool('get-budget-data');
  const frame = await appFrame();
  // The App builds its sliders from the result's structuredContent (sent after ui/initialize).
  const marketing = frame.locator('.slider-row[data-category-id="marketing"] .amount');
  await marketing.waitFor();
  const before = (await marketing.textContent()) ?? '';
  assert.match(before, /\$[\d,.]+K?/);
  // Its own controls work inside the sandbox: a larger budget scales every allocation.
  await frame.selectOption('#budget-selector', '500000');
  await marketing.filter({ hasNotText: before }).waitFor();
  assert.equal(budgetInspector.session.asks.pending().length, 0);
  await shot('05-budget-allocator');
});

/** Answers the host's approval (asked through the gateway's elicitation) matching `pattern` with `decision`. */
async function hostApproval(pattern: RegExp, decision: string): Promise<void> {
  const dialog = page.locator('[data-ask="elicitation"]').filter({ hasText: pattern });
  await dialog.waitFor();
  await page.selectOption('[name="elicit.decision"]', decision);
  await dialog.locator('[data-accept]').click();
}

test("on the configured host, an App's tool call goes to its own server's tool, through both approvals", async () => {
  await page.goto(hostInspector.url);
  await page.locator('[data-status="connected"]').waitFor();
  await page.locator('[data-host-server="basic"] [data-host-state="ready"]').waitFor();
  await callTool('basic__get-time');
  await hostApproval(/Allow the tool basic__get-time/, 'Allow once');
  const frame = await appFrame();
  await frame.locator('#server-time', { hasText: /^\d{4}-\d\d-\d\dT/ }).waitFor();
  const before = await frame.locator('#server-time').textContent();
  // The App calls its tool by its server's name for it, get-time: the inspector asks the person about the App's call...
  await frame.click('#get-time-btn');
  const ask = page.locator('[data-ask="app-tool"]');
  await ask.waitFor();
  assert.equal(await ask.locator('[data-app-tool]').textContent(), 'get-time');
  await ask.locator('[data-approve]').click();
  // ...then the host asks again, as for the model's calls, about its qualified tool (nothing was allowed for longer).
  await hostApproval(/Allow the tool basic__get-time/, 'Allow once');
  await newTime(frame, before);
  assert.ok(
    hostInspector.session
      .snapshot()
      .calls.some((c) => c.callId.startsWith('app-') && c.name === 'basic__get-time' && c.status === 'ok'),
  );
  await shot('05c-host-app-call');
});

test("on the configured host, the system-monitor App's App-only polling tool reaches its server", async () => {
  await page.goto(hostInspector.url);
  await page.locator('[data-status="connected"]').waitFor();
  await page.locator('[data-host-server="monitor"] [data-host-state="ready"]').waitFor();
  await callTool('monitor__get-system-info');
  await hostApproval(/Allow the tool monitor__get-system-info/, 'Allow once');
  const frame = await appFrame();
  await frame.locator('#info-hostname', { hasNotText: '--' }).waitFor();
  // The inspector renders Apps and says so to the host's gateway, which then lists the App-only tool to it.
  const ask = page.locator('[data-ask="app-tool"]');
  await ask.waitFor();
  assert.equal(await ask.locator('[data-app-tool]').textContent(), 'poll-system-stats');
  await ask.locator('[data-approve-app]').click();
  await hostApproval(/Allow the tool monitor__poll-system-stats/, 'Allow for this session');
  await frame.locator('#memory-percent', { hasText: /^\d+(\.\d+)?%$/ }).waitFor();
  await frame.locator('#poll-toggle-btn', { hasText: 'Stop' }).click();
  await frame.locator('#poll-toggle-btn', { hasText: 'Start' }).waitFor();
});

test("on the configured host, an App reaches no other server's tool, not even by its qualified name", async () => {
  const session = hostInspector.session;
  await page.click('[data-tab-button="server"]');
  await page.locator('[data-host-server="other"] [data-host-state="ready"]').waitFor();
  const opened = await session.apps.open('ui://get-time/mcp-app.html');
  // Any ask a call raises is declined at once: a call let through would end "declined", not refused as unknown.
  const stop = session.subscribe((event) => {
    if (event.type === 'ask') session.asks.answer(event.ask.id, { approve: false });
  });
  try {
    for (const name of ['other__reload_skills', 'reload_skills']) {
      const outcome = await session.apps.call(opened.id, name, {}).then(
        () => 'ran',
        (e: Error) => e.message,
      );
      assert.match(outcome, /^Unknown tool/, name);
    }
  } finally {
    stop();
  }
});

test("mcpkit's dice App: its Roll again goes through approval and the server's audit", async () => {
  await page.goto(ownInspector.url);
  await page.locator('[data-status="connected"]').waitFor();
  await callTool('roll_dice');
  const frame = await appFrame();
  await frame.locator('#face', { hasText: /^\d+$/ }).waitFor();
  const callsBefore = audited.filter((r) => r.kind === 'tool' && r.name === 'roll_dice').length;
  await frame.click('#again');
  await page.locator('[data-ask="app-tool"] [data-approve]').click();
  await frame.locator('#status', { hasText: 'rolled through the host' }).waitFor();
  // The App's call reached the server as an ordinary tools/call: the audit recorded it.
  assert.equal(audited.filter((r) => r.kind === 'tool' && r.name === 'roll_dice').length, callsBefore + 1);
  await shot('05b-dice-app');
});

test('an App resource without the App MIME type is refused with a clear message', async () => {
  await callTool('plain_app');
  const error = page.locator('[data-app-error]');
  await error.waitFor();
  assert.match(
    (await error.textContent()) ?? '',
    /ui:\/\/fixture\/plain\.html is not an MCP App: its MIME type is "text\/html", not "text\/html;profile=mcp-app"/,
  );
  assert.equal(await page.locator('[data-app-frame]').count(), 0);
  await shot('06-not-an-app');
});

test('a CSP asking for more than allowed is not loosened: the extra sources are refused and shown', async () => {
  await callTool('greedy_app');
  const frame = await appFrame();
  await frame.locator('#greedy').waitFor();
  const refused = (await page.locator('[data-app-refused]').textContent()) ?? '';
  for (const source of [
    `http://127.0.0.1:${ownInspector.port}`,
    '*',
    'https:',
    "'unsafe-eval'",
    'http://cdn.example.com',
  ])
    assert.ok(refused.includes(`${source} not allowed`), `${source} refused: ${refused}`);
  // The App asked to connect to the inspector's origin: refused by its frame's policy all the same.
  const reached = await frame.evaluate(
    `fetch(${JSON.stringify(`${ownInspector.origin}/api/state`)}, { method: 'POST', body: '{}' }).then(() => 'reached', (e) => 'refused: ' + e.name)`,
  );
  assert.equal(reached, 'refused: TypeError');
  await shot('07-csp-refused');
});
