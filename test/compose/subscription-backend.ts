// The server the subscription tests put behind a proxy: resources test://<name> (and, when asked, the template
// test://item/{id}), and what it holds subscribed in either era: a stateful session's resources/subscribe, or an
// open subscriptions/listen of the stateless revision.
import { McpServer } from '../../src/index.js';

export function backendServer(names: readonly string[], options: { template?: boolean } = {}) {
  const server = new McpServer(
    { name: 'behind', version: '1.0.0' },
    { capabilities: { resources: { subscribe: true, listChanged: true } } },
  );
  for (const name of names) server.resource(`test://${name}`, { name }, () => name);
  if (options.template)
    server.resourceTemplate('test://item/{id}', { name: 'item' }, (uri) => [{ uri, text: 'item' }]);
  // The URIs of each open subscriptions/listen request.
  const listening = new Map<object, readonly string[]>();
  server.use(async (request, next) => {
    if (request.method !== 'subscriptions/listen') return next();
    const key = {};
    const wanted = (request.params.notifications as { resourceSubscriptions?: string[] } | undefined)
      ?.resourceSubscriptions;
    listening.set(key, wanted ?? []);
    request.ctx.signal.addEventListener('abort', () => listening.delete(key));
    try {
      return await next();
    } finally {
      listening.delete(key);
    }
  });
  const holds = (uri: string): boolean => {
    for (const session of server.sessions) if (session.subscriptions?.has(uri)) return true;
    for (const uris of listening.values()) if (uris.includes(uri)) return true;
    return false;
  };
  return { server, holds };
}
