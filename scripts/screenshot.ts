// `npm run screenshot`: regenerates docs/inspector.png, the README's picture of the inspector: the example server
// over stdio, a tool returning several content types, and the traffic pane. Chromium is Debian's, driven by
// playwright-core; every process started here is stopped by its own handle.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startInspector } from '../src/inspector/server.js';
import { launch, ROOT } from '../test/inspector/chromium.js';

const file = join(ROOT, 'docs', 'inspector.png');
mkdirSync(join(ROOT, 'docs'), { recursive: true });
// The command as a person would type it in the repository (the picture shows it).
const inspector = await startInspector({
  target: { kind: 'stdio', command: 'node', args: ['dist/examples/everything/server.js'], cwd: ROOT },
});
const browser = await launch({ width: 1280, height: 800 });
try {
  const { page } = browser;
  await page.goto(inspector.url);
  await page.locator('[data-status="connected"]').waitFor();
  await page.click('[data-tab-button="tools"]');
  await page.click('[data-tool="add"]');
  await page.fill('[name="args.a"]', '2');
  await page.fill('[name="args.b"]', '40');
  await page.click('[data-call]');
  await page.locator('.structured').filter({ hasText: '"sum": 42' }).waitFor();
  await page.click('[data-tool="test_multiple_content_types"]');
  await page.click('[data-call]');
  await page.locator('[data-block="image"] img').waitFor();
  await page.click('[data-pane-tab="traffic"]');
  await page.locator('[data-pane="traffic"] tr[data-traffic="in"][data-method="tools/call"]').first().click();
  await page.screenshot({ path: file });
  console.error(`wrote ${file}`);
} finally {
  await browser.close();
  await inspector.close();
}
