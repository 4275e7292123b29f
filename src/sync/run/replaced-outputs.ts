import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { outputFile } from '../../manifest/in-place-output.js';

// What `locsync review --since <run>` compares: for every output a run put a new translation to,
// the run keeps the output as it was before (the previous translation) and the source it translated,
// in `<state folder>/review/run-<id>/`. Only the newest KEPT_RUNS runs that delivered something are
// kept (older folders are removed when a run starts keeping): bounded, whatever the pipeline's size.
// Kept on the machine that delivered (with a PostgreSQL state each worker keeps its own).

/** Runs whose replaced outputs are kept (the newest ones). */
export const KEPT_RUNS = 5;

/** One delivery of a run, as index.jsonl of the run's folder records it. */
export interface KeptDelivery {
  /** The output, relative to the manifest folder ('/' separators). */
  output: string;
  /** The target language. */
  target: string;
  /** The source, relative to the manifest folder; null: not known. */
  source_path: string | null;
  /** Where the new translation was put (the output, or beside it when a person had edited it). */
  placed: string;
  /** File in the run's folder holding the output as it was before the delivery; null: there was none. */
  previous: string | null;
  /** File in the run's folder holding the source this run translated; null: not kept (a first translation). */
  source: string | null;
  /** The source's format (lower-case extension). */
  source_format: string;
}

/** Where a pipeline's runs keep what they replaced. */
export const keptDirOf = (statePath: string): string => path.join(path.dirname(statePath), 'review');

const runDir = (keptDir: string, runId: number) => path.join(keptDir, `run-${runId}`);
const INDEX = 'index.jsonl';

/** The run ids with a folder, newest first. */
export function keptRuns(keptDir: string): number[] {
  let names: string[];
  try {
    names = fs.readdirSync(keptDir);
  } catch {
    return [];
  }
  return names
    .map((n) => /^run-(\d+)$/.exec(n)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => b - a);
}

/** The deliveries run `runId` kept (empty when it kept none or was pruned). */
export function keptDeliveries(keptDir: string, runId: number): Array<KeptDelivery & { dir: string }> {
  const dir = runDir(keptDir, runId);
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, INDEX), 'utf8');
  } catch {
    return [];
  }
  const out: Array<KeptDelivery & { dir: string }> = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push({ ...(JSON.parse(line) as KeptDelivery), dir });
    } catch {
      // A line cut by a crash: that delivery is not shown, the others are.
    }
  }
  return out;
}

/** Keep the newest `KEPT_RUNS` run folders (the one of `runId` included). */
function prune(keptDir: string, runId: number): void {
  for (const id of keptRuns(keptDir)
    .filter((id) => id !== runId)
    .slice(KEPT_RUNS - 1))
    fs.rmSync(runDir(keptDir, id), { recursive: true, force: true });
}

/** What a delivery needs to keep what it replaces. */
export interface KeepReplaced {
  /** keptDirOf(the state). */
  dir: string;
  runId: number;
  /** The output relative to the manifest folder. */
  outputRel: string;
  target: string;
  /** The manifest folder (`placed` is recorded relative to it). */
  base: string;
  /** The source translated (absolute); undefined: unknown. */
  sourceAbs: string | undefined;
}

/**
 * Keep the output as it is before a delivery puts `placedAbs` (called right before the rename). Never
 * fails the delivery: keeping is for the review page, and a full disk shows there as a missing run.
 */
export async function keepReplaced(
  k: KeepReplaced,
  outputAbs: string,
  placedAbs: string,
  beside: boolean,
): Promise<void> {
  try {
    const dir = runDir(k.dir, k.runId);
    const fresh = !fs.existsSync(dir);
    fs.mkdirSync(dir, { recursive: true });
    if (fresh) prune(k.dir, k.runId);
    const name = createHash('sha256').update(k.outputRel).digest('hex').slice(0, 20);
    const outExt = path.extname(outputFile(k.outputRel)).toLowerCase();
    const srcExt = k.sourceAbs ? path.extname(k.sourceAbs).toLowerCase() : '';
    let previous: string | null = null;
    // Beside an edit, the output is not replaced: the person's version is read where it is.
    if (!beside && fs.existsSync(outputAbs)) {
      previous = `${name}.previous${outExt}`;
      await fsp.copyFile(outputAbs, path.join(dir, previous));
    }
    let source: string | null = null;
    // A first translation (no output before) keeps nothing: the review reads the files as they are,
    // and a first sync of a large tree does not copy every source.
    if (fs.existsSync(outputAbs) && k.sourceAbs && fs.existsSync(k.sourceAbs)) {
      source = `${name}.source${srcExt}`;
      await fsp.copyFile(k.sourceAbs, path.join(dir, source));
    }
    const rel = (abs: string) => path.relative(k.base, abs).split(path.sep).join('/');
    const entry: KeptDelivery = {
      output: k.outputRel,
      target: k.target,
      source_path: k.sourceAbs ? rel(k.sourceAbs) : null,
      placed: rel(placedAbs),
      previous,
      source,
      source_format: srcExt.slice(1),
    };
    await fsp.appendFile(path.join(dir, INDEX), `${JSON.stringify(entry)}\n`);
  } catch {
    // See above: the delivery goes on.
  }
}

/**
 * What a delivery of run `runId` keeps. `stateFolder`: the folder of the state (its spool and
 * quarantine are there too); `base`: the manifest folder.
 */
export function keepFor(
  where: { base: string; stateFolder: string },
  runId: number,
  delivery: { outputRel: string; target: string; sourceAbs: string | undefined },
): KeepReplaced {
  return { dir: path.join(where.stateFolder, 'review'), runId, base: where.base, ...delivery };
}
