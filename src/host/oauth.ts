import { checkedFetch } from '../auth/client/checked-fetch.js';
import { FileTokenStore } from '../auth/client/file-store.js';
import { OAuthClient } from '../auth/client/oauth-client.js';
import type { ClientCredentials, OAuthGrant } from '../auth/client/options.js';
import type { TokenStore } from '../auth/client/store.js';
import type { AllowPrivateNetwork } from '../auth/client/urls.js';
import type { JsonValue } from '../jsonrpc/types.js';
import type { HttpAuthorizer } from '../transport/http-client/auth-hook.js';
import type { ServerConfig } from './config/types.js';

/** OAuth for the host's HTTP servers: one `OAuthClient` per server, all keeping tokens in one store. */
export interface HostOAuthOptions {
  /** How tokens are obtained (a person signing in through the browser, client credentials, …). */
  grant: OAuthGrant;
  /** A JSON file for tokens and registrations (a `FileTokenStore`), so a restart needs no new sign-in. */
  tokenFile?: string;
  /** Or any token store (wins over `tokenFile`). */
  store?: TokenStore;
  /** Metadata for dynamic registration (`client_name`, …). */
  clientMetadata?: Readonly<Record<string, JsonValue>>;
  /** Scopes to ask for besides the challenged ones (a server's config `auth.scopes` wins). */
  scope?: string;
  /** What a server's OAuth discovery may reach beyond the public network (`OAuthClientOptions.allowPrivateNetwork`). */
  allowPrivateNetwork?: AllowPrivateNetwork;
}

/**
 * The authorizer of each HTTP server: an `OAuthClient` that acts only when the server answers 401 or 403, so
 * servers without authorization cost nothing. Credentials a config gives for a server (Cursor's `auth`
 * block) are its pre-registered client.
 */
export function oauthAuthorizers(
  options: HostOAuthOptions,
): (server: ServerConfig) => HttpAuthorizer | undefined {
  const store =
    options.store ?? (options.tokenFile === undefined ? undefined : new FileTokenStore(options.tokenFile));
  return (server) => {
    if (server.transport.type === 'stdio') return undefined;
    const given = server.oauth;
    const scope = given?.scopes?.join(' ') ?? options.scope;
    let credentials: ClientCredentials | undefined;
    if (given?.clientId !== undefined)
      credentials =
        given.clientSecret === undefined
          ? { clientId: given.clientId }
          : { clientId: given.clientId, clientSecret: given.clientSecret };
    return new OAuthClient({
      grant: options.grant,
      // Every address an OAuth request's host resolves to is checked as it connects.
      checkedFetch: checkedFetch(),
      ...(options.allowPrivateNetwork === undefined
        ? {}
        : { allowPrivateNetwork: options.allowPrivateNetwork }),
      ...(store ? { store } : {}),
      ...(credentials ? { credentials } : {}),
      ...(options.clientMetadata ? { clientMetadata: options.clientMetadata } : {}),
      ...(scope === undefined ? {} : { scope }),
    });
  };
}
