import type { JsonRpcMessage, RequestId } from '../jsonrpc/types.js';
import { eventId, type StoredEvent, streamOfEventId } from '../store/event-store.js';
import type { SharedEventStore, StreamInfo } from '../store/shared-event-store.js';
import type { RedisConnection } from './connection.js';
import { script } from './script.js';

/** Limits of the Redis event store. */
export interface RedisEventStoreOptions {
  /** Most events kept per stream (oldest trimmed first; resuming before them is refused). Default 10 000. */
  maxEventsPerStream?: number;
  /** How long a session's events are kept after its last one, in ms. Default 30 minutes. */
  ttlMs?: number;
}

// KEYS: stream, sequence, meta, index. ARGV: message, max events, ttl, channel, stream id, '1' for the stream's last
// event. One atomic step: a session-wide sequence number (the event id), the entry, the trim, the publication to
// followers (in sequence order, since scripts run one at a time); for a last event, the end too.
const APPEND = script(`
local seq = redis.call('INCR', KEYS[2])
redis.call('XADD', KEYS[1], '0-' .. seq, 'm', ARGV[1])
local max = tonumber(ARGV[2])
local len = redis.call('XLEN', KEYS[1])
if len > max then
  local old = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', len - max)
  redis.call('HSET', KEYS[3], 'dropped', string.sub(old[#old][1], 3))
  redis.call('XTRIM', KEYS[1], 'MAXLEN', max)
end
local last = ARGV[6] == '1'
if last then redis.call('HSET', KEYS[3], 'ended', '1') else redis.call('HSETNX', KEYS[3], 'ended', '0') end
redis.call('SADD', KEYS[4], ARGV[5])
local ttl = tonumber(ARGV[3])
for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ttl) end
redis.call('PUBLISH', ARGV[4], seq .. '\\n' .. ARGV[1])
if last then redis.call('PUBLISH', ARGV[4], 'end') end
return seq
`);

// KEYS: stream, sequence, meta. ARGV: the sequence number resumed from. Nil: unknown, or events after it trimmed.
const REPLAY = script(`
local seq = tonumber(ARGV[1])
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
if seq > last or redis.call('EXISTS', KEYS[3]) == 0 then return false end
local dropped = tonumber(redis.call('HGET', KEYS[3], 'dropped') or '0')
if seq < dropped then return false end
return redis.call('XRANGE', KEYS[1], '(0-' .. seq, '+')
`);

// KEYS: meta, index. ARGV: field, value, ttl, stream id, channel (empty: publish nothing).
const META = script(`
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[3]))
if ARGV[5] ~= '' then redis.call('PUBLISH', ARGV[5], 'end') end
return 1
`);

// KEYS: sequence, index. ARGV: prefix of the session's stream and meta keys.
const DROP = script(`
for _, id in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  redis.call('DEL', ARGV[1] .. 'x:' .. id, ARGV[1] .. 'm:' .. id)
end
redis.call('DEL', KEYS[1], KEYS[2])
return 1
`);

/**
 * Resumable SSE streams on Redis Streams, shared by every instance of a cluster: one Redis stream per SSE stream
 * (bounded length, a time to live renewed by each event), event ids from one sequence per session (unique across
 * instances), and each event published to the instances following the stream, in the same atomic step.
 *
 * What "no stored event lost" needs: Redis with `appendonly yes` and `appendfsync always` (an event acknowledged is
 * on disk); with `everysec`, a Redis crash may lose the last second of events.
 */
export class RedisEventStore implements SharedEventStore {
  readonly shared = true;
  readonly #redis: RedisConnection;
  readonly #max: number;
  readonly #ttl: number;

  constructor(redis: RedisConnection, options: RedisEventStoreOptions = {}) {
    this.#redis = redis;
    this.#max = options.maxEventsPerStream ?? 10_000;
    this.#ttl = options.ttlMs ?? 30 * 60_000;
  }

