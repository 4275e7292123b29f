import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { userFolders } from '../helpers/user-folder.js';

// `locsync init` always writes source_lang: without it the service guesses each document's
// language from its text, and a short note is guessed wrong on every run.

const folder = userFolders('locsync-init-lang-');

const manifestOf = (cwd: string) => fs.readFileSync(path.join(cwd, 'pipeline.yaml'), 'utf8');

const NOTE = 'Plain notes.\n';

describe('locsync init and the source language', () => {
  it('writes source_lang and says so; a short note then reaches every target', async () => {
    const cwd = folder({ 'docs/notes.txt': NOTE });
    const init = await runCli(['init', '--source', 'docs', '--targets', 'de,fr'], { cwd });
    expect(init.code).toBe(0);
    expect(init.stdout).toMatch(
      /^Source language: en \(the default, with no --source-lang and too little text in the readable file of docs\/ to tell the language from;/m,
    );
    expect(manifestOf(cwd)).toMatch(/^ {4}source_lang: en$/m);

    const sync = await runCli(['sync', '--json'], { cwd });
    expect(sync.code).toBe(0);
    expect(JSON.parse(sync.stdout)).toMatchObject({ translated: 2, failed: [] });
    for (const lang of ['de', 'fr'])
      expect(fs.readFileSync(path.join(cwd, `translated/${lang}/notes.txt`), 'utf8')).not.toBe(NOTE);
  }, 120_000);

  it('reads the language of the documents already there, and refuses a target in it', async () => {
    const cwd = folder({
      'docs/anleitung.txt':
        'Diese Anleitung erklärt, wie man das Programm installiert, wie man es startet und wie man die Einstellungen ändert, wenn etwas nicht so funktioniert, wie es soll.\n',
    });
    const refused = await runCli(['init', '--targets', 'de,fr'], { cwd });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--targets: de is the source language \(de: the documents already/);
    expect(fs.existsSync(path.join(cwd, 'pipeline.yaml'))).toBe(false);

    const init = await runCli(['init', '--targets', 'en-gb,fr'], { cwd });
    expect(init.code).toBe(0);
    expect(init.stdout).toContain('Source language: de (what the 1 readable file(s) in docs/ are written in');
    expect(manifestOf(cwd)).toMatch(/^ {4}source_lang: de$/m);
    expect((await runCli(['validate'], { cwd })).code).toBe(0);
  }, 120_000);

  it('--source-lang is checked against the service and written lower-case', async () => {
    const cwd = folder({});
    const given = await runCli(['init', '--source-lang', 'EN', '--targets', 'de', '--json'], { cwd });
    expect(given.code).toBe(0);
    expect(JSON.parse(given.stdout)).toMatchObject({ sourceLang: 'en', sourceLangChosen: 'given' });
    expect(manifestOf(cwd)).toMatch(/^ {4}source_lang: en$/m);

    const variant = await runCli(['init', '--force', '--source-lang', 'en-us'], { cwd });
    expect(variant.code).toBe(2);
    expect(variant.stderr).toMatch(/"en-us" is not a source language .*write "en"/);
    const typo = await runCli(['init', '--force', '--source-lang', 'dee'], { cwd });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/"dee" is not a source language .*did you mean "de"/);
  }, 60_000);
});
