// The four list commands (`tools`, `resources`, `templates`, `prompts`): one table, or the list as JSON.
import type { Connection } from '../../shared/connect.js';
import type { CommonFlags } from '../../shared/execute.js';
import { type Format, out, outJson, table } from '../../shared/output.js';
import { withConnection } from '../../shared/session.js';

/** What can be listed. */
export type ListKind = 'tools' | 'resources' | 'templates' | 'prompts';

/** Connects to the target, lists `kind` and prints it; resolves with the exit code. */
export async function list(kind: ListKind, target: string | undefined, flags: CommonFlags): Promise<number> {
  await withConnection(target, flags, (connection, format) => printList(kind, connection, format));
  return 0;
}

/** Lists `kind` and prints it. */
async function printList(kind: ListKind, { client, timeout }: Connection, format: Format): Promise<void> {
  const options = { timeout };
  switch (kind) {
    case 'tools': {
      const tools = await client.listTools(options);
      if (format === 'json') return outJson({ tools });
      return print(
        ['NAME', 'ARGUMENTS', 'DESCRIPTION'],
        tools.map((t) => [t.name, argumentsOf(t.inputSchema), t.description ?? t.title ?? '']),
        'tools',
      );
    }
    case 'resources': {
      const resources = await client.listResources(options);
      if (format === 'json') return outJson({ resources });
      return print(
        ['URI', 'NAME', 'MIME TYPE', 'DESCRIPTION'],
        resources.map((r) => [r.uri, r.name, r.mimeType ?? '', r.description ?? '']),
        'resources',
      );
    }
    case 'templates': {
      const resourceTemplates = await client.listResourceTemplates(options);
      if (format === 'json') return outJson({ resourceTemplates });
      return print(
        ['URI TEMPLATE', 'NAME', 'MIME TYPE', 'DESCRIPTION'],
        resourceTemplates.map((r) => [r.uriTemplate, r.name, r.mimeType ?? '', r.description ?? '']),
        'resource templates',
      );
    }
    case 'prompts': {
      const prompts = await client.listPrompts(options);
      if (format === 'json') return outJson({ prompts });
      return print(
        ['NAME', 'ARGUMENTS', 'DESCRIPTION'],
        prompts.map((p) => [
          p.name,
          (p.arguments ?? []).map((a) => (a.required ? a.name : `[${a.name}]`)).join(' '),
          p.description ?? p.title ?? '',
        ]),
        'prompts',
      );
    }
  }
}

function print(headers: string[], rows: string[][], what: string): void {
  if (rows.length === 0) out(`(no ${what})`);
  else out(table(headers, rows));
}

/** A tool's arguments in one cell: `name:type`, optional ones in brackets. */
export function argumentsOf(schema: unknown): string {
  if (typeof schema !== 'object' || schema === null) return '';
  const { properties, required } = schema as { properties?: unknown; required?: unknown };
  if (typeof properties !== 'object' || properties === null) return '';
  const needed = new Set(Array.isArray(required) ? required : []);
  return Object.entries(properties as Record<string, unknown>)
    .map(([name, prop]) => {
      const type = typeName(prop);
      const cell = type === '' ? name : `${name}:${type}`;
      return needed.has(name) ? cell : `[${cell}]`;
    })
    .join(' ');
}

function typeName(prop: unknown): string {
  if (typeof prop !== 'object' || prop === null) return '';
  const type = (prop as { type?: unknown }).type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.filter((t) => typeof t === 'string').join('|');
  if ('enum' in prop) return 'enum';
  return '';
}
