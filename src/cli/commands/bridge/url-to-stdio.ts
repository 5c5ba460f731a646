// `mcpkit bridge --from-url URL --to-stdio [--header …] [--header-env …]`: the remote server as a local stdio server,
// for hosts that only start commands (a secret header's value in the environment, where `ps` does not show it). Every message passes both ways unchanged. Tokens come from `mcpkit auth login URL` (the CLI's
// token file) and are refreshed as needed; a server that wants a sign-in nobody did answers each request with an
// error saying so (a host cannot sign in through stdio).
import { HttpClientTransport } from '../../../transport/http-client/fallback.js';
import { pipeTransports } from '../../../transport/pipe.js';
import { StdioServerTransport } from '../../../transport/stdio-server.js';
import { storedAuthorizer } from '../../shared/auth-store.js';
import { CliError, ExitCode } from '../../shared/exit.js';
import { note } from '../../shared/output.js';
import { isUrl, parseHeaders } from '../../shared/target.js';

/** Serves the remote server on this process's stdin and stdout until either side ends or SIGINT/SIGTERM; resolves with the exit code. */
export async function bridgeUrlToStdio(
  url: string,
  headerLines: string[],
  headerEnvLines: string[],
): Promise<number> {
  if (!isUrl(url) || !URL.canParse(url))
    throw new CliError(ExitCode.usage, `--from-url needs an http(s) URL, got "${url}"`);
  const headers = { ...parseHeaders(headerLines), ...headersFromEnv(headerEnvLines, process.env) };
  // An Authorization header given here is the credential: the token file's authorizer would replace it (or, holding
  // no token for the URL, remove it), so it is not used then.
  const given = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
  const upstream = new HttpClientTransport(url, {
    headers,
    ...(given ? {} : { auth: storedAuthorizer(url, undefined) }),
  });
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

/** `--header-env "Name: VARIABLE"` lines as headers, each with the value of its environment variable (which must be set). */
function headersFromEnv(lines: readonly string[], env: NodeJS.ProcessEnv): Record<string, string> {
  const headers: [string, string][] = [];
  for (const line of lines) {
    const m = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*:\s*([A-Za-z_][A-Za-z0-9_]*)\s*$/.exec(line);
    if (!m)
      throw new CliError(
        ExitCode.usage,
        `--header-env needs "Name: VARIABLE" (a header and an environment variable's name), got "${line}"`,
      );
    const name = m[1] as string;
    const variable = m[2] as string;
    const value = env[variable];
    if (value === undefined)
      throw new CliError(
        ExitCode.usage,
        `--header-env ${name}: the environment variable ${variable} is not set`,
      );
    headers.push([name, value]);
  }
  // Own properties whatever the name (an assignment to "__proto__" would set the prototype instead).
  return Object.fromEntries(headers);
}
