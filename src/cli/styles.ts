import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Connection } from './connect.js';
import { createLogger, type Logger } from '../log/logger.js';
import { loadManifest, type LoadedManifest } from '../manifest/load.js';
import type { RunState } from '../sync/engine.js';
import { openRunState } from './open-state.js';
import type { DriftPolicy } from '../manifest/types.js';
import { countActions, formatStylePlan } from '../styles/format.js';
import { countGlossaryActions, formatGlossaryPlan } from '../styles/glossary-format.js';
import { hasTerminology, reconcileTerminology, type TerminologyPlan } from '../styles/terminology.js';
import { writeStyleListFile } from '../styles/yaml-write.js';
import { ConfigError, EXIT } from '../util/errors.js';
import { confirm } from './confirm.js';

export interface StyleContext {
  loaded: LoadedManifest;
  state: RunState;
  logger: Logger;
  /** Undefined when the command did not need the service. */
  connection: Connection | undefined;
}

/**
 * Load the manifest, open the state (driven — SQLite locked, a PostgreSQL worker — when `lock`
 * names the command) and, when `connect` says so, the service (the embedded local one when the
 * manifest has no url); closed afterwards.
 */
export async function withStyleContext<T>(
  config: string,
  opts: { lock?: string; connect: (loaded: LoadedManifest, state: RunState) => boolean },
  fn: (ctx: StyleContext) => Promise<T>,
): Promise<T> {
  const loaded = await loadManifest(config);
  const logger = createLogger();
  const opened = await openRunState(loaded, {
    logger,
    command: opts.lock ?? 'plan',
    drives: opts.lock !== undefined,
  });
  const state = opened.state;
  let connection: Connection | undefined;
  try {
    if (opts.connect(loaded, state)) {
      // Loaded on demand: it brings the embedded local service, which every other command can do without.
      const { openConnection } = await import('./connect.js');
      connection = await openConnection(loaded, { logger, stateDir: path.dirname(loaded.statePath) });
    }
    return await fn({ loaded, state, logger, connection });
  } finally {
    await connection?.close().catch(() => undefined);
    await opened.close();
  }
}

/**
 * Whether the style part needs the service: style lists or glossaries in the manifest, or applied
 * ones to delete.
 */
export function needsStyles(loaded: LoadedManifest, state: RunState): boolean {
  return hasTerminology(loaded, state);
}

/** Style lists and glossaries, for people: both sections. */
export function formatTerminologyPlan(plan: TerminologyPlan, verb: 'plan' | 'applied' = 'plan'): string {
  return `${formatStylePlan(plan, verb)}\n\n${formatGlossaryPlan(plan.glossaries, verb)}`;
}

/** The plan as JSON: style lists as before, glossaries beside them, each with its counts. */
export function terminologyJson(plan: TerminologyPlan): Record<string, unknown> {
  const { glossaries, ...styles } = plan;
  return {
    styles: { ...styles, summary: countActions(styles) },
    glossaries: { ...glossaries, summary: countGlossaryActions(glossaries) },
  };
}

/** What applying the plan would delete on the service (replaced style lists lose their old list). */
function deletions(plan: TerminologyPlan): string[] {
  return [
    ...plan.actions
      .filter((a) => a.kind === 'delete' || a.kind === 'replace')
      .map((a) => `style list '${a.key}' (style_id ${a.style_id})`),
    ...plan.glossaries.actions
      .filter((a) => a.kind === 'delete')
      .map((a) => `glossary '${a.key}' (glossary_id ${a.glossary_id})`),
  ];
}

function hasWork(plan: TerminologyPlan): boolean {
  return plan.actions.length + plan.glossaries.actions.length > 0;
}

/**
 * A file name for something pulled from the service: its key when known, else its name made safe
 * ("French docs" → french-docs); made unique with the start of its id.
 */
export function fileKey(
  item: { id: string; name: string },
  keys: Map<string, string>,
  taken: Set<string>,
  fallback = 'style-list',
): string {
  const known = keys.get(item.id);
  let key =
    known ??
    (item.name
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') ||
      fallback);
  if (taken.has(key)) key = `${key}-${item.id.slice(0, 8)}`;
  taken.add(key);
  return key;
}

