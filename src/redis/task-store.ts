import { randomBase64url } from '../framing/base64url.js';
import { ErrorCode, McpkitError } from '../jsonrpc/errors.js';
import { advance, isTerminal, rerunChanges, type TaskRecord } from '../store/task-record.js';
import type { TaskAdopter, TaskStore } from '../store/task-store.js';
import { aliveKey } from './bus.js';
import type { RedisConnection } from './connection.js';
import { script } from './script.js';

/** Options of the Redis task store. */
export interface RedisTaskStoreOptions {
  /** The instance whose handlers run the tasks created here (shared with the cluster's heartbeat). Default: random. */
  instanceId?: string;
  /** Heartbeat interval in ms (an instance silent for three is dead). Default 1000. */
  heartbeatMs?: number;
  /**
   * Most tasks of a dead instance one sweep handles (re-run or failed; a sweep looks at up to 8 instances); a sweep
   * runs every heartbeat interval on each instance whose task manager adopted this store. Default 64.
   */
  sweepBatch?: number;
}

/**
 * The instance a task released by a graceful shutdown names as its runner (`release`): never alive (not base64url),
 * so the task counts as its instance's dead at once.
 */
const RELEASED = '~';

// Lua: keeps an instance's index (a sorted set of task ids scored by their expiry, +inf for none) expiring with its
// last task.
const FIT = `
local function fit(index)
  local top = redis.call('ZRANGE', index, -1, -1, 'WITHSCORES')
  if #top == 0 then return end
  if top[2] == 'inf' then redis.call('PERSIST', index) else redis.call('PEXPIREAT', index, top[2]) end
end
local function terminal(status)
  return status == 'completed' or status == 'failed' or status == 'cancelled'
end
`;

// KEYS: task, runner, the runner's index, the set of instances with an index. ARGV: record, expiry (ms since epoch,
// 0: none), runner, task id, now (ms since epoch). 0 when the id is taken. The task joins its runner's index (whose
// expired entries go).
const CREATE = script(`${FIT}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local at = tonumber(ARGV[2])
if at > 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PXAT', at)
  redis.call('SET', KEYS[2], ARGV[3], 'PXAT', at)
else
  redis.call('SET', KEYS[1], ARGV[1])
  redis.call('SET', KEYS[2], ARGV[3])
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. ARGV[5])
redis.call('ZADD', KEYS[3], at > 0 and ARGV[2] or '+inf', ARGV[4])
fit(KEYS[3])
redis.call('SADD', KEYS[4], ARGV[3])
return 1
`);

// KEYS: task, runner. ARGV: prefix of alive keys, the released runner. The record, and 1 when its runner is dead (2:
// released by a graceful shutdown).
const GET = script(`
local record = redis.call('GET', KEYS[1])
if not record then return false end
local runner = redis.call('GET', KEYS[2])
local dead = 0
if runner == ARGV[2] then dead = 2
elseif runner and redis.call('EXISTS', ARGV[1] .. runner) == 0 then dead = 1 end
return { record, dead }
`);

// KEYS: task, runner. ARGV: expected version, next record, next status, channel, prefix of indexes, task id.
// Compare-and-set; terminal tasks never move. A task that ends leaves its runner's index.
const UPDATE = script(`${FIT}
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local task = cjson.decode(current)
if task.version ~= tonumber(ARGV[1]) then return 0 end
local s = task.status
if s == 'completed' or s == 'failed' or s == 'cancelled' then return 0 end
local n = ARGV[3]
if n ~= 'working' and n ~= 'input_required' and n ~= 'completed' and n ~= 'failed' and n ~= 'cancelled' then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
if terminal(n) then
  local runner = redis.call('GET', KEYS[2])
  if runner then redis.call('ZREM', ARGV[5] .. runner, ARGV[6]) end
end
redis.call('PUBLISH', ARGV[4], ARGV[2])
return 1
`);

// KEYS: task, runner, the set of instances with an index. ARGV: prefix of alive keys, expected version, next record,
// new runner, channel, prefix of indexes, task id, index score. Takes a task whose runner is dead for the new runner
// (moving it to the new runner's index): 1 for the one instance that wins, 0 when it changed or was taken first.
const CLAIM = script(`${FIT}
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
if cjson.decode(current).version ~= tonumber(ARGV[2]) then return 0 end
local runner = redis.call('GET', KEYS[2])
if not runner or redis.call('EXISTS', ARGV[1] .. runner) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[3], 'KEEPTTL')
redis.call('SET', KEYS[2], ARGV[4], 'KEEPTTL')
redis.call('ZREM', ARGV[6] .. runner, ARGV[7])
redis.call('ZADD', ARGV[6] .. ARGV[4], ARGV[8], ARGV[7])
fit(ARGV[6] .. ARGV[4])
redis.call('SADD', KEYS[3], ARGV[4])
redis.call('PUBLISH', ARGV[5], ARGV[3])
return 1
`);

