// The common path of the target commands: resolve the target, connect, run, close; and the output format.
import type { ClientOptions } from '../../client/options.js';
import type { HttpAuthorizer } from '../../transport/http-client/auth-hook.js';
import { type Connection, commandFailure, connect } from './connect.js';
import type { CommonFlags } from './execute.js';
import { serverCommand } from './execute.js';
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
    // An OAuth challenge (a 403 for more scopes, a token gone stale) is 3; a lost connection 2 (stdio) or 4 (URL);
    // an error answer 6; no answer in time 7.
    throw commandFailure(e, resolved, connection.http);
  } finally {
    await connection.close();
    await otel?.shutdown();
  }
}
