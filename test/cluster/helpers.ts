// Shared helpers of the cluster tests: a server definition per instance (the everything server's cluster tools and
// a few of its own), and a fetch that spreads a client's requests over the instances as a load balancer without
// affinity would. Not a test file itself.
import { registerClusterTools } from '../../examples/everything/cluster-tools.js';
import { McpServer } from '../../src/server/server.js';

/** Generous bound of every "eventually" wait. */
export const WAIT_MS = 10_000;

/** A ref'd sleep. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` until it holds; fails after `ms`. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = WAIT_MS) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(10);
  }
}

/** One instance's server: the cluster tools, an elicitation, a list to change and a resource to watch. */
export function clusterServer(instance: string): McpServer {
  const server = new McpServer(
    { name: 'cluster', version: '1' },
    {
      capabilities: {
        logging: {},
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
      },
    },
  );
  registerClusterTools(server, instance);
  server.tool('ask', {}, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return `${instance} heard ${JSON.stringify(answer.content ?? null)}`;
  });
  let n = 0;
  server.tool('grow', {}, () => {
    server.tool(`grown_${instance}_${++n}`, {}, () => 'grown');
    return `${instance} grew`;
  });
  server.resource('test://watched', { name: 'watched' }, () => ({
    contents: [{ uri: 'test://watched', text: 'w' }],
  }));
  server.tool('touch', {}, () => {
    server.notifyResourceUpdated('test://watched');
    return `${instance} touched`;
  });
  return server;
}

/**
 * A fetch spreading requests over `bases` (origins): `route` picks the instance of each request (by default round
 * robin), and the last choices are kept for the test to read.
 */
export function spreadingFetch(
  bases: readonly string[],
  route?: (method: string, attempt: number) => number,
): { fetch: typeof fetch; picks: { method: string; instance: number }[] } {
  let next = 0;
  const picks: { method: string; instance: number }[] = [];
  const spread = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    const method = init?.method ?? 'GET';
    const instance = route ? route(method, next++) : next++ % bases.length;
    picks.push({ method, instance });
    const base = new URL(bases[instance] as string);
    url.host = base.host;
    return fetch(url, init);
  };
  return { fetch: spread as typeof fetch, picks };
}