// KEYS: task, runner, the set of instances with an index. ARGV: this instance, prefix of indexes, task id, index
// score, the released runner, the run. Hands a task this instance runs (that run, not ended) to the released runner,
// which is never alive: 1 when released.
const RELEASE = script(`${FIT}
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local task = cjson.decode(current)
if terminal(task.status) or (tonumber(task.run) or 0) ~= tonumber(ARGV[6]) then return 0 end
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[5], 'KEEPTTL')
redis.call('ZREM', ARGV[2] .. ARGV[1], ARGV[3])
redis.call('ZADD', ARGV[2] .. ARGV[5], ARGV[4], ARGV[3])
fit(ARGV[2] .. ARGV[5])
redis.call('SADD', KEYS[3], ARGV[5])
return 1
`);

// KEYS: the set of instances with an index. ARGV: prefix of alive keys, prefix of indexes, prefix of sweep leases,
// this instance, lease ms, batch, now (ms since epoch), prefix of tasks, prefix of runners. Looks at up to 8 instances
// of the set: for each that is dead and whose lease this instance takes (SET NX: one sweeper at a time per dead
// instance), gives the instance and up to batch task ids still running there (a flat list: instance, ids, instance,
// ids...); entries of tasks gone, ended or run elsewhere are dropped, and an instance whose index is empty leaves the
// set.
const SWEEP = script(`${FIT}
local out = {}
for _, instance in ipairs(redis.call('SRANDMEMBER', KEYS[1], 8)) do
  if instance ~= ARGV[4] and redis.call('EXISTS', ARGV[1] .. instance) == 0 then
    local index = ARGV[2] .. instance
    redis.call('ZREMRANGEBYSCORE', index, '-inf', '(' .. ARGV[7])
    if redis.call('ZCARD', index) == 0 then
      redis.call('SREM', KEYS[1], instance)
    elseif redis.call('SET', ARGV[3] .. instance, ARGV[4], 'NX', 'PX', ARGV[5]) then
      local found = {}
      for _, id in ipairs(redis.call('ZRANGE', index, 0, tonumber(ARGV[6]) - 1)) do
        local record = redis.call('GET', ARGV[8] .. id)
        if record and redis.call('GET', ARGV[9] .. id) == instance and not terminal(cjson.decode(record).status) then
          found[#found + 1] = id
        else
          redis.call('ZREM', index, id)
        end
      end
      if #found > 0 then
        out[#out + 1] = instance
        out[#out + 1] = found
      else
        redis.call('DEL', ARGV[3] .. instance)
      end
    end
  end
end
return out
`);

