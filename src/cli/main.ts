import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { ConfigError, EXIT } from '../util/errors.js';
import { scrub } from '../log/secrets.js';
import { VERSION } from '../version.js';
import { registerServe } from './serve.js';
import { registerInit } from './init.js';
import { registerValidate } from './validate.js';
import { registerPlan } from './plan.js';
import { registerStyles } from './styles.js';
import { registerSync } from './sync.js';
import { registerWatch } from './watch.js';
import { registerStatus } from './status.js';
import { registerReport } from './report.js';
import { addGlobalOptions } from './context.js';

const EXIT_CODES_HELP = `
Exit codes:
  0  everything done (plan --detailed-exitcode: no changes pending)
  1  some documents failed (the summary lists them; the next run retries them), or an internal error
  2  usage or configuration error (the message names the file and line), or, for
     plan --detailed-exitcode, changes pending

Examples:
  $ locsync init --source docs --targets de,fr        write a starter pipeline.yaml
  $ locsync validate                                  check it (no call to the service)
  $ locsync plan                                      what sync would do and what it would bill
  $ locsync sync -c pipeline.yaml                     translate what changed
  $ locsync status                                    last runs, jobs in flight, failures
  $ locsync report --by month                         billed characters, 50,000-character minimums apart

Run "locsync <command> --help" for a command's options and examples.`;

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('locsync')
    .description('Keeps folders of documents translated, with style rule lists kept in git.')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ showGlobalOptions: true })
    .addHelpText('after', EXIT_CODES_HELP);
  addGlobalOptions(program);
  registerServe(program);
  registerInit(program);
  registerValidate(program);
  registerPlan(program);
  registerStyles(program);
  registerSync(program);
  registerWatch(program);
  registerStatus(program);
  registerReport(program);
  return program;
}

/** Run the CLI; resolves to the process exit code. */
export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  program.exitOverride();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof ConfigError) {
      process.stderr.write(`locsync: ${scrub(err.format())}\n`);
      return EXIT.usage;
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`locsync: ${scrub(message)}\n`);
    if (process.env.LOCSYNC_DEBUG && err instanceof Error && err.stack)
      process.stderr.write(scrub(err.stack) + '\n');
    return EXIT.failed;
  }
}

// `node --import tsx src/cli/main.ts ...` (tests, development); bin/locsync.js calls run() itself.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const code = await run(process.argv.slice(2));
  process.exitCode = code;
}
