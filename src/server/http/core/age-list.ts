/**
 * The links an entry of an `AgeList` carries: its neighbours, on the entry itself so that linking allocates nothing.
 * Entries extend it, so both fields come first in every entry class, set in the same order (one shape per class).
 */
export class AgeLink<T extends AgeLink<T>> {
  /** The entry appended just before this one, or undefined at the oldest end (or when not in a list). */
  older: T | undefined = undefined;
  /** The entry appended just after this one, or undefined at the newest end (or when not in a list). */
  newer: T | undefined = undefined;
}

/**
 * Entries in the order they were appended, oldest first, linked through the entries themselves (no node, no `Map`
 * or `Set` per entry): appending and unlinking are a few writes, and the oldest is at hand for expiry and eviction.
 * An entry is in at most one list at a time; an entry out of every list has both links undefined.
 */
export class AgeList<T extends AgeLink<T>> {
  #oldest: T | undefined = undefined;
  #newest: T | undefined = undefined;

  /** The entry appended first of those still in the list, or undefined when it is empty. */
  get oldest(): T | undefined {
    return this.#oldest;
  }

  /** The entry appended last, or undefined when the list is empty. */
  get newest(): T | undefined {
    return this.#newest;
  }

  /** Whether `entry` is in this list. */
  has(entry: T): boolean {
    return entry.older !== undefined || entry === this.#oldest;
  }

  /** Puts `entry`, which must be in no list (unlink it first), at the newest end. */
  append(entry: T): void {
    const newest = this.#newest;
    entry.older = newest;
    entry.newer = undefined;
    if (newest === undefined) this.#oldest = entry;
    else newest.newer = entry;
    this.#newest = entry;
  }

  /** Takes `entry` out of the list and clears its links; false (and nothing done) when it was not in this list. */
  unlink(entry: T): boolean {
    const { older, newer } = entry;
    if (older === undefined) {
      if (entry !== this.#oldest) return false;
      this.#oldest = newer;
    } else older.newer = newer;
    if (newer === undefined) this.#newest = older;
    else newer.older = older;
    entry.older = undefined;
    entry.newer = undefined;
    return true;
  }

  /** Unlinks every entry, oldest first. */
  clear(): void {
    for (let entry = this.#oldest; entry !== undefined; entry = this.#oldest) this.unlink(entry);
  }
}
