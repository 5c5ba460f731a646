import { randomBase64url } from '../framing/base64url.js';
import { ErrorCode } from '../jsonrpc/errors.js';
import type { TaskAdopter, TaskStore } from '../server/tasks/store.js';
import { advance, isTerminal, rerunChanges, type TaskRecord } from '../server/tasks/types.js';
import { aliveKey } from './bus.js';
import type { RedisConnection } from './connection.js';
import { script } from './script.js';

/** Options of the Redis task store. */
export interface RedisTaskStoreOptions {
  /** The instance whose handlers run the tasks created here (shared with the cluster's heartbeat). Default: random. */
  instanceId?: string;
  /** Heartbeat interval in ms (an instance silent for three is dead). Default 1000. */
  heartbeatMs?: number;
}

// KEYS: task, runner. ARGV: record, expiry (ms since epoch, 0: none), runner. 0 when the id is taken.
const CREATE = script(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local at = tonumber(ARGV[2])
if at > 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PXAT', at)
  redis.call('SET', KEYS[2], ARGV[3], 'PXAT', at)
else
  redis.call('SET', KEYS[1], ARGV[1])
  redis.call('SET', KEYS[2], ARGV[3])
end
return 1
`);

// KEYS: task, runner. ARGV: prefix of alive keys. The record, and 1 when its runner is dead.
const GET = script(`
local record = redis.call('GET', KEYS[1])
if not record then return false end
local runner = redis.call('GET', KEYS[2])
local dead = 0
if runner and redis.call('EXISTS', ARGV[1] .. runner) == 0 then dead = 1 end
return { record, dead }
`);

// KEYS: task. ARGV: expected version, next record, next status, channel. Compare-and-set; terminal tasks never move.
const UPDATE = script(`
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local task = cjson.decode(current)
if task.version ~= tonumber(ARGV[1]) then return 0 end
local s = task.status
if s == 'completed' or s == 'failed' or s == 'cancelled' then return 0 end
local n = ARGV[3]
if n ~= 'working' and n ~= 'input_required' and n ~= 'completed' and n ~= 'failed' and n ~= 'cancelled' then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
redis.call('PUBLISH', ARGV[4], ARGV[2])
return 1
`);

// KEYS: task, runner. ARGV: prefix of alive keys, expected version, next record, new runner, channel. Takes a task
// whose runner is dead for the new runner: 1 for the one instance that wins, 0 when it changed or was taken first.
const CLAIM = script(`
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
if cjson.decode(current).version ~= tonumber(ARGV[2]) then return 0 end
local runner = redis.call('GET', KEYS[2])
if not runner or redis.call('EXISTS', ARGV[1] .. runner) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[3], 'KEEPTTL')
redis.call('SET', KEYS[2], ARGV[4], 'KEEPTTL')
redis.call('PUBLISH', ARGV[5], ARGV[3])
return 1
`);

/**
 * The tasks extension's store on Redis, so `tasks/get`, `tasks/update` and `tasks/cancel` work from any instance:
 * records as JSON strings that expire with the task, a compare-and-set update in one script, changes published to
 * every instance (`watch`). Each task remembers the instance running it; a task whose instance stopped sending
 * heartbeats is, when next read, started again by the reading instance if its tool allows re-runs (`adopt`: the
 * claim is one script, so exactly one instance wins), and marked failed otherwise, instead of staying "working"
 * forever.
 */
export class RedisTaskStore implements TaskStore {
  readonly instance: string;
  readonly #redis: RedisConnection;
  readonly #heartbeatMs: number;
  #adopter: TaskAdopter | undefined;
  #closed = false;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(redis: RedisConnection, options: RedisTaskStoreOptions = {}) {
    this.#redis = redis;
    this.instance = options.instanceId ?? randomBase64url(6);
    this.#heartbeatMs = options.heartbeatMs ?? 1000;
  }

  #key(taskId: string): string {
    return `${this.#redis.prefix}t:${taskId}`;
  }

  #runnerKey(taskId: string): string {
    return `${this.#redis.prefix}tr:${taskId}`;
  }

  get #channel(): string {
    return `${this.#redis.prefix}tw`;
  }

  async create(record: TaskRecord): Promise<boolean> {
    await this.#beat();
    const keys = [this.#key(record.taskId), this.#runnerKey(record.taskId)];
    const created = await CREATE(this.#redis.command, keys, [
      JSON.stringify(record),
      record.expiresAt ?? 0,
      this.instance,
    ]);
    if (created !== 1) throw new Error(`Task ${record.taskId} already exists`);
    return true;
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const keys = [this.#key(taskId), this.#runnerKey(taskId)];
    const reply = await GET(this.#redis.command, keys, [aliveKey(this.#redis.prefix, '')]);
    if (!Array.isArray(reply)) return undefined;
    const record = JSON.parse(String(reply[0])) as TaskRecord;
    if (reply[1] !== 1 || isTerminal(record.status)) return record;
    // Its instance died: the handler that would finish it is gone.
    const adopter = this.#adopter;
    // A closed store claims nothing: its instance is going away (and a claim would start its heartbeat again).
    if (!this.#closed && adopter?.canRerun(record)) {
      await this.#beat();
      const claimed = advance(record, rerunChanges(record));
      const args = [
        aliveKey(this.#redis.prefix, ''),
        record.version,
        JSON.stringify(claimed),
        this.instance,
        this.#channel,
      ];
      if ((await CLAIM(this.#redis.command, keys, args)) !== 1) return this.get(taskId);
      adopter.rerun(claimed);
      return claimed;
    }
    const message = 'The server instance running this task stopped';
    const failed = advance(record, {
      status: 'failed',
      statusMessage: message,
      error: { code: ErrorCode.InternalError, message },
      inputRequests: undefined,
    });
    if (await this.update(taskId, record.version, failed)) return failed;
    return this.get(taskId);
  }

  async update(taskId: string, expectedVersion: number, next: TaskRecord): Promise<boolean> {
    if (next.taskId !== taskId) return false;
    const args = [expectedVersion, JSON.stringify(next), next.status, this.#channel];
    return (await UPDATE(this.#redis.command, [this.#key(taskId)], args)) === 1;
  }

  watch(listener: (record: TaskRecord) => void): () => void {
    let stop: (() => void) | undefined;
    let stopped = false;
    this.#redis.subscriber
      .listen(this.#channel, (text) => listener(JSON.parse(text) as TaskRecord))
      .then(
        (unsubscribe) => {
          if (stopped) unsubscribe();
          else stop = unsubscribe;
        },
        () => {
          // Unreachable now: changes from other instances are not seen (tasks/get still reads the store).
        },
      );
    return () => {
      stopped = true;
      stop?.();
    };
  }

  adopt(adopter: TaskAdopter): () => void {
    this.#adopter = adopter;
    return () => {
      if (this.#adopter === adopter) this.#adopter = undefined;
    };
  }

  /** Stops the heartbeat (the instance's tasks count as dead three intervals later); no task is claimed here after. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Keeps this instance alive in Redis while it runs tasks; started by the first task. */
  async #beat(): Promise<void> {
    const key = aliveKey(this.#redis.prefix, this.instance);
    const ttl = this.#heartbeatMs * 3;
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => {
        this.#redis.command.set(key, '1', 'PX', ttl).catch(() => {
          // Unreachable now: the next beat tries again.
        });
      }, this.#heartbeatMs);
      (this.#timer as { unref?: () => void }).unref?.();
    }
    await this.#redis.command.set(key, '1', 'PX', ttl);
  }
}
