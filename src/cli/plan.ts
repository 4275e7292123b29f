import { scrub } from '../log/secrets.js';
import { countActions, formatStylePlan } from '../styles/format.js';
import { reconcileStyles, type StylePlan } from '../styles/reconcile.js';
import type { SyncPlan } from '../sync/engine.js';
import { ConfigError, EXIT } from '../util/errors.js';
import { needsStyles, withStyleContext } from './styles.js';

interface PlanOptions {
  config: string;
  detailedExitcode?: boolean;
  json?: boolean;
}

const EMPTY_STYLES: StylePlan = { actions: [], drift: [], styleIds: {}, changedKeys: [] };
/** Lines shown per category of files in text output (--json has them all). */
const MAX_FILE_LINES = 50;

/** Whether running sync (and styles apply) would change anything. */
function hasChanges(styles: StylePlan, files: SyncPlan): boolean {
  return (
    styles.actions.length > 0 ||
    styles.drift.length > 0 ||
    files.toTranslate.length + files.toReuse.length + files.toResume.length + files.toDelete.length > 0
  );
}

function section<T>(title: string, items: T[], line: (item: T) => string): string[] {
  if (!items.length) return [];
  const shown = items.slice(0, MAX_FILE_LINES).map((i) => `  ${line(i)}`);
  if (items.length > MAX_FILE_LINES)
    shown.push(`  ... and ${items.length - MAX_FILE_LINES} more (--json lists all)`);
  return [`${title}:`, ...shown];
}

// ---- The file part: what the sync engine would do (planSync of src/sync, issue 6). ----
function formatFiles(p: SyncPlan): string {
  const lines = [
    ...section(
      'Files to translate (billed)',
      p.toTranslate,
      (i) => `+ ${i.file} → ${i.output} (${i.target}, ${i.why})`,
    ),
    ...section(
      'Outputs to copy from identical translations (not billed)',
      p.toReuse,
      (i) => `= ${i.output} ← ${i.from}`,
    ),
    ...section('Uploads to resume', p.toResume, (i) => `> ${i.file} → ${i.output} (${i.target})`),
    ...section(
      'Stale outputs (made with an older style list; `sync --retranslate stale` re-translates them, billed)',
      p.stale,
      (i) => `* ${i.output}`,
    ),
    ...section('Outputs to delete (source deleted)', p.toDelete, (f) => `- ${f}`),
    ...section('Given up after repeated failures', p.gaveUp, (i) => `x ${i.file} (${i.target})`),
    ...section('Unsupported files', p.unsupported, (s) => `? ${s.file}: ${s.message}`),
  ];
  const summary =
    `Files: ${p.toTranslate.length} to translate, ${p.toReuse.length} to reuse, ${p.toResume.length} to resume, ` +
    `${p.stale.length} stale, ${p.toDelete.length} to delete, ${p.unchanged} unchanged.`;
  return [...lines, ...(lines.length ? [''] : []), summary].join('\n');
}

async function plan(opts: PlanOptions): Promise<number> {
  return withStyleContext(
    opts.config,
    { connect: needsStyles },
    async ({ loaded, state, logger, connection }) => {
      const styles = connection
        ? await reconcileStyles({ loaded, client: connection.client, state, apply: false, logger })
        : EMPTY_STYLES;
      const { planSync } = await import('../sync/engine.js');
      const files = await planSync({ loaded, state, styles, logger });
      if (opts.json) {
        const out = {
          styles: { ...styles, summary: countActions(styles) },
          files,
          changes: hasChanges(styles, files),
        };
        process.stdout.write(JSON.stringify(out, null, 2) + '\n');
      } else {
        process.stdout.write(`${formatStylePlan(styles)}\n\n${formatFiles(files)}\n`);
      }
      if (!opts.detailedExitcode) return EXIT.ok;
      return hasChanges(styles, files) ? 2 : EXIT.ok;
    },
  );
}

export async function planAction(opts: PlanOptions): Promise<void> {
  if (!opts.detailedExitcode) {
    process.exitCode = await plan(opts);
    return;
  }
  // Like terraform: with --detailed-exitcode every error (configuration too) exits 1, as 2 means "changes".
  try {
    process.exitCode = await plan(opts);
  } catch (err) {
    const text = err instanceof ConfigError ? err.format() : err instanceof Error ? err.message : String(err);
    process.stderr.write(`locsync: ${scrub(text)}\n`);
    process.exitCode = EXIT.failed;
  }
}
