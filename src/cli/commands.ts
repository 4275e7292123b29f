import type { Command } from 'commander';
import { Option } from 'commander';
import { REPORT_BY } from '../report/queries.js';
import { RETRANSLATE_CHOICES, RETRANSLATE_WORDS } from '../sync/plan/retranslate.js';

// Every command's options and help, and nothing else: a command's implementation (src/cli/<name>.ts
// and what it imports: the service client, chokidar, zod, yaml ...) is loaded only when it runs, so
// that `locsync --help` or `locsync status` do not pay for what other commands use.

/** `-c, --config <file>` as every command that reads the manifest spells it. */
export const CONFIG_OPTION = ['-c, --config <file>', 'pipeline manifest', 'pipeline.yaml'] as const;

/**
 * A command action that imports its implementation module when the command runs and calls its
 * export `name` with commander's arguments (options, command).
 */
export function lazyAction<K extends string>(
  load: () => Promise<Record<K, (...args: never[]) => Promise<void>>>,
  name: K,
): (...args: unknown[]) => Promise<void> {
  return async (...args) => {
    const action = (await load())[name] as (...a: unknown[]) => Promise<void>;
    await action(...args);
  };
}

/** `--drift <policy>`: a one-off drift policy for the style lists and glossaries of one run. */
const DRIFT_OPTION = () =>
  new Option(
    '--drift <policy>',
    'for this run, style lists and glossaries changed on the service: fail, overwrite (make them match the YAML) or adopt (write them into the YAML)',
  ).choices(['fail', 'overwrite', 'adopt']);

/** `locsync glossaries pull | apply`. */
export function registerGlossaries(program: Command): void {
  const glossaries = program
    .command('glossaries')
    .description('glossaries: apply the YAML and its CSV/TSV files to the service, or pull them');
  glossaries
    .command('pull')
    .description(
      "write the service's glossaries (also ones made elsewhere) as CSV files, one per language pair",
    )
    .option(...CONFIG_OPTION)
    .option('--out <dir>', 'folder for the files (default: glossaries/ beside the manifest)')
    .option('--format <format>', 'csv or tsv', 'csv')
    .option('--json', 'print the files written as JSON')
    .action(lazyAction(() => import('./glossaries.js'), 'glossariesPullAction'));
}

/** `locsync outputs keep | take-new`: resolve an edited output against the new translation beside it. */
export function registerOutputs(program: Command): void {
  const outputs = program
    .command('outputs')
    .description(
      'outputs edited by people: resolve the conflict with the new translation written beside one (docs/review.md)',
    );
  outputs
    .command('keep <output>')
    .description("the person's version wins: the new translation beside it is removed")
    .option(...CONFIG_OPTION)
    .action(lazyAction(() => import('./outputs.js'), 'outputsKeepAction'));
  outputs
    .command('take-new <output>')
    .description(
      'the new translation wins: it replaces the output, the edited version is kept as <name>.locsync-edited.<ext>',
    )
    .option(...CONFIG_OPTION)
    .action(lazyAction(() => import('./outputs.js'), 'outputsTakeNewAction'));
}

/** `locsync review`: the translations that changed, segment by segment, as one page for a reviewer. */
export function registerReview(program: Command): void {
  program
    .command('review')
    .description(
      'one self-contained HTML page of what changed in the translations: per document and language, the source, the previous and the new translation of each changed segment (docs/review.md)',
    )
    .option(...CONFIG_OPTION)
    .option(
      '--since <ref-or-run>',
      'compare with a git commit (origin/main, HEAD~1, a tag) or a run (run:12; default: the latest run that replaced translations)',
    )
    .option('-o, --output <file>', 'write the page to this file instead of stdout')
    .option('--json', 'print what the page shows as JSON')
    .addHelpText(
      'after',
      `
Examples:
  $ locsync review --since origin/main -o review.html   what this branch changed, for its pull request
  $ locsync review -o review.html                       what the latest run changed
  $ locsync review --since run:12 -o review.html        a section per run from run 12 on`,
    )
    .action(lazyAction(() => import('./review.js'), 'reviewAction'));
}

