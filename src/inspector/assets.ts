import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One file of the page, loaded once and served from memory. */
export interface Asset {
  body: Buffer;
  type: string;
  /** A hash of the body: the `v` query of its URL in the page, and (quoted) its ETag. */
  version: string;
  etag: string;
}

/**
 * The page's HTML: a shell that loads the bundle (built by scripts/bundle.mjs into dist/pkg/inspector/). The
 * bundle's URLs carry its hash, so a browser keeps it without asking again (a warm start costs no round trip).
 */
function indexHtml(js: Asset, css: Asset): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>mcpkit inspector</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/app.css?v=${css.version}">
<script type="module" src="/app.js?v=${js.version}"></script></head><body><div id="app"></div></body></html>
`;
}

/**
 * The bundle's directory: beside the module when it is bundled into dist/pkg, or dist/pkg/inspector from the
 * compiled sources in dist/src/inspector.
 */
const PLACES = ['./inspector/', '../../pkg/inspector/'];

/** Loads the page's files; throws naming the places looked at when the bundle was not built. */
export function loadAssets(): Map<string, Asset> {
  const tried: string[] = [];
  for (const place of PLACES) {
    const dir = new URL(place, import.meta.url);
    try {
      const js = asset(readFileSync(new URL('app.js', dir)), 'text/javascript; charset=utf-8');
      const css = asset(readFileSync(new URL('app.css', dir)), 'text/css; charset=utf-8');
      return new Map([
        ['/', asset(Buffer.from(indexHtml(js, css)), 'text/html; charset=utf-8')],
        ['/app.js', js],
        ['/app.css', css],
      ]);
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'ENOENT') throw e;
      tried.push(fileURLToPath(dir));
    }
  }
  throw new Error(`The inspector's page is not built (looked in ${tried.join(', ')}): run npm run build`);
}

function asset(body: Buffer, type: string): Asset {
  const version = createHash('sha256').update(body).digest('base64url').slice(0, 16);
  return { body, type, version, etag: `"${version}"` };
}
