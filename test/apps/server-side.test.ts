// The server's side of MCP Apps through a real client: the tool's _meta, the App resource's MIME type and _meta.ui.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appToolMeta, registerAppResource } from '../../src/server/apps.js';
import { McpServer } from '../../src/server/server.js';
import { APP_MIME_TYPE, appResourceUriOf } from '../../src/spec/apps.js';
import { connectInMemory } from '../../src/testing.js';

test('a tool declares its App in _meta.ui (and the older flat key); the resource carries the App MIME type and CSP', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  registerAppResource(server, 'ui://s/view.html', {
    name: 'view',
    html: '<p>app</p>',
    csp: { connectDomains: ['https://api.example.com'] },
    permissions: { clipboardWrite: {} },
    prefersBorder: false,
  });
  server.tool('show', { _meta: appToolMeta('ui://s/view.html', ['model', 'app']) }, () => ({ content: [] }));
  const { client } = await connectInMemory(server);
  const [tool] = await client.listTools();
  assert.deepEqual(tool?._meta, {
    ui: { resourceUri: 'ui://s/view.html', visibility: ['model', 'app'] },
    'ui/resourceUri': 'ui://s/view.html',
  });
  assert.equal(tool && appResourceUriOf(tool), 'ui://s/view.html');
  const [listed] = await client.listResources();
  assert.equal(listed?.mimeType, APP_MIME_TYPE);
  const read = await client.readResource('ui://s/view.html');
  const content = read.contents[0];
  assert.equal(content?.mimeType, APP_MIME_TYPE);
  assert.equal(content && 'text' in content ? content.text : undefined, '<p>app</p>');
  assert.deepEqual(content?._meta, {
    ui: {
      csp: { connectDomains: ['https://api.example.com'] },
      permissions: { clipboardWrite: {} },
      prefersBorder: false,
    },
  });
  await client.close();
});

test('an App URI that is not ui:// is refused at definition', () => {
  const server = new McpServer({ name: 's', version: '1' });
  assert.throws(() => appToolMeta('https://example.com/app.html'), /starts with ui:\/\//);
  assert.throws(() => registerAppResource(server, 'ui://', { name: 'x', html: '' }), /starts with ui:\/\//);
});
