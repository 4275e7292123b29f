import fs from 'node:fs';
import path from 'node:path';
import { loadManifest } from '../manifest/load.js';
import { backupPathFor, backupState } from '../state/backup.js';
import { openState } from '../state/store.js';
import { ConfigError } from '../util/errors.js';

interface StateBackupOptions {
  config: string;
  out?: string;
  json?: boolean;
}

/**
 * `locsync state backup`: a consistent copy of the state taken with SQLite's online backup API
 * (a sync may be running), beside the state unless --out says where; never removed by locsync.
 */
export async function stateBackupAction(opts: StateBackupOptions): Promise<void> {
  const loaded = await loadManifest(opts.config);
  const file = loaded.statePath;
  if (!fs.existsSync(file))
    throw new ConfigError(`no state file at ${file}: nothing was recorded with ${opts.config} yet`);
  const dest = opts.out ? path.resolve(opts.out) : backupPathFor(file, new Date(), true);
  if (fs.existsSync(dest)) throw new ConfigError(`${dest} exists already; choose another --out`);
  const state = openState(file);
  try {
    await backupState(state.db, dest);
  } finally {
    state.close();
  }
  process.stdout.write(
    opts.json
      ? JSON.stringify({ backup: dest, state: file, bytes: fs.statSync(dest).size }, null, 2) + '\n'
      : `${dest}: backup of ${file} written (mode 0600: it holds document keys). ` +
          `To restore it, stop locsync and copy it over the state file.\n`,
  );
}
