import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Connection } from '../api/connect.js';
import type { StyleRuleList } from '../api/types.js';
import { createLogger, type Logger } from '../log/logger.js';
import { loadManifest, type LoadedManifest } from '../manifest/load.js';
import { acquireLock } from '../state/lock.js';
import { openState, type StateStore } from '../state/store.js';
import { formatStylePlan } from '../styles/format.js';
import { reconcileStyles } from '../styles/reconcile.js';
import { writeStyleListFile } from '../styles/yaml-write.js';
import { EXIT } from '../util/errors.js';

export interface StyleContext {
  loaded: LoadedManifest;
  state: StateStore;
  logger: Logger;
  /** Undefined when the command did not need the service. */
  connection: Connection | undefined;
}

/**
 * Load the manifest, open the state (locked when `lock` names the command) and, when `connect`
 * says so, the service (the embedded local one when the manifest has no url); closed afterwards.
 */
export async function withStyleContext<T>(
  config: string,
  opts: { lock?: string; connect: (loaded: LoadedManifest, state: StateStore) => boolean },
  fn: (ctx: StyleContext) => Promise<T>,
): Promise<T> {
  const loaded = await loadManifest(config);
  const logger = createLogger();
  const state = openState(loaded.statePath);
  let lock: { release(): void } | undefined;
  let connection: Connection | undefined;
  try {
    if (opts.lock) lock = acquireLock(loaded.statePath, { logger, command: opts.lock });
    if (opts.connect(loaded, state)) {
      // Loaded on demand: it brings the embedded local service, which every other command can do without.
      const { openConnection } = await import('../api/connect.js');
      connection = await openConnection(loaded, { logger, stateDir: path.dirname(loaded.statePath) });
    }
    return await fn({ loaded, state, logger, connection });
  } finally {
    await connection?.close().catch(() => undefined);
    lock?.release();
    state.close();
  }
}

/** Whether the style part needs the service: lists in the manifest, or applied lists to delete. */
export function needsStyles(loaded: LoadedManifest, state: StateStore): boolean {
  return Object.keys(loaded.styleLists).length > 0 || state.allStyles().length > 0;
}

/** A file name for a list: its key when known, else its name made safe ("French docs" → french-docs). */
function fileKey(list: StyleRuleList, keys: Map<string, string>, taken: Set<string>): string {
  const known = keys.get(list.style_id);
  let key =
    known ??
    (list.name
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') ||
      'style-list');
  if (taken.has(key)) key = `${key}-${list.style_id.slice(0, 8)}`;
  taken.add(key);
  return key;
}

async function pull(opts: { config: string; out?: string }): Promise<void> {
  await withStyleContext(opts.config, { connect: () => true }, async ({ loaded, state, connection }) => {
    const lists = await connection!.client.listAllStyleRules({ detailed: true });
    const out = opts.out ? path.resolve(opts.out) : path.join(loaded.dir, 'styles');
    await mkdir(out, { recursive: true });
    const keys = new Map(state.allStyles().map((s) => [s.style_id, s.key]));
    const schema = path.join(loaded.dir, 'schema', 'style-list.schema.json');
    const taken = new Set<string>();
    const unused: string[] = [];
    for (const list of lists) {
      const key = fileKey(list, keys, taken);
      const file = path.join(out, `${key}.yaml`);
      const what = await writeStyleListFile(file, list, {
        key,
        ...(existsSync(schema) ? { schemaPath: schema } : {}),
      });
      const rel = path.relative(loaded.dir, file).split(path.sep).join('/');
      process.stdout.write(
        `${what.padEnd(9)} ${rel}  "${list.name}" (${list.language}, version ${list.version})\n`,
      );
      if (!loaded.styleLists[key]) unused.push(`  ${key}: { file: ${rel} }`);
    }
    process.stdout.write(`${lists.length} style list(s) on the service written to ${out}\n`);
    if (unused.length) {
      process.stdout.write(
        `\nNot in ${path.basename(loaded.path)} yet; to use them add:\nstyle_lists:\n${unused.join('\n')}\n`,
      );
    }
  });
}

export async function stylesApplyAction(opts: { config: string; only?: string[] }): Promise<void> {
  await withStyleContext(
    opts.config,
    { lock: 'styles apply', connect: needsStyles },
    async ({ loaded, state, logger, connection }) => {
      if (!connection) {
        process.stdout.write('No style lists in the manifest and none applied before: nothing to do.\n');
        return;
      }
      const plan = await reconcileStyles({
        loaded,
        client: connection.client,
        state,
        apply: true,
        logger,
        ...(opts.only ? { only: opts.only } : {}),
      });
      process.stdout.write(formatStylePlan(plan, 'applied') + '\n');
    },
  );
  process.exitCode = EXIT.ok;
}

export async function stylesPullAction(opts: { config: string; out?: string }): Promise<void> {
  await pull(opts);
  process.exitCode = EXIT.ok;
}
