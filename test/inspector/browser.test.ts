// The inspector in a real Chromium: one browser for the whole file, one inspector connected over stdio to the
// example server, then the scenarios of issue 12 in order, each leaving a screenshot in dist/test-output/inspector/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type RunningInspector, startInspector } from '../../src/inspector/server.js';
import { type Browser, launch, outputDir } from './chromium.js';
import { everythingOverHttp, STDIO_TARGET } from './everything.js';

const out = outputDir('inspector');
let browser: Browser;
let page: Page;
let inspector: RunningInspector;
let http: { url: string; stop: () => Promise<void> } | undefined;

before(async () => {
  inspector = await startInspector({ target: STDIO_TARGET });
  browser = await launch();
  page = browser.page;
});

after(async () => {
  await browser?.close();
  await inspector?.close();
  await http?.stop();
});

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(out, `${name}.png`) });
}

async function tab(name: string): Promise<void> {
  await page.click(`[data-tab-button="${name}"]`);
}

async function pickTool(name: string): Promise<void> {
  await tab('tools');
  await page.click(`[data-tool="${name}"]`);
  await page.locator(`[data-tool-detail="${name}"]`).waitFor();
}

/** Waits until the tool result shows `text`. */
async function resultWith(text: string): Promise<void> {
  await page.locator('[data-result]').filter({ hasText: text }).waitFor();
}

async function fact(name: string): Promise<string> {
  return (await page.locator(`[data-fact="${name}"]`).textContent()) ?? '';
}

test('connects to the example server over stdio and shows what was negotiated', async () => {
  await page.goto(inspector.url);
  // The token moved into the cookie: the address bar no longer carries it.
  assert.equal(new URL(page.url()).search, '');
  await page.locator('[data-status="connected"]').waitFor();
  // Negotiated: the stateless revision, unless the server took longer than the client's probe allows to answer
  // it (a loaded machine), when the client settles on the latest stateful one. The page shows what the client has.
  const client = inspector.session.state;
  assert.equal(await fact('era'), client.era);
  assert.equal(await fact('revision'), client.protocolVersion);
  assert.equal(client.protocolVersion, client.era === 'stateless' ? '2026-07-28' : '2025-11-25');
  assert.match(await fact('server'), /everything/i);
  assert.match((await page.locator('[data-tab="server"]').textContent()) ?? '', /"tools"/);
  await shot('01-stdio-connected');
});

test('lists the tools and calls one through the generated form', async () => {
  await pickTool('echo');
  assert.ok((await page.locator('[data-tool]').count()) > 10);
  await page.fill('[name="args.text"]', 'hello inspector');
  await page.click('[data-call]');
  await resultWith('echo: hello inspector');
  // A nested object behind a $ref, and numbers with structured content beside the output schema.
  await pickTool('json_schema_2020_12_tool');
  await page.fill('[name="args.name"]', 'Ada');
  await page.fill('[name="args.address.city"]', 'London');
  await page.click('[data-call]');
  await resultWith('"city":"London"');
  await pickTool('add');
  await page.fill('[name="args.a"]', '2');
  await page.fill('[name="args.b"]', '40');
  await page.click('[data-call]');
  await page.locator('.structured').filter({ hasText: '"sum": 42' }).waitFor();
  assert.match((await page.locator('.structured').textContent()) ?? '', /Output schema.*"sum"/s);
  await shot('02-tool-form-structured');
  // The raw-JSON mode edits the same arguments.
  await page.check('[data-raw-switch]');
  await page.fill('[name="args.raw"]', '{"a": 1, "b": 2}');
  await page.click('[data-call]');
  await page.locator('.structured').filter({ hasText: '"sum": 3' }).waitFor();
  await pickTool('test_error_handling');
  await page.click('[data-call]');
  await page.locator('.result.is-error').filter({ hasText: 'isError' }).waitFor();
});

test('renders an image a tool returns', async () => {
  await pickTool('test_image_content');
  await page.click('[data-call]');
  const img = page.locator('[data-block="image"] img');
  await img.waitFor();
  const width = await img.evaluate((el: { naturalWidth: number }) => el.naturalWidth);
  assert.equal(width, 1, 'the 1x1 PNG decoded');
  await shot('03-image-result');
});

