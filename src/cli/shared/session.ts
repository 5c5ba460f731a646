// The common path of the target commands: resolve the target, connect, run, close; and the output format.
import type { ClientOptions } from '../../client/options.js';
import { errorMessage } from '../../jsonrpc/errors.js';
import type { HttpAuthorizer } from '../../transport/http-client/auth-hook.js';
import { type Connection, connect, connectFailure } from './connect.js';
import type { CommonFlags } from './execute.js';
import { serverCommand } from './execute.js';
import { CliError, exitCodeOf } from './exit.js';
import { startOtel } from './otel.js';
import { type Format, parseFormat } from './output.js';
import { resolveTarget } from './target.js';

/**
 * Connects to the target named by `target` (or the command after `--`), runs `body` and closes the connection
 * whatever happens. A URL target carries the tokens `mcpkit auth login` stored, never starting a sign-in itself.
 */
export async function withConnection<T>(
  target: string | undefined,
  flags: CommonFlags,
  body: (connection: Connection, format: Format) => Promise<T>,
  client?: ClientOptions,
): Promise<T> {
  const format = parseFormat(flags.format ?? 'text');
  const resolved = await resolveTarget(target, serverCommand.words, flags);
  // The OAuth client (and its libraries) loads only for a URL.
  const auth: HttpAuthorizer | undefined =
    resolved.kind === 'url'
      ? (await import('./auth-store.js')).storedAuthorizer(resolved.url, resolved.oauth)
      : undefined;
  const otel = await startOtel(flags.otel, 'mcpkit');
  let connection: Connection;
  try {
    connection = await connect(resolved, flags, {
      ...(auth ? { auth } : {}),
      ...(client ? { client } : {}),
      ...(otel ? { wrap: otel.transport } : {}),
    });
  } catch (e) {
    await otel?.shutdown();
    throw e;
  }
  try {
    return await body(connection, format);
  } catch (e) {
    // A request refused for want of authorization (a 403 for more scopes, a token gone stale) is exit 3 too.
    if (e instanceof CliError) throw e;
    if (connection.http.refused) throw connectFailure(e, resolved, undefined, connection.http);
    // A connection lost mid-command: a stdio server that died (2), a URL gone (4); a refusal stays 1.
    throw new CliError(exitCodeOf(e, resolved.kind), errorMessage(e), {}, e);
  } finally {
    await connection.close();
    await otel?.shutdown();
  }
}
