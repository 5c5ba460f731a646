/**
 * The JSONL file sink of audit records (Node only, exported by `mcpkit/node`): one JSON object a line, appended in
 * order in the background (one write per batch), the file rotated by size (`audit.jsonl.1` the newest old one).
 */
import { appendFile, rename, stat } from 'node:fs/promises';
import type { AuditRecord, AuditSink } from './audit.js';
import { positiveInteger } from './rate.js';

/** Options of {@link jsonlAuditSink}. */
export interface JsonlAuditOptions {
  /** The file (created when missing). */
  readonly path: string;
  /** Size at which the file is rotated, in bytes. Default 10 MiB. */
  readonly maxBytes?: number;
  /** Old files kept (`path.1` … `path.N`). Default 3. */
  readonly keep?: number;
  /** Told when writing fails (records go on being taken). Default: stderr. */
  readonly onerror?: (error: Error) => void;
}

/** A sink that also says when everything taken so far is in the file. */
export interface JsonlAuditSink extends AuditSink {
  /** Resolves once every record taken so far is written. */
  flush(): Promise<void>;
}

/**
 * A JSONL audit file, rotated by size.
 *
 * @example
 * import { jsonlAuditSink } from 'mcpkit/node';
 * const server = new McpServer(info, { audit: { sink: jsonlAuditSink({ path: 'audit.jsonl' }) } });
 */
export function jsonlAuditSink(options: JsonlAuditOptions): JsonlAuditSink {
  if (typeof options?.path !== 'string' || options.path === '')
    throw new TypeError('jsonlAuditSink needs a path');
  const path = options.path;
  const maxBytes =
    options.maxBytes === undefined
      ? 10 * 1024 * 1024
      : positiveInteger(options.maxBytes, 'jsonlAuditSink maxBytes');
  const keep = options.keep === undefined ? 3 : positiveInteger(options.keep, 'jsonlAuditSink keep');
  const onerror = options.onerror ?? ((e: Error) => console.error(`mcpkit audit: ${e.message}`));
  let pending: string[] = [];
  let scheduled = false;
  let writing: Promise<void> = Promise.resolve();
  let size: number | undefined;

  const rotate = async () => {
    for (let i = keep - 1; i >= 1; i--) await rename(`${path}.${i}`, `${path}.${i + 1}`).catch(ignoreMissing);
    await rename(path, `${path}.1`).catch(ignoreMissing);
    size = 0;
  };
  const write = async (batch: string) => {
    try {
      size ??= await stat(path).then(
        (s) => s.size,
        () => 0,
      );
      const bytes = Buffer.byteLength(batch);
      if (size > 0 && size + bytes > maxBytes) await rotate();
      await appendFile(path, batch);
      size += bytes;
    } catch (e) {
      onerror(e instanceof Error ? e : new Error(String(e)));
    }
  };
  const drain = () => {
    scheduled = false;
    const batch = pending.join('');
    pending = [];
    if (batch !== '') writing = writing.then(() => write(batch));
  };
  const sink = ((record: AuditRecord) => {
    pending.push(`${JSON.stringify(record)}\n`);
    if (scheduled) return;
    scheduled = true;
    setImmediate(drain);
  }) as JsonlAuditSink;
  sink.flush = async () => {
    if (pending.length > 0) drain();
    await writing;
  };
  return sink;
}

function ignoreMissing(e: unknown): void {
  if ((e as { code?: unknown }).code !== 'ENOENT') throw e;
}
