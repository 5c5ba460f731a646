// A closed-loop load driver that knows nothing about transports: it keeps N calls in flight against any
// CallTarget (the stdio load generator today; an HTTP one later), records each call's latency with
// process.hrtime.bigint(), and bounds every phase in both time and count.

/** What a load generator offers the driver: send one prepared call by id, and report every reply. */
export interface CallTarget {
  /** Sends the prepared call with JSON-RPC id `id`. */
  send(id: number): void;
  /** Set by the driver: called once per successful reply, with its id. */
  onreply: (id: number) => void;
  /** Set by the driver: called on any failure (error reply, wrong echo, the server died). */
  onfail: (error: Error) => void;
}

/** One phase's bounds: it stops issuing calls at `ms` or after `maxCalls`, whichever comes first. */
export interface PhaseBounds {
  ms: number;
  maxCalls: number;
}

/** Options of {@link drive}. */
export interface DriveOptions {
  /** Calls kept in flight (1 = sequential). */
  inFlight: number;
  /** Untimed phase that lets the JIT and the caches warm up. */
  warmup: PhaseBounds;
  /** Timed phase. */
  measure: PhaseBounds;
  /** A phase fails when no reply arrives for this long. */
  stallMs: number;
  /** Called between the phases, with nothing in flight (e.g. to read the server's CPU time). */
  beforeMeasure?: () => void;
  /** Called after the timed phase, with nothing in flight. */
  afterMeasure?: () => void;
  /** First id to use (ids below it are the caller's, e.g. 0 for initialize). Default 1. */
  firstId?: number;
  /**
   * When a call's successor is issued: `'reply'` (default) inside the reply's own handler, so a chunk of replies
   * turns into requests written back to back as it is read; `'continuation'` from a queued microtask per reply, as a
   * host whose clients each `await` their own call does (the generator reads the whole chunk first, then each client
   * resumes and writes its next request separately); `'turn'` one client per turn of the event loop, each after
   * the loop has polled for I/O again (clients whose continuations are tasks of their own, as a host running
   * several tool calls concurrently has): every request is its own write, with the loop's work between two.
   */
  next?: 'reply' | 'continuation' | 'turn';
}

/** What the timed phase measured. */
export interface DriveResult {
  /** Completed calls. */
  calls: number;
  /** From the first call sent to the last reply received, in nanoseconds. */
  elapsedNs: number;
  /** Latency of every completed call, in nanoseconds, in completion order. */
  latenciesNs: Float64Array;
}

/** Runs a warm-up phase, then a timed phase, keeping `inFlight` calls outstanding. */
export async function drive(target: CallTarget, options: DriveOptions): Promise<DriveResult> {
  const ids = { next: options.firstId ?? 1 };
  const next = options.next ?? 'reply';
  await phase(target, options.inFlight, options.warmup, options.stallMs, ids, undefined, next);
  options.beforeMeasure?.();
  const latencies = new Float64Array(options.measure.maxCalls);
  const { calls, elapsedNs } = await phase(
    target,
    options.inFlight,
    options.measure,
    options.stallMs,
    ids,
    latencies,
    next,
  );
  options.afterMeasure?.();
  return { calls, elapsedNs, latenciesNs: latencies.subarray(0, calls) };
}

function phase(
  target: CallTarget,
  inFlight: number,
  bounds: PhaseBounds,
  stallMs: number,
  ids: { next: number },
  latencies: Float64Array | undefined,
  next: 'reply' | 'continuation' | 'turn',
): Promise<{ calls: number; elapsedNs: number }> {
  return new Promise((resolve, reject) => {
    const sent = new Map<number, bigint>();
    const start = process.hrtime.bigint();
    const deadline = start + BigInt(Math.round(bounds.ms * 1e6));
    let issued = 0;
    let done = 0;
    let stopping = false;
    let settled = false;
    let last = start;
    let doneAtLastCheck = -1;

    const finish = (error?: Error): void => {
      if (settled) return;
      settled = true;
      clearInterval(watchdog);
      target.onreply = () => {};
      target.onfail = () => {};
      if (error) reject(error);
      else resolve({ calls: done, elapsedNs: Number(last - start) });
    };
    // A phase whose server stops answering fails instead of hanging the run.
    const watchdog = setInterval(() => {
      if (done === doneAtLastCheck) finish(new Error(`no reply for ${stallMs} ms (${sent.size} in flight)`));
      doneAtLastCheck = done;
    }, stallMs);

    const issue = (): void => {
      const id = ids.next++;
      issued++;
      sent.set(id, process.hrtime.bigint());
      target.send(id);
    };
    // One client's `await` resuming: it sends its next call unless the phase ended meanwhile.
    const continueClient = (): void => {
      if (!stopping && !settled && issued < bounds.maxCalls) issue();
    };
    // 'turn': clients whose replies have arrived resume one per turn of the event loop, in arrival order.
    let ready = 0;
    const resumeOne = (): void => {
      ready--;
      continueClient();
      if (ready > 0) setImmediate(resumeOne);
    };
    target.onfail = (error) => finish(error);
    target.onreply = (id) => {
      const t0 = sent.get(id);
      if (t0 === undefined) {
        finish(new Error(`reply for unknown id ${id}`));
        return;
      }
      sent.delete(id);
      const now = process.hrtime.bigint();
      if (latencies !== undefined && done < latencies.length) latencies[done] = Number(now - t0);
      done++;
      last = now;
      if (!stopping && (now >= deadline || issued >= bounds.maxCalls)) stopping = true;
      if (stopping) {
        if (sent.size === 0) finish();
      } else if (next === 'reply') issue();
      else if (next === 'continuation') queueMicrotask(continueClient);
      else if (ready++ === 0) setImmediate(resumeOne);
    };
    const initial = Math.max(1, Math.min(inFlight, bounds.maxCalls));
    for (let i = 0; i < initial; i++) issue();
  });
}
