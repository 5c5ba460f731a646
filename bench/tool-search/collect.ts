// Collects the tool definitions of MCP servers published on npm, for the tool search's quality measure:
//   node dist/bench/tool-search/collect.js --dir /tmp/mcp-collect/pkgs --out bench/data/npm-mcp-tools.json
// Each package was installed beforehand into its own folder under --dir (`npm install --ignore-scripts PKG`). Every
// server is started over stdio with its package's bin (arguments and placeholder credentials below: listing tools needs
// no account), asked for tools/list (all pages) within 30 s, and stopped by its own process id. What was collected, with
// each package's name and version and the command that listed it, goes to --out; failures are listed on stderr.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '../../src/client/client.js';
import type { Tool } from '../../src/spec/types.js';
import { StdioClientTransport } from '../../src/transport/stdio-client.js';

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: '/tmp/mcp-collect/pkgs' },
    out: { type: 'string', default: 'bench/data/npm-mcp-tools.json' },
    only: { type: 'string' },
  },
});

/** Placeholder credentials: servers that refuse to start without one list their tools with these. */
const PLACEHOLDERS: Record<string, string> = {
  GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_placeholder',
  GITLAB_PERSONAL_ACCESS_TOKEN: 'glpat-placeholder',
  GITLAB_API_URL: 'http://127.0.0.1:9/api/v4',
  SLACK_BOT_TOKEN: 'xoxb-placeholder',
  SLACK_TEAM_ID: 'T00000000',
  GOOGLE_MAPS_API_KEY: 'placeholder',
  BRAVE_API_KEY: 'placeholder',
  TAVILY_API_KEY: 'tvly-placeholder',
  FIRECRAWL_API_KEY: 'fc-placeholder',
  SENTRY_ACCESS_TOKEN: 'placeholder',
  LAUNCHDARKLY_API_KEY: 'api-placeholder',
  FIGMA_API_KEY: 'placeholder',
  DATADOG_API_KEY: 'placeholder',
  DATADOG_APP_KEY: 'placeholder',
  DD_API_KEY: 'placeholder',
  DD_APP_KEY: 'placeholder',
  PRIVATE_APP_ACCESS_TOKEN: 'placeholder',
  PERPLEXITY_API_KEY: 'pplx-placeholder',
  SHORTCUT_API_TOKEN: 'placeholder',
  APIFY_TOKEN: 'apify_api_placeholder',
  EXA_API_KEY: 'placeholder',
  CIRCLECI_TOKEN: 'placeholder',
  SUPABASE_ACCESS_TOKEN: 'sbp_placeholder',
  STRIPE_SECRET_KEY: 'sk_test_placeholder',
  NOTION_TOKEN: 'ntn_placeholder',
  MONDAY_TOKEN: 'placeholder',
  MAPBOX_ACCESS_TOKEN: 'pk.placeholder',
  HEROKU_API_KEY: 'placeholder',
  NEON_API_KEY: 'placeholder',
  CURRENTS_API_KEY: 'placeholder',
  EVERART_API_KEY: 'placeholder',
  AWS_ACCESS_KEY_ID: 'placeholder',
  AWS_SECRET_ACCESS_KEY: 'placeholder',
  AWS_REGION: 'us-east-1',
  JIRA_API_TOKEN: 'placeholder',
  ATLASSIAN_SITE_NAME: 'placeholder',
  ATLASSIAN_USER_EMAIL: 'placeholder@example.com',
  ATLASSIAN_API_TOKEN: 'placeholder',
  BACKLOG_DOMAIN: 'placeholder.backlog.com',
  BACKLOG_API_KEY: 'placeholder',
  MYSQL_HOST: '127.0.0.1',
  MYSQL_PORT: '9',
  MYSQL_USER: 'placeholder',
  MYSQL_PASS: 'placeholder',
  MYSQL_DB: 'placeholder',
  CLICKUP_API_KEY: 'pk_placeholder',
  CLICKUP_TEAM_ID: '0',
  MCP_MODE: 'stdio',
  LOG_LEVEL: 'error',
  DISABLE_CONSOLE_OUTPUT: 'true',
  NODE_NO_WARNINGS: '1',
};

