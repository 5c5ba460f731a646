/**
 * A map by id (request ids, stream ids) for tables that usually hold one entry and empty after each use: the requests
 * a session is answering, the POST streams waiting for them. The first entry is kept in fields; a `Map` is made only
 * for more at once. A `Map` that goes from one entry to none is rebuilt by V8 on that delete (its table shrinks:
 * a runtime call and a new table), so such a table cost a `Map` set, a lookup and a rebuilt table per request.
 * Iteration is in insertion order, as a `Map`'s: the field entry, when there is one, is older than every other (it is
 * filled only while the `Map` is empty). Keys compare with `===` (request ids are strings or numbers, never NaN).
 */
export class IdMap<K, V> {
  #key: K | undefined = undefined;
  #value: V | undefined = undefined;
  #held = false;
  #more: Map<K, V> | undefined = undefined;

  /** Number of entries. */
  get size(): number {
    return (this.#held ? 1 : 0) + (this.#more?.size ?? 0);
  }

  /** The value of `key`, if any. */
  get(key: K): V | undefined {
    if (this.#held && this.#key === key) return this.#value;
    return this.#more?.get(key);
  }

  /** True when `key` has an entry. */
  has(key: K): boolean {
    if (this.#held && this.#key === key) return true;
    return this.#more?.has(key) ?? false;
  }

  /** Sets the value of `key` (a new key goes last). */
  set(key: K, value: V): this {
    if (this.#held && this.#key === key) this.#value = value;
    else if (!this.#held && (this.#more === undefined || this.#more.size === 0)) {
      this.#key = key;
      this.#value = value;
      this.#held = true;
    } else {
      this.#more ??= new Map();
      this.#more.set(key, value);
    }
    return this;
  }

  /** Removes the entry of `key`; true when there was one. */
  delete(key: K): boolean {
    if (this.#held && this.#key === key) {
      this.#held = false;
      this.#key = undefined;
      this.#value = undefined;
      return true;
    }
    return this.#more?.delete(key) ?? false;
  }

  /** Removes every entry. */
  clear(): void {
    this.#held = false;
    this.#key = undefined;
    this.#value = undefined;
    this.#more?.clear();
  }

  /** The keys, oldest first, as an array (a copy: the table may change while it is used). */
  keys(): K[] {
    const out: K[] = this.#held ? [this.#key as K] : [];
    if (this.#more !== undefined) for (const key of this.#more.keys()) out.push(key);
    return out;
  }

  /** The values, oldest first, as an array (a copy: the table may change while it is used). */
  values(): V[] {
    const out: V[] = this.#held ? [this.#value as V] : [];
    if (this.#more !== undefined) for (const value of this.#more.values()) out.push(value);
    return out;
  }
}