/** `locsync serve`: the local service (src/local-service) until SIGINT/SIGTERM. */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Run the local translation service (the whole spec, no account, no network)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free port)', '8787')
    .option(
      '--auth-key-env <name>',
      'environment variable holding the accepted API key (default LOCSYNC_SERVE_KEY); unset: any non-empty key',
    )
    .option('--auth-key <key>', 'accepted API key on the command line: visible in ps, prefer the environment')
    .option('--plan <plan>', 'pro or free (free: style rules answer 403)', 'pro')
    .option(
      '--data <dir>',
      'keep style lists, jobs and files in this folder across restarts (default: in memory)',
    )
    .option('--phrasebook <file>', 'YAML or TSV phrasebook of exact translations')
    .option(
      '--style-rules <file>',
      'YAML list of style rule lists the service holds from its start, each with its own style_id',
    )
    .option('--queue-seconds <s>', 'time a document waits queued (default 1)')
    .option('--translate-seconds <s>', 'time a document takes translating (default 2)')
    .option('--workers <n>', 'documents translated concurrently (default 4)')
    .option(
      '--max-undownloaded <n>',
      'translated documents waiting for download before uploads answer 429 (default 100)',
    )
    .option(
      '--character-limit <n>',
      'characters per billing period (GET /v2/usage); beyond it translations answer 456 (default: no limit)',
    )
    .option(
      '--requests-per-second <n>',
      'requests a second each key may send; beyond it 429 with Retry-After (default: no limit)',
    )
    .option(
      '--faults <json>',
      'faults to inject: a JSON FaultSpec or array, or @file (see docs/local-service.md)',
    )
    .addHelpText(
      'after',
      '\nThe global --log-level logs the requests (info, debug ...); without it the service logs nothing.',
    )
    .action(lazyAction(() => import('./serve.js'), 'serveAction'));
}

/** `locsync init`: write a commented starter pipeline.yaml in the current folder (asks nothing). */
export function registerInit(program: Command): void {
  program
    .command('init')
    .description(
      'write a commented starter manifest (pipeline.yaml) in the current folder, and .gitignore lines for the state and the outputs; asks nothing',
    )
    .option('--source <dir>', 'folder of documents to translate, relative to the manifest', 'docs')
    .option('--targets <langs>', 'target languages, comma-separated', 'de,fr')
    .option(
      '--source-lang <lang>',
      "the sources' language (default: what the documents already in --source are written in, else en)",
    )
    .option(
      '--output <pattern>',
      'where translations go ({lang}, {path} ... placeholders)',
      'translated/{lang}/{path}',
    )
    .option('-c, --config <file>', 'manifest to write', 'pipeline.yaml')
    .option('--force', 'overwrite an existing manifest')
    .option('--json', 'print what was written as JSON')
    .addHelpText(
      'after',
      `
Examples:
  $ locsync init                                          docs/ -> translated/de, translated/fr
  $ locsync init --source-lang de --targets en-gb,fr   German sources
  $ locsync init --source manuals --targets de,ja,pt-br --output 'out/{lang}/{dir}/{stem}.{lang}.{ext}'
  $ locsync init --force                                  start over

Then: locsync validate; locsync sync. Exit codes: 0 written, 2 bad flag or file exists (use --force).`,
    )
    .action(lazyAction(() => import('./init.js'), 'initAction'));
}

/** `locsync validate`: check a manifest and its style list files without calling the service. */
export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('check the manifest and its style list files (no call to the service); exit 2 when invalid')
    .option(...CONFIG_OPTION)
    .option('--json', 'print the result as JSON')
    .action(lazyAction(() => import('./validate.js'), 'validateAction'));
}

/** `locsync plan`: what `sync` would do (style lists, then files), changing nothing. */
export function registerPlan(program: Command): void {
  program
    .command('plan')
    .description(
      'show what sync would do: style list changes (+ create, ~ update, -/+ replace, - delete), drift, files',
    )
    .option(...CONFIG_OPTION)
    .option(
      '--detailed-exitcode',
      'exit 0 when nothing would change, 3 when changes are pending (2 configuration error, 1 other error)',
    )
    .option('--json', 'print the plan as JSON')
    .option(
      '--out <file>',
      'also save the plan to this file (also -out, as terraform spells it); `sync --plan <file>` carries it out',
    )
    .option(
      '--why <file>',
      'say why a source file would be translated (or not): for a changed document, which parts changed, e.g. "word/document.xml: paragraph 12 text"',
    )
    .option(
      '--retry-failed-qa',
      'plan (and price) translating again the outputs that failed the output checks (docs/qa.md), as `sync --retry-failed-qa` would',
    )
    .addOption(DRIFT_OPTION())
    .action(lazyAction(() => import('./plan.js'), 'planAction'));
}

