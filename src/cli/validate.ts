import type { Command } from 'commander';
import { checkManifestFile } from '../manifest/load.js';
import { EXIT } from '../util/errors.js';

/** `-c, --config <file>` as every command that reads the manifest spells it. */
export const CONFIG_OPTION = ['-c, --config <file>', 'pipeline manifest', 'pipeline.yaml'] as const;

/** `locsync validate`: check a manifest and its style list files without calling the service. */
export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('check the manifest and its style list files (no call to the service); exit 2 when invalid')
    .option(...CONFIG_OPTION)
    .option('--json', 'print the result as JSON')
    .action(async (opts: { config: string; json?: boolean }) => {
      const { loaded, errors } = await checkManifestFile(opts.config);
      if (opts.json) {
        const list = errors.map((e) => ({
          file: e.file,
          line: e.line,
          column: e.column,
          message: e.message,
        }));
        process.stdout.write(JSON.stringify({ valid: errors.length === 0, errors: list }, null, 2) + '\n');
      } else if (loaded) {
        const m = loaded.manifest;
        const targets = m.mappings.reduce((n, x) => n + x.targets.length, 0);
        const lists = Object.keys(loaded.styleLists).length;
        process.stdout.write(
          `${opts.config} is valid: ${m.mappings.length} mapping(s), ${targets} target(s), ${lists} style list(s)\n`,
        );
      } else {
        for (const e of errors) process.stderr.write(`${e.format()}\n`);
        process.stderr.write(`${errors.length} problem(s) found in ${opts.config}\n`);
      }
      process.exitCode = errors.length ? EXIT.usage : EXIT.ok;
    });
}
