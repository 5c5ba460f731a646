// The inspector's Skills tab in a real Chromium: a server's skills (the skill-server fixture over stdio, real skill
// folders on disk), a skill's manifest with every file checked against its digest, a file's text, a file tampered
// with after the listing refused (its text never shown); on the configured host, each skill's approval state, bound
// to the manifest (approved, then asked again once a file changed). Screenshots in dist/test-output/skills/.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { ServerConfig } from '../../src/host/config/types.js';
import { type RunningInspector, startInspector } from '../../src/inspector/server.js';
import { type Browser, launch, outputDir, ROOT } from './chromium.js';

const FIXTURE = join(ROOT, 'dist/test/skills/fixtures/skill-server.js');
const out = outputDir('skills');
let browser: Browser;
let page: Page;
let direct: RunningInspector;
let hosted: RunningInspector;
let refunds = '';

/** A skill folder named `name` with a SKILL.md and one template. */
function skillFolder(name: string, description: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'mcpkit-inspector-skill-')), name);
  mkdirSync(join(dir, 'templates'), { recursive: true });
  writeFileSync(
    join(dir, 'SKILL.md'),
    `---\nname: ${name}\ndescription: ${description}\n---\nFollow the steps.\n`,
  );
  writeFileSync(join(dir, 'templates', 'email.md'), `Dear customer of ${name},\n`);
  return dir;
}

before(async () => {
  refunds = skillFolder('refunds', 'How to handle a refund');
  const greet = skillFolder('greet', 'How to greet');
  direct = await startInspector({
    target: {
      kind: 'stdio',
      command: process.execPath,
      // greet's template is changed by the server after the listing (as an intermediary would).
      args: [FIXTURE, '--folder', refunds, '--folder', greet, '--tamper', 'skill://greet/templates/email.md'],
    },
  });
  const shop: ServerConfig = {
    name: 'shop',
    transport: {
      type: 'stdio',
      command: process.execPath,
      args: [FIXTURE, '--folder', refunds],
      env: {},
      namedEnv: [],
    },
    disabled: false,
    trusted: false,
    source: { file: 'test', format: 'mcpkit' },
  };
  hosted = await startInspector({ host: { config: [shop] }, target: { kind: 'host' } });
  await direct.connected;
  await hosted.connected;
  browser = await launch();
  page = browser.page;
});

after(async () => {
  await browser?.close();
  await direct?.close();
  await hosted?.close();
});

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(out, `${name}.png`), fullPage: true });
}

async function pick(name: string): Promise<void> {
  await page.click('[data-tab-button="skills"]');
  await page.click(`[data-skill="${name}"]`);
  await page.locator(`[data-skill-detail="${name}"]`).waitFor();
}

test("lists a server's skills; a skill's manifest with every file checked against its digest, and a file's text", async () => {
  await page.goto(direct.url);
  await page.locator('[data-status="connected"]').waitFor();
  await page.click('[data-tab-button="skills"]');
  await page.locator('[data-skill="refunds"]').waitFor();
  await page.locator('[data-skill="greet"]').waitFor();
  await pick('refunds');
  await page.locator('[data-skill-checked="ok"]').waitFor();
  const rows = page.locator('[data-skill-files] [data-skill-file]');
  assert.deepEqual(await rows.evaluateAll((r) => r.map((e) => e.getAttribute('data-skill-file')).sort()), [
    'SKILL.md',
    'templates/email.md',
  ]);
  assert.equal(await page.locator('[data-skill-files] [data-check="ok"]').count(), 2);
  // Digests as listed: sha256 of the bytes.
  assert.match((await page.locator('[data-skill-file="SKILL.md"] code').textContent()) ?? '', /^sha256:/);
  assert.equal(
    await page.locator('[data-skill-frontmatter]').filter({ hasText: 'How to handle a refund' }).count(),
    1,
  );
  // A lone server keeps no approvals: the tab says so.
  await page.locator('[data-skill-detail="refunds"] [data-skill-approval="none"]').waitFor();
  await page.click('[data-skill-open="templates/email.md"]');
  await page.locator('[data-skill-file-text]', { hasText: 'Dear customer of refunds,' }).waitFor();
  await shot('01-skill-checked');
});

test('a file changed after the listing is refused by its digest, its text never shown', async () => {
  await pick('greet');
  await page.locator('[data-skill-checked="refused"]').waitFor();
  const tampered = page.locator('[data-skill-file="templates/email.md"]');
  assert.equal(await tampered.getAttribute('data-check'), 'refused');
  assert.match((await tampered.textContent()) ?? '', /refused: .*bytes where the entry lists/);
  assert.equal(await page.locator('[data-skill-file="SKILL.md"]').getAttribute('data-check'), 'ok');
  await page.click('[data-skill-open="templates/email.md"]');
  await page.locator('[data-skill-file-view="templates/email.md"]', { hasText: 'bytes where' }).waitFor();
  assert.equal(await page.locator('[data-skill-file-text]').count(), 0);
  assert.doesNotMatch((await page.locator('[data-tab="skills"]').textContent()) ?? '', /rm -rf/);
  await shot('02-skill-tampered');
});

test("on the configured host: each skill's approval state, bound to its manifest", async () => {
  await page.goto(hosted.url);
  await page.locator('[data-status="connected"]').waitFor();
  await page.locator('[data-host-server="shop"] [data-host-state="ready"]').waitFor();
  await pick('shop/refunds');
  await page.locator('[data-skill-checked="ok"]').waitFor();
  await page.locator('[data-skill-detail="shop/refunds"] [data-skill-approval="not-approved"]').waitFor();
  await shot('03-host-skill-not-approved');
  // The person approves it as the model loads it (the host's load_skill, asked through its approval callback).
  const host = hosted.session.host?.host;
  assert.ok(host);
  const loaded = await host.skills.load({ name: 'shop/refunds' }, () => true);
  assert.notEqual(loaded.isError, true);
  await page.click('[data-tab-button="tools"]');
  await pick('shop/refunds');
  await page.locator('[data-skill="shop/refunds"] [data-skill-approval="approved"]').waitFor();
  await page.locator('[data-skill-detail="shop/refunds"] [data-skill-approval="approved"]').waitFor();
  await shot('04-host-skill-approved');
  // A file changed on disk (the server reads its folder again): no longer the approved manifest.
  writeFileSync(join(refunds, 'templates', 'email.md'), 'Dear customer, changed\n');
  const client = host.clientOf('shop');
  assert.ok(client);
  await client.callTool('reload_skills', {});
  await page.click('[data-tab-button="tools"]');
  await pick('shop/refunds');
  await page.locator('[data-skill="shop/refunds"] [data-skill-approval="not-approved"]').waitFor();
  await page.locator('[data-skill-checked="ok"]').waitFor();
  await shot('05-host-skill-changed');
});
