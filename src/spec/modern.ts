import { ErrorCode } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/types.js';

/** The stateless protocol revisions mcpkit speaks (the modern era). */
export const MODERN_REVISIONS = ['2026-07-28'] as const;

/** A modern (stateless) protocol revision. */
export type ModernRevision = (typeof MODERN_REVISIONS)[number];

/** Codes only a stateless-revision server sends: they prove the server is modern. */
export const MODERN_ERROR_CODES: ReadonlySet<number> = new Set([
  ErrorCode.HeaderMismatch,
  ErrorCode.MissingClientCapability,
  ErrorCode.UnsupportedProtocolVersion,
]);

/** The newest modern revision. */
export const LATEST_MODERN_REVISION: ModernRevision = '2026-07-28';

/** Reserved `_meta` keys of the modern era. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** The tasks extension's capability id. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

const modern: ReadonlySet<string> = new Set(MODERN_REVISIONS);

/** True when `version` is a modern revision mcpkit speaks. */
export function isModernRevision(version: unknown): version is ModernRevision {
  return typeof version === 'string' && modern.has(version);
}

/** True when a request's params claim the modern era (a protocol version in `_meta`). */
export function claimsModern(params: { [key: string]: unknown } | undefined): boolean {
  const meta = params?._meta;
  return typeof meta === 'object' && meta !== null && META.protocolVersion in meta;
}

/** Cache hints of a cacheable modern result. */
export type CacheHint = {
  /** Milliseconds the result stays fresh (0: stale at once). */
  ttlMs: number;
  /** 'public': shareable; 'private': only within one authorization context. */
  cacheScope: 'public' | 'private';
};

/** What a client asks to hear about on a `subscriptions/listen` stream. */
export type SubscriptionFilter = {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  taskIds?: string[];
};

/** Methods whose stateless results carry cache hints (and may be cached by clients). */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

/** Methods that may answer `input_required` (multi round-trip requests). */
export const INPUT_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** One request the server needs the client to fulfil before it can answer (an MRTR input request). */
export type InputRequest = {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  params?: JsonObject;
};
