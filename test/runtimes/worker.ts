// The example server as a Cloudflare Worker module (workerd, through miniflare in runtimes.test.ts): the
// web-standard handler of mcpkit's root entry answers every request. Bundled by the test with esbuild.
import { createEverythingServer } from '../../examples/everything/everything.js';
import { createStreamableHttpHandler, toFetchHandler } from '../../src/index.js';

const handler = toFetchHandler(createStreamableHttpHandler(createEverythingServer()));

export default {
  fetch(request: Request): Promise<Response> {
    return handler(request);
  },
};
