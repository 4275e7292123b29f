import fs from 'node:fs';
import { loadManifest } from '../manifest/load.js';
import { listBackups } from '../state/backup.js';
import { checkStateFile } from '../state/check.js';
import { recoverySteps } from '../state/integrity.js';
import { ConfigError, EXIT } from '../util/errors.js';

interface StateCheckOptions {
  config: string;
  json?: boolean;
}

/** `locsync state check`: SQLite's integrity check of the state file; exit 1 when it is damaged. */
export async function stateCheckAction(opts: StateCheckOptions): Promise<void> {
  const loaded = await loadManifest(opts.config);
  const file = loaded.statePath;
  if (!fs.existsSync(file))
    throw new ConfigError(`no state file at ${file}: nothing was recorded with ${opts.config} yet`);
  const problems = checkStateFile(file);
  const backups = listBackups(file);
  const ok = problems.length === 0;
  if (opts.json) {
    const out = {
      state: file,
      ok,
      problems,
      backups: backups.map((b) => ({ path: b.path, taken_at: b.takenAt.toISOString(), manual: b.manual })),
      ...(ok ? {} : { recovery: recoverySteps(file) }),
    };
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  } else {
    const lines = ok
      ? [`${file}: ok (SQLite integrity check passed)`]
      : [
          `${file}: DAMAGED`,
          ...problems.flatMap((p) => p.split('\n')).map((p) => `  ${p}`),
          'To recover:',
          ...recoverySteps(file).map((s) => `  - ${s}`),
        ];
    lines.push(
      backups.length
        ? `Backups beside it: ${backups.length}, newest ${backups[0]?.path}`
        : 'No backups beside it yet (sync takes them; `locsync state backup` takes one now).',
    );
    process.stdout.write(lines.join('\n') + '\n');
  }
  process.exitCode = ok ? EXIT.ok : EXIT.failed;
}
