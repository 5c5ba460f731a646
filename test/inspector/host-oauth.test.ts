// `mcpkit inspect --config FILE` in a real Chromium: the configured host inspected at once (its servers run by
// mcpkit's Host, the activity pane showing the host's own log live: connections, approvals, tool calls; one of its
// servers protected by OAuth, signed in to through the page), a configured server picked by name from the page, and
// a URL protected by OAuth connected from the page: the person signs in at a real authorization server
// (oidc-provider, its login and consent form filled by playwright) and comes back to the inspector's own callback;
// the tokens stay in the inspector's process (and the token file of `mcpkit auth`, which the other commands then
// use). Screenshots in dist/test-output/inspector-host-oauth/.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { freePort, mcpkit, startExampleHttp, tempHome } from '../cli/helpers.js';
import { type OidcFixture, startOidcProvider } from '../fixtures/oidc.js';
import { type Browser, launch, outputDir } from './chromium.js';
import { EVERYTHING } from './everything.js';
import { type InspectProcess, startInspect } from './inspect-process.js';

const out = outputDir('inspector-host-oauth');
const home = tempHome();
let browser: Browser;
let page: Page;
let inspector: InspectProcess | undefined;
let inspectorUrl = '';
let as: OidcFixture | undefined;
let protectedServer: ChildProcess | undefined;
let protectedUrl = '';
/** The host's server behind OAuth (another resource of the same authorization server). */
let securedServer: ChildProcess | undefined;
let securedUrl = '';

before(async () => {
  const port = await freePort();
  protectedUrl = `http://127.0.0.1:${port}/mcp`;
  as = await startOidcProvider({ resource: protectedUrl, loginForm: true });
  ({ child: protectedServer } = await startExampleHttp(['--auth-issuer', as.issuer], port));
  const securedPort = await freePort();
  securedUrl = `http://127.0.0.1:${securedPort}/mcp`;
  ({ child: securedServer } = await startExampleHttp(['--auth-issuer', as.issuer], securedPort));
  // Cursor's format: its `auth` block gives the scopes to ask for.
  mkdirSync(join(home, '.cursor'));
  const config = join(home, '.cursor', 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        everything: { command: process.execPath, args: [EVERYTHING] },
        second: { command: process.execPath, args: [EVERYTHING] },
        secured: { url: securedUrl, auth: { scopes: ['mcp:read'] } },
      },
    }),
  );
  inspector = await startInspect(config, home);
  inspectorUrl = inspector.url;
  browser = await launch();
  page = browser.page;
});

after(async () => {
  await browser?.close();
  await inspector?.stop();
  protectedServer?.kill('SIGTERM');
  securedServer?.kill('SIGTERM');
  await as?.stop();
});

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(out, `${name}.png`) });
}

async function tab(name: string): Promise<void> {
  await page.click(`[data-tab-button="${name}"]`);
}

async function fact(name: string): Promise<string> {
  return (await page.locator(`[data-fact="${name}"]`).textContent()) ?? '';
}

/** Signs in through the page's sign-in link: a new tab at the authorization server's login form, then the callback. */
async function signIn(account: string, screenshots?: { form: string; callback: string }): Promise<void> {
  const link = page.locator('[data-sign-in]');
  const [tab2] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
  // The authorization server's own login and consent page.
  await tab2.locator('[data-allow]').waitFor();
  assert.match((await tab2.locator('[data-scope]').textContent()) ?? '', /mcp:read/);
  await tab2.fill('[name="login"]', account);
  // A person takes longer than the era probe's usual 3 s: the connection still waits for this sign-in (no second
  // one, whose state this tab would not carry) and negotiates the era as usual afterwards.
  await tab2.waitForTimeout(4000);
  if (screenshots) await tab2.screenshot({ path: join(out, screenshots.form) });
  await tab2.click('[data-allow]');
  // Back at the inspector's callback.
  await tab2
    .locator('[data-sign-in-done]', { hasText: 'Signed in' })
    .waitFor()
    .catch(async (e: unknown) => {
      throw new Error(`the sign-in tab is at ${tab2.url()}: ${await tab2.content()} (${String(e)})`);
    });
  assert.ok(tab2.url().startsWith(`${new URL(inspectorUrl).origin}/oauth/callback?`), tab2.url());
  if (screenshots) await tab2.screenshot({ path: join(out, screenshots.callback) });
  await tab2.close();
}

/** The tokens in the token file of `mcpkit auth`, where the inspector keeps them. */
function storedTokens(): string[] {
  const stored = readFileSync(join(home, 'mcpkit', 'oauth.json'), 'utf8');
  return [...stored.matchAll(/"(?:accessToken|refreshToken)":\s*"([^"]+)"/g)].map((m) => m[1] as string);
}

/** The page's state as the inspector's API gives it (the page's own cookie). */
async function pageState(): Promise<string> {
  return (await page.evaluate(
    `fetch('/api/state', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }).then((r) => r.text())`,
  )) as string;
}