// KEYS: a sweep lease. ARGV: this instance. Gives the lease back if it is still this instance's.
const UNLEASE = script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`);

/**
 * The tasks extension's store on Redis, so `tasks/get`, `tasks/update` and `tasks/cancel` work from any instance:
 * records as JSON strings that expire with the task, a compare-and-set update in one script, changes published to
 * every instance (`watch`). Each task remembers the instance running it; a task whose instance stopped sending
 * heartbeats is, when next read, started again by the reading instance if its tool allows re-runs (`adopt`: the
 * claim is one script, so exactly one instance wins), and marked failed otherwise, instead of staying "working"
 * forever. Nobody has to read it: each instance keeps an index of the tasks it runs (a sorted set by expiry, emptied
 * as they end), and every instance with a task manager sweeps once per heartbeat interval: the first to see an
 * instance dead takes its sweep lease and reads a bounded batch of its tasks, so each is re-run or failed, and the
 * change is published to every instance's `subscriptions/listen` streams like any other. A graceful shutdown
 * `release`s a re-runnable task: it counts as its instance's dead at once.
 */
export class RedisTaskStore implements TaskStore {
  readonly instance: string;
  readonly #redis: RedisConnection;
  readonly #heartbeatMs: number;
  readonly #sweepBatch: number;
  #adopter: TaskAdopter | undefined;
  #closed = false;
  #timer: ReturnType<typeof setInterval> | undefined;
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #sweeping = false;

  constructor(redis: RedisConnection, options: RedisTaskStoreOptions = {}) {
    this.#redis = redis;
    this.instance = options.instanceId ?? randomBase64url(6);
    this.#heartbeatMs = options.heartbeatMs ?? 1000;
    this.#sweepBatch = options.sweepBatch ?? 64;
    if (!Number.isInteger(this.#sweepBatch) || this.#sweepBatch < 1)
      throw new McpkitError('INVALID_DEFINITION', 'sweepBatch must be a positive integer');
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

  /** Prefix of the instances' indexes of the tasks they run. */
  get #indexes(): string {
    return `${this.#redis.prefix}ti:`;
  }

  /** The set of instances that have an index. */
  get #instances(): string {
    return `${this.#redis.prefix}tinst`;
  }

  /** Prefix of the sweep leases (one per dead instance being swept). */
  get #leases(): string {
    return `${this.#redis.prefix}tsw:`;
  }

  async create(record: TaskRecord): Promise<boolean> {
    await this.#beat();
    const keys = [
      this.#key(record.taskId),
      this.#runnerKey(record.taskId),
      this.#indexes + this.instance,
      this.#instances,
    ];
    const created = await CREATE(this.#redis.command, keys, [
      JSON.stringify(record),
      record.expiresAt ?? 0,
      this.instance,
      record.taskId,
      Date.now(),
    ]);
    if (created !== 1) throw new Error(`Task ${record.taskId} already exists`);
    return true;
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const keys = [this.#key(taskId), this.#runnerKey(taskId)];
    const reply = await GET(this.#redis.command, keys, [aliveKey(this.#redis.prefix, ''), RELEASED]);
    if (!Array.isArray(reply)) return undefined;
    const record = JSON.parse(String(reply[0])) as TaskRecord;
    if ((reply[1] !== 1 && reply[1] !== 2) || isTerminal(record.status)) return record;
    const adopter = this.#adopter;
    // Released for an instance that can start it again: one without a task manager, or closing, leaves it to them
    // (the next instance with one sweeps it, a new one of a rolling deploy too).
    if (reply[1] === 2 && (this.#closed || adopter === undefined)) return record;
    // Its instance died: the handler that would finish it is gone.
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
        this.#indexes,
        taskId,
        score(record),
      ];
      if ((await CLAIM(this.#redis.command, [...keys, this.#instances], args)) !== 1) return this.get(taskId);
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
    const args = [expectedVersion, JSON.stringify(next), next.status, this.#channel, this.#indexes, taskId];
    return (await UPDATE(this.#redis.command, [this.#key(taskId), this.#runnerKey(taskId)], args)) === 1;
  }

  /**
   * Gives up this instance's run `run` of a task (a graceful shutdown): the task's runner becomes one that is never
   * alive, so the next sweep or reader on another instance starts it again (or fails it where no instance may). False
   * when the task ended, is gone, or is not this instance's run `run`.
   */
  async release(taskId: string, run: number): Promise<boolean> {
    const record = await this.#redis.command.get(this.#key(taskId));
    if (record === null) return false;
    const keys = [this.#key(taskId), this.#runnerKey(taskId), this.#instances];
    const args = [
      this.instance,
      this.#indexes,
      taskId,
      score(JSON.parse(record) as TaskRecord),
      RELEASED,
      run,
    ];
    return (await RELEASE(this.#redis.command, keys, args)) === 1;
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

  /** Takes the adopter, and sweeps the tasks of dead instances every heartbeat interval while it is here. */
  adopt(adopter: TaskAdopter): () => void {
    this.#adopter = adopter;
    if (this.#sweeper === undefined && !this.#closed) {
      this.#sweeper = setInterval(() => this.#sweepOnce(), this.#heartbeatMs);
      (this.#sweeper as { unref?: () => void }).unref?.();
    }
    return () => {
      if (this.#adopter !== adopter) return;
      this.#adopter = undefined;
      this.#stopSweeping();
    };
  }

  /**
   * Stops the heartbeat (the instance's tasks count as dead three intervals later) and the sweeps; no task is claimed
   * here after.
   */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#stopSweeping();
  }

  #stopSweeping(): void {
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  /** One sweep at a time; its failure (Redis unreachable) goes to the adopter's report, and the next one tries again. */
  #sweepOnce(): void {
    if (this.#sweeping) return;
    this.#sweeping = true;
    this.sweep()
      .catch((e: unknown) => this.#adopter?.report?.(e))
      .finally(() => {
        this.#sweeping = false;
      });
  }

  /**
   * One sweep (run every heartbeat interval while a task manager adopted this store): takes the lease of each dead
   * instance that still has tasks among up to 8 instances of the set, and reads up to `sweepBatch` tasks of each, which
   * re-runs or fails each. Resolves with how many it read.
   */
  async sweep(): Promise<number> {
    if (this.#closed || this.#adopter === undefined) return 0;
    const prefix = this.#redis.prefix;
    const leaseMs = this.#heartbeatMs * 10;
    const reply = await SWEEP(
      this.#redis.command,
      [this.#instances],
      [
        aliveKey(prefix, ''),
        this.#indexes,
        this.#leases,
        this.instance,
        leaseMs,
        this.#sweepBatch,
        Date.now(),
        this.#key(''),
        this.#runnerKey(''),
      ],
    );
    const found = Array.isArray(reply) ? reply : [];
    const sweeps: Promise<number>[] = [];
    for (let i = 0; i + 1 < found.length; i += 2)
      sweeps.push(this.#sweepInstance(String(found[i]), (found[i + 1] as unknown[]).map(String)));
    const settled = await Promise.allSettled(sweeps);
    let read = 0;
    for (const s of settled) {
      if (s.status === 'rejected') throw s.reason;
      read += s.value;
    }
    return read;
  }

  /** Reads the tasks `ids` of the dead instance `dead` (so each is re-run or failed), then gives its lease back. */
  async #sweepInstance(dead: string, ids: string[]): Promise<number> {
    try {
      if (this.#closed || this.#adopter === undefined) return 0;
      const settled = await Promise.allSettled(ids.map((id) => this.get(id)));
      const failed = settled.find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
      return ids.length;
    } finally {
      await UNLEASE(this.#redis.command, [this.#leases + dead], [this.instance]);
    }
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

/** A task's score in its runner's index: its expiry, or +inf. */
function score(record: TaskRecord): number | string {
  return record.expiresAt ?? '+inf';
}
