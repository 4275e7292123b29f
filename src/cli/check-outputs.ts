import fs from 'node:fs/promises';
import path from 'node:path';
import type { LoadedManifest } from '../manifest/types.js';
import type { JobLedger } from '../state/types.js';
import { extOf, outputExtFor } from '../sync/plan/fingerprint.js';
import { listSourceFiles } from '../sync/plan/list-sources.js';
import { outputPattern } from '../sync/plan/settings.js';
import { renderOutputPath } from '../manifest/paths.js';
import { outputFile } from '../manifest/in-place-output.js';

// Which outputs `locsync check` checks and what each translates (docs/qa.md): every output the
// state records as delivered, or the files given, each found through the state (its last done
// job), else through the mappings (the source whose output path it is), else --source.

export interface DeliveredOutput {
  /** Absolute path of the output. */
  outputAbs: string;
  /** Relative to the manifest folder ('/' separators). */
  outputRel: string;
  /** The source it translates (absolute); undefined: unknown. */
  sourceAbs: string | undefined;
  /** Its mapping (undefined: a file from elsewhere given with --source). */
  mapping: string | undefined;
  relPath: string;
  targetLang: string | undefined;
  /** The done job that delivered it (0: none recorded). */
  jobId: number;
}

const toPosix = (p: string) => p.split(path.sep).join('/');

/** Every output the state records as delivered (the latest done job of each), that is still there. */
export async function deliveredOutputs(
  loaded: LoadedManifest,
  ledger: JobLedger,
): Promise<DeliveredOutput[]> {
  const latest = new Map<string, number>();
  for await (const row of ledger.doneIndex()) latest.set(row.output_path, row.id);
  const out: DeliveredOutput[] = [];
  for (const [outputRel, id] of [...latest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const outputAbs = path.resolve(loaded.dir, outputFile(outputRel));
    if (!(await exists(outputAbs))) continue;
    const job = await ledger.get(id);
    if (job) out.push(fromJob(loaded, outputAbs, job));
  }
  return out;
}

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
}

function fromJob(
  loaded: LoadedManifest,
  outputAbs: string,
  job: { id: number; mapping: string; rel_path: string; target_lang: string; output_path: string },
): DeliveredOutput {
  const mapping = loaded.manifest.mappings.find((m) => m.name === job.mapping);
  return {
    outputAbs,
    outputRel: job.output_path,
    sourceAbs: mapping ? path.resolve(loaded.dir, mapping.source, job.rel_path) : undefined,
    mapping: job.mapping,
    relPath: job.rel_path,
    targetLang: job.target_lang,
    jobId: job.id,
  };
}

/** The files a path names: itself, or every file below a folder. */
async function filesAt(p: string): Promise<string[]> {
  const info = await fs.stat(p);
  if (info.isFile()) return [p];
  const entries = await fs.readdir(p, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** Output path -> the source and target that render it, over every mapping (built once, on demand). */
async function outputsOfMappings(
  loaded: LoadedManifest,
): Promise<Map<string, Omit<DeliveredOutput, 'outputAbs' | 'jobId'>>> {
  const byOutput = new Map<string, Omit<DeliveredOutput, 'outputAbs' | 'jobId'>>();
  for (const m of loaded.manifest.mappings) {
    const sourceDir = path.resolve(loaded.dir, m.source);
    const listed = await listSourceFiles(sourceDir, m.include, m.exclude).catch(() => undefined);
    for (const f of listed?.files ?? [])
      for (const t of m.targets) {
        let outputRel: string;
        try {
          outputRel = renderOutputPath(outputPattern(m, t), {
            lang: t.lang,
            relPath: f.relPath,
            mapping: m.name,
            outputExt: outputExtFor(extOf(f.relPath), t),
          });
        } catch {
          continue; // an output path that would escape: never delivered
        }
        byOutput.set(toPosix(outputRel), {
          outputRel: toPosix(outputRel),
          sourceAbs: path.join(sourceDir, f.relPath),
          mapping: m.name,
          relPath: f.relPath,
          targetLang: t.lang,
        });
      }
  }
  return byOutput;
}

/** Given --source (and --target) for files from elsewhere. */
export interface GivenSource {
  source?: string | undefined;
  target?: string | undefined;
}

/**
 * The outputs at `paths` (files or folders) with what each translates. A file whose source is found
 * nowhere (state, mappings, --source) has `sourceAbs` undefined: only its own checks run.
 */
export async function outputsAt(
  loaded: LoadedManifest,
  ledger: JobLedger,
  paths: readonly string[],
  given: GivenSource,
): Promise<DeliveredOutput[]> {
  let mappings: Awaited<ReturnType<typeof outputsOfMappings>> | undefined;
  const out: DeliveredOutput[] = [];
  for (const p of paths)
    for (const outputAbs of await filesAt(path.resolve(p))) {
      const outputRel = toPosix(path.relative(loaded.dir, outputAbs));
      if (given.source !== undefined) {
        out.push({
          outputAbs,
          outputRel,
          sourceAbs: path.resolve(given.source),
          mapping: undefined,
          relPath: path.basename(given.source),
          targetLang: given.target,
          jobId: 0,
        });
        continue;
      }
      const done = await ledger.latestDoneOf(outputRel);
      const job = done ? await ledger.get(done.id) : undefined;
      if (job) {
        out.push(fromJob(loaded, outputAbs, job));
        continue;
      }
      mappings ??= await outputsOfMappings(loaded);
      const rendered = mappings.get(outputRel);
      out.push(
        rendered
          ? { ...rendered, outputAbs, jobId: 0 }
          : {
              outputAbs,
              outputRel,
              sourceAbs: undefined,
              mapping: undefined,
              relPath: '',
              targetLang: given.target,
              jobId: 0,
            },
      );
    }
  return out;
}