/** `locsync styles apply | pull`. */
export function registerStyles(program: Command): void {
  const styles = program
    .command('styles')
    .description('style lists and glossaries: apply the YAML to the service; pull style lists');
  styles
    .command('apply')
    .description(
      "make the service's style lists and glossaries match the YAML: shows the plan, asks before deleting (exit 1 on drift under policy fail)",
    )
    .option(...CONFIG_OPTION)
    .option('--only <key...>', 'only these style lists or glossaries (keys of style_lists, glossaries)')
    .addOption(DRIFT_OPTION())
    .option('-n, --dry-run', 'show the plan; change nothing')
    .option('-y, --yes', 'delete without asking (needed off a terminal when the plan deletes)')
    .option('--json', 'print the plan and what was applied as JSON')
    .action(lazyAction(() => import('./styles.js'), 'stylesApplyAction'));
  styles
    .command('pull')
    .description("write the service's style lists (also ones made elsewhere) as YAML files, one per list")
    .option(...CONFIG_OPTION)
    .option('--out <dir>', 'folder for the files (default: styles/ beside the manifest)')
    .option('--json', 'print the files written as JSON')
    .action(lazyAction(() => import('./styles.js'), 'stylesPullAction'));
}

/** `locsync sync`: bring every output folder up to date (style lists first, then documents). */
export function registerSync(program: Command): void {
  program
    .command('sync')
    .description(
      'translate what changed: style lists first, then every new or changed document (exit 0 all done, 1 some failed, 2 configuration error, 4 locked, 5 budget reached, 130 interrupted)',
    )
    .option(...CONFIG_OPTION)
    .option('-n, --dry-run', 'print the priced plan (as `plan` does); upload nothing, write nothing')
    .option('--only <mapping...>', 'work on these mappings only')
    .option(
      '--retranslate <what>',
      `billed again: ${RETRANSLATE_CHOICES.map((c) => `${c}: ${RETRANSLATE_WORDS[c]}`).join('; ')} (comma-separated for several); without a terminal only with --yes`,
    )
    .option(
      '--retry-failed-qa',
      'upload again (billed) the documents whose output failed a hard check (docs/qa.md); otherwise they wait',
    )
    .option(
      '--plan <file>',
      'carry out exactly the plan saved by `plan -out <file>`; refused (exit 2) if anything moved on',
    )
    .option(
      '--max-billed <characters>',
      'this run may bill at most this many characters (replaces budget.per_run)',
    )
    .option(
      '--overwrite-edits',
      'replace outputs edited by people with the new translation (default: kept, the new one written beside them); without a terminal only with --yes',
    )
    .option('--yes', 'confirm an option that re-bills existing outputs (needed without a terminal)')
    .option(
      '--commit',
      'commit exactly the outputs this run wrote or removed, in one git commit (your staged changes stay staged); git.commit in the manifest does it too',
    )
    .option('--push', 'with --commit: push the branch to its upstream (never forced); git.push does it too')
    .option('--json', 'print the summary as JSON on stdout')
    .addOption(DRIFT_OPTION())
    .action(lazyAction(() => import('./sync.js'), 'syncAction'));
}

/** `locsync watch`: keep the output folders translated while files arrive (runs until a signal). */
export function registerWatch(program: Command): void {
  program
    .command('watch')
    .description(
      'keep running: translate documents as they arrive or change (same rules as sync); SIGINT/SIGTERM stop it within watch.shutdown seconds (exit 0), 1 on an internal error, 2 on a configuration error, 4 when another locsync holds the state',
    )
    .option(...CONFIG_OPTION)
    .action(lazyAction(() => import('./watch.js'), 'watchAction'));
}

