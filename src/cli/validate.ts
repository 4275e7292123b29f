import { checkManifestFile } from '../manifest/load.js';
import { ConfigError, EXIT } from '../util/errors.js';
import { formatCounted } from '../util/format.js';

/** "file:line:col: warning: message". */
function labelled(e: ConfigError, label: string): string {
  return new ConfigError(`${label}: ${e.message}`, { file: e.file, line: e.line, column: e.column }).format();
}

export async function validateAction(opts: { config: string; json?: boolean }): Promise<void> {
  const checked = await checkManifestFile(opts.config);
  const { warnings, notes } = checked;
  // A source folder that is not there is an error here (a run would fail on it), not for loading.
  const errors = [...checked.errors, ...checked.missingSources];
  const loaded = errors.length ? undefined : checked.loaded;
  const plain = (e: ConfigError) => ({
    file: e.file,
    line: e.line,
    column: e.column,
    message: e.message,
  });
  if (opts.json) {
    const out = {
      valid: errors.length === 0,
      errors: errors.map(plain),
      warnings: warnings.map(plain),
      notes: notes.map(plain),
    };
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  } else {
    // The findings are what validate answers: stdout, as with --json (the exit code says 2).
    for (const n of notes) process.stdout.write(`${labelled(n, 'note')}\n`);
    for (const w of warnings) process.stdout.write(`${labelled(w, 'warning')}\n`);
    for (const e of errors) process.stdout.write(`${e.format()}\n`);
    if (loaded) {
      const m = loaded.manifest;
      const targets = m.mappings.reduce((n, x) => n + x.targets.length, 0);
      const lists = Object.keys(loaded.styleLists).length;
      process.stdout.write(
        `${opts.config} is valid: ${formatCounted(m.mappings.length, 'mapping')}, ${formatCounted(targets, 'target')}, ${formatCounted(lists, 'style list')}` +
          (warnings.length ? `, ${formatCounted(warnings.length, 'warning')}` : '') +
          '\n',
      );
    } else process.stdout.write(`${formatCounted(errors.length, 'problem')} found in ${opts.config}\n`);
  }
  process.exitCode = errors.length ? EXIT.usage : EXIT.ok;
}
