// The auth/* client scenarios of the conformance suite: one OAuthClient (mcpkit/auth) configured from the
// scenario's context, then the usual list-and-call. The "user" is headless: the authorization URL is fetched
// without following redirects and the redirect's Location is what comes back to the client (the suite's
// authorization endpoint approves at once and nothing listens at the redirect URI).
import { OAuthClient, type OAuthClientOptions, type OAuthGrant } from '../../src/auth.js';
import { Client, HttpClientTransport } from '../../src/index.js';
import type { ScenarioRun } from './scenarios.js';

const INFO = { name: 'mcpkit-conformance-client', version: '0.1.0' };
const TIMEOUT_MS = 10_000;
/** The Client ID Metadata Document URL this client is known by (the suite checks for exactly this one). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
const REDIRECT_URI = 'http://127.0.0.1:8976/callback';

/** The headless user: follows nothing, reads the authorization endpoint's redirect back to us. */
async function headlessUser(url: URL, signal: AbortSignal | undefined): Promise<URL> {
  const response = await fetch(url, { redirect: 'manual', ...(signal === undefined ? {} : { signal }) });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (response.status < 300 || response.status >= 400 || location === null) {
    throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
  }
  return new URL(location, url);
}

function text(context: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = context?.[key];
  return typeof value === 'string' ? value : undefined;
}

/** The OAuth client for a scenario: which grant and which credentials come from the suite's context. */
export function oauthFor(scenario: string, context: Record<string, unknown> | undefined): OAuthClient {
  const clientId = text(context, 'client_id');
  const secret = text(context, 'client_secret');
  const privateKey = text(context, 'private_key_pem');
  const idToken = text(context, 'idp_id_token');
  const idpTokenEndpoint = text(context, 'idp_token_endpoint');
  const idpClientId = text(context, 'idp_client_id');
  let grant: OAuthGrant;
  if (idToken !== undefined && idpTokenEndpoint !== undefined && idpClientId !== undefined) {
    const issuer = text(context, 'idp_issuer');
    grant = {
      type: 'enterprise',
      idp: {
        tokenEndpoint: idpTokenEndpoint,
        clientId: idpClientId,
        idToken,
        ...(issuer === undefined ? {} : { issuer }),
      },
    };
  } else if (privateKey !== undefined || scenario.startsWith('auth/client-credentials')) {
    grant = { type: 'client_credentials' };
  } else {
    grant = { type: 'authorization_code', redirectUri: REDIRECT_URI, authorize: headlessUser };
  }
  const options: OAuthClientOptions = {
    grant,
    clientMetadataUrl: CLIENT_METADATA_URL,
    clientMetadata: { client_name: INFO.name },
    ...(clientId === undefined
      ? {}
      : {
          credentials: {
            clientId,
            ...(secret === undefined ? {} : { clientSecret: secret }),
            ...(privateKey === undefined ? {} : { privateKey }),
            ...(text(context, 'signing_algorithm') === undefined
              ? {}
              : { signingAlgorithm: text(context, 'signing_algorithm') as string }),
          },
        }),
  };
  return new OAuthClient(options);
}

/** Connects with OAuth, lists the tools and calls `test-tool` (what every auth scenario's server offers). */
export async function authScenario(scenario: string, run: ScenarioRun): Promise<void> {
  const auth = oauthFor(scenario, run.context);
  const client = new Client(INFO, { era: 'stateful', onerror: (e) => run.log(`(reported) ${e.message}`) });
  await client.connect(new HttpClientTransport(run.url, { auth }), { timeout: TIMEOUT_MS });
  try {
    run.log(`connected: ${client.serverInfo?.name ?? '?'} at ${client.protocolVersion}`);
    const tools = await client.listTools({ timeout: TIMEOUT_MS });
    run.log(`tools: ${tools.map((t) => t.name).join(', ') || '(none)'}`);
    if (tools.some((t) => t.name === 'test-tool')) {
      const result = await client.callTool('test-tool', {}, { timeout: TIMEOUT_MS });
      if (result.isError) throw new Error('test-tool returned an error result');
      run.log(`test-tool → ${result.content.map((b) => (b.type === 'text' ? b.text : b.type)).join(' ')}`);
    }
    run.log(`granted scope: ${auth.scope ?? '(none)'}`);
  } finally {
    await client.close();
  }
}
