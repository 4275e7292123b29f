import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { importTmx, type ImportSummary } from '../../src/memory/import.js';
import type { BroughtOrigin } from '../../src/state/memory-types.js';
import type { Fixture } from '../sync/fixture.js';

// What the translation memory's tests share: Debian's translate-toolkit (po2tmx, and its TMX reader
// through Debian's python), and an import into a fixture's state in this process.

export const PO2TMX = '/usr/bin/po2tmx';
const PYTHON = '/usr/bin/python3';

/** translate-toolkit is installed (Debian's package; .ci/run installs it). */
export const haveToolkit = fs.existsSync(PO2TMX);
export const TOOLKIT_NOTICE =
  'translate-toolkit is not installed (apt-get install -y translate-toolkit): the tests that use po2tmx and its TMX reader are skipped';
if (!haveToolkit) console.warn(TOOLKIT_NOTICE);

/** A gettext catalogue of these pairs. */
export function poFile(pairs: ReadonlyArray<[string, string]>): string {
  const q = (s: string) => JSON.stringify(s);
  return [
    'msgid ""',
    'msgstr ""',
    '"Content-Type: text/plain; charset=UTF-8\\n"',
    '',
    ...pairs.flatMap(([s, t]) => [`msgid ${q(s)}`, `msgstr ${q(t)}`, '']),
  ].join('\n');
}

/** A TMX made by translate-toolkit's po2tmx from these pairs (en-US → `lang`). */
export function po2tmx(dir: string, pairs: ReadonlyArray<[string, string]>, lang = 'de-DE'): string {
  const po = path.join(dir, 'memory.po');
  const tmx = path.join(dir, 'memory.tmx');
  fs.writeFileSync(po, poFile(pairs));
  execFileSync(PO2TMX, ['-l', lang, '--source-language=en-US', po, tmx], { stdio: 'ignore' });
  return tmx;
}

/** The units of a TMX file as translate-toolkit reads them: [source, target] each. */
export function toolkitUnits(file: string): Array<[string, string]> {
  const script = [
    'import json, sys',
    'from translate.storage import tmx',
    's = tmx.tmxfile.parsefile(sys.argv[1])',
    'print(json.dumps([[u.source, u.target] for u in s.units]))',
  ].join('\n');
  return JSON.parse(execFileSync(PYTHON, ['-c', script, file], { encoding: 'utf8' })) as Array<
    [string, string]
  >;
}

/** `memory import` in this process, on the fixture's state (either backend). */
export async function importInto(
  fx: Fixture,
  file: string,
  opts: { origin?: BroughtOrigin; mapping?: string } = {},
): Promise<ImportSummary> {
  const loaded = await fx.load();
  const opened = await fx.open();
  try {
    return await importTmx(loaded, opened.state.memory!, {
      file,
      origin: opts.origin ?? 'imported',
      ...opts,
    });
  } finally {
    await opened.close();
  }
}
