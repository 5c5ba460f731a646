import { createHash } from 'node:crypto';
import type { Tool } from '../spec/types.js';
import type { ServerConfig } from './config/types.js';

/** What a pin keeps of a tool: what the person approves (the text the model reads, the shape of its calls). */
export interface PinnedDefinition {
  /** The server's own name of the tool. */
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}

/** The parts of `tool` a pin covers (its server's name for it, title, description, schemas, annotations). */
export function pinnedDefinition(tool: Tool): PinnedDefinition {
  const out: PinnedDefinition = { name: tool.name };
  if (tool.title !== undefined) out.title = tool.title;
  if (tool.description !== undefined) out.description = tool.description;
  if (tool.inputSchema !== undefined) out.inputSchema = tool.inputSchema;
  if (tool.outputSchema !== undefined) out.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined) out.annotations = tool.annotations;
  return out;
}

/** `value` as JSON with every object's keys sorted (the same text for the same value, whatever the key order). */
export function canonicalJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, sortedKeys, indent) ?? 'null';
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = (value as Record<string, unknown>)[key];
  return out;
}

/** The digest of a definition: `sha256:` and the hex SHA-256 of its canonical JSON. */
export function definitionDigest(definition: PinnedDefinition): string {
  return `sha256:${createHash('sha256').update(canonicalJson(definition)).digest('hex')}`;
}

/** The digest of what a pin covers of `tool` (computed when a list changes, never per call). */
export function toolDigest(tool: Tool): string {
  return definitionDigest(pinnedDefinition(tool));
}

/**
 * The key of a server's pins: its name and a digest of what it runs or reaches (command and arguments, or URL), so
 * another server given the same name does not inherit the pins (and no argument is written out in clear).
 */
export function serverPinKey(config: ServerConfig): string {
  const t = config.transport;
  const identity = t.type === 'stdio' ? [t.type, t.command, ...t.args] : [t.type, t.url];
  const hash = createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 16);
  return `${config.name}@${hash}`;
}