/** Arguments some servers need to start (or to offer all their tools). */
const ARGS: Record<string, string[]> = {
  '@modelcontextprotocol/server-filesystem': ['/tmp'],
  '@modelcontextprotocol/server-postgres': ['postgresql://127.0.0.1:9/none'],
  '@modelcontextprotocol/server-redis': ['redis://127.0.0.1:9'],
  '@azure-devops/mcp': ['placeholder-org'],
  '@stripe/mcp': ['--tools=all', '--api-key=sk_test_placeholder'],
  'figma-developer-mcp': ['--stdio', '--figma-api-key=placeholder'],
  '@supabase/mcp-server-supabase': ['--access-token=sbp_placeholder'],
  '@mobilenext/mobile-mcp': [],
  '@larksuiteoapi/lark-mcp': ['mcp', '-a', 'placeholder', '-s', 'placeholder'],
  '@heroku/mcp-server': [],
};

interface Collected {
  package: string;
  version: string;
  command: string;
  tools: Tool[];
}

const folders = readdirSync(values.dir as string);
const servers: Collected[] = [];
for (const folder of folders) {
  const base = join(values.dir as string, folder);
  let name: string;
  try {
    const deps = JSON.parse(readFileSync(join(base, 'package.json'), 'utf8')).dependencies ?? {};
    name = Object.keys(deps)[0] as string;
  } catch {
    continue;
  }
  if (!name || (values.only && !name.includes(values.only))) continue;
  const pkg = JSON.parse(readFileSync(join(base, 'node_modules', name, 'package.json'), 'utf8'));
  const bins: Record<string, string> =
    typeof pkg.bin === 'string' ? { [name.split('/').pop() as string]: pkg.bin } : (pkg.bin ?? {});
  const bin = Object.keys(bins)[0];
  if (!bin) {
    process.stderr.write(`${name}: no bin\n`);
    continue;
  }
  const script = join(base, 'node_modules', name, bins[bin] as string);
  const args = ARGS[name] ?? [];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [script, ...args],
    env: { ...PLACEHOLDERS, PATH: process.env.PATH ?? '', HOME: '/tmp/mcp-collect/home' },
    cwd: '/tmp/mcp-collect/home',
  });
  const client = new Client({ name: 'mcpkit-collect', version: '0.1.0' }, {});
  try {
    await client.connect(transport, { timeout: 30_000 });
    const tools = await client.listTools({ timeout: 30_000 });
    servers.push({
      package: name,
      version: pkg.version as string,
      command: `node <${name}>/${bins[bin]} ${args.join(' ')}`.trim(),
      tools,
    });
    process.stderr.write(`${name}@${pkg.version}: ${tools.length} tools\n`);
  } catch (e) {
    process.stderr.write(
      `${name}: FAILED ${e instanceof Error ? e.message : String(e)} ${transport.stderrTail.slice(-300).replace(/\s+/g, ' ')}\n`,
    );
  } finally {
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
  }
}
servers.sort((a, b) => (a.package < b.package ? -1 : 1));
writeFileSync(
  values.out as string,
  `${JSON.stringify(
    {
      about:
        "Tool definitions listed by MCP servers published on npm, each started offline over stdio with placeholder credentials (bench/tool-search/collect.ts). Definitions as the servers list them (their authors' text); used by the tool search quality measure.",
      collectedAt: new Date().toISOString().slice(0, 10),
      servers,
    },
    null,
    1,
  )}\n`,
);
process.stderr.write(`${servers.length} servers, ${servers.reduce((n, s) => n + s.tools.length, 0)} tools\n`);