/** `locsync status`: last runs, jobs in flight, failures and what to do, stale outputs. */
export function registerStatus(program: Command): void {
  program
    .command('status')
    .description(
      'show the last runs, jobs in flight and how long they have waited, failures with what to do, stale outputs (reads state.db; no call to the service)',
    )
    .option(...CONFIG_OPTION)
    .option('--json', 'print the status as JSON on stdout')
    .option('--runs <n>', 'how many recent runs to show', '5')
    .option('--no-scan', 'skip scanning the source folders (no stale outputs; faster on huge trees)')
    .addHelpText(
      'after',
      `
Examples:
  $ locsync status                       the pipeline.yaml in this folder
  $ locsync status -c /srv/docs/pipeline.yaml --json | jq .failures
  $ locsync status --no-scan --runs 20   recent history only

Exit codes: 0 all well, 1 some jobs failed (listed with what to do), the last run failed or\ncrashed, or an edited output is in conflict with a new translation, 2 configuration error.`,
    )
    .action(lazyAction(() => import('./status.js'), 'statusAction'));
}

/** `locsync check [paths]`: the output checks on delivered outputs, without the service. */
export function registerCheck(program: Command): void {
  program
    .command('check [paths...]')
    .description(
      "run the output checks (docs/qa.md) on translations already delivered: every output the state records, or the files and folders given; no call to the service. Verdicts of the pipeline's outputs are recorded (status lists failed and flagged ones); nothing is moved",
    )
    .option(...CONFIG_OPTION)
    .option('--source <file>', 'the source the given output translates (a file from elsewhere)')
    .option('--target <lang>', "the output's language, with --source or for a file no mapping renders")
    .option('--json', 'print every output checked with its verdict and findings as JSON')
    .addHelpText(
      'after',
      `
Examples:
  $ locsync check                                   every delivered output (after an upgrade)
  $ locsync check out/de                            the outputs in a folder, their sources found in the state or the mappings
  $ locsync check vendor/de/guide.docx --source docs/guide.docx --target de
  $ locsync check --json | jq '.outputs[] | select(.outcome != "pass")'

Exit codes: 0 no output failed (flagged ones are listed), 1 some output failed a check, 2 configuration\nerror or an output whose source is known nowhere (give --source).`,
    )
    .action(lazyAction(() => import('./check.js'), 'checkAction'));
}

/** `locsync report`: billed characters and documents from state.db, minimums apart. */
export function registerReport(program: Command): void {
  program
    .command('report')
    .description(
      'billed characters and documents from state.db, by language, mapping, month or cost centre, with the 50,000-character minimums shown apart (no call to the service, but for --reconcile)',
    )
    .option(...CONFIG_OPTION)
    .option(
      '--since <date>',
      'count documents finished on or after this date (YYYY-MM-DD, YYYY-MM or ISO time)',
    )
    .addOption(new Option('--by <what>', 'group rows by').choices([...REPORT_BY]).default('language'))
    .option(
      '--no-count',
      'do not count the real characters of minimum-billed documents (read from their unchanged source files)',
    )
    .option('--json', 'print the report as JSON (the same as --format json)')
    .addOption(
      new Option('--format <format>', 'output format (html: a self-contained page with charts)')
        .choices(['table', 'csv', 'json', 'html'])
        .default('table'),
    )
    .option('-o, --output <file>', 'write the report to this file instead of stdout')
    .option(
      '--reconcile',
      "compare with the service's usage (GET /v2/usage) for its billing period; exit 1 when the gap is above --threshold",
    )
    .option('--threshold <characters>', 'the gap --reconcile accepts (default 1,000)')
    .addHelpText(
      'after',
      `
Examples:
  $ locsync report                               billed characters per target language
  $ locsync report --reconcile                   the service's count against locsync's ledger
  $ locsync report --by month --since 2026-01    per month this year
  $ locsync report --by mapping --format csv -o billing.csv
  $ locsync report --by cost-centre --format csv   per team (billing.cost_centre of each mapping)
  $ locsync report --json | jq .total.billed_characters
  $ locsync report --format html -o report.html   charts by month and language, the minimums' share

Documents reused from identical translations (copies, renames) and unchanged files cost nothing and
are counted as "reused". pptx/docx/doc/xlsx/pdf documents are billed at least 50,000 characters each:
"at minimum" counts those billed exactly the minimum.`,
    )
    .action(lazyAction(() => import('./report.js'), 'reportAction'));
}

