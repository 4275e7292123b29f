import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkOutput } from '../../src/qa/check-output.js';
import { DEFAULT_QA_SETTINGS, type QaSettings } from '../../src/qa/checks.js';
import { qaSettingsOf } from '../../src/qa/settings.js';
import { missingTokens, tokensOf } from '../../src/qa/tokens.js';

// The soft checks (docs/qa.md) on real files: each finds what a reviewer would mark, says where,
// and leaves a faithful translation alone.

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'locsync-qa-soft-'));
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

const SOURCE = [
  'Welcome to the project dashboard for the whole team.',
  'Read the guide at https://example.com/guide before you start.',
  'Write to support@example.com when something does not work.',
  'Hello {name}, you have %s new messages and {{count}} alerts.',
  'Run `npm install` in the project folder first.',
  'The invoice total is 1,250.50 euros for 3 licences.',
  'The dashboard shows every document the team translated this week.',
].join('\n');

const GERMAN = [
  'Willkommen in der Projektübersicht für das ganze Team.',
  'Lesen Sie die Anleitung unter https://example.com/guide, bevor Sie beginnen.',
  'Schreiben Sie an support@example.com, wenn etwas nicht funktioniert.',
  'Hallo {name}, Sie haben %s neue Nachrichten und {{count}} Warnungen.',
  'Führen Sie zuerst `npm install` im Projektordner aus.',
  'Die Rechnungssumme beträgt 1.250,50 Euro für 3 Lizenzen.',
  'Die Übersicht zeigt jedes Dokument, das das Team diese Woche übersetzt hat.',
];

let n = 0;
async function check(
  lines: string[],
  opts: { settings?: QaSettings; glossary?: Map<string, string>; targetLang?: string } = {},
) {
  const source = path.join(dir, `source-${n}.txt`);
  const out = path.join(dir, `out-${n++}.txt`);
  await fs.writeFile(source, SOURCE + '\n');
  await fs.writeFile(out, lines.join('\n') + '\n');
  return checkOutput({
    source: { path: source, format: 'txt' },
    output: { path: out, format: 'txt' },
    targetLang: opts.targetLang ?? 'de',
    sourceLang: 'en',
    glossary: opts.glossary,
    settings: opts.settings ?? DEFAULT_QA_SETTINGS,
  });
}

const replaced = (i: number, line: string) => GERMAN.map((l, k) => (k === i ? line : l));

