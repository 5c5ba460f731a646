// The inspector's rough edges a first hour found (issue 25), each checked in a real Chromium: a command-line
// target's transport named, the connect field showing the target, progress labels beside (not over) their bars,
// equal form fields, required fields asked for before sending, tool names under their titles, a 1×1 PNG shown with
// its size, and a call's result reaching a page opened after the one that started it was closed. Screenshots go to
// dist/test-output/inspector-edges/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { z } from 'zod';
import { McpServer } from '../../src/index.js';
import { type RunningInspector, startInspector } from '../../src/inspector/server.js';
import { createLinkedTransports } from '../../src/testing.js';
import { StdioClientTransport } from '../../src/transport/stdio-client.js';
import { type Browser, launch, outputDir } from './chromium.js';
import { EVERYTHING } from './everything.js';

const out = outputDir('inspector-edges');
const LABEL = 'node dist/examples/everything/server.js';
let browser: Browser;
let page: Page;
/** The example server over stdio, given as the command line gives it: a transport the caller builds. */
let everything: RunningInspector;
/** An in-process server: a titled tool and one that waits until the test lets it answer. */
let own: RunningInspector;
let release: () => void = () => undefined;

before(async () => {
  everything = await startInspector({
    target: {
      kind: 'transport',
      label: LABEL,
      open: () => new StdioClientTransport({ command: process.execPath, args: [EVERYTHING] }),
    },
  });
  const server = new McpServer({ name: 'edges', version: '1.0.0' });
  server.tool(
    'get_weather',
    {
      title: 'Weather Forecast',
      description: 'The weather somewhere.',
      inputSchema: z.object({ city: z.string() }),
    },
    ({ city }) => `sunny in ${city}`,
  );
  server.tool('slow', { description: 'Answers when the test says so.' }, async () => {
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return 'finally done';
  });
  own = await startInspector({
    target: {
      kind: 'transport',
      label: 'in-process server',
      open: () => {
        const [clientSide, serverSide] = createLinkedTransports();
        void server.connect(serverSide);
        return clientSide;
      },
    },
  });
  browser = await launch();
  page = browser.page;
});

after(async () => {
  release();
  await browser?.close();
  await everything?.close();
  await own?.close();
});

async function shot(name: string, on: Page = page): Promise<void> {
  await on.screenshot({ path: join(out, `${name}.png`) });
}

async function open(inspector: RunningInspector, on: Page = page): Promise<void> {
  await on.goto(inspector.url);
  await on.locator('[data-status="connected"]').waitFor();
}

async function pickTool(name: string, on: Page = page): Promise<void> {
  await on.click('[data-tab-button="tools"]');
  await on.click(`[data-tool="${name}"]`);
  await on.locator(`[data-tool-detail="${name}"]`).waitFor();
}

test('a target built by the command line: its transport named, its command in the connect field', async () => {
  await open(everything);
  // It was "transport": the kind of target, not the transport it opened.
  assert.equal(await page.locator('[data-fact="transport"]').textContent(), 'stdio');
  // The field was left empty once connected; it shows what Reconnect reconnects to.
  assert.equal(await page.inputValue('[name="command"]'), LABEL);
  assert.equal((await page.locator('[data-connect]').textContent())?.trim(), 'Reconnect');
  await page.fill('[name="command"]', 'node other.js');
  assert.equal((await page.locator('[data-connect]').textContent())?.trim(), 'Connect');
  await shot('01-transport-named');
});

test('a progress label stays off its bar and says once that the call ended', async () => {
  await pickTool('test_tool_with_progress');
  await page.click('[data-call]');
  await page.locator('[data-result]').filter({ hasText: 'executed successfully' }).waitFor();
  await page.click('[data-pane-tab="progress"]');
  const bar = page.locator('[data-pane="progress"] [data-progress]').first();
  await bar.waitFor();
  // Where the name's text is drawn, against the bar: the name was in a 16-character column it overflowed.
  const overlap = await page.evaluate(`(() => {
    const el = document.querySelector('[data-pane="progress"] [data-progress]');
    const range = document.createRange();
    range.selectNodeContents(el.querySelector('.progress-name'));
    const a = range.getBoundingClientRect();
    const b = el.querySelector('progress').getBoundingClientRect();
    return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  })()`);
  assert.equal(overlap, false, 'the progress name is drawn over its bar');
  const text = (await bar.textContent()) ?? '';
  assert.doesNotMatch(text, /\(done\)/i, text);
  assert.match(text, /100 \/ 100/);
  await shot('02-progress');
});

