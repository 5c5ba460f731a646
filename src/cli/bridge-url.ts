// `mcpkit bridge --from-url URL --to-stdio [--header …]`: the remote server as a local stdio server, for hosts that
// only start commands. Every message passes both ways unchanged. Tokens come from `mcpkit auth login URL` (the CLI's
// token file) and are refreshed as needed; a server that wants a sign-in nobody did answers each request with an
// error saying so (a host cannot sign in through stdio).
import { HttpClientTransport } from '../transport/http-client.js';
import { pipeTransports } from '../transport/pipe.js';
import { StdioServerTransport } from '../transport/stdio-server.js';
import { storedAuthorizer } from './auth-store.js';
import { CliError, ExitCode } from './exit.js';
import { note } from './output.js';
import { isUrl, parseHeaders } from './target.js';

export async function bridgeUrlToStdio(url: string, headerLines: string[]): Promise<number> {
  if (!isUrl(url) || !URL.canParse(url))
    throw new CliError(ExitCode.usage, `--from-url needs an http(s) URL, got "${url}"`);
  const headers = parseHeaders(headerLines);
  const upstream = new HttpClientTransport(url, { headers, auth: storedAuthorizer(url, undefined) });
  const pipe = await pipeTransports(new StdioServerTransport(), upstream, {
    onerror: (e) => note(`mcpkit bridge: ${e.message}`),
  });
  note(`mcpkit bridge: ${url} on stdio`);
  const stop = () => void pipe.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await pipe.closed;
  return ExitCode.ok;
}
