import type { Command } from 'commander';
import { Option } from 'commander';
import { REPORT_BY } from '../report/queries.js';

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

/** `locsync serve`: the local service (src/service) until SIGINT/SIGTERM. */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Run the local translation service (the whole spec, no account, no network)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free port)', '8787')
    .option('--auth-key <key>', 'accepted API key (also env LOCSYNC_SERVE_KEY); default: any non-empty key')
    .option('--plan <plan>', 'pro or free (free: style rules answer 403)', 'pro')
    .option(
      '--data <dir>',
      'keep style lists, jobs and files in this folder across restarts (default: in memory)',
    )
    .option('--phrasebook <file>', 'YAML or TSV phrasebook of exact translations')
    .option('--queue-seconds <s>', 'time a document waits queued (default 1)')
    .option('--translate-seconds <s>', 'time a document takes translating (default 2)')
    .option('--workers <n>', 'documents translated concurrently (default 4)')
    .option(
      '--max-undownloaded <n>',
      'translated documents waiting for download before uploads answer 429 (default 100)',
    )
    .option(
      '--faults <json>',
      'faults to inject: a JSON FaultSpec or array, or @file (see docs/local-service.md)',
    )
    .option('--log-level <level>', 'log requests at this level (info, debug ...); default: silent')
    .action(lazyAction(() => import('./serve.js'), 'serveAction'));
}

/** `locsync init`: write a commented starter pipeline.yaml in the current folder (asks nothing). */
export function registerInit(program: Command): void {
  program
    .command('init')
    .description('write a commented starter manifest (pipeline.yaml) in the current folder; asks nothing')
    .option('--source <dir>', 'folder of documents to translate, relative to the manifest', 'docs')
    .option('--targets <langs>', 'target languages, comma-separated', 'de,fr')
    .option(
      '--output <pattern>',
      'where translations go ({lang}, {path} ... placeholders)',
      'translated/{lang}/{path}',
    )
    .option('-c, --config <file>', 'manifest to write', 'pipeline.yaml')
    .option('--force', 'overwrite an existing manifest')
    .addHelpText(
      'after',
      `
Examples:
  $ locsync init                                          docs/ -> translated/de, translated/fr
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
    .option('--detailed-exitcode', 'exit 0 when nothing would change, 2 when changes are pending, 1 on error')
    .option('--json', 'print the plan as JSON')
    .action(lazyAction(() => import('./plan.js'), 'planAction'));
}

/** `locsync styles apply | pull`. */
export function registerStyles(program: Command): void {
  const styles = program
    .command('styles')
    .description('style lists: apply the YAML to the service, or pull them');
  styles
    .command('apply')
    .description("make the service's style lists match the YAML (exit 1 on drift under policy fail)")
    .option(...CONFIG_OPTION)
    .option('--only <key...>', 'only these style lists (keys of style_lists)')
    .action(lazyAction(() => import('./styles.js'), 'stylesApplyAction'));
  styles
    .command('pull')
    .description("write the service's style lists (also ones made elsewhere) as YAML files, one per list")
    .option(...CONFIG_OPTION)
    .option('--out <dir>', 'folder for the files (default: styles/ beside the manifest)')
    .action(lazyAction(() => import('./styles.js'), 'stylesPullAction'));
}

/** `locsync sync`: bring every output folder up to date (style lists first, then documents). */
export function registerSync(program: Command): void {
  program
    .command('sync')
    .description(
      'translate what changed: style lists first, then every new or changed document (exit 0 all done, 1 some failed, 2 configuration error)',
    )
    .option(...CONFIG_OPTION)
    .option('-n, --dry-run', 'show what would be done; upload nothing, write nothing')
    .option('--only <mapping...>', 'work on these mappings only')
    .option(
      '--retranslate <what>',
      '"stale": re-translate outputs made with an older version of their style list (billed)',
    )
    .option('--json', 'print the summary as JSON on stdout')
    .action(lazyAction(() => import('./sync.js'), 'syncAction'));
}

/** `locsync watch`: keep the output folders translated while files arrive (runs until a signal). */
export function registerWatch(program: Command): void {
  program
    .command('watch')
    .description(
      'keep running: translate documents as they arrive or change (same rules as sync); SIGINT/SIGTERM stop it within watch.shutdown seconds (exit 0), 1 on an internal error, 2 on a configuration error',
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

Exit codes: 0 all well, 1 some jobs failed (listed with what to do) or the last run failed or\ncrashed, 2 configuration error.`,
    )
    .action(lazyAction(() => import('./status.js'), 'statusAction'));
}

/** `locsync report`: billed characters and documents from state.db, minimums apart. */
export function registerReport(program: Command): void {
  program
    .command('report')
    .description(
      'billed characters and documents from state.db, by language, mapping or month, with the 50,000-character minimums shown apart (no call to the service)',
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
    .addOption(
      new Option('--format <format>', 'output format').choices(['table', 'csv', 'json']).default('table'),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ locsync report                               billed characters per target language
  $ locsync report --by month --since 2026-01    per month this year
  $ locsync report --by mapping --format csv > billing.csv

Documents reused from identical translations (copies, renames) and unchanged files cost nothing and
are counted as "reused". pptx/docx/doc/xlsx/pdf documents are billed at least 50,000 characters each:
"at minimum" counts those billed exactly the minimum.`,
    )
    .action(lazyAction(() => import('./report.js'), 'reportAction'));
}
