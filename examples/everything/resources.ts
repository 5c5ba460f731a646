import type { McpServer } from '../../src/index.js';
import { PNG_BASE64 } from './media.js';

/** The URI that `update_watched` announces changes of. */
export const WATCHED_URI = 'test://watched-resource';

const ITEM_IDS = ['alpha', 'beta', 'gamma'];

/** What the tools may do to the resources. */
export interface ResourceControls {
  /** Changes the watched resource and notifies its subscribers; returns the new revision. */
  touchWatched(): number;
}

/** Registers the conformance resources and the fixture resources. */
export function registerResources(server: McpServer): ResourceControls {
  server.resource(
    'test://static-text',
    { name: 'static-text', description: 'A fixed text resource', mimeType: 'text/plain' },
    () => 'This is the content of the static text resource.',
  );
  server.resource(
    'test://static-binary',
    { name: 'static-binary', description: 'A fixed binary resource (a 1x1 PNG)', mimeType: 'image/png' },
    (uri) => [{ uri, mimeType: 'image/png', blob: PNG_BASE64 }],
  );
  server.resourceTemplate(
    'test://template/{id}/data',
    { name: 'template-data', description: 'JSON data for any id', mimeType: 'application/json' },
    (uri, { id }) => {
      const text = JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` });
      return [{ uri, mimeType: 'application/json', text }];
    },
  );

  let revision = 0;
  server.resource(
    WATCHED_URI,
    {
      name: 'watched-resource',
      description: 'Subscribe to it, then call update_watched',
      mimeType: 'text/plain',
    },
    () => (revision === 0 ? 'Watched resource content' : `Watched resource content (revision ${revision})`),
  );

  // The fixture contract (test/fixtures/README.md), as test/fixtures/official-stdio-server.ts has it.
  server.resource(
    'test://static',
    { name: 'static', description: 'A static text resource.', mimeType: 'text/plain' },
    () => 'static text',
  );
  server.resource(
    'test://blob',
    { name: 'blob', description: 'A static binary resource.', mimeType: 'application/octet-stream' },
    () => new Uint8Array([0xde, 0xad, 0xbe, 0xef]),
  );
  server.resourceTemplate(
    'test://items/{id}',
    {
      name: 'item',
      description: 'One item by id.',
      mimeType: 'text/plain',
      complete: { id: (value) => ITEM_IDS.filter((id) => id.startsWith(value)) },
    },
    (_uri, { id }) => `item ${String(id)}`,
  );

  return {
    touchWatched() {
      revision++;
      server.notifyResourceUpdated(WATCHED_URI);
      return revision;
    },
  };
}
