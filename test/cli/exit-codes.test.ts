import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT, EXIT_CODES } from '../../src/util/errors.js';
import { runCli, ROOT } from '../helpers/cli.js';

// Every place that documents the exit codes shows the code's own table, row for row.

/** The rows `| code | meaning |` of the first table after `heading` in a markdown file. */
function documentedTable(file: string, heading: string): Array<{ code: number; meaning: string }> {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const start = text.indexOf(heading);
  expect(start, `${file} has "${heading}"`).toBeGreaterThanOrEqual(0);
  const lines = text.slice(start).split('\n');
  const first = lines.findIndex((l) => /^\|\s*code\s*\|\s*meaning\s*\|/.test(l));
  const rows: Array<{ code: number; meaning: string }> = [];
  for (const l of lines.slice(first + 2)) {
    const m = /^\|\s*(\d+)\s*\|\s*(.*?)\s*\|$/.exec(l);
    if (!m) break;
    rows.push({ code: Number(m[1]), meaning: m[2]! });
  }
  return rows;
}

describe('exit codes', () => {
  it('are distinct', () => {
    const codes = EXIT_CODES.map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it.each([
    ['README.md', '## Exit codes'],
    ['docs/sync.md', '## Summary and exit codes'],
    ['docs/operations.md', '## Exit codes'],
  ])('%s documents the same table as the code', (file, heading) => {
    expect(documentedTable(file, heading)).toEqual(EXIT_CODES.map((e) => ({ ...e })));
  });

  it('locsync --help prints the table', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const e of EXIT_CODES) expect(r.stdout).toContain(`${String(e.code).padStart(3)}  ${e.meaning}`);
  });

  it('every page that says what plan --detailed-exitcode exits with says the code of "changes pending"', () => {
    const pages = [
      'README.md',
      ...fs
        .readdirSync(path.join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const said: string[] = [];
    for (const page of pages) {
      // A paragraph is where a sentence about the flag may wrap over several lines.
      for (const paragraph of fs.readFileSync(path.join(ROOT, page), 'utf8').split(/\n\s*\n/)) {
        if (!paragraph.includes('--detailed-exitcode')) continue;
        const flat = paragraph.replace(/\s+/g, ' ');
        for (const m of flat.matchAll(/(\d+) when changes|exits (\d+) when true|(\d+) changes pending/g)) {
          said.push(`${page}: ${m[0]}`);
          expect(Number(m[1] ?? m[2] ?? m[3]), `${page}: "${m[0]}"`).toBe(EXIT.changes);
        }
      }
    }
    expect(said.length).toBeGreaterThanOrEqual(3);
  });

  it('a bad flag with plan --detailed-exitcode is a usage error (2), not "changes pending"', async () => {
    const r = await runCli(['plan', '--detailed-exitcode', '--no-such-flag']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option '--no-such-flag'/);
  });

  it('a state locked by another process exits 4 and names it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-exit-'));
    try {
      fs.mkdirSync(path.join(dir, 'docs'));
      fs.writeFileSync(
        path.join(dir, 'pipeline.yaml'),
        'version: 1\nstate: .locsync/state.db\nmappings:\n  - name: docs\n    source: docs\n    output: out/{lang}/{path}\n    targets:\n      - lang: de\n',
      );
      fs.mkdirSync(path.join(dir, '.locsync'));
      // The lock of a live process on this host (the test runner itself).
      fs.writeFileSync(
        path.join(dir, '.locsync/state.db.lock'),
        JSON.stringify({
          pid: process.pid,
          host: os.hostname(),
          command: 'watch',
          started_at: new Date().toISOString(),
        }),
      );
      const r = await runCli(['sync'], { cwd: dir });
      expect(r.code).toBe(4);
      expect(r.stderr).toContain(String(process.pid));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