test('shows a progress bar advancing during a call', async () => {
  await pickTool('test_tool_with_progress');
  await page.evaluate(`(() => {
    window.__progress = [];
    const seen = () => {
      for (const el of document.querySelectorAll('[data-progress] progress')) {
        const v = el.getAttribute('data-value');
        if (window.__progress[window.__progress.length - 1] !== v) window.__progress.push(v);
      }
    };
    new MutationObserver(seen).observe(document.body, { subtree: true, childList: true, attributes: true });
  })()`);
  await page.click('[data-call]');
  await resultWith('Tool with progress executed successfully');
  const values = ((await page.evaluate('window.__progress')) as string[]).map(Number);
  assert.ok(values.length >= 2, `the bar moved: ${values.join(', ')}`);
  assert.deepEqual(
    values,
    [...values].sort((a, b) => a - b),
    'progress only goes up',
  );
  assert.equal(values.at(-1), 100);
  await page.click('[data-pane-tab="progress"]');
  await page
    .locator('[data-pane="progress"] [data-progress]')
    .filter({ hasText: '100 / 100' })
    .first()
    .waitFor();
  await shot('04-progress');
});

test('the traffic pane shows the messages both ways with timing and sizes', async () => {
  await page.click('[data-pane-tab="traffic"]');
  const sent = page.locator('[data-pane="traffic"] tr[data-traffic="out"][data-method="tools/call"]').first();
  const answer = page
    .locator('[data-pane="traffic"] tr[data-traffic="in"][data-method="tools/call"]')
    .first();
  await answer.waitFor();
  assert.match((await answer.textContent()) ?? '', /\d+(\.\d)? (B|KiB)\d+$/);
  await sent.click();
  await page.locator('[data-pane="traffic"] .traffic-body').filter({ hasText: '"tools/call"' }).waitFor();
  await shot('05-traffic');
});

test('log messages arrive with a level filter', async () => {
  await pickTool('test_tool_with_logging');
  await page.click('[data-call]');
  await resultWith('Tool with logging executed successfully');
  await page.click('[data-pane-tab="logs"]');
  const rows = page.locator('[data-pane="logs"] tr[data-log="info"]');
  await rows.filter({ hasText: 'Tool execution completed' }).waitFor();
  assert.ok((await rows.count()) >= 3);
  await page.selectOption('[name="log-level"]', 'warning');
  assert.equal(await rows.count(), 0, 'info hidden at warning');
  await page.selectOption('[name="log-level"]', 'debug');
});

test('reads a resource, and sees a subscribed one update live', async () => {
  await tab('resources');
  await page.click('[data-resource="test://static-text"]');
  await page
    .locator('[data-contents="test://static-text"]')
    .filter({ hasText: 'This is the content of the static text resource.' })
    .waitFor();
  await page.click('[data-resource="test://watched-resource"]');
  await page.click('[data-subscribe]');
  await page.locator('[data-updates="0"]').waitFor();
  // The server changes it (a tool called through the inspector's API, as a script would): while the page looks
  // at the resource, the update arrives and the content is read again.
  await page.evaluate(
    `fetch('/api/call', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ callId: 'script-1', name: 'update_watched' }) }).then((r) => r.json())`,
  );
  await page.locator('[data-updates="1"]').waitFor();
  await page.locator('[data-contents="test://watched-resource"]').filter({ hasText: 'revision 1' }).waitFor();
  await page.click('[data-pane-tab="events"]');
  await page.locator('[data-pane="events"] tr[data-event="resource_updated"]').first().waitFor();
  await shot('06-resource-subscribed');
});

test('fills a template with the server’s completions and reads it', async () => {
  await tab('resources');
  await page.click('[data-template="test://items/{id}"]');
  await page.fill('[name="var.id"]', 'a');
  await page.locator('[data-suggestions="var.id"] button', { hasText: 'alpha' }).click();
  assert.equal(await page.locator('[data-expanded]').textContent(), 'test://items/alpha');
  await page.click('[data-read-template]');
  await page.locator('[data-contents="test://items/alpha"]').filter({ hasText: 'item alpha' }).waitFor();
  await shot('07-template');
});

