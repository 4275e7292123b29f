import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { formatPlanPrice } from '../../src/sync/plan/format-price.js';
import type { PlanPrice } from '../../src/billing/plan-price.js';
import { buildProgram } from '../../src/cli/main.js';
import type { LoadedManifest } from '../../src/manifest/load.js';
import { sourceMissingMessage } from '../../src/manifest/source-missing.js';
import { adviceFor, outcomeAdvice } from '../../src/report/advice.js';
import type { RunRecord, RunStopReason } from '../../src/state/types.js';
import { emptySummary, formatSummary } from '../../src/sync/summary.js';
import {
  ADVISED,
  RETRANSLATE_CHOICES,
  requireYesOffTerminal,
  STALE_ADVICE,
  staleAdvice,
} from '../../src/sync/plan/retranslate.js';

// Every command that advice tells a person to type parses with the real command line: no option
// that the command does not have, no choice it does not take.

const CFG = ' -c team/pipeline.yaml';
const manifest = {
  manifest: { service: { key_env: 'LOCSYNC_API_KEY' }, max_attempts: 3 },
} as unknown as LoadedManifest;

/** Every piece of advice the code can give (each stale reason, outcome and failure kind). */
function everyAdvice(): string[] {
  const out: string[] = [];
  out.push(staleAdvice(3), staleAdvice(1, CFG));
  for (const c of RETRANSLATE_CHOICES) out.push(`\`${ADVISED.retranslate(c, CFG)}\``);
  out.push(`\`${ADVISED.price(CFG)}\``);
  try {
    requireYesOffTerminal(new Set(['style']), { interactive: false, option: '--retranslate stale' });
  } catch (err) {
    out.push((err as Error).message);
  }
  const totals = {
    documents: 2,
    uploads: 2,
    text_requests: 0,
    billed: 100,
    characters: 100,
    minimum_added: 0,
    uncounted: 0,
  };
  const price = {
    total: { ...totals, documents: 0, uploads: 0, billed: 0 },
    by_target: {},
    by_mapping: {},
    by_reason: {},
    stale: totals,
    stale_by_reason: Object.fromEntries(Object.keys(STALE_ADVICE).map((k) => [k, totals])),
  } as unknown as PlanPrice;
  out.push(...formatPlanPrice(price));
  out.push(formatSummary({ ...emptySummary(1, false), stale: 4 }));
  const statuses: Array<RunRecord['status']> = ['failed', 'crashed', 'interrupted'];
  const reasons: RunStopReason[] = [
    'documents-failed',
    'source-missing',
    'drift',
    'auth',
    'quota',
    'budget',
    'lock',
    'signal',
    'config',
    'internal',
  ];
  for (const s of statuses)
    for (const r of reasons) out.push(outcomeAdvice(s, r, manifest, 'team/pipeline.yaml') ?? '');
  for (const kind of [
    'quota',
    'budget',
    'auth',
    'job-error',
    'maybe-accepted',
    'rejected',
    'transient',
    'output',
    'stopped',
    'lost-download',
    null,
  ])
    out.push(adviceFor(kind, manifest, 1, 'team/pipeline.yaml'));
  out.push(sourceMissingMessage('docs', 'missing'));
  return out;
}

/** The commands in backquotes that start with `locsync ` (placeholders N filled in). */
function commandsIn(text: string): string[][] {
  return [...text.matchAll(/`(locsync [^`]+)`/g)].map((m) =>
    m[1]!.replace(/\bN\b/g, '1000').split(/\s+/).slice(1),
  );
}

/** Parse `args` with the real program, every action replaced by a no-op: throws on a bad option. */
async function parses(args: string[]): Promise<void> {
  const program = buildProgram();
  const quiet = (cmd: Command) => {
    cmd.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
    cmd.action(() => undefined);
    cmd.commands.forEach(quiet);
  };
  program.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  program.commands.forEach(quiet);
  await program.parseAsync(['node', 'locsync', ...args]);
}

describe('advice', () => {
  it('every command that advice names parses with the real command line', async () => {
    const commands = everyAdvice().flatMap(commandsIn);
    // Enough advice was found for the test to mean something.
    expect(commands.length).toBeGreaterThan(20);
    for (const args of commands) await expect(parses(args), args.join(' ')).resolves.toBeUndefined();
  });

  it('advice gives its commands in backquotes (so that the test above sees every one)', () => {
    for (const text of everyAdvice())
      expect(text.replace(/`[^`]*`/g, ''), text).not.toMatch(
        /\blocsync (plan|sync|status|validate|report|styles|watch|state|init)\b/,
      );
  });

  it('a command with an option it does not have is caught', async () => {
    await expect(parses(['plan', '--retranslate', 'stale'])).rejects.toThrow(/unknown option/);
  });

  it('stale advice says what changed in general terms and never names a style list for a glossary edit', () => {
    expect(staleAdvice(2)).not.toMatch(/style list changed/);
    expect(STALE_ADVICE.style.words).toMatch(/glossary/);
  });
});
