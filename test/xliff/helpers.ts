import { execFileSync } from 'node:child_process';
import type { XliffUnit } from '../../src/xliff/reader.js';
import type { Fixture } from '../sync/fixture.js';

// What the XLIFF round-trip tests share: translate-toolkit's XLIFF store rewriting a file as a CAT
// tool would (its own serialisation, states changed), and a fixture's state opened for a call.

/**
 * Rewrites targets with translate-toolkit's XLIFF store, marked approved: `targets` maps a unit's
 * source text or its resname (document#index) to its new target.
 */
export function toolkitRewrite(file: string, targets: Record<string, string>): void {
  const script = `
import json, sys
from translate.storage import xliff
store = xliff.xlifffile.parsefile(sys.argv[1])
targets = json.loads(sys.argv[2])
for unit in store.units:
    key = unit.source if unit.source in targets else unit.xmlelement.get('resname')
    if key in targets:
        unit.target = targets[key]
        unit.markapproved(True)
store.save()
`;
  execFileSync('/usr/bin/python3', ['-c', script, file, JSON.stringify(targets)]);
}

/** `work` with the fixture's state open (closed after). */
export async function withState<T>(
  f: Fixture,
  work: (o: Awaited<ReturnType<Fixture['open']>>) => Promise<T>,
): Promise<T> {
  const opened = await f.open();
  try {
    return await work(opened);
  } finally {
    await opened.close();
  }
}

export interface ChosenWording {
  resname: string;
  /** The unit's source text. */
  source: string;
  /** The translator's wording of it. */
  wording: string;
}

/**
 * Per document (its path in the source folder), the first unit without inline tags, given a
 * translator's wording: plain text keeps the comparison of outputs free of tag handling.
 */
export function chooseWording(units: readonly XliffUnit[]): Map<string, ChosenWording> {
  const chosen = new Map<string, ChosenWording>();
  for (const u of units) {
    const doc = u.file.replace(/^src\//, '');
    if (chosen.has(doc) || u.source.some((i) => i.t !== 'text')) continue;
    const source = u.source.map((i) => (i.t === 'text' ? i.text : '')).join('');
    chosen.set(doc, { resname: u.resname, source, wording: `Übersetzt: ${source.slice(0, 30)}` });
  }
  return chosen;
}

/** An output's segment texts once the chosen wording is in: `before` with each source taken replaced. */
export function withChosenWording(
  before: readonly string[],
  sources: readonly string[],
  chosen: ReadonlyMap<string, ChosenWording>,
): string[] {
  const wording = new Map([...chosen.values()].map((c) => [c.source, c.wording]));
  return before.map((t, i) => wording.get(sources[i]!) ?? t);
}
