// The example server through the web-standard handler, served by the runtime this runs under: Bun (`Bun.serve`) or
// Deno (`Deno.serve`). Prints `listening <url>` on stdout once it accepts requests. Nothing here is Node's: the
// handler is mcpkit's root entry (`createStreamableHttpHandler` + `toFetchHandler`).
import { createEverythingServer } from '../../examples/everything/everything.js';
import { createStreamableHttpHandler, toFetchHandler } from '../../src/index.js';

type Fetch = (request: Request) => Promise<Response>;
interface BunGlobal {
  serve(options: { port: number; hostname: string; fetch: Fetch }): { port: number };
}
interface DenoGlobal {
  serve(
    options: { port: number; hostname: string; onListen: (address: { port: number }) => void },
    handler: Fetch,
  ): unknown;
}

const handler = toFetchHandler(createStreamableHttpHandler(createEverythingServer()));
const fetch: Fetch = (request) => handler(request);
const announce = (port: number) => console.log(`listening http://127.0.0.1:${port}/mcp`);

const bun = Reflect.get(globalThis, 'Bun') as BunGlobal | undefined;
const deno = Reflect.get(globalThis, 'Deno') as DenoGlobal | undefined;
if (bun) announce(bun.serve({ port: 0, hostname: '127.0.0.1', fetch }).port);
else if (deno) deno.serve({ port: 0, hostname: '127.0.0.1', onListen: ({ port }) => announce(port) }, fetch);
else throw new Error('web-server.js runs under Bun or Deno');