test('--config: the host is inspected at once, its servers and its own activity log shown live', async () => {
  await page.goto(inspectorUrl);
  await page.locator('[data-status="connected"]').waitFor();
  assert.equal(await fact('transport'), 'host');
  assert.match(await fact('server'), /mcpkit-inspector-host/);
  for (const name of ['everything', 'second'])
    await page.locator(`[data-host-server="${name}"] [data-host-state="ready"]`).waitFor();
  // The host's server behind OAuth waits for the person: signed in through the page, it comes up too.
  await page.locator('[data-host-server="secured"] [data-host-state="starting"]').waitFor();
  await signIn('grace');
  await page.locator('[data-host-server="secured"] [data-host-state="ready"]').waitFor();
  assert.equal(await page.locator('[data-sign-in]').count(), 0);
  const tokens = storedTokens();
  assert.ok(tokens.length >= 1);
  const html = await page.content();
  const state = await pageState();
  for (const token of tokens) assert.ok(!html.includes(token) && !state.includes(token));
  await page.click('[data-pane-tab="activity"]');
  const pane = page.locator('[data-pane="activity"][data-activity-source="host"]');
  await pane.waitFor();
  // The host's own entries: each server's connection, then its lists.
  for (const server of ['everything', 'second', 'secured'])
    await pane.locator('tr[data-activity="server"]', { hasText: server }).first().waitFor();
  await shot('01-host-connected');
});

test('a tool of the host: its approval asked in the page, then the call, both in the host’s log', async () => {
  await tab('tools');
  await page.click('[data-tool="everything__echo"]');
  await page.locator('[data-tool-detail="everything__echo"]').waitFor();
  await page.locator('[data-tool="secured__echo"]').waitFor();
  assert.ok((await page.locator('[data-tool^="second__"]').count()) > 10, 'every server’s tools');
  await page.fill('[name="args.text"]', 'through the host');
  await page.click('[data-call]');
  const dialog = page.locator('[data-ask="elicitation"]');
  await dialog.filter({ hasText: 'Allow the tool everything__echo' }).waitFor();
  await page.selectOption('[name="elicit.decision"]', 'Allow once');
  await shot('02-host-approval');
  await dialog.locator('[data-accept]').click();
  await page.locator('[data-result]').filter({ hasText: 'echo: through the host' }).waitFor();
  const pane = page.locator('[data-pane="activity"][data-activity-source="host"]');
  await pane.locator('tr[data-activity="approval"]', { hasText: 'everything__echo' }).first().waitFor();
  const call = pane.locator('tr[data-activity="tool"]', { hasText: 'everything__echo' }).first();
  await call.waitFor();
  assert.match((await call.textContent()) ?? '', /everything.*ok.*echo: through the host/);
  await shot('03-host-activity');
});

test('a configured server picked by name from the list the inspector gives', async () => {
  await page.selectOption('[name="kind"]', 'configured');
  const options = await page.locator('[name="configured"] option').allTextContents();
  assert.deepEqual(options, ['everything', 'second', 'secured']);
  await page.selectOption('[name="configured"]', 'second');
  await page.click('[data-connect]');
  await tab('server');
  await page.locator('[data-fact="target"]', { hasText: 'second' }).waitFor();
  await page.locator('[data-status="connected"]').waitFor();
  assert.match(await fact('server'), /everything/i);
  // A configured stdio server: the transport it opened, not the kind of target (it said "transport").
  assert.equal(await fact('transport'), 'stdio');
  // Its own connection: the activity pane shows the inspector's calls again.
  await page.locator('[data-pane="activity"][data-activity-source="inspector"]').waitFor();
  await tab('tools');
  await page.click('[data-tool="echo"]');
  await page.fill('[name="args.text"]', 'by name');
  await page.click('[data-call]');
  await page.locator('[data-result]').filter({ hasText: 'echo: by name' }).waitFor();
  await page
    .locator('[data-pane="activity"] tr[data-activity="tool"]', { hasText: 'second' })
    .first()
    .waitFor();
  await shot('04-configured-by-name');
});

test('a URL with OAuth from the page: sign in at oidc-provider, back to the inspector’s callback, tokens kept off the page', async () => {
  await page.selectOption('[name="kind"]', 'http');
  await page.fill('[name="url"]', protectedUrl);
  await page.check('[name="oauth"]');
  await page.fill('[name="scope"]', 'mcp:read');
  await page.click('[data-connect]');
  await page.locator('[data-sign-in]').waitFor();
  assert.match((await page.locator('[data-sign-in-pending]').textContent()) ?? '', /127\.0\.0\.1/);
  await shot('05-sign-in-asked');
  await signIn('ada', { form: '06-authorization-server-login.png', callback: '07-callback.png' });
  await page.locator('[data-status="connected"]').waitFor();
  await tab('server');
  assert.match(await fact('target'), /\(OAuth\)$/);
  assert.equal(await fact('revision'), '2026-07-28', 'the probe waited for the sign-in');
  await tab('tools');
  await page.click('[data-tool="echo"]');
  await page.fill('[name="args.text"]', 'signed in');
  await page.click('[data-call]');
  await page.locator('[data-result]').filter({ hasText: 'echo: signed in' }).waitFor();
  await shot('08-oauth-connected');
  // The tokens are in the inspector's process and the token file of `mcpkit auth` (0600), never in the page.
  const tokens = storedTokens();
  assert.ok(tokens.length >= 2, 'the host server’s and this URL’s');
  const html = await page.content();
  const state = await pageState();
  for (const token of tokens) {
    assert.ok(!html.includes(token), 'no token in the page');
    assert.ok(!state.includes(token), 'no token in the inspector’s answers');
  }
  // The other commands use the stored sign-in.
  const run = await mcpkit(['tools', protectedUrl, '--format', 'json'], { env: { XDG_CONFIG_HOME: home } });
  assert.equal(run.code, 0, run.stderr);
});

test('the page threw no errors', () => {
  assert.deepEqual(browser.errors, []);
});
