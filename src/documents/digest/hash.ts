import { createHash, type Hash } from 'node:crypto';
import type { ContentDigest, PartDigest } from './types.js';
import { DIGEST_RULES } from './types.js';

// Hashing for the digest: full sha256 for what decides, short hex for the per-part summary kept
// for `plan --why` (a diagnostic: a collision there only makes an explanation vaguer).

/** Hex characters of a part's hash in the summary. */
const PART_HASH_HEX = 16;
/** Hex characters of a unit's text and full hashes in the summary. */
const UNIT_HASH_HEX = 8;

function shortHash(h: Hash, hex: number): string {
  return h.digest('hex').slice(0, hex);
}

/** A unit being hashed (a paragraph, a cell): its text alone and everything in it. */
export class UnitHasher {
  private readonly text = createHash('sha256');
  private readonly full = createHash('sha256');
  /** `line`: where the unit starts in a text file (1-based), for a person to find it. */
  constructor(
    readonly label: string,
    readonly line?: number,
  ) {}
  addText(s: string): void {
    this.text.update(s).update('\0');
  }
  add(s: string): void {
    this.full.update(s).update('\0');
  }
  /** "label\ttext full" (and "\tline" when known) as PartDigest.units keeps it. */
  finish(): string {
    const hashes = `${shortHash(this.text, UNIT_HASH_HEX)} ${shortHash(this.full, UNIT_HASH_HEX)}`;
    return `${this.label}\t${hashes}${this.line !== undefined ? `\t${this.line}` : ''}`;
  }
}

/** A part's canonical content, hashed as it is read, with the units open at each point. */
export class PartHasher {
  private readonly hash = createHash('sha256');
  private readonly open: UnitHasher[] = [];
  private readonly units: string[] = [];
  constructor(readonly name: string) {}

  /** Canonical content; `text` when it is translatable text (counted in the units' text hashes). */
  add(s: string, text = false): void {
    this.hash.update(s).update('\0');
    for (const u of this.open) {
      u.add(s);
      if (text) u.addText(s);
    }
  }
  startUnit(label: string, line?: number): void {
    this.open.push(new UnitHasher(label, line));
  }
  endUnit(): void {
    const u = this.open.pop();
    if (u) this.units.push(u.finish());
  }
  get unitCount(): number {
    return this.units.length + this.open.length;
  }
  finish(): HashedPart {
    while (this.open.length) this.endUnit();
    const full = this.hash.digest('hex');
    const summary = { name: this.name, hash: full.slice(0, PART_HASH_HEX) };
    return { full, summary: this.units.length ? { ...summary, units: this.units } : summary };
  }
}

/** A part as hashed: its full hash (what the digest is made of) and its summary (plan --why). */
export interface HashedPart {
  full: string;
  summary: PartDigest;
}

/** A part that is kept by its bytes alone (media, fonts, binary parts). */
export function bytesPart(name: string, content: Buffer): HashedPart {
  const full = createHash('sha256').update(content).digest('hex');
  return { full, summary: { name, hash: full.slice(0, PART_HASH_HEX) } };
}

/**
 * The digest of a document's parts: order-free (sorted by name, as a zip's entry order means
 * nothing), and tied to the rules' version and the format family.
 */
export function digestOf(family: string, parts: HashedPart[]): ContentDigest {
  const sorted = [...parts].sort((a, b) =>
    a.summary.name < b.summary.name ? -1 : a.summary.name > b.summary.name ? 1 : 0,
  );
  const h = createHash('sha256').update(`locsync-digest ${DIGEST_RULES} ${family}\n`);
  for (const p of sorted) h.update(p.summary.name).update('\0').update(p.full).update('\0');
  return { digest: h.digest('hex'), parts: sorted.map((p) => p.summary) };
}
