import { LOG_LEVELS } from '../spec/log-levels.js';
import type { CompletionReference, LoggingLevel, Root } from '../spec/types.js';
import { BadInput, objectOf, optionalString, stringField, stringRecord } from './bad-input.js';
import type { EraSelection, InspectorSession } from './session.js';
import { type InspectTarget, splitCommandLine } from './target.js';

/** One action the page can ask for: POST /api/<name> with a JSON body. */
type Operation = (session: InspectorSession, body: Record<string, unknown>) => Promise<unknown> | unknown;

/** The actions of the page, by name. Each reads its body defensively: anything malformed is a BadInput. */
export const OPERATIONS: ReadonlyMap<string, Operation> = new Map<string, Operation>([
  ['state', (s) => s.snapshot()],
  [
    'connect',
    async (s, body) => {
      const target =
        body.target === undefined ? undefined : await targetOf(s, objectOf(body.target, '"target"'));
      const revision = optionalString(body, 'revision');
      const selection: EraSelection | undefined = revision === undefined ? undefined : { revision };
      return s.connect(target, selection);
    },
  ],
  [
    'disconnect',
    async (s) => {
      await s.disconnect();
      return s.state;
    },
  ],
  [
    'ping',
    async (s) => {
      await s.client.ping();
      return {};
    },
  ],
  ['tools', (s) => s.client.listTools()],
  ['resources', (s) => s.client.listResources()],
  ['templates', (s) => s.client.listResourceTemplates()],
  ['prompts', (s) => s.client.listPrompts()],
  [
    'call',
    (s, body) => {
      const args = body.arguments === undefined ? {} : objectOf(body.arguments, '"arguments"');
      return s.callTool(stringField(body, 'callId'), stringField(body, 'name'), args);
    },
  ],
  ['app-open', (s, body) => s.apps.open(stringField(body, 'uri'), optionalString(body, 'tool'))],
  [
    'app-call',
    (s, body) => {
      const args = body.arguments === undefined ? {} : objectOf(body.arguments, '"arguments"');
      return s.apps.call(stringField(body, 'app'), stringField(body, 'name'), args);
    },
  ],
  ['app-read', (s, body) => s.apps.read(stringField(body, 'app'), stringField(body, 'uri'))],
  ['app-link', (s, body) => ({ url: s.apps.link(stringField(body, 'app'), body.url) })],
  ['skills', (s) => s.skills.list()],
  ['skill', (s, body) => s.skills.show(stringField(body, 'name'))],
  ['skill-file', (s, body) => s.skills.file(stringField(body, 'name'), stringField(body, 'path'))],
  ['cancel', (s, body) => ({ cancelled: s.cancel(stringField(body, 'callId')) })],
  [
    'read',
    async (s, body) => {
      const uri = stringField(body, 'uri');
      const started = performance.now();
      try {
        const result = await s.client.readResource(uri);
        s.log('resource', uri, undefined, 'ok', started);
        return result;
      } catch (e) {
        s.log('resource', uri, undefined, 'error', started);
        throw e;
      }
    },
  ],
  [
    'subscribe',
    async (s, body) => {
      await s.subscription(stringField(body, 'uri'), true);
      return s.state;
    },
  ],
  [
    'unsubscribe',
    async (s, body) => {
      await s.subscription(stringField(body, 'uri'), false);
      return s.state;
    },
  ],
  [
    'prompt',
    async (s, body) => {
      const name = stringField(body, 'name');
      const args = stringRecord(body, 'arguments');
      const started = performance.now();
      try {
        const result = await s.client.getPrompt(name, args);
        s.log('prompt', name, args, 'ok', started);
        return result;
      } catch (e) {
        s.log('prompt', name, args, 'error', started);
        throw e;
      }
    },
  ],
  [
    'complete',
    (s, body) => {
      const ref = referenceOf(objectOf(body.ref, '"ref"'));
      const argument = objectOf(body.argument, '"argument"');
      const context = stringRecord(body, 'context');
      return s.client.complete(
        ref,
        { name: stringField(argument, 'name'), value: stringField(argument, 'value') },
        context,
      );
    },
  ],
  [
    'level',
    async (s, body) => {
      const level = stringField(body, 'level');
      if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new BadInput(`Unknown level ${level}`);
      await s.client.setLoggingLevel(level as LoggingLevel);
      return {};
    },
  ],
  [
    'answer',
    (s, body) => {
      s.asks.answer(stringField(body, 'id'), body.answer);
      return {};
    },
  ],
  [
    'roots',
    async (s, body) => {
      if (!Array.isArray(body.roots)) throw new BadInput('"roots" must be an array');
      await s.setRoots(body.roots.map((r) => rootOf(objectOf(r, 'a root'))));
      return s.state;
    },
  ],
]);

/**
 * A target chosen in the page: a command line (stdio), a URL with headers and optionally OAuth, a configured
 * server's name, or the configured host.
 */
async function targetOf(s: InspectorSession, body: Record<string, unknown>): Promise<InspectTarget> {
  const kind = stringField(body, 'kind');
  if (kind === 'stdio') {
    const words = splitCommandLine(stringField(body, 'command'));
    const [command, ...args] = words;
    if (command === undefined) throw new BadInput('The command is empty');
    return { kind: 'stdio', command, args };
  }
  if (kind === 'http') {
    const url = stringField(body, 'url');
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
      throw new BadInput(`Not an http(s) URL: ${url}`);
    const headers = stringRecord(body, 'headers');
    const oauth = body.oauth;
    if (oauth !== undefined && typeof oauth !== 'boolean')
      throw new BadInput('"oauth" must be true or false');
    const scope = optionalString(body, 'scope')?.trim();
    if (scope !== undefined && !/^([\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*)?$/.test(scope))
      throw new BadInput('"scope" must be scope tokens separated by spaces');
    return {
      kind: 'http',
      url,
      ...(headers === undefined ? {} : { headers }),
      ...(oauth === true ? { oauth } : {}),
      ...(oauth === true && scope !== undefined && scope !== '' ? { scope } : {}),
    };
  }
  if (kind === 'configured') return s.configured(stringField(body, 'name'));
  if (kind === 'host') return { kind: 'host' };
  throw new BadInput(`Unknown target kind ${JSON.stringify(kind)}`);
}

function referenceOf(body: Record<string, unknown>): CompletionReference {
  const type = stringField(body, 'type');
  if (type === 'ref/prompt') return { type, name: stringField(body, 'name') };
  if (type === 'ref/resource') return { type, uri: stringField(body, 'uri') };
  throw new BadInput(`Unknown reference type ${JSON.stringify(type)}`);
}

function rootOf(body: Record<string, unknown>): Root {
  const uri = stringField(body, 'uri');
  if (!uri.startsWith('file://')) throw new BadInput(`A root is a file:// URI, got ${uri}`);
  const name = optionalString(body, 'name');
  return name === undefined || name === '' ? { uri } : { uri, name };
}