describe('soft output checks', () => {
  it('a faithful translation passes (numbers written the German way are the same numbers)', async () => {
    expect(await check(GERMAN)).toEqual({ outcome: 'pass', findings: [] });
  });

  it('a URL, an e-mail address, inline code or a number of the source missing is flagged, with its line', async () => {
    const r = await check([
      GERMAN[0]!,
      'Lesen Sie die Anleitung, bevor Sie beginnen.',
      'Schreiben Sie an den Support, wenn etwas nicht funktioniert.',
      GERMAN[3]!,
      'Führen Sie zuerst die Installation im Projektordner aus.',
      'Die Rechnungssumme beträgt 1.250,50 Euro für drei Lizenzen.',
      GERMAN[6]!,
    ]);
    expect(r.outcome).toBe('flagged');
    expect(r.findings).toEqual([
      {
        check: 'urls',
        message: 'the URL "https://example.com/guide" missing from the output',
        where: ['line 2'],
      },
      {
        check: 'emails',
        message: 'the e-mail address "support@example.com" missing from the output',
        where: ['line 3'],
      },
      {
        check: 'code',
        message: 'the inline code "`npm install`" missing from the output',
        where: ['line 5'],
      },
      { check: 'numbers', message: 'the number "3" missing from the output', where: ['line 6'] },
    ]);
  });

  it('a placeholder missing fails the output by default (a program would fill in a string without it)', async () => {
    const r = await check(replaced(3, 'Hallo, Sie haben %s neue Nachrichten und Warnungen.'));
    expect(r.outcome).toBe('failed');
    expect(r.failure?.check).toBe('placeholders');
    expect(r.findings).toEqual([
      {
        check: 'placeholders',
        message: '2 placeholders of the source "{name}", "{{count}}" missing from the output',
        where: ['line 4'],
      },
    ]);
  });

  it('a segment left as the source is flagged where it is', async () => {
    const r = await check(replaced(6, SOURCE.split('\n')[6]!));
    expect(r.findings).toEqual([
      {
        check: 'untranslated',
        message: '1 of 7 segments left untranslated (the source text unchanged)',
        where: ['line 7'],
      },
    ]);
    expect(r.outcome).toBe('flagged');
  });

  it("a glossary's target term absent where its source term occurs is flagged", async () => {
    const glossary = new Map([['dashboard', 'Übersicht']]);
    expect(
      (
        await check(
          GERMAN.map((l) => l.replace('Projektübersicht', 'Projekt-Übersicht')),
          { glossary },
        )
      ).outcome,
    ).toBe('pass');
    const r = await check(
      replaced(6, 'Das Dashboard zeigt jedes Dokument, das das Team diese Woche übersetzt hat.'),
      {
        glossary,
      },
    );
    expect(r.findings).toEqual([
      {
        check: 'glossary',
        message: 'glossary terms not applied: "dashboard" → "Übersicht" (0 of 2)',
        where: ['line 1', 'line 7'],
      },
    ]);
  });

  it('text in another language than the target fails by default; text far too long is flagged', async () => {
    const spanish = [
      'Bienvenido al panel del proyecto para todo el equipo de trabajo.',
      'Lea la guía en https://example.com/guide antes de empezar con el trabajo.',
      'Escriba a support@example.com cuando algo no funcione como se espera.',
      'Hola {name}, tiene %s mensajes nuevos y {{count}} alertas pendientes.',
      'Ejecute `npm install` en la carpeta del proyecto primero.',
      'El total de la factura es 1.250,50 euros por 3 licencias.',
      'El panel muestra cada documento que el equipo tradujo esta semana.',
    ];
    const r = await check(spanish);
    expect(r.outcome).toBe('failed');
    expect(r.findings).toEqual([
      {
        check: 'language',
        message: 'de not detected: the document reads as es',
        where: ['the whole document'],
      },
    ]);
    const long = await check(GERMAN.map((l) => `${l} ${l} ${l} ${l}`));
    expect(long.findings.map((f) => f.check)).toEqual(['length']);
    expect(long.findings[0]!.message).toMatch(
      /the output is 4\.\d\d times as long as the source; de is usually about 1\.30 times/,
    );
  });

  it('qa settings: ignore turns a check off, fail_on makes it fail the output', async () => {
    const lines = replaced(5, 'Die Rechnungssumme beträgt 1.250,50 Euro für drei Lizenzen.');
    expect((await check(lines, { settings: qaSettingsOf({ qa: { ignore: ['numbers'] } }) })).outcome).toBe(
      'pass',
    );
    const failed = await check(lines, {
      settings: qaSettingsOf({ qa: { fail_on: ['numbers'], ignore: [] } }),
    });
    expect(failed.outcome).toBe('failed');
    expect(failed.failure).toEqual({
      check: 'numbers',
      reason: 'the number "3" missing from the output (at line 6)',
    });
    // No fail_on given: the defaults (language, placeholders) fail, the rest flag.
    expect(qaSettingsOf({ qa: { ignore: ['length'] } })).toEqual({
      failOn: ['language', 'placeholders'],
      ignore: ['length'],
    });
  });

  it('a time written the 24-hour way (a style rule, a language) is the same time; another time is missing', () => {
    const source = tokensOf('The café opens at 8:00 AM and closes at 6:30 PM, 3 days a week.').numbers;
    expect(
      missingTokens(
        source,
        tokensOf('Das Café öffnet um 08:00 und schließt um 18:30, 3 Tage pro Woche.').numbers,
      ),
    ).toEqual([]);
    expect(
      missingTokens(
        source,
        tokensOf('Das Café öffnet um 08:00 und schließt um 18:00, 3 Tage pro Woche.').numbers,
      ),
    ).toEqual(['18:30']);
  });
});
