// An MCP App in the example server: `roll_dice` names the App `ui://everything/dice.html` in its `_meta`; the App (one
// self-contained document, no CDN) shows the roll and rolls again through its own `tools/call`, which reaches this
// server as an ordinary request (guards, rate limits and the audit see it).
import { appToolMeta, type McpServer, registerAppResource } from '../../src/index.js';

/** The URI of the dice App. */
export const DICE_APP_URI = 'ui://everything/dice.html';

// The App's side of the extension's postMessage JSON-RPC, written by hand: ui/initialize, the initialized
// notification, the tool input and result it is sent, its own tools/call, its size and a link through the host.
const DICE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Dice</title>
<style>
  body { font: 15px system-ui, sans-serif; margin: 0; padding: 12px 16px; color: #1d2430; background: #fff; }
  .face { font-size: 48px; font-weight: 700; margin: 4px 0; }
  button { font: inherit; padding: 4px 12px; margin-right: 6px; }
  .muted { color: #667; }
  .error { color: #b00020; }
</style></head>
<body>
  <div class="muted">mcpkit dice App</div>
  <div class="face" id="face">?</div>
  <div id="detail" class="muted">waiting for the tool's result</div>
  <p>
    <button id="again" type="button">Roll again</button>
    <button id="learn" type="button">About dice</button>
  </p>
  <div id="status" class="muted"></div>
<script>
(() => {
  const pending = new Map();
  let next = 0;
  let sides = 6;
  const $ = (id) => document.getElementById(id);
  const post = (message) => window.parent.postMessage(message, '*');
  const request = (method, params) => new Promise((resolve, reject) => {
    const id = ++next;
    pending.set(id, { resolve, reject });
    post({ jsonrpc: '2.0', id, method, params });
  });
  const notify = (method, params) => post({ jsonrpc: '2.0', method, params });
  const size = () => notify('ui/notifications/size-changed', { height: document.documentElement.scrollHeight });
  const show = (result) => {
    const value = result && result.structuredContent ? result.structuredContent.value : undefined;
    if (result && result.structuredContent && result.structuredContent.sides) sides = result.structuredContent.sides;
    $('face').textContent = value === undefined ? '?' : String(value);
    $('detail').textContent = result && result.isError ? 'the tool failed' : 'a d' + sides;
    size();
  };
  window.addEventListener('message', (event) => {
    if (event.source !== window.parent) return;
    const m = event.data;
    if (!m || m.jsonrpc !== '2.0') return;
    if (m.method === undefined && pending.has(m.id)) {
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (m.error) p.reject(m.error); else p.resolve(m.result);
    } else if (m.method === 'ui/notifications/tool-input') {
      if (m.params && m.params.arguments && m.params.arguments.sides) sides = m.params.arguments.sides;
    } else if (m.method === 'ui/notifications/tool-result') {
      show(m.params);
    } else if (m.method === 'ui/resource-teardown' && m.id !== undefined) {
      post({ jsonrpc: '2.0', id: m.id, result: {} });
    } else if (m.method === 'ping' && m.id !== undefined) {
      post({ jsonrpc: '2.0', id: m.id, result: {} });
    }
  });
  $('again').addEventListener('click', () => {
    $('status').textContent = 'asking the host…';
    request('tools/call', { name: 'roll_dice', arguments: { sides } }).then(
      (result) => { $('status').textContent = 'rolled through the host'; show(result); },
      (error) => { $('status').textContent = 'refused: ' + (error && error.message); $('status').className = 'error'; size(); },
    );
  });
  $('learn').addEventListener('click', () => {
    request('ui/open-link', { url: 'https://en.wikipedia.org/wiki/Dice' }).catch(() => undefined);
  });
  request('ui/initialize', {
    protocolVersion: '2026-01-26',
    appInfo: { name: 'mcpkit-dice', version: '0.1.0' },
    appCapabilities: {},
  }).then(() => { notify('ui/notifications/initialized', {}); size(); });
})();
</script>
</body></html>
`;

/** Registers `roll_dice` and its App. */
export function registerDiceApp(server: McpServer): void {
  registerAppResource(server, DICE_APP_URI, {
    name: 'dice-app',
    title: 'Dice',
    description: 'The App of roll_dice: shows the roll, rolls again',
    html: DICE_HTML,
    prefersBorder: true,
  });
  server.tool(
    'roll_dice',
    {
      title: 'Roll a die',
      description: 'Rolls one die with the given number of sides; its App shows the roll and rolls again.',
      inputSchema: {
        type: 'object',
        properties: { sides: { type: 'integer', minimum: 2, maximum: 100, default: 6 } },
      },
      outputSchema: {
        type: 'object',
        properties: { value: { type: 'integer' }, sides: { type: 'integer' } },
        required: ['value', 'sides'],
      },
      _meta: appToolMeta(DICE_APP_URI),
    },
    (args) => {
      const sides = typeof args.sides === 'number' ? args.sides : 6;
      const value = 1 + Math.floor(Math.random() * sides);
      return {
        content: [{ type: 'text', text: `rolled ${value} on a d${sides}` }],
        structuredContent: { value, sides },
      };
    },
  );
}
