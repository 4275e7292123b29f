import path from 'node:path';
import { pipelineIdentity, type PipelineIdentity } from './pipeline.js';
import { isPostgresUrl } from './postgres/url.js';

// Where a manifest's state lives: a SQLite file on this machine (the default), or a PostgreSQL
// database shared by several workers. Either way a local folder holds what must stay on this
// machine (the download spool, the embedded service's jobs): statePath's folder.

export interface PostgresLocation {
  /** postgres://… as written in the manifest (no password). */
  url: string;
  passwordEnv?: string;
  leaseSeconds: number;
  /** The pipeline whose state the URL's schema holds (checked and recorded there). */
  pipeline?: PipelineIdentity;
}

export interface StateLocation {
  /**
   * SQLite: the state file. PostgreSQL: a path in the local folder (postgres.local_dir) whose
   * folder holds the spool and the embedded service's jobs; no SQLite file is made there.
   */
  statePath: string;
  postgres?: PostgresLocation;
  /** The pipeline the manifest at `manifestPath` is (absent: a manifest built without a file). */
  pipeline?: PipelineIdentity;
}

/** The manifest's keys that say where the state lives (`state:` and `postgres:`), and its `pipeline:`. */
export interface StateSettings {
  state: string;
  postgres?: { local_dir?: string; password_env?: string; lease_seconds?: number } | undefined;
  pipeline?: string | undefined;
  reuse?: 'within_pipeline' | 'across_pipelines' | undefined;
}

export function stateLocation(manifest: StateSettings, dir: string, manifestPath?: string): StateLocation {
  const pipeline = manifestPath
    ? pipelineIdentity(manifest.pipeline, manifestPath, manifest.reuse === 'across_pipelines')
    : undefined;
  const named = pipeline ? { pipeline } : {};
  if (!isPostgresUrl(manifest.state)) return { statePath: path.resolve(dir, manifest.state), ...named };
  const opts = manifest.postgres;
  return {
    statePath: path.resolve(dir, opts?.local_dir ?? '.locsync', 'state.db'),
    postgres: {
      url: manifest.state,
      ...(opts?.password_env ? { passwordEnv: opts.password_env } : {}),
      leaseSeconds: opts?.lease_seconds ?? 30,
      ...named,
    },
    ...named,
  };
}
