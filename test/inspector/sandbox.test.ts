// `mcpkit inspect --config FILE` in a real Chromium, the host's servers sandboxed by the file's `host.sandbox`: the
// page's list of the host's servers says which run sandboxed and with what grants, and which do not; the activity
// pane shows the host's sandbox entries (each start and its grants, what a server ran into). Screenshots in
// dist/test-output/inspector-sandbox/.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { tempHome } from '../cli/helpers.js';
import { type Browser, launch, outputDir } from './chromium.js';
import { EVERYTHING } from './everything.js';
import { type InspectProcess, startInspect } from './inspect-process.js';

const out = outputDir('inspector-sandbox');
const home = tempHome();
const data = join(home, 'data');
let browser: Browser;
let page: Page;
let inspector: InspectProcess | undefined;

before(async () => {
  mkdirSync(data);
  const config = join(home, 'host.mcpkit.json');
  writeFileSync(
    config,
    JSON.stringify({
      host: { sandbox: true, defaultApproval: 'allow' },
      servers: {
        boxed: { command: process.execPath, args: [EVERYTHING] },
        // 768 MB: without a memory control group, Node 24 needs about 600 MB of RLIMIT_DATA to start (docs/sandbox.md).
        granted: { command: process.execPath, args: [EVERYTHING], sandbox: { write: [data], memoryMb: 768 } },
        open: { command: process.execPath, args: [EVERYTHING], sandbox: false },
      },
    }),
  );
  inspector = await startInspect(config, home);
  browser = await launch();
  page = browser.page;
});

after(async () => {
  await browser?.close();
  await inspector?.stop();
});

test('the host’s servers: which run sandboxed, with what grants, and which do not', async () => {
  await page.goto(inspector?.url ?? '');
  await page.locator('[data-status="connected"]').waitFor();
  for (const name of ['boxed', 'granted', 'open'])
    await page.locator(`[data-host-server="${name}"] [data-host-state="ready"]`).waitFor();
  const cell = (name: string) => page.locator(`[data-host-server="${name}"] [data-host-sandbox]`);
  assert.equal(await cell('boxed').getAttribute('data-host-sandbox'), 'on');
  assert.match(
    (await cell('boxed').textContent()) ?? '',
    /^sandboxed: network none; memory 1024 MB; 256 processes$/,
  );
  assert.equal(await cell('granted').getAttribute('data-host-sandbox'), 'on');
  assert.match((await cell('granted').textContent()) ?? '', new RegExp(`write ${data}; memory 768 MB`));
  assert.equal(await cell('open').getAttribute('data-host-sandbox'), 'off');
  assert.match((await cell('open').textContent()) ?? '', /not sandboxed/);
  await page.screenshot({ path: join(out, '01-host-servers.png') });
});

test('the activity pane shows the host’s sandbox entries', async () => {
  await page.click('[data-pane-tab="activity"]');
  const pane = page.locator('[data-pane="activity"][data-activity-source="host"]');
  await pane.waitFor();
  for (const server of ['boxed', 'granted'])
    await pane.locator('tr[data-activity="sandbox"]', { hasText: server }).first().waitFor();
  const granted = pane.locator('tr[data-activity="sandbox"]', { hasText: 'granted' }).first();
  assert.match((await granted.textContent()) ?? '', /sandboxed: network none; write/);
  assert.equal(await pane.locator('tr[data-activity="sandbox"]', { hasText: 'open' }).count(), 0);
  await page.screenshot({ path: join(out, '02-activity.png') });
  assert.deepEqual(browser.errors, []);
});
