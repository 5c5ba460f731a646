import { McpkitError } from '../jsonrpc/errors.js';
import { canTransition, isTerminal, type TaskRecord } from './task-record.js';

/**
 * Where tasks live. Every method is async so a shared store (Redis, a database) can implement it; the
 * in-memory default is {@link MemoryTaskStore}. There is deliberately no listing: tasks are reached
 * only by their unguessable id.
 *
 * Rules an implementation keeps:
 * - `create` resolves only once a `get` anywhere would find the task (durable creation);
 * - `get` never returns a task past its `expiresAt`;
 * - `update` is a compare-and-set on `version` and refuses invalid status transitions
 *   ({@link canTransition}): a terminal task never changes again;
 * - the store is bounded: when full, `create` may evict expired or finished tasks, or answer false.
 */
export interface TaskStore {
  /** Stores a new task; false when the store is full. Rejects when the id is taken. */
  create(record: TaskRecord): Promise<boolean>;
  /** The task, or undefined when it is unknown or expired. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Replaces the task with `next` if its stored version is still `expectedVersion` and the status
   * transition is valid; false otherwise (then re-read and retry).
   */
  update(taskId: string, expectedVersion: number, next: TaskRecord): Promise<boolean>;
  /**
   * Optional change feed: `listener` sees every successful update, including those made by other
   * server instances (how a `tasks/update` or `tasks/cancel` handled elsewhere reaches the running
   * handler). Returns the unsubscribe function. Without it, only this process's changes are seen.
   */
  watch?(listener: (record: TaskRecord) => void): () => void;
  /**
   * Optional, for a store shared by instances that knows which instance runs each task (and so when that instance
   * died): the task manager gives its {@link TaskAdopter}, and the returned function takes it back. A task found with
   * its instance dead is then, if `adopter.canRerun` allows it, claimed for this instance (atomically: of instances
   * reading it at once exactly one wins; the record advanced by `rerunChanges`) and handed to `adopter.rerun`;
   * otherwise it is failed as before. One adopter per store: a later one replaces it.
   */
  adopt?(adopter: TaskAdopter): () => void;
  /**
   * Optional, with `adopt`: gives up this instance's run `run` of a task because the instance is shutting down
   * gracefully, so that another instance starts it again at once (the task counts as its instance's dead) instead of
   * the task being failed. The task manager calls it only for a task whose tool allows re-runs and which has re-runs
   * left. True when released; false when the task ended, is gone, or is not this instance's run `run` (then it is
   * failed as before).
   */
  release?(taskId: string, run: number): Promise<boolean>;
}

/** What a task manager offers a shared store for the tasks whose instance died (see {@link TaskStore.adopt}). */
export interface TaskAdopter {
  /** Whether this instance can start the task again: re-runs left, and its tool here allowing them. */
  canRerun(record: TaskRecord): boolean;
  /** Starts the claimed task again here from its stored request (`record` as claimed: working, the next run). */
  rerun(record: TaskRecord): void;
  /** Hears a failure no request sees (a background sweep of dead instances' tasks could not reach the store). */
  report?(error: unknown): void;
}

/** Options of {@link MemoryTaskStore}. */
export interface MemoryTaskStoreOptions {
  /** Most tasks kept at once. Default 10 000. */
  maxTasks?: number;
  /** How often expired tasks are swept out, at most, in ms (sweeps run on `create`). Default 60 000. */
  sweepIntervalMs?: number;
  /** The clock, for tests. Default `Date.now`. */
  now?: () => number;
}

/**
 * The default task store: a bounded in-memory map for one process. Expired tasks disappear on read and
 * are swept on creation; when full, the oldest finished task makes room, and with none `create`
 * answers false.
 *
 * @example
 * const server = new McpServer(info, { tasks: { store: new MemoryTaskStore({ maxTasks: 1000 }) } });
 */
export class MemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, TaskRecord>();
  readonly #listeners = new Set<(record: TaskRecord) => void>();
  readonly #max: number;
  readonly #sweepEvery: number;
  readonly #now: () => number;
  #nextSweep = 0;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#max = options.maxTasks ?? 10_000;
    this.#sweepEvery = options.sweepIntervalMs ?? 60_000;
    this.#now = options.now ?? Date.now;
    if (!Number.isInteger(this.#max) || this.#max < 1)
      throw new McpkitError('INVALID_DEFINITION', 'maxTasks must be a positive integer');
  }

  /** Number of tasks held (expired ones included until swept). */
  get size(): number {
    return this.#tasks.size;
  }

  async create(record: TaskRecord): Promise<boolean> {
    if (this.#tasks.has(record.taskId)) throw new Error(`Task ${record.taskId} already exists`);
    const now = this.#now();
    if (now >= this.#nextSweep || this.#tasks.size >= this.#max) this.#sweep(now);
    if (this.#tasks.size >= this.#max && !this.#evictFinished()) return false;
    this.#tasks.set(record.taskId, Object.freeze({ ...record }));
    return true;
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    return this.#live(taskId);
  }

  async update(taskId: string, expectedVersion: number, next: TaskRecord): Promise<boolean> {
    const current = this.#live(taskId);
    if (!current || current.version !== expectedVersion || next.taskId !== taskId) return false;
    if (!canTransition(current.status, next.status)) return false;
    const stored = Object.freeze({ ...next });
    // Map.set keeps the key's place, so eviction still takes the oldest task first.
    this.#tasks.set(taskId, stored);
    for (const listener of this.#listeners) listener(stored);
    return true;
  }

  watch(listener: (record: TaskRecord) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #live(taskId: string): TaskRecord | undefined {
    const record = this.#tasks.get(taskId);
    if (record !== undefined && record.expiresAt !== null && record.expiresAt <= this.#now()) {
      this.#tasks.delete(taskId);
      return undefined;
    }
    return record;
  }

  #sweep(now: number): void {
    this.#nextSweep = now + this.#sweepEvery;
    for (const [id, record] of this.#tasks) {
      if (record.expiresAt !== null && record.expiresAt <= now) this.#tasks.delete(id);
    }
  }

  #evictFinished(): boolean {
    for (const [id, record] of this.#tasks) {
      if (isTerminal(record.status)) {
        this.#tasks.delete(id);
        return true;
      }
    }
    return false;
  }
}
