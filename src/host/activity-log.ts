import { appendFile, rename, stat } from 'node:fs/promises';
import type { CallToolResult, ContentBlock } from '../spec/types.js';
import { redact, redactText } from './redact.js';

/** What an activity log entry is about (`tool-change`: a tool's definition is no longer the one pinned). */
export type ActivityKind =
  | 'tool'
  | 'approval'
  | 'sampling'
  | 'elicitation'
  | 'resource'
  | 'prompt'
  | 'model'
  | 'server'
  | 'tool-change'
  | 'sandbox';

/** One line of the activity log. */
export interface ActivityEntry {
  /** Increasing within one log. */
  id: number;
  /** ISO 8601. */
  time: string;
  kind: ActivityKind;
  server?: string;
  /** The tool, prompt or resource (qualified name or URI), or the state for `server` entries. */
  name?: string;
  /** The arguments, with secret-looking values redacted. */
  arguments?: unknown;
  /**
   * `ok`, `error`, `denied`, `allowed`, a server state, …; for `tool-change`: `changed` (the person will be asked),
   * `refused`, `accepted` (pinned again by the config) or `approved` (the person approved the new definition).
   */
  outcome: string;
  /** How the call was approved (`policy`, `session`, `once`, `for-session`) or refused. */
  approval?: string;
  durationMs?: number;
  /** A short summary of the result or the reason. */
  summary?: string;
  /** `tool-change` entries: a line diff of the pinned definition and the new one (several lines). */
  diff?: string;
}

/** What a caller records (id and time are added). */
export type ActivityRecord = Omit<ActivityEntry, 'id' | 'time'>;

/** Options of {@link ActivityLog}. */
export interface ActivityLogOptions {
  /** Entries kept in memory. Default 1000. */
  capacity?: number;
  /** An append-only JSONL file, rotated by size (`file.1` is the newest old one). */
  file?: { path: string; maxBytes?: number; keep?: number };
  /** Told when writing the file fails (the in-memory log goes on). */
  onerror?: (error: Error) => void;
}

const SUMMARY_LENGTH = 200;

/**
 * The host's activity log: every tool call, approval, sampling round, elicitation, resource read and prompt, in a
 * bounded in-memory ring, to listeners as they happen, and to a JSONL file that rotates by size (written in the
 * background, in order, one write per batch).
 */
export class ActivityLog {
  readonly #capacity: number;
  readonly #ring: (ActivityEntry | undefined)[];
  #next = 0;
  #count = 0;
  #id = 0;
  readonly #listeners = new Set<(entry: ActivityEntry) => void>();
  readonly #file: { path: string; maxBytes: number; keep: number } | undefined;
  readonly #onerror: ((error: Error) => void) | undefined;
  #pending: string[] = [];
  #writing: Promise<void> = Promise.resolve();
  #scheduled = false;
  #size: number | undefined;

  constructor(options: ActivityLogOptions = {}) {
    this.#capacity = Math.max(1, Math.floor(options.capacity ?? 1000));
    this.#ring = new Array(this.#capacity);
    const f = options.file;
    this.#file = f && {
      path: f.path,
      maxBytes: f.maxBytes ?? 10 * 1024 * 1024,
      keep: Math.max(1, f.keep ?? 3),
    };
    this.#onerror = options.onerror;
  }

  /** Adds an entry (its `arguments` redacted here); returns it. */
  record(record: ActivityRecord): ActivityEntry {
    const entry: ActivityEntry = { id: ++this.#id, time: new Date().toISOString(), ...record };
    if (record.arguments !== undefined) entry.arguments = redact(record.arguments);
    if (record.summary !== undefined) entry.summary = redactText(record.summary);
    if (record.diff !== undefined) entry.diff = redactText(record.diff);
    this.#ring[this.#next] = entry;
    this.#next = (this.#next + 1) % this.#capacity;
    if (this.#count < this.#capacity) this.#count++;
    for (const listener of this.#listeners) {
      try {
        listener(entry);
      } catch (e) {
        this.#onerror?.(e instanceof Error ? e : new Error(String(e)));
      }
    }
    if (this.#file) this.#queue(`${JSON.stringify(entry)}\n`);
    return entry;
  }

  /** The entries in memory, oldest first. */
  entries(): ActivityEntry[] {
    const out: ActivityEntry[] = [];
    const start = (this.#next - this.#count + this.#capacity) % this.#capacity;
    for (let i = 0; i < this.#count; i++) out.push(this.#ring[(start + i) % this.#capacity] as ActivityEntry);
    return out;
  }

  /** Calls `listener` with each new entry; returns the function that stops it. */
  subscribe(listener: (entry: ActivityEntry) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Resolves once everything recorded so far is in the file. */
  async flush(): Promise<void> {
    if (this.#pending.length > 0) this.#drain();
    await this.#writing;
  }

  #queue(line: string): void {
    this.#pending.push(line);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.#drain());
  }

  #drain(): void {
    this.#scheduled = false;
    const batch = this.#pending.join('');
    this.#pending = [];
    if (batch === '') return;
    this.#writing = this.#writing.then(() => this.#write(batch));
  }

  async #write(batch: string): Promise<void> {
    const file = this.#file;
    if (!file) return;
    try {
      if (this.#size === undefined)
        this.#size = await stat(file.path).then(
          (s) => s.size,
          () => 0,
        );
      const bytes = Buffer.byteLength(batch);
      if (this.#size > 0 && this.#size + bytes > file.maxBytes) await this.#rotate(file);
      await appendFile(file.path, batch);
      this.#size += bytes;
    } catch (e) {
      this.#onerror?.(e instanceof Error ? e : new Error(String(e)));
    }
  }

  async #rotate(file: { path: string; keep: number }): Promise<void> {
    for (let i = file.keep - 1; i >= 1; i--)
      await rename(`${file.path}.${i}`, `${file.path}.${i + 1}`).catch((e: unknown) => ignoreMissing(e));
    await rename(file.path, `${file.path}.1`);
    this.#size = 0;
  }
}

function ignoreMissing(e: unknown): void {
  if ((e as { code?: unknown }).code !== 'ENOENT') throw e;
}

/** A short, one-line summary of a tool result for the log. */
export function summarizeResult(result: CallToolResult): string {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    parts.push(summarizeBlock(block));
    if (parts.join(' ').length > SUMMARY_LENGTH) break;
  }
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  return shorten(parts.join(' '));
}

function summarizeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'resource_link':
      return `[link ${block.uri}]`;
    case 'resource':
      return `[resource ${block.resource.uri}]`;
    default:
      return `[${block.type}]`;
  }
}

/** `text` on one line, at most 200 characters. */
export function shorten(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > SUMMARY_LENGTH ? `${line.slice(0, SUMMARY_LENGTH - 1)}…` : line;
}
