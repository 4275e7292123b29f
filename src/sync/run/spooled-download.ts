import fsp from 'node:fs/promises';
import type { JobRecord, SharedWork } from '../../state/types.js';
import { spooledPath } from '../../util/spool.js';
import { sha256File } from '../plan/list-sources.js';
import { besidePath } from './edited-output.js';

// A translation received in full waits in the spool (../../util/spool.ts) until its output is
// written and recorded. A job resumed after its worker stopped (killed during the output checks, a
// disk full) finds it here: delivered from the spool, never asked of the service again (it hands a
// document out once). With several workers on PostgreSQL the spool is a local folder: workers of one
// machine share it, a worker on another machine cannot reach it. What that worker does is decided
// here: leave the job to the live worker whose spool holds it, or, when that worker is gone and the
// file cannot be reached, give the download up as lost (the document is uploaded again, reported).

/** A spooled translation this worker can read: where, and the sha256 and size of its bytes. */
export interface SpoolFile {
  path: string;
  sha256: string;
  size: number;
}

export type SpoolFinding =
  /** Nothing was spooled: the document is still at the service (or gone from it). */
  | { kind: 'none' }
  /** In a spool this worker reads, with the bytes recorded (or, unrecorded, whole: see below). */
  | ({ kind: 'here' } & SpoolFile)
  /** In the spool of a live worker this one cannot reach: left to that worker. */
  | { kind: 'held'; holder: string }
  /** Recorded as spooled, not reachable here, its worker gone: a lost download (`damaged`: a file here that differs). */
  | { kind: 'lost'; reason: string; damaged?: string };

type SpooledJob = Pick<JobRecord, 'document_id' | 'spool_path' | 'spool_sha256' | 'spool_holder'>;

/**
 * What became of a job's download: the recorded spool file, or one in this worker's spool under
 * the document id (a worker killed between the rename into the spool, which makes it whole, and its
 * record). A file whose bytes differ from the record is not delivered.
 */
export async function findSpooled(
  job: SpooledJob,
  spoolDir: string,
  shared: Pick<SharedWork, 'workerId' | 'workerAlive'> | undefined,
): Promise<SpoolFinding> {
  const candidates = new Set<string>();
  if (job.spool_path) candidates.add(job.spool_path);
  if (job.document_id) candidates.add(spooledPath(spoolDir, job.document_id));
  let differs: string | undefined;
  for (const p of candidates) {
    const file = await readSpooled(p);
    if (!file) continue;
    if (job.spool_sha256 === null || file.sha256 === job.spool_sha256) return { kind: 'here', ...file };
    differs = p;
  }
  if (!job.spool_path) return { kind: 'none' };
  const holder = job.spool_holder;
  if (holder && shared && holder !== shared.workerId && (await shared.workerAlive(holder)))
    return { kind: 'held', holder };
  const where = holder
    ? `the spool of worker ${holder} (${job.spool_path})`
    : `the spool (${job.spool_path})`;
  return {
    kind: 'lost',
    ...(differs ? { damaged: differs } : {}),
    reason: differs
      ? `the translation downloaded into ${where} is not whole any more (${differs} differs from what was received)`
      : `the translation downloaded into ${where} cannot be reached from here${holder ? ' and that worker is gone' : ''}`,
  };
}

async function readSpooled(p: string): Promise<SpoolFile | undefined> {
  try {
    const st = await fsp.stat(p);
    if (!st.isFile()) return undefined;
    return { path: p, size: st.size, sha256: await sha256File(p) };
  } catch {
    return undefined;
  }
}

/**
 * Where an earlier worker already put this spooled translation (at the output, or beside a person's
 * edit) when it stopped before recording it: those very bytes are there. Undefined: not written.
 */
export async function alreadyWritten(
  spool: SpoolFile,
  outputAbs: string,
): Promise<{ placed: string; beside: boolean } | undefined> {
  for (const [placed, beside] of [
    [outputAbs, false],
    [besidePath(outputAbs), true],
  ] as const) {
    const st = await fsp.stat(placed).catch(() => undefined);
    if (st?.isFile() && st.size === spool.size && (await sha256File(placed)) === spool.sha256)
      return { placed, beside };
  }
  return undefined;
}
