import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { ConfigError, EXIT, EXIT_CODES } from '../util/errors.js';
import { scrub } from '../log/secrets.js';
import { isStateDamage, lastOpenedState, StateDamagedError } from '../state/integrity.js';
import { VERSION } from '../version.js';
import {
  registerCompletion,
  registerInit,
  registerMemory,
  registerXliff,
  registerOutputs,
  registerPlan,
  registerReport,
  registerReview,
  registerServe,
  registerState,
  registerStatus,
  registerCheck,
  registerGlossaries,
  registerStyles,
  registerSync,
  registerValidate,
  registerWatch,
} from './commands.js';
import { addGlobalOptions } from './context.js';
import { keepGoingWhenReaderCloses } from './closed-output.js';

const EXIT_CODES_HELP = `
Exit codes:
${EXIT_CODES.map((e) => `  ${String(e.code).padStart(3)}  ${e.meaning}`).join('\n')}

Examples:
  $ locsync init --source docs --targets de,fr        write a starter pipeline.yaml
  $ locsync validate                                  check it (no call to the service)
  $ locsync plan                                      what sync would do and what it would bill
  $ locsync sync -c pipeline.yaml                     translate what changed
  $ locsync status                                    last runs, jobs in flight, failures
  $ locsync report --by month                         billed characters, 50,000-character minimums apart

Run "locsync <command> --help" for a command's options and examples.`;

/** Examples shown after the options of commands whose own file does not add them. */
const EXAMPLES: Record<string, string> = {
  serve: `
Examples:
  $ locsync serve --port 8787 --data /var/lib/locsync-service     a local service for testing
  $ locsync serve --faults '{"status": 429, "count": 3, "retryAfter": 1}'
  Point a manifest at it with service.url: http://127.0.0.1:8787 (any non-empty key).`,
  validate: `
Examples:
  $ locsync validate                         the pipeline.yaml in this folder
  $ locsync validate -c docs/pipeline.yaml --json
Exit codes: 0 valid, 2 invalid (each problem as file:line:column: message).`,
  plan: `
Examples:
  $ locsync plan                             style list changes, files to translate, stale outputs
  $ locsync plan --detailed-exitcode         in scripts: 0 nothing to do, 3 changes pending, 2 bad manifest
  $ locsync plan --json | jq '.files.toTranslate | length'`,
  styles: `
Examples:
  $ locsync styles apply                     make the service's style lists and glossaries match the YAML
  $ locsync styles apply --dry-run --json    the plan only, for scripts
  $ locsync styles apply --drift adopt --yes write changes made on the service into the YAML; delete without asking
  $ locsync styles pull                      write the service's lists as YAML files`,
  glossaries: `
Examples:
  $ locsync glossaries pull                  write the service's glossaries as CSV files (glossaries/<key>.<pair>.csv)
  $ locsync glossaries pull --format tsv --out terms
  Apply them with locsync styles apply (or sync); see README "Terminology".`,
  sync: `
Examples:
  $ locsync sync                             translate what changed (pipeline.yaml here)
  $ locsync sync -c /srv/docs/pipeline.yaml --no-progress --log-format json    under cron
  $ locsync sync --dry-run                   what would be uploaded; nothing is billed
  $ locsync sync --retranslate stale         also re-translate outputs of changed style lists (billed)
Ctrl-C stops uploading, finishes or records the documents in flight; run sync again to resume
(a recorded upload is collected, never uploaded or paid twice).
Exit codes: 0 all done, 1 some documents failed (retried next run; see locsync status), 2 configuration\nerror, 4 state locked by another locsync, 5 budget reached, 130 interrupted (run sync again to resume).`,
  outputs: `
Examples:
  $ locsync status                           lists outputs edited by people and open conflicts
  $ locsync outputs keep out/de/guide.docx   the person's version wins (the new translation beside it is removed)
  $ locsync outputs take-new out/de/guide.docx   the new translation wins (the edit is kept as a backup)
See docs/review.md for the review workflow.`,
  watch: `
Examples:
  $ locsync watch -c /srv/docs/pipeline.yaml       keep running (systemd: see docs/operations.md)
  On SMB/NFS shares set watch.poll: true in the manifest and keep state: on a local disk.`,
};

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('locsync')
    .description('Keeps folders of documents translated, with style rule lists kept in git.')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ showGlobalOptions: true })
    .addHelpText('after', EXIT_CODES_HELP)
    // Before the commands are added: they inherit it, so that a bad flag of any command exits 2.
    .exitOverride();
  addGlobalOptions(program);
  registerServe(program);
  registerInit(program);
  registerValidate(program);
  registerPlan(program);
  registerStyles(program);
  registerGlossaries(program);
  registerSync(program);
  registerWatch(program);
  registerStatus(program);
  registerCheck(program);
  registerOutputs(program);
  registerReview(program);
  registerReport(program);
  registerState(program);
  registerMemory(program);
  registerXliff(program);
  registerCompletion(program);
  for (const cmd of program.commands) {
    const examples = EXAMPLES[cmd.name()];
    if (examples) cmd.addHelpText('after', examples);
  }
  return program;
}

/** `plan -out plan.json` (terraform's spelling, one dash) is `--out`: commander would read `-o ut`. */
function terraformStyleOut(arg: string): string {
  return arg === '-out' || arg.startsWith('-out=') ? `-${arg}` : arg;
}

/** Run the CLI; resolves to the process exit code. */
export async function run(argv: string[]): Promise<number> {
  keepGoingWhenReaderCloses(process.stdout);
  keepGoingWhenReaderCloses(process.stderr);
  const program = buildProgram();
  try {
    await program.parseAsync(argv.map(terraformStyleOut), { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof ConfigError) {
      process.stderr.write(`locsync: ${scrub(err.format())}\n`);
      return EXIT.usage;
    }
    const shown = isStateDamage(err) ? new StateDamagedError(lastOpenedState() ?? 'state.db', err) : err;
    const message = shown instanceof Error ? shown.message : String(shown);
    process.stderr.write(`locsync: ${scrub(message)}\n`);
    // By name: src/state/lock.ts is not loaded by commands that take no lock.
    if (err instanceof Error && err.name === 'LockedError') return EXIT.locked;
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
