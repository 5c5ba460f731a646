// Validation of what a server sends against a revision's own schema.json (vendored in test/fixtures/spec-schemas),
// made strict: every MCP object definition is closed (additionalProperties: false), so a field the revision does not
// define fails, not only a wrong type. Embedded JSON Schemas (inputSchema, outputSchema, requestedSchema) and the
// open `_meta`/`structuredContent`/`experimental` objects are left as the revision wrote them.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Keys whose value is an embedded JSON Schema, not an MCP object: left open. */
const EMBEDDED_SCHEMAS = new Set(['inputSchema', 'outputSchema', 'requestedSchema']);

type Node = { [key: string]: unknown };

function close(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(close);
  if (typeof node !== 'object' || node === null) return node;
  const out: Node = {};
  for (const [k, v] of Object.entries(node as Node)) {
    if (k === 'properties' && typeof v === 'object' && v !== null) {
      const props: Node = {};
      for (const [name, sub] of Object.entries(v as Node))
        props[name] = EMBEDDED_SCHEMAS.has(name) ? sub : close(sub);
      out[k] = props;
    } else out[k] = close(v);
  }
  if (out.properties !== undefined && out.additionalProperties === undefined && out.type === 'object') {
    out.additionalProperties = false;
  }
  return out;
}

/** A validator of one revision's definitions, strict as described above. */
export class SpecSchema {
  readonly revision: string;
  readonly #ajv: Ajv | Ajv2020;
  readonly #defs: string;

  constructor(revision: string) {
    this.revision = revision;
    const path = join(root, 'test/fixtures/spec-schemas', `${revision}.json`);
    const schema = JSON.parse(readFileSync(path, 'utf8')) as Node;
    const modern = String(schema.$schema).includes('2020-12');
    this.#defs = modern ? '$defs' : 'definitions';
    const strict = close(schema) as Node;
    delete strict.$schema;
    this.#ajv = modern
      ? new Ajv2020({ strict: false, allErrors: true })
      : new Ajv({ strict: false, allErrors: true });
    this.#ajv.addSchema(strict, 'mcp');
  }

  /** Whether the revision defines `definition` at all. */
  has(definition: string): boolean {
    return this.#ajv.getSchema(`mcp#/${this.#defs}/${definition}`) !== undefined;
  }

  /**
   * The problems of a whole JSON-RPC request or notification as the revision's `definition`. Revisions before
   * 2025-11-25 define the MCP part only (`method`, `params`), the envelope fields live in JSONRPCRequest; so those
   * are checked there and the rest against the definition.
   */
  messageProblems(definition: string, message: unknown): string[] {
    const { jsonrpc, id, ...rest } = message as { jsonrpc?: unknown; id?: unknown };
    const schema = this.#ajv.getSchema(`mcp#/${this.#defs}/${definition}`)?.schema as Node | undefined;
    const own = schema?.properties as Node | undefined;
    if (own && 'jsonrpc' in own) return this.problems(definition, message);
    const envelope =
      jsonrpc === '2.0' && (id === undefined || typeof id === 'string' || typeof id === 'number');
    return [...(envelope ? [] : ['bad JSON-RPC envelope']), ...this.problems(definition, rest)];
  }

  /** The problems of `value` as the revision's `definition` (empty when it conforms). */
  problems(definition: string, value: unknown): string[] {
    const validate = this.#ajv.getSchema(`mcp#/${this.#defs}/${definition}`);
    if (!validate) throw new Error(`${this.revision} has no definition ${definition}`);
    if (validate(value)) return [];
    // Unions report every branch's complaint; the additionalProperties ones name the offending field.
    return (validate.errors ?? []).map(
      (e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
    );
  }
}
