import fs from 'node:fs';
import path from 'node:path';
import { usesSegments, type Mapping } from '../../manifest/sections/mapping.js';
import type { PlanBuilder } from './builder.js';
import type { PlanContext } from './context.js';
import { digestContents } from './digests.js';
import { matchesRecord } from './file-stamp.js';
import { extOf } from './fingerprint.js';
import { wordingWaitsIn } from './same-listing.js';
import { isSupportedExtension, linkOutsideProblem, sha256File, type ScanProblem } from './list-sources.js';
import { skippedBeforeUpload } from './source-reading.js';
import { unsupportedMessage } from './source-rules.js';
import { planFileTargets } from './units.js';

// Taking stock of one source file by path, not of its mapping's listing: a watch event, a unit
// planned again within a run.

/**
 * Plan one source file by path (watch events, a re-plan): stat, hash unless size, mtime, inode and
 * ctime match its record, and plan every target or only the one rendering to `onlyOutput`. 'gone'
 * when it does not exist.
 */
export async function planPath(
  ctx: PlanContext,
  b: PlanBuilder,
  m: Mapping,
  relPath: string,
  onlyOutput?: string,
): Promise<'gone' | undefined> {
  const abs = path.join(ctx.folders.sourceOf(m), relPath);
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch {
    return 'gone';
  }
  if (!st.isFile()) return undefined;
  const outside = realPathOutside(ctx.folders.sourceOf(m), abs, relPath, m);
  if (outside) {
    b.skipped({ mapping: m.name, file: relPath, reason: outside.reason, message: outside.message });
    return undefined;
  }
  const ext = extOf(relPath);
  if (!isSupportedExtension(ext, usesSegments(m))) {
    b.unsupported({
      mapping: m.name,
      file: relPath,
      reason: 'unsupported',
      message: unsupportedMessage(ext),
    });
    return undefined;
  }
  const known = await ctx.state.files.get(m.name, relPath);
  const prev =
    known && matchesRecord(st, known.size, known.mtime_ms, known.ino, known.ctime_ms) ? known : undefined;
  const isVerified =
    prev !== undefined &&
    !ctx.retranslate.has('all') &&
    !wordingWaitsIn(ctx, m.name) &&
    prev.verified === ctx.settings.signature(m, ext);
  let sha: string;
  if (prev) sha = prev.sha256;
  else {
    try {
      sha = await sha256File(abs);
    } catch (err) {
      b.skipped({
        mapping: m.name,
        file: relPath,
        reason: 'unreadable',
        message: `cannot be read: ${(err as Error).message}`,
      });
      return undefined;
    }
    b.plan.hashed++;
    b.plan.observations.hashed.push({
      mapping: m.name,
      file: relPath,
      size: st.size,
      mtimeMs: st.mtimeMs,
      ino: st.ino,
      ctimeMs: st.ctimeMs,
      sha256: sha,
    });
  }
  b.plan.files++;
  const f = { relPath, absPath: abs, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, ctimeMs: st.ctimeMs };
  if (!isVerified) await digestContents(ctx, b, m, [{ ...f, sha256: sha }]);
  if (!isVerified && skippedBeforeUpload(b, m, f)) return undefined;
  if (
    (await planFileTargets(ctx, b, m, { file: f, sha256: sha, verified: isVerified }, onlyOutput)) &&
    !isVerified
  )
    b.plan.observations.verified.push({
      mapping: m.name,
      sig: ctx.settings.signature(m, ext),
      files: [relPath],
    });
  return undefined;
}

/** A file event's path that resolves (links followed) outside its source folder, as a scan problem. */
function realPathOutside(root: string, abs: string, relPath: string, m: Mapping): ScanProblem | undefined {
  try {
    return linkOutsideProblem(relPath, fs.realpathSync(abs), fs.realpathSync(root), {
      followLinksOutside: m.links_outside_source === 'follow',
    });
  } catch {
    return undefined; // gone meanwhile: the hash below reports it
  }
}