  #base(sessionKey: string): string {
    return `${this.#redis.prefix}e:${sessionKey}:`;
  }

  #channel(sessionKey: string, streamId: string): string {
    return `${this.#redis.prefix}ef:${sessionKey}:${streamId}`;
  }

  append(sessionKey: string, streamId: string, message: JsonRpcMessage): Promise<string> {
    return this.#append(sessionKey, streamId, message, '0');
  }

  /** The last event and the stream's end in one script: one round trip, followers get the event, then the end. */
  appendLast(sessionKey: string, streamId: string, message: JsonRpcMessage): Promise<string> {
    return this.#append(sessionKey, streamId, message, '1');
  }

  async #append(
    sessionKey: string,
    streamId: string,
    message: JsonRpcMessage,
    last: '0' | '1',
  ): Promise<string> {
    const base = this.#base(sessionKey);
    const keys = [`${base}x:${streamId}`, `${base}seq`, `${base}m:${streamId}`, `${base}index`];
    const args = [
      JSON.stringify(message),
      this.#max,
      this.#ttl,
      this.#channel(sessionKey, streamId),
      streamId,
      last,
    ];
    const seq = await APPEND(this.#redis.command, keys, args);
    return eventId(streamId, Number(seq));
  }

  streamOf(id: string): string | undefined {
    return streamOfEventId(id);
  }

  async replayAfter(sessionKey: string, id: string): Promise<StoredEvent[] | undefined> {
    const streamId = streamOfEventId(id);
    if (streamId === undefined) return undefined;
    const base = this.#base(sessionKey);
    const seq = id.slice(streamId.length + 1);
    const keys = [`${base}x:${streamId}`, `${base}seq`, `${base}m:${streamId}`];
    const entries = await REPLAY(this.#redis.command, keys, [seq]);
    if (!Array.isArray(entries)) return undefined;
    const events: StoredEvent[] = [];
    for (const entry of entries as [string, string[]][]) {
      const text = entry[1][1];
      if (text === undefined) continue;
      events.push({
        id: eventId(streamId, Number(entry[0].slice(2))),
        message: JSON.parse(text) as JsonRpcMessage,
      });
    }
    return events;
  }

  async dropSession(sessionKey: string): Promise<void> {
    const base = this.#base(sessionKey);
    await DROP(this.#redis.command, [`${base}seq`, `${base}index`], [base]);
  }

  async streamEnded(sessionKey: string, streamId: string): Promise<void> {
    await this.#meta(sessionKey, streamId, 'ended', '1', this.#channel(sessionKey, streamId));
  }

  async streamOpened(sessionKey: string, streamId: string, requests: readonly RequestId[]): Promise<void> {
    await this.#meta(sessionKey, streamId, 'requests', JSON.stringify(requests), '');
  }

  async #meta(sessionKey: string, streamId: string, field: string, value: string, channel: string) {
    const base = this.#base(sessionKey);
    const keys = [`${base}m:${streamId}`, `${base}index`];
    await META(this.#redis.command, keys, [field, value, this.#ttl, streamId, channel]);
  }

  async streamInfo(sessionKey: string, streamId: string): Promise<StreamInfo | undefined> {
    const meta = await this.#redis.command.hgetall(`${this.#base(sessionKey)}m:${streamId}`);
    if (Object.keys(meta).length === 0) return undefined;
    const requests = meta.requests === undefined ? [] : (JSON.parse(meta.requests) as RequestId[]);
    return { ended: meta.ended === '1', requests };
  }

  follow(
    sessionKey: string,
    streamId: string,
    listener: (event: StoredEvent | undefined) => void,
    lost?: () => void,
  ): Promise<() => void> {
    return this.#redis.subscriber.listen(
      this.#channel(sessionKey, streamId),
      (text) => {
        if (text === 'end') return listener(undefined);
        const newline = text.indexOf('\n');
        const seq = Number(text.slice(0, newline));
        listener({
          id: eventId(streamId, seq),
          message: JSON.parse(text.slice(newline + 1)) as JsonRpcMessage,
        });
      },
      lost,
    );
  }

  async followers(sessionKey: string, streamId: string): Promise<number> {
    const reply = (await this.#redis.command.pubsub(
      'NUMSUB',
      this.#channel(sessionKey, streamId),
    )) as unknown[];
    return Number(reply[1] ?? 0);
  }
}
