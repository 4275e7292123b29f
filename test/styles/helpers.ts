import path from 'node:path';
import type { ServiceClient } from '../../src/api/client.js';
import { loadManifest, type LoadedManifest } from '../../src/manifest/load.js';
import type { RunningService } from '../../src/local-service/types.js';
import { openState, type StateStore } from '../../src/state/store.js';
import { reconcileStyles, type StylePlan } from '../../src/styles/reconcile.js';
import { tempProject } from '../manifest/project.js';
import { makeClient } from '../api/helpers.js';
import { writeFile } from 'node:fs/promises';

const MAPPING = `mappings:
  - name: docs
    source: docs
    output: out/{lang}/{path}
    targets:
      - lang: de
`;

/** A project folder with a manifest whose style_lists section is `lists` (YAML, indented 2). */
export interface StyleProject {
  dir: string;
  manifestPath: string;
  state: StateStore;
  client: ServiceClient;
  /** Rewrite the manifest's style_lists section (and extra files). */
  write(lists: string, files?: Record<string, string>): Promise<void>;
  load(): Promise<LoadedManifest>;
  reconcile(apply: boolean, only?: string[]): Promise<StylePlan>;
  close(): Promise<void>;
}

export async function styleProject(
  svc: RunningService,
  lists: string,
  files: Record<string, string> = {},
): Promise<StyleProject> {
  const p = await tempProject({ 'pipeline.yaml': `style_lists:\n${lists}${MAPPING}`, ...files });
  const manifestPath = path.join(p.dir, 'pipeline.yaml');
  const state = openState(path.join(p.dir, '.locsync', 'state.db'));
  const client = makeClient(svc.url);
  const project: StyleProject = {
    dir: p.dir,
    manifestPath,
    state,
    client,
    async write(next, more = {}) {
      await writeFile(manifestPath, `style_lists:\n${next}${MAPPING}`);
      for (const [rel, text] of Object.entries(more)) await writeFile(path.join(p.dir, rel), text);
    },
    load: () => loadManifest(manifestPath),
    async reconcile(apply, only) {
      return reconcileStyles({
        loaded: await project.load(),
        client,
        state,
        apply,
        ...(only ? { only } : {}),
      });
    },
    async close() {
      state.close();
      client.close();
      await p.remove();
    },
  };
  return project;
}

/** Modifying requests to the style rules API seen by the service since `from` (a request log index). */
export function modifyingRequests(svc: RunningService, from = 0): string[] {
  return svc
    .requests()
    .slice(from)
    .filter((r) => r.path.startsWith('/v3/') && r.method !== 'GET')
    .map((r) => `${r.method} ${r.path}`);
}