test('every field of a form is as wide as the others', async () => {
  await pickTool('add');
  const a = await page.locator('[name="args.a"]').boundingBox();
  const b = await page.locator('[name="args.b"]').boundingBox();
  assert.ok(a && b);
  // The raw-JSON switch floated beside the first field and made it narrower.
  assert.equal(Math.round(a.width), Math.round(b.width));
  await shot('03-form');
});

test('required fields are asked for before anything is sent', async () => {
  await pickTool('echo');
  await page.click('[data-call]');
  await page.locator('[data-call-error]').filter({ hasText: 'required' }).waitFor();
  assert.match((await page.locator('[data-call-error]').textContent()) ?? '', /text/);
  await shot('04-required');
  // Nothing reached the server: no call in the activity log.
  assert.equal(everything.session.activity.entries().filter((e) => e.name === 'echo').length, 0);
  await page.fill('[name="args.text"]', 'now');
  await page.click('[data-call]');
  await page.locator('[data-result]').filter({ hasText: 'echo: now' }).waitFor();
  // A prompt's required arguments too.
  await page.click('[data-tab-button="prompts"]');
  await page.click('[data-prompt="test_prompt_with_arguments"]');
  await page.fill('[name="arg.arg1"]', 'one');
  await page.click('[data-get-prompt]');
  await page.locator('[data-prompt-error]').filter({ hasText: 'arg2' }).waitFor();
  assert.equal(everything.session.activity.entries().filter((e) => e.kind === 'prompt').length, 0);
});

test('a 1×1 PNG resource shows drawn large enough to see, with its type, bytes and pixels', async () => {
  await page.click('[data-tab-button="resources"]');
  await page.click('[data-resource="test://static-binary"]');
  const contents = page.locator('[data-contents="test://static-binary"]');
  await contents.locator('img').waitFor();
  await page.locator('[data-image-size]').filter({ hasText: '1 × 1 px' }).waitFor();
  const text = (await contents.textContent()) ?? '';
  assert.match(text, /image\/png/);
  assert.match(text, /\b\d+ B\b/);
  const box = await contents.locator('img').boundingBox();
  assert.ok(box && box.width >= 16 && box.height >= 16, `drawn ${box?.width}×${box?.height}`);
  await shot('05-png');
});

test('a tool shows the name to call it by under its title', async () => {
  await open(own);
  // A built transport of no known kind is named as such, not "transport"; no field shows it, the button reconnects.
  assert.equal(await page.locator('[data-fact="transport"]').textContent(), 'custom');
  assert.equal(await page.inputValue('[name="command"]'), '');
  assert.equal((await page.locator('[data-connect]').textContent())?.trim(), 'Reconnect');
  await page.click('[data-tab-button="tools"]');
  const item = page.locator('[data-tool="get_weather"]');
  assert.match((await item.textContent()) ?? '', /Weather Forecast/);
  assert.equal(await item.locator('[data-tool-name]').textContent(), 'get_weather');
  await pickTool('get_weather');
  assert.equal(
    await page.locator('[data-tool-detail="get_weather"] h3 [data-tool-name]').textContent(),
    'get_weather',
  );
  // An untitled tool's name is its title: not said twice.
  assert.equal(await page.locator('[data-tool="slow"] [data-tool-name]').count(), 0);
  await shot('06-tool-names');
});

test('the result of a call started in a page closed since shows in a page opened later', async () => {
  const first = await browser.context.newPage();
  await open(own, first);
  await pickTool('slow', first);
  await first.click('[data-call]');
  await first.locator('[data-call]').filter({ hasText: 'Running' }).waitFor();
  await first.close();
  const second = await browser.context.newPage();
  try {
    await open(own, second);
    await pickTool('slow', second);
    // Still running: shown as such, then its result when it ends.
    await second.locator('[data-call]').filter({ hasText: 'Running' }).waitFor();
    release();
    await second.locator('[data-result]').filter({ hasText: 'finally done' }).waitFor();
    await second.locator('[data-call-elsewhere]').waitFor();
    await shot('07-result-elsewhere', second);
  } finally {
    await second.close();
  }
});
