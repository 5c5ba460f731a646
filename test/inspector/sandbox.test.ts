// `mcpkit inspect --config FILE` in a real Chromium, the host's servers sandboxed by the file's `host.sandbox`: the
// page's list of the host's servers says which run sandboxed and with what grants, and which do not; the activity
// pane shows the host's sandbox entries (each start and its grants, what a server ran into). Screenshots in
// dist/test-output/inspector-sandbox/.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { MCPKIT, tempHome } from '../cli/helpers.js';
import { type Browser, launch, outputDir, ROOT } from './chromium.js';
import { EVERYTHING } from './everything.js';

const out = outputDir('inspector-sandbox');
const home = tempHome();
const data = join(home, 'data');
let browser: Browser;
let page: Page;
let inspector: ChildProcess | undefined;
let inspectorUrl = '';
let stderr = '';

before(async () => {
  mkdirSync(data);
  const config = join(home, 'host.mcpkit.json');
  writeFileSync(
    config,
    JSON.stringify({
      host: { sandbox: true, defaultApproval: 'allow' },
      servers: {
        boxed: { command: process.execPath, args: [EVERYTHING] },
        granted: { command: process.execPath, args: [EVERYTHING], sandbox: { write: [data], memoryMb: 512 } },
        open: { command: process.execPath, args: [EVERYTHING], sandbox: false },
      },
    }),
  );
  inspector = spawn(process.execPath, [MCPKIT, 'inspect', '--config', config, '--no-open'], {
    cwd: ROOT,
    env: { ...process.env, XDG_CONFIG_HOME: home },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  inspectorUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no Inspector line: ${stderr}`)), 30_000);
    inspector?.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const m = /^Inspector: (\S+)\n/.exec(stderr);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    inspector?.once('exit', (code) => reject(new Error(`mcpkit inspect exited (${code}): ${stderr}`)));
  });
  browser = await launch();
  page = browser.page;
});

after(async () => {
  await browser?.close();
  if (inspector?.exitCode === null && inspector.pid !== undefined) {
    const exited = once(inspector, 'exit');
    process.kill(inspector.pid, 'SIGTERM');
    await exited;
  }
});

test('the host’s servers: which run sandboxed, with what grants, and which do not', async () => {
  await page.goto(inspectorUrl);
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
  assert.match((await cell('granted').textContent()) ?? '', new RegExp(`write ${data}; memory 512 MB`));
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
