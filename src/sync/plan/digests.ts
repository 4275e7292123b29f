import fs from 'node:fs';
import { contentDigest, hasContentDigest, type ContentDigest } from '../../documents/digest/index.js';
import type { Mapping } from '../../manifest/sections/mapping.js';
import type { StoredDigest } from '../../state/types.js';
import type { PlanBuilder } from './builder.js';
import type { PlanContext } from './context.js';
import { extOf } from './fingerprint.js';
import { mapLimit } from '../../util/map-limit.js';

// Content digests while planning (src/documents/digest): made for the contents a scan reads anyway
// (new or changed bytes) and, once, for recorded contents that have none (a state from before
// digests), so that a document saved again without an edit is recognised and not bought again.
// Nothing is read for a file the no-op paths vouch for.

/** Digests made at once (each reads and parses a whole document). */
const DIGEST_CONCURRENCY = 4;

export interface DigestCandidate {
  relPath: string;
  absPath: string;
  size: number;
  mtimeMs: number;
  sha256: string;
}

/** Make the digests these contents lack (change_detection: bytes makes none). */
export async function digestContents(
  ctx: PlanContext,
  b: PlanBuilder,
  m: Mapping,
  files: readonly DigestCandidate[],
): Promise<void> {
  if (m.change_detection === 'bytes') return;
  const wanted = files.filter((f) => hasContentDigest(extOf(f.relPath)) && !b.digests.has(f.sha256));
  if (wanted.length === 0) return;
  const known = await ctx.state.digests.known([...new Set(wanted.map((f) => f.sha256))]);
  const todo = new Map<string, DigestCandidate>();
  for (const f of wanted) if (!known.has(f.sha256) && !todo.has(f.sha256)) todo.set(f.sha256, f);
  await mapLimit([...todo.values()], DIGEST_CONCURRENCY, async (f) => {
    const d = await contentDigest(f.absPath, extOf(f.relPath));
    // Written meanwhile: the digest may be of other bytes than `sha256`; the next scan makes it.
    if (!unchangedSince(f)) return;
    b.digested(storedDigestOf(f.sha256, d));
  });
}

/** A content's digest as the state keeps it ('' and no parts when its bytes decide). */
export function storedDigestOf(sha256: string, d: ContentDigest | undefined): StoredDigest {
  return { sha256, digest: d?.digest ?? '', parts: JSON.stringify(d?.parts ?? []) };
}

function unchangedSince(f: DigestCandidate): boolean {
  try {
    const st = fs.statSync(f.absPath);
    return st.size === f.size && st.mtimeMs === f.mtimeMs;
  } catch {
    return false;
  }
}

/** The digest of a content: made by this plan, or recorded. */
export async function digestOfContent(
  ctx: PlanContext,
  b: PlanBuilder,
  sha256: string,
): Promise<StoredDigest | undefined> {
  return b.digests.get(sha256) ?? (await ctx.state.digests.get(sha256));
}

/**
 * Whether content `now` is the content `then` was (their digests are equal): a file saved again
 * without an edit. False when either has no digest, or with change_detection: bytes.
 */
export async function sameContent(
  ctx: PlanContext,
  b: PlanBuilder,
  m: Mapping,
  then: string,
  now: string,
): Promise<boolean> {
  if (m.change_detection === 'bytes' || then === now) return false;
  const [a, c] = [await digestOfContent(ctx, b, then), await digestOfContent(ctx, b, now)];
  return a !== undefined && c !== undefined && a.digest !== '' && a.digest === c.digest;
}
