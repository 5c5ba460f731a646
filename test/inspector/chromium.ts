// Debian's Chromium driven by playwright-core (browser downloads are not possible here): one browser per test file,
// a fresh profile directory, no network beyond loopback, closed (and its profile removed) by the file's `after`.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The repository root (tests run compiled, from dist/test/...). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Where a test file's screenshots go: dist/test-output/<name>/. */
export function outputDir(name: string): string {
  const dir = join(ROOT, 'dist', 'test-output', name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A browser with one page, and how to close it. */
export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Errors the page threw or logged, for the tests to check. */
  errors: string[];
  close(): Promise<void>;
}

/** Starts Chromium with a fresh profile and one page of the given size. */
export async function launch(viewport = { width: 1280, height: 860 }): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'mcpkit-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  return {
    context,
    page,
    errors,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