async function pull(opts: { config: string; out?: string; json?: boolean }): Promise<void> {
  await withStyleContext(opts.config, { connect: () => true }, async ({ loaded, state, connection }) => {
    const lists = await connection!.client.listAllStyleRules({ detailed: true });
    const out = opts.out ? path.resolve(opts.out) : path.join(loaded.dir, 'styles');
    await mkdir(out, { recursive: true });
    const keys = new Map(state.allStyles().map((s) => [s.style_id, s.key]));
    const schema = path.join(loaded.dir, 'schema', 'style-list.schema.json');
    const taken = new Set<string>();
    const unused: string[] = [];
    const written: PulledFile[] = [];
    for (const list of lists) {
      const key = fileKey({ id: list.style_id, name: list.name }, keys, taken);
      const file = path.join(out, `${key}.yaml`);
      const what = await writeStyleListFile(file, list, {
        key,
        ...(existsSync(schema) ? { schemaPath: schema } : {}),
      });
      const rel = path.relative(loaded.dir, file).split(path.sep).join('/');
      const inManifest = !!loaded.styleLists[key];
      written.push({ key, file: rel, written: what, name: list.name, in_manifest: inManifest });
      if (!opts.json)
        process.stdout.write(
          `${what.padEnd(9)} ${rel}  "${list.name}" (${list.language}, version ${list.version})\n`,
        );
      if (!inManifest) unused.push(`  ${key}: { file: ${rel} }`);
    }
    if (opts.json) return void process.stdout.write(JSON.stringify({ out, files: written }, null, 2) + '\n');
    process.stdout.write(`${lists.length} style list(s) on the service written to ${out}\n`);
    if (unused.length) {
      process.stdout.write(
        `\nNot in ${path.basename(loaded.path)} yet; to use them add:\nstyle_lists:\n${unused.join('\n')}\n`,
      );
    }
  });
}

/** One file `styles pull` / `glossaries pull` wrote (their --json). */
export interface PulledFile {
  /** The key it has (or would have) in the manifest. */
  key: string;
  /** Relative to the manifest's folder. */
  file: string;
  /** created, updated or unchanged. */
  written: string;
  name: string;
  /** A glossary's language pair. */
  pair?: string;
  in_manifest: boolean;
}

export interface ApplyOptions {
  config: string;
  only?: string[];
  drift?: DriftPolicy;
  dryRun?: boolean;
  yes?: boolean;
  json?: boolean;
}

export async function stylesApplyAction(opts: ApplyOptions): Promise<void> {
  await withStyleContext(
    opts.config,
    { lock: opts.dryRun ? undefined : 'styles apply', connect: needsStyles },
    async ({ loaded, state, logger, connection }) => {
      if (!connection) {
        if (opts.json) process.stdout.write(JSON.stringify({ applied: false, changes: false }) + '\n');
        else
          process.stdout.write(
            'No style lists or glossaries in the manifest and none applied before: nothing to do.\n',
          );
        return;
      }
      const args = {
        loaded,
        client: connection.client,
        state,
        logger,
        ...(opts.only ? { only: opts.only } : {}),
        ...(opts.drift ? { drift: opts.drift } : {}),
      };
      const planned = await reconcileTerminology({ ...args, apply: false });
      const out = (applied: TerminologyPlan | undefined): void => {
        if (opts.json)
          process.stdout.write(
            JSON.stringify(
              { plan: terminologyJson(planned), applied: applied ? terminologyJson(applied) : null },
              null,
              2,
            ) + '\n',
          );
      };
      if (!opts.json) process.stdout.write(formatTerminologyPlan(planned) + '\n');
      const failing = [...planned.drift, ...planned.glossaries.drift].filter((d) => d.policy === 'fail');
      if (opts.dryRun || (!hasWork(planned) && failing.length === 0)) {
        out(undefined);
        if (!opts.json && opts.dryRun) process.stdout.write('\nDry run: nothing was changed.\n');
        return;
      }
      const gone = deletions(planned);
      if (gone.length && !opts.yes) {
        const question = `Apply, deleting on the service: ${gone.join(', ')}?`;
        if (!(await confirm(question))) {
          throw new ConfigError(
            process.stdin.isTTY
              ? 'nothing was changed (not confirmed)'
              : `applying would delete ${gone.join(', ')} on the service; off a terminal pass --yes to confirm (nothing was changed)`,
          );
        }
      }
      const apply = () => reconcileTerminology({ ...args, apply: true });
      // Workers sharing a PostgreSQL state apply one at a time (styles apply is one of them).
      const applied = state.shared ? await state.shared.terminologyExclusive(apply) : await apply();
      if (opts.json) out(applied);
      else process.stdout.write('\n' + formatTerminologyPlan(applied, 'applied') + '\n');
    },
  );
  process.exitCode = EXIT.ok;
}

export async function stylesPullAction(opts: {
  config: string;
  out?: string;
  json?: boolean;
}): Promise<void> {
  await pull(opts);
  process.exitCode = EXIT.ok;
}