test('gets a prompt with argument completion and shows its messages', async () => {
  await tab('prompts');
  await page.click('[data-prompt="greet"]');
  await page.fill('[name="arg.name"]', 'A');
  const suggestions = page.locator('[data-suggestions="arg.name"]');
  await suggestions.filter({ hasText: 'Alan' }).waitFor();
  assert.match((await suggestions.textContent()) ?? '', /Ada.*Alan/);
  await page.fill('[name="arg.name"]', 'Grace');
  await page.click('[data-get-prompt]');
  await page.locator('[data-messages]').filter({ hasText: 'Hello, Grace!' }).waitFor();
  await shot('08-prompt');
});

test('answers an elicitation through its form', async () => {
  await pickTool('test_elicitation');
  await page.fill('[name="args.message"]', 'Who is inspecting?');
  await page.click('[data-call]');
  const dialog = page.locator('[data-ask="elicitation"]');
  await dialog.filter({ hasText: 'Who is inspecting?' }).waitFor();
  await page.fill('[name="elicit.username"]', 'ada');
  await page.fill('[name="elicit.email"]', 'ada@example.com');
  await shot('09-elicitation');
  await dialog.locator('[data-accept]').click();
  await resultWith('action=accept');
  await resultWith('ada@example.com');
  assert.equal(await dialog.count(), 0);
});

test('answers a sampling request: edit and approve', async () => {
  await pickTool('test_sampling');
  await page.fill('[name="args.prompt"]', 'What is 2 + 2?');
  await page.click('[data-call]');
  const dialog = page.locator('[data-ask="sampling"]');
  await dialog.filter({ hasText: 'What is 2 + 2?' }).waitFor();
  await page.fill('[name="sampling.text"]', 'Four, said the person.');
  await shot('10-sampling');
  await dialog.locator('[data-approve]').click();
  await resultWith('LLM response: Four, said the person.');
});

test('edits the roots the server sees', async () => {
  await tab('roots');
  await page.click('text=Add root');
  await page.fill('[name="root.0.uri"]', 'file:///tmp/inspected');
  await page.fill('[name="root.0.name"]', 'inspected');
  await page.click('[data-apply-roots]');
  await page.locator('[data-tab="roots"]').filter({ hasText: 'applied' }).waitFor();
  await pickTool('roots');
  await page.click('[data-call]');
  await resultWith('inspected: file:///tmp/inspected');
});

test('connects to the example server over HTTP with a header the page never sees, and switches the era by hand', async () => {
  http = await everythingOverHttp();
  await page.selectOption('[name="kind"]', 'http');
  await page.fill('[name="url"]', http.url);
  await page.fill('[name="headers"]', 'X-Inspector-Secret: s3cret-header-value');
  await page.click('[data-connect]');
  await tab('server');
  await page.locator('[data-fact="transport"]', { hasText: 'streamable-http' }).waitFor();
  await page.locator('[data-status="connected"]').waitFor();
  assert.equal(await fact('target'), `${http.url} (headers: X-Inspector-Secret)`);
  await pickTool('echo');
  await page.fill('[name="args.text"]', 'over http');
  await page.click('[data-call]');
  await resultWith('echo: over http');
  await shot('11-http');
  // Pin a stateful revision and reconnect to the same target.
  await page.selectOption('[name="revision"]', '2025-06-18');
  await page.click('[data-connect]');
  await tab('server');
  await page.locator('[data-fact="revision"]', { hasText: '2025-06-18' }).waitFor();
  await page.locator('[data-status="connected"]').waitFor();
  assert.equal(await fact('era'), 'stateful');
  await shot('12-era-pinned');
  // The header's value is nowhere the page can reach: not in the DOM, not in any answer of the inspector.
  const html = await page.content();
  const state = (await page.evaluate(
    `fetch('/api/state', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }).then((r) => r.text())`,
  )) as string;
  assert.ok(state.includes('X-Inspector-Secret'), 'the state names the header');
  for (const text of [html, state]) assert.ok(!text.includes('s3cret-header-value'));
  assert.equal(await page.inputValue('[name="headers"]'), '', 'the typed header left the page once sent');
});

test('the page threw no errors', () => {
  assert.deepEqual(browser.errors, []);
});
