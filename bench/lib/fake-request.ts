// A stateless Streamable HTTP POST as the node:http adapter presents it to the core (`createStreamableHttpHandler`):
// what the in-process benches (guards-inproc.ts, otel-inproc.ts) hand the core, without a socket.

const HEADERS: Readonly<Record<string, string>> = {
  host: '127.0.0.1:3000',
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};
const EMPTY_QUERY = new URLSearchParams();

/** The `allowedHosts` a core handler fed these requests needs. */
export const FAKE_HOST = '127.0.0.1:3000';

/** A POST to /mcp from 127.0.0.1 (headers by lower-case name, the body as text). */
export class FakeRequest {
  readonly method = 'POST';
  readonly path = '/mcp';
  readonly remoteAddress = '127.0.0.1';
  authInfo: unknown;
  readonly #body: string;
  constructor(body: string) {
    this.#body = body;
  }
  get query(): URLSearchParams {
    return EMPTY_QUERY;
  }
  header(name: string): string | undefined {
    return HEADERS[name];
  }
  text(): Promise<string | undefined> {
    return Promise.resolve(this.#body);
  }
  onGone(): void {}
}
