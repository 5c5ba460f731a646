/** A bounded list keeping the newest `capacity` items (the live panes' history for a page that opens late). */
export class Ring<T> {
  readonly #items: (T | undefined)[];
  #next = 0;
  #count = 0;

  constructor(readonly capacity: number) {
    this.#items = new Array<T | undefined>(capacity);
  }

  push(item: T): void {
    this.#items[this.#next] = item;
    this.#next = (this.#next + 1) % this.capacity;
    if (this.#count < this.capacity) this.#count++;
  }

  /** Oldest first. */
  items(): T[] {
    const out: T[] = [];
    const start = (this.#next - this.#count + this.capacity) % this.capacity;
    for (let i = 0; i < this.#count; i++) out.push(this.#items[(start + i) % this.capacity] as T);
    return out;
  }
}
