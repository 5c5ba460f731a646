// Where `mcpkit auth` keeps tokens (a FileTokenStore under the user's config directory, 0600), and the
// authorizer the other commands use for a URL: it sends stored tokens and refreshes them, but never starts a
// sign-in (that is `mcpkit auth login`): a server that wants one ends the command with exit code 3.
import { join } from 'node:path';
import { checkedFetch } from '../../auth/client/checked-fetch.js';
import { FileTokenStore } from '../../auth/client/file-store.js';
import { OAuthClient } from '../../auth/client/oauth-client.js';
import type { ClientCredentials, OAuthGrant } from '../../auth/client/options.js';
import { configDir } from '../../host/config/config-dir.js';
import type { ServerConfig } from '../../host/config/types.js';
import type { AuthChallenge, HttpAuthorizer } from '../../transport/http-client/auth-hook.js';

/** The token file of `mcpkit auth` (created 0600 in a 0700 directory by the store). */
export function tokenFile(): string {
  return join(configDir(), 'oauth.json');
}

/** The pre-registered credentials of a config entry (Cursor's `auth` block), if any. */
export function credentialsOf(oauth: ServerConfig['oauth']): ClientCredentials | undefined {
  if (oauth?.clientId === undefined) return undefined;
  return oauth.clientSecret === undefined
    ? { clientId: oauth.clientId }
    : { clientId: oauth.clientId, clientSecret: oauth.clientSecret };
}

/**
 * Whether the person lets a server's OAuth discovery reach private, loopback and link-local addresses (an intranet
 * authorization server behind a name): `MCPKIT_ALLOW_PRIVATE_NETWORK=1` in the environment. Off by default.
 */
function allowPrivateNetwork(): boolean {
  const value = process.env.MCPKIT_ALLOW_PRIVATE_NETWORK;
  return value === '1' || value === 'true';
}

/**
 * An OAuthClient keeping its tokens in the CLI's token file; each address an OAuth request's host resolves to is
 * checked as it connects.
 */
export function oauthClient(
  grant: OAuthGrant,
  store: FileTokenStore,
  oauth: ServerConfig['oauth'],
  scope?: string,
): OAuthClient {
  const credentials = credentialsOf(oauth);
  const scopes = scope ?? oauth?.scopes?.join(' ');
  return new OAuthClient({
    grant,
    store,
    clientMetadata: { client_name: 'mcpkit command line' },
    checkedFetch: checkedFetch(),
    allowPrivateNetwork: allowPrivateNetwork(),
    ...(credentials ? { credentials } : {}),
    ...(scopes === undefined || scopes === '' ? {} : { scope: scopes }),
  });
}

/** The grant of a command that must not sign in: asking the user is refused (the caller exits with 3). */
const NO_SIGN_IN: OAuthGrant = {
  type: 'authorization_code',
  redirectUri: 'http://127.0.0.1/callback',
  authorize: () => Promise.reject(new Error('sign-in needed')),
};

/**
 * The authorizer of a URL target outside `mcpkit auth login`: the stored access token, refreshed when it
 * expires or is refused; with no stored token a 401 is handed back as it is (exit 3), without registering
 * a client or starting a sign-in.
 */
export function storedAuthorizer(url: string, oauth: ServerConfig['oauth']): HttpAuthorizer {
  const client = oauthClient(NO_SIGN_IN, new FileTokenStore(tokenFile()), oauth);
  let sent: string | undefined;
  return {
    async authorization(target: URL) {
      sent = await client.authorization(target);
      return sent;
    },
    async unauthorized(challenge: AuthChallenge, signal: AbortSignal | undefined) {
      if (sent === undefined || challenge.url.origin !== new URL(url).origin) return false;
      return client.unauthorized(challenge, signal).catch(() => false);
    },
  };
}
