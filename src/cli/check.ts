import { silentLogger } from '../log/logger.js';
import { printable } from '../log/printable.js';
import { loadManifest } from '../manifest/load.js';
import { extensionOf } from '../documents/format-registry.js';
import { checkOutput } from '../qa/check-output.js';
import { describeFinding, type QaResult } from '../qa/checks.js';
import { outputContextOf, qaSettingsOf } from '../qa/settings.js';
import { ConfigError, EXIT } from '../util/errors.js';
import { deliveredOutputs, outputsAt, type DeliveredOutput } from './check-outputs.js';
import { openRunState } from './open-state.js';

// `locsync check [paths]` (docs/qa.md): the output checks on outputs already delivered (after an
// upgrade brought new checks, or on files from elsewhere), without the service. Outputs of the
// pipeline get their verdict recorded in the state (status lists it); nothing is moved: a failed
// output stays where it is, for a person to decide.

export interface CheckOptions {
  config: string;
  source?: string;
  target?: string;
  json?: boolean;
}

interface Checked {
  output: string;
  source: string | null;
  target: string | null;
  outcome: QaResult['outcome'];
  findings: QaResult['findings'];
}

async function checkOne(
  loaded: Awaited<ReturnType<typeof loadManifest>>,
  o: DeliveredOutput,
): Promise<QaResult> {
  const ctx = o.mapping
    ? outputContextOf(loaded, o.mapping, o.targetLang ?? '')
    : {
        settings: qaSettingsOf(undefined),
        sourceLang: undefined,
        glossary: undefined,
        readOf: () => undefined,
      };
  const read = ctx.readOf(extensionOf(o.sourceAbs ?? o.outputAbs));
  const r = await checkOutput({
    source: o.sourceAbs ? { path: o.sourceAbs, format: extensionOf(o.sourceAbs), read } : undefined,
    output: { path: o.outputAbs, format: extensionOf(o.outputAbs), read },
    // Without a target language the language check has nothing to compare with: it is left out.
    targetLang: (o.targetLang ?? '').toLowerCase(),
    sourceLang: ctx.sourceLang,
    glossary: ctx.glossary,
    settings: o.targetLang
      ? ctx.settings
      : { ...ctx.settings, ignore: [...ctx.settings.ignore, 'language', 'length'] },
  });
  return { outcome: r.outcome, findings: r.findings };
}

export async function checkAction(paths: string[], opts: CheckOptions): Promise<void> {
  if (opts.source !== undefined && paths.length === 0)
    throw new ConfigError('--source needs the output to check: locsync check <output> --source <file>');
  const loaded = await loadManifest(opts.config);
  const opened = await openRunState(loaded, { logger: silentLogger(), command: 'check', drives: false });
  const results: Checked[] = [];
  try {
    const outputs =
      paths.length > 0
        ? await outputsAt(loaded, opened.state.jobs, paths, { source: opts.source, target: opts.target })
        : await deliveredOutputs(loaded, opened.state.jobs);
    const unknown = outputs.filter((o) => o.sourceAbs === undefined && o.targetLang === undefined);
    if (unknown.length > 0)
      throw new ConfigError(
        `no source known for ${unknown.map((o) => o.outputRel).join(', ')}: not in the state, and no mapping renders it; give its source: locsync check <output> --source <file> --target <lang> (or --target alone for the output's own checks)`,
      );
    for (const o of outputs) {
      const result = await checkOne(loaded, o);
      if (o.mapping !== undefined && o.targetLang !== undefined)
        await opened.state.qaResults?.record({
          output_path: o.outputRel,
          job_id: o.jobId,
          mapping: o.mapping,
          rel_path: o.relPath,
          target_lang: o.targetLang,
          outcome: result.outcome,
          findings: JSON.stringify(result.findings),
          checked_at: new Date().toISOString(),
        });
      results.push({
        output: o.outputRel,
        source: o.sourceAbs ?? null,
        target: o.targetLang ?? null,
        ...result,
      });
    }
  } finally {
    await opened.close();
  }
  if (opts.json) process.stdout.write(JSON.stringify({ outputs: results }, null, 2) + '\n');
  else process.stdout.write(formatChecked(results) + '\n');
  process.exitCode = results.some((r) => r.outcome === 'failed') ? EXIT.failed : EXIT.ok;
}

function formatChecked(results: readonly Checked[]): string {
  const lines: string[] = [];
  for (const r of results) {
    if (r.outcome === 'pass') continue;
    lines.push(`${r.outcome}: ${r.output}${r.source ? '' : ' (source unknown: its own checks only)'}`);
    for (const f of r.findings) lines.push(`  ${describeFinding(f)}`);
  }
  const count = (o: QaResult['outcome']) => results.filter((r) => r.outcome === o).length;
  lines.push(
    `Checked ${results.length} outputs: ${count('pass')} passed, ${count('flagged')} flagged, ${count('failed')} failed${count('failed') ? '; failed outputs are left where they are: look at each; deleting one makes the next sync translate it again (billed)' : ''}`,
  );
  return lines.map(printable).join('\n');
}
