/** A restartable one-shot timer: Node's `refresh()` where available, clear-and-set elsewhere. */
export class RestartableTimer {
  #handle: ReturnType<typeof setTimeout> | undefined;
  readonly #ms: number;
  readonly #fire: () => void;

  /** A delay that is not a positive finite number means "never" (no timer is armed). */
  constructor(ms: number, fire: () => void) {
    this.#ms = ms;
    this.#fire = fire;
    if (!(ms > 0 && Number.isFinite(ms))) return;
    this.#handle = setTimeout(fire, Math.min(ms, 0x7fffffff));
    unref(this.#handle);
  }

  /** Starts the delay again from now (the original delay, or `ms` when given and different). */
  restart(ms: number = this.#ms): void {
    const h = this.#handle;
    if (h === undefined) return;
    if (
      ms === this.#ms &&
      typeof h === 'object' &&
      h !== null &&
      'refresh' in h &&
      typeof h.refresh === 'function'
    ) {
      h.refresh();
      return;
    }
    clearTimeout(h);
    this.#handle = setTimeout(this.#fire, Math.max(0, Math.min(ms, 0x7fffffff)));
    unref(this.#handle);
  }

  /** Stops the timer for good. */
  clear(): void {
    if (this.#handle !== undefined) clearTimeout(this.#handle);
    this.#handle = undefined;
  }
}

function unref(handle: unknown): void {
  // A pending request timer alone should not keep a process alive.
  if (
    typeof handle === 'object' &&
    handle !== null &&
    'unref' in handle &&
    typeof handle.unref === 'function'
  ) {
    handle.unref();
  }
}
