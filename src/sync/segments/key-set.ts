// The segment keys a plan has counted as sent (quote.ts: a segment is bought once in the whole
// plan), held as their 32 bytes in one typed array rather than as 521,866 strings of 64 hex
// characters: a 50 MB string file's plan keeps them for the whole walk, and strings that live that
// long are copied into the heap's old space with the walk's garbage (issue 44). Exact: a key is
// compared in full. A key that is not a SHA-256 digest in hex (memory-key.ts makes none) is kept
// as a string. Each key holds a number beside it: the plan's request that sends it.

const WORDS = 8; // 32 bytes as 8 32-bit words
const HEX_DIGEST = /^[0-9a-f]{64}$/;

export class SegmentKeySet {
  private words = new Uint32Array(WORDS * 1024);
  private used = new Uint8Array(1024);
  private values = new Uint32Array(1024);
  private count = 0;
  private readonly other = new Map<string, number>();
  private readonly key = new Uint32Array(WORDS);

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** The number added with `key`; undefined: not added. */
  get(key: string): number | undefined {
    if (!this.read(key)) return this.other.get(key);
    const at = this.slot(this.key);
    return this.used[at] === 1 ? this.values[at] : undefined;
  }

  /** Adds `key` with `value` (a key added before keeps its first value). */
  add(key: string, value = 0): void {
    if (!this.read(key)) {
      if (!this.other.has(key)) this.other.set(key, value);
      return;
    }
    const at = this.slot(this.key);
    if (this.used[at]) return;
    this.put(at, this.key, value);
    if (++this.count * 4 > this.used.length * 3) this.grow();
  }

  /** The key's words into `this.key`; false: not a hex digest. */
  private read(key: string): boolean {
    if (key.length !== 64 || !HEX_DIGEST.test(key)) return false;
    for (let w = 0; w < WORDS; w++) this.key[w] = parseInt(key.slice(w * 8, w * 8 + 8), 16);
    return true;
  }

  /** Where `key` is, or the free slot where it goes (open addressing, linear probing). */
  private slot(key: Uint32Array, words = this.words, used = this.used): number {
    const mask = used.length - 1;
    for (let at = (key[0] as number) & mask; ; at = (at + 1) & mask) {
      if (!used[at]) return at;
      let same = true;
      for (let w = 0; w < WORDS && same; w++) same = words[at * WORDS + w] === key[w];
      if (same) return at;
    }
  }

  private put(
    at: number,
    key: Uint32Array,
    value: number,
    words = this.words,
    used = this.used,
    values = this.values,
  ): void {
    words.set(key, at * WORDS);
    used[at] = 1;
    values[at] = value;
  }

  private grow(): void {
    const words = new Uint32Array(this.words.length * 2);
    const used = new Uint8Array(this.used.length * 2);
    const values = new Uint32Array(this.used.length * 2);
    for (let at = 0; at < this.used.length; at++) {
      if (!this.used[at]) continue;
      const key = this.words.subarray(at * WORDS, at * WORDS + WORDS);
      this.put(this.slot(key, words, used), key, this.values[at] as number, words, used, values);
    }
    this.words = words;
    this.used = used;
    this.values = values;
  }
}
