import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../util/errors.js';

// A pipeline's identity in its state. One state (a SQLite file, or one schema of a PostgreSQL
// database) holds one pipeline's work: its jobs, files, runs, snapshots, claims and workers. The
// state records the name of the pipeline it belongs to (the first run of a state, or of a state
// made before pipelines were recorded, adopts it); a manifest of another name is refused, naming
// both, so that two pipelines never take each other's work or write each other's outputs.

export interface PipelineIdentity {
  /** `pipeline:` of the manifest, or the name of the manifest's folder. */
  name: string;
  /** Absolute path of the manifest (shown in messages; several workers may have their own copy). */
  manifest: string;
  /**
   * `reuse: across_pipelines`: identical translations may be copied from other pipelines that say
   * so too, and this pipeline's may be copied by them (recorded in its state).
   */
  reuseAcross?: boolean;
  /** The name is the manifest's folder's (no `pipeline:` in the manifest). */
  fromFolder?: boolean;
}

/** What a state records of the pipeline that adopted it. */
export interface RecordedPipeline {
  name: string;
  manifest: string;
  host: string;
  adopted_at: string;
}

/**
 * The pipeline a manifest is: its `pipeline:`, else the name of the folder the manifest is in
 * (every worker mounts the share with that folder, whatever the path above it; manifests side by
 * side in one folder are one pipeline unless they say otherwise).
 */
export function pipelineIdentity(
  named: string | undefined,
  manifestPath: string,
  reuseAcross = false,
): PipelineIdentity {
  const abs = path.resolve(manifestPath);
  return {
    name: named ?? (path.basename(path.dirname(abs)) || 'pipeline'),
    manifest: abs,
    ...(reuseAcross ? { reuseAcross } : {}),
    ...(named === undefined ? { fromFolder: true } : {}),
  };
}

/**
 * Whether the state recorded as `recorded` may be opened as pipeline `ours`, else the refusal
 * (`ownState`: how this backend gives a pipeline a state of its own). A name taken from the folder
 * does not tell two projects apart: a manifest of the same name in another folder of this host is
 * another project (a worker on another machine mounts the share under its own path, so only this
 * host's paths are compared), and is refused until its `pipeline:` says which one it is.
 */
export function claimRefusal(
  location: string,
  recorded: RecordedPipeline,
  ours: PipelineIdentity,
  ownState: string,
): ConfigError | undefined {
  if (recorded.name !== ours.name) return otherPipelineError(location, recorded, ours, ownState);
  const otherFolder = path.dirname(path.resolve(recorded.manifest)) !== path.dirname(ours.manifest);
  if (!ours.fromFolder || recorded.host !== os.hostname() || !otherFolder) return undefined;
  return new ConfigError(
    `the state at ${location} holds the work of pipeline "${recorded.name}" of manifest ${recorded.manifest} (on ${recorded.host}, since ${recorded.adopted_at}); ` +
      `this manifest ${ours.manifest} has no \`pipeline:\` and takes the same name from its folder, so it would take that manifest's work and write its outputs. ` +
      `If it is another project, name it (\`pipeline: <its own name>\` in ${ours.manifest}) and give it a state of its own (${ownState}); ` +
      `if it is the same project in a new place, write \`pipeline: ${recorded.name}\` in it.`,
  );
}

/**
 * The refusal when a state belongs to another pipeline: both named, and what to do (`ownState`:
 * how this backend gives a pipeline a state of its own).
 */
export function otherPipelineError(
  location: string,
  recorded: RecordedPipeline,
  ours: PipelineIdentity,
  ownState: string,
): ConfigError {
  return new ConfigError(
    `the state at ${location} belongs to pipeline "${recorded.name}" (manifest ${recorded.manifest} on ${recorded.host}, since ${recorded.adopted_at}); ` +
      `this manifest ${ours.manifest} is pipeline "${ours.name}". Two pipelines never share a state (each would take the other's work). ` +
      `Give "${ours.name}" a state of its own: ${ownState}; or, if this manifest is pipeline "${recorded.name}" under a new name, write \`pipeline: ${recorded.name}\` in it.`,
  );
}
