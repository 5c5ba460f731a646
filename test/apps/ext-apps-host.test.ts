// Interop the other way: mcpkit's dice App (read from mcpkit's server as a host would) rendered under the official
// ext-apps host bridge (`AppBridge` + `PostMessageTransport` of @modelcontextprotocol/ext-apps, bundled for the
// browser with esbuild) in a real Chromium: initialized, shown the tool result the host sends, and its Roll again
// reaching the host's `oncalltool`. Screenshot in dist/test-output/apps/.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { build } from 'esbuild';
import { DICE_APP_URI, registerDiceApp } from '../../examples/everything/app.js';
import { appContentSecurityPolicy, appDocumentOf, McpServer } from '../../src/index.js';
import { connectInMemory } from '../../src/testing.js';
import { type Browser, launch, outputDir, ROOT } from '../inspector/chromium.js';

const out = outputDir('apps');
let browser: Browser;
let http: Server;
let origin: string;

// The host page's script: the official bridge connected to the frame before the App loads, answering its tools/call.
const HOST_JS = `
import { AppBridge, PostMessageTransport } from '/bridge.js';
window.calls = [];
const frame = document.createElement('iframe');
frame.setAttribute('sandbox', 'allow-scripts');
frame.style.cssText = 'width: 480px; height: 260px; border: 1px solid #ccc';
document.body.append(frame);
const bridge = new AppBridge(null, { name: 'ext-apps-host', version: '1.0.0' }, { serverTools: {}, openLinks: {} });
bridge.oncalltool = async (params) => {
  window.calls.push(params.name);
  return { content: [{ type: 'text', text: 'rolled 5 on a d6' }], structuredContent: { value: 5, sides: 6 } };
};
bridge.oninitialized = () => {
  bridge.sendToolInput({ arguments: { sides: 6 } });
  bridge.sendToolResult({ content: [{ type: 'text', text: 'rolled 3 on a d6' }], structuredContent: { value: 3, sides: 6 } });
};
await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
frame.src = '/app.html';
`;

before(async () => {
  // The App as a host gets it: read from mcpkit's server through a client, checked, its CSP built.
  const server = new McpServer({ name: 'dice', version: '1.0.0' });
  registerDiceApp(server);
  const { client } = await connectInMemory(server);
  const doc = appDocumentOf(DICE_APP_URI, await client.readResource(DICE_APP_URI));
  await client.close();
  const bundle = await build({
    stdin: {
      contents:
        "export { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';",
      resolveDir: ROOT,
    },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'error',
  });
  const bridgeJs = bundle.outputFiles[0]?.contents ?? new Uint8Array();
  http = createServer((req, res) => {
    const js = { 'Content-Type': 'text/javascript' };
    if (req.url === '/')
      res
        .writeHead(200, { 'Content-Type': 'text/html' })
        .end('<!doctype html><body></body><script type="module" src="/host.js"></script>');
    else if (req.url === '/host.js') res.writeHead(200, js).end(HOST_JS);
    else if (req.url === '/bridge.js') res.writeHead(200, js).end(bridgeJs);
    else if (req.url === '/app.html') {
      const { policy } = appContentSecurityPolicy(doc.meta.csp, { frameAncestors: [origin] });
      res.writeHead(200, {
        'Content-Type': 'text/html',
        'Content-Security-Policy': `${policy}; sandbox allow-scripts`,
      });
      res.end(doc.html);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  browser = await launch({ width: 640, height: 360 });
});

after(async () => {
  await browser?.close();
  http?.closeAllConnections();
  await new Promise((resolve) => http?.close(resolve));
});

test("mcpkit's dice App runs under the ext-apps AppBridge: the tool result shown, its call reaching the host", async () => {
  const { page } = browser;
  await page.goto(`${origin}/`);
  const handle = await page.locator('iframe').elementHandle();
  const frame = await handle?.contentFrame();
  assert.ok(frame);
  // ui/initialize answered by AppBridge, then the tool result it sent.
  await frame.locator('#face', { hasText: '3' }).waitFor();
  await frame.click('#again');
  await frame.locator('#face', { hasText: '5' }).waitFor();
  assert.equal(await frame.locator('#status').textContent(), 'rolled through the host');
  assert.deepEqual(await page.evaluate('window.calls'), ['roll_dice']);
  await page.screenshot({ path: join(out, '08-dice-under-ext-apps-bridge.png') });
});
