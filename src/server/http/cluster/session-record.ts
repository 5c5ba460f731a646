import type { JsonRpcMessage } from '../../../jsonrpc/types.js';
import { LOG_LEVELS } from '../../../spec/log-levels.js';
import { statefulPolicy } from '../../../spec/revision.js';
import type { SessionRecord } from '../../../store/session-store.js';
import type { ServerSession } from '../../dispatch/session.js';

/** Methods whose effect is part of a session's record (it is stored again after them). */
const RECORDED = new Set(['logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']);

/** Whether a message changes its session's record. */
export function changesRecord(message: JsonRpcMessage): boolean {
  return 'method' in message && RECORDED.has(message.method);
}

/** What is stored of a session: `tag` prefixes its stream ids, `owner` is the principal that opened it. */
export function recordOf(session: ServerSession, tag: string, owner: string | undefined): SessionRecord {
  const record: SessionRecord = {
    protocolVersion: session.protocolVersion,
    clientCapabilities: session.clientCapabilities,
    serverCapabilities: session.serverCapabilities,
    logLevel: LOG_LEVELS[session.logLevel] ?? 'info',
    subscriptions: session.subscriptions === undefined ? [] : [...session.subscriptions],
    tag,
  };
  if (session.clientInfo !== undefined) record.clientInfo = session.clientInfo;
  if (owner !== undefined) record.owner = owner;
  return record;
}

/** Brings a session in line with its stored record. */
export function applyRecord(session: ServerSession, record: SessionRecord): void {
  const policy = statefulPolicy(record.protocolVersion);
  if (policy === undefined) return;
  session.policy = policy;
  session.clientCapabilities = record.clientCapabilities;
  session.clientInfo = record.clientInfo;
  session.serverCapabilities = record.serverCapabilities;
  const level = LOG_LEVELS.indexOf(record.logLevel);
  if (level >= 0) session.logLevel = level;
  session.subscriptions = record.subscriptions.length > 0 ? new Set(record.subscriptions) : undefined;
}