/** `locsync state ...`: the state itself (each subcommand's action in its own src/cli/state-*.ts). */
export function registerState(program: Command): void {
  const state = program
    .command('state')
    .description(
      'the state (SQLite file or PostgreSQL database): check, back up, adopt outputs, schema, move between backends',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ locsync state check                  SQLite's integrity check (exit 1 when damaged)
  $ locsync state backup                 a consistent copy beside the state (safe while sync runs)
  $ locsync state backup --out /backup/state.db
  $ locsync state adopt                  a lost state: record the translations on disk, bill nothing
  $ locsync state migrate                      create or update the schema of the manifest's state
  $ PGPASSWORD=... locsync state migrate -c /srv/docs/pipeline.yaml --json
  $ locsync state import .locsync/state.db     move a SQLite pipeline onto PostgreSQL (manifest: state: postgres://…)
  $ locsync state export --to sqlite back.db   and back

A PostgreSQL state (state: postgres://user@host:5432/db) is shared by several workers; see docs/postgres.md.
sync keeps automatic backups beside a SQLite state (state_backups in the manifest).`,
    );
  state
    .command('check')
    .description("run SQLite's integrity check on the state file (read-only); exit 1 when it is damaged")
    .option(...CONFIG_OPTION)
    .option('--json', 'print the result as JSON')
    .action(lazyAction(() => import('./state-check.js'), 'stateCheckAction'));
  state
    .command('backup')
    .description(
      "write a consistent copy of the state file with SQLite's online backup API (safe while sync runs)",
    )
    .option(...CONFIG_OPTION)
    .option('--out <file>', 'where to write it (default: <state>.backup-<UTC time>-manual beside it)')
    .option('--json', 'print where it was written as JSON')
    .action(lazyAction(() => import('./state-backup.js'), 'stateBackupAction'));
  state
    .command('adopt')
    .description(
      'after the state was lost or emptied: record each existing output newer than its source as done for the current settings (nothing billed); lists what it cannot vouch for',
    )
    .option(...CONFIG_OPTION)
    .option('--json', 'print the outputs adopted and those not vouched for (with why) as JSON')
    .action(lazyAction(() => import('./state-adopt.js'), 'stateAdoptAction'));
  state
    .command('migrate')
    .description(
      "create or update the state's schema (sync and watch also do it; exit 1 when PostgreSQL cannot be reached)",
    )
    .option(...CONFIG_OPTION)
    .option('--json', 'print the result as JSON')
    .action(lazyAction(() => import('./state.js'), 'stateMigrateAction'));
  state
    .command('export')
    .description(
      'copy the PostgreSQL state (every job, with what was paid and the ids and keys of unfinished ones; files, runs, style lists) into a new SQLite state file',
    )
    .argument('<file>', 'the SQLite state file to write (must not exist)')
    .requiredOption('--to <backend>', 'the backend of FILE: sqlite')
    .option(...CONFIG_OPTION)
    .option('--json', 'print the counts as JSON')
    .action(lazyAction(() => import('./state.js'), 'stateExportAction'));
  state
    .command('import')
    .description("copy a SQLite state file into the manifest's PostgreSQL state (which must be empty)")
    .argument('<file>', 'the SQLite state file to read')
    .option(...CONFIG_OPTION)
    .option('--json', 'print the counts as JSON')
    .action(lazyAction(() => import('./state.js'), 'stateImportAction'));
}

/** `locsync completion bash|zsh|fish`: a shell completion script on stdout. */
export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText(
      'after',
      `
Examples:
  $ locsync completion bash | sudo tee /etc/bash_completion.d/locsync
  $ source <(locsync completion bash)                         this shell only
  $ locsync completion zsh > "\${fpath[1]}/_locsync"
  $ locsync completion fish > ~/.config/fish/completions/locsync.fish`,
    )
    .action(lazyAction(() => import('./completion.js'), 'completionAction'));
}

/** `locsync memory ...`: the segment memory moved in and out (docs/memory.md; src/cli/memory.ts). */
export function registerMemory(program: Command): void {
  const memory = program
    .command('memory')
    .description(
      'the translation memory (the segment memory of method: segments): import and export TMX, align translations made before locsync, stats, forget',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ locsync memory import trados-export.tmx                the units of every language pair of the manifest
  $ locsync memory import old.tmx --mapping docs --origin reviewed
  $ locsync memory export --format tmx -o memory.tmx --lang de
  $ locsync memory align                                    existing outputs paired with their sources
  $ locsync memory stats
  $ locsync memory forget --import 3                       take one import back

See docs/memory.md.`,
    );
  memory
    .command('import')
    .description(
      'store the units of a TMX file (1.4b; UTF-8 or UTF-16) in the memory, for the language pairs of the manifest: used before the service is asked, whatever the style list or glossary; one transaction (a broken file stores nothing)',
    )
    .argument('<file>', 'the TMX file')
    .option('--origin <origin>', 'imported (default) or reviewed (preferred to imported ones)')
    .option('--mapping <name>', 'only the language pairs of this mapping')
    .option(...CONFIG_OPTION)
    .option('--json', 'print the summary as JSON')
    .action(lazyAction(() => import('./memory.js'), 'memoryImportAction'));
  memory
    .command('export')
    .description('write the memory as a TMX 1.4b file (one unit per segment and language)')
    .option('--format <format>', 'tmx', 'tmx')
    .option('-o, --out <file>', 'the file to write')
    .option('--lang <lang>', 'only translations into this language')
    .option('--origin <origin...>', 'only these origins: service, reviewed, imported')
    .option(...CONFIG_OPTION)
    .option('--json', 'print the summary as JSON')
    .action(lazyAction(() => import('./memory.js'), 'memoryExportAction'));
  memory
    .command('align')
    .description(
      'seed the memory with translations made before locsync: each source paired with the output at its place; documents whose segments pair up are stored as reviewed, the others listed with where they part',
    )
    .option('--mapping <name>', 'only this mapping')
    .option('--lang <lang>', 'only this target language')
    .option(...CONFIG_OPTION)
    .option('--json', 'print the summary as JSON')
    .action(lazyAction(() => import('./memory.js'), 'memoryAlignAction'));
  memory
    .command('stats')
    .description('translations per language pair and origin, the imports, the size in the state')
    .option(...CONFIG_OPTION)
    .option('--json', 'print them as JSON')
    .action(lazyAction(() => import('./memory.js'), 'memoryStatsAction'));
  memory
    .command('forget')
    .description('remove the translations of one origin, or of one import (memory stats lists them)')
    .option('--origin <origin>', 'service, reviewed or imported')
    .option('--import <id>', 'the number of an import')
    .option(...CONFIG_OPTION)
    .option('--json', 'print the count as JSON')
    .action(lazyAction(() => import('./memory.js'), 'memoryForgetAction'));
}

/** `locsync xliff ...`: a translator's round trip through XLIFF (docs/xliff.md; src/cli/xliff.ts). */
export function registerXliff(program: Command): void {
  const xliff = program
    .command('xliff')
    .description(
      "a translator's round trip: export the segments as XLIFF (1.2 or 2.1), import their work as reviewed wording",
    )
    .addHelpText(
      'after',
      `
Examples:
  $ locsync xliff export --lang de -o de.xlf              every segment into German, with its wording now
  $ locsync xliff export --only unreviewed -o todo.xlf    only segments no person has reviewed
  $ locsync xliff export --xliff 2.1 -o xliff/            XLIFF 2.1, a file per language (xliff/de.xlf, …)
  $ locsync xliff import de.xlf                           changed targets become reviewed wording

See docs/xliff.md.`,
    );
  xliff
    .command('export')
    .description('write the segments of the documents (one <file> per document and language) as XLIFF')
    .option(
      '-o, --out <file or folder>',
      'the file to write, or a folder (existing, or ending in /): <lang>.xlf each',
    )
    .option('--mapping <name>', 'only this mapping')
    .option('--lang <lang>', 'only this target language')
    .option('--only <which>', 'all (default), unreviewed, or changed (since --since)')
    .option(
      '--since <run or ref>',
      'only what changed since a run id (its later deliveries) or a git ref (new source segments)',
    )
    .option('--xliff <version>', 'XLIFF version: 1.2 or 2.1 (one target language per file)', '1.2')
    .option(...CONFIG_OPTION)
    .option('--json', 'print the summary as JSON')
    .action(lazyAction(() => import('./xliff.js'), 'xliffExportAction'));
  xliff
    .command('import')
    .description(
      'store the changed targets of XLIFF files as reviewed wording; a unit whose source changed or whose inline tags were dropped is refused by name (exit 1)',
    )
    .argument('<files...>', 'the XLIFF files')
    .option(...CONFIG_OPTION)
    .option('--json', 'print the summary as JSON')
    .action(lazyAction(() => import('./xliff.js'), 'xliffImportAction'));
}
