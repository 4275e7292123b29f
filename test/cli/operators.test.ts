import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULT_DOCUMENT_MESSAGE } from '../../src/local-service/faults.js';
import type { CliResult } from '../helpers/cli.js';
import { jsonLines, OPS_KEY, opsProject, smallDocx, type OpsProject } from './ops-fixture.js';

// An operator's day: a first sync (one document fails on the service), a second sync after an
// edit, then status and report. Output piped, as under cron or systemd.

const MIN = 50_000;

describe('sync, status and report as cron sees them', () => {
  let p: OpsProject;
  let first: CliResult;
  let second: CliResult;
  const outputs: CliResult[] = [];

  beforeAll(async () => {
    // max_attempts 1: the document that fails on the service is given up, not retried by the second run.
    p = await opsProject({ service: { faults: [{ errorDocuments: 1 }] }, manifest: { max_attempts: 1 } });
    p.write('guide.txt', 'Open the door at 3 pm. Close it at 5 pm.\n');
    p.write('web/index.html', '<html><body><h1>Welcome</h1><p>Hello "world".</p></body></html>\n');
    p.write('notes/readme.txt', 'A short note.\n');
    p.write('report.docx', await smallDocx('The quarterly report is short.'));
    first = await p.cli(['sync', '-c', 'pipeline.yaml', '--json', '--log-level', 'debug']);
    // A new file (not an edit: the given-up document must stay as it is).
    p.write('extra.txt', 'Open the door at 4 pm. Close it at 6 pm.\n');
    second = await p.cli(['sync', '-c', 'pipeline.yaml', '--log-format', 'pretty', '--log-level', 'debug']);
    outputs.push(first, second);
  }, 180_000);

  afterAll(async () => {
    await p?.close();
  });

  it('piped output has no control characters and every log line is JSON carrying the job', () => {
    expect(first.code).toBe(1); // the injected error document
    for (const r of outputs) {
      expect(r.stdout).not.toContain('\x1b');
      expect(r.stderr).not.toContain('\x1b');
    }
    const lines = jsonLines(first.stderr);
    const jobLines = lines.filter((l) => l.msg === 'uploaded' || l.msg === 'translated');
    expect(jobLines.length).toBeGreaterThan(0);
    for (const l of jobLines) {
      expect(l).toMatchObject({ mapping: 'docs', target: expect.stringMatching(/^(de|fr)$/) });
      expect(typeof l.file).toBe('string');
      expect(typeof l.document_id).toBe('string');
    }
    // Every line about a file says which mapping and target it concerns.
    for (const l of lines.filter((x) => typeof x.file === 'string' && x.target !== undefined))
      expect(l.mapping).toBe('docs');
  });

  it('pretty logs off a terminal are readable lines without colours', () => {
    expect(second.stderr).toMatch(/INFO.*translated/);
    expect(() => jsonLines(second.stderr)).toThrow();
    // One line per entry: the message and its fields together.
    for (const l of second.stderr.split('\n').filter(Boolean))
      expect(l).toMatch(/^\[\d\d:\d\d:\d\d\] (DEBUG|INFO|WARN|ERROR): /);
    expect(second.stderr).toMatch(/INFO: translated \{.*"mapping":"docs".*"target":"(de|fr)"/);
  });

  it('no output in either log format contains the API key or a document key', () => {
    const docs = p.serviceDocuments();
    expect(docs.length).toBeGreaterThan(0);
    const all = outputs.map((r) => r.stdout + r.stderr).join('\n');
    expect(all).not.toContain(OPS_KEY);
    for (const d of docs) expect(all).not.toContain(d.document_key);
  });

  it('report: billed characters equal what the service billed, minimums apart', async () => {
    const billedByService = p.serviceDocuments().reduce((n, d) => n + (d.billed_characters ?? 0), 0);
    const summary = JSON.parse(first.stdout) as { billedCharacters: number };
    const r = await p.cli(['report', '--format', 'json', '--by', 'language']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as {
      rows: Array<{ key: string; documents: number; billed_characters: number; minimum_documents: number }>;
      total: {
        documents: number;
        billed_characters: number;
        minimum_documents: number;
        minimum_billed_characters: number;
        minimum_added_characters: number | null;
      };
    };
    expect(report.total.billed_characters).toBe(billedByService);
    expect(report.total.billed_characters).toBeGreaterThan(summary.billedCharacters); // two runs
    expect(report.total.documents).toBe(p.serviceDocuments().length);
    expect(report.rows.map((x) => x.key)).toEqual(['de', 'fr']);
    expect(report.rows.reduce((n, x) => n + x.billed_characters, 0)).toBe(report.total.billed_characters);
    // The docx is billed the 50,000 minimum per target that translated it; its text is far shorter.
    const docxDone = report.total.minimum_documents;
    expect(docxDone).toBeGreaterThanOrEqual(1);
    expect(report.total.minimum_billed_characters).toBe(docxDone * MIN);
    const added = report.total.minimum_added_characters;
    expect(added).not.toBeNull();
    expect(added!).toBeGreaterThan(docxDone * (MIN - 100));
    expect(added!).toBeLessThan(docxDone * MIN);

    // --json as every other command spells it: the same report.
    const json = await p.cli(['report', '--json', '--by', 'language']);
    expect(JSON.parse(json.stdout)).toEqual(report);

    const csvFile = path.join(p.dir, 'billing.csv');
    const csv = await p.cli(['report', '--format', 'csv', '--by', 'month', '-o', csvFile]);
    expect(csv.stdout).toBe('');
    const rows = fs.readFileSync(csvFile, 'utf8').trim().split('\n');
    expect(rows[0]).toMatch(/^month,documents,billed_characters,/);
    const total = rows.at(-1)!.split(',');
    expect(total[0]).toBe('total');
    expect(Number(total[2])).toBe(billedByService);
  }, 180_000);

  it('report --format html groups its table as --by says (mapping, month, language)', async () => {
    const tableOf = async (by: string) => {
      const file = path.join(p.dir, `report-${by}.html`);
      expect((await p.cli(['report', '--format', 'html', '--by', by, '-o', file])).code).toBe(0);
      const table = /<table[^>]*>([\s\S]*?)<\/table>/.exec(fs.readFileSync(file, 'utf8'))![1]!;
      return {
        head: /<th>([^<]*)<\/th>/.exec(table)![1],
        keys: [...table.matchAll(/<tr><td>(?:<bdi>)?([^<]*)(?:<\/bdi>)?<\/td>/g)].map((m) => m[1]),
      };
    };
    expect(await tableOf('mapping')).toEqual({ head: 'mapping', keys: ['docs'] });
    const month = new Date().toISOString().slice(0, 7);
    expect(await tableOf('month')).toEqual({ head: 'month', keys: [month] });
    expect(await tableOf('language')).toEqual({ head: 'language', keys: ['de', 'fr'] });
  }, 60_000);

  it('report refuses a bad --since with the fix', async () => {
    const r = await p.cli(['report', '--since', 'last week']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--since: "last week" is not a date; write it like 2026-01-31/);
  }, 30_000);

  it('status lists the runs, and the failed document with the service message and what to do', async () => {
    const r = await p.cli(['status', '--json']);
    const status = JSON.parse(r.stdout) as {
      runs: Array<{ command: string; status: string; billed_characters: number }>;
      failures: Array<{
        file: string;
        target: string;
        message: string;
        kind: string;
        advice: string;
        gave_up: boolean;
      }>;
      stale: unknown[];
      progress: Array<{
        mapping: string;
        target: string;
        outputs: number;
        upToDate: number;
        failed: number;
        percent: number;
      }>;
    };
    expect(r.code).toBe(1);
    // 5 source files in 2 languages; the given-up document is failed in its language only.
    expect(status.progress.map((x) => [x.mapping, x.target, x.outputs])).toEqual([
      ['docs', 'de', 5],
      ['docs', 'fr', 5],
    ]);
    expect(status.progress.reduce((n, x) => n + x.failed, 0)).toBe(1);
    expect(status.progress.reduce((n, x) => n + x.upToDate, 0)).toBe(9);
    expect(status.progress.map((x) => x.percent).sort()).toEqual([100, 80]);
    expect(status.runs).toHaveLength(2);
    expect(status.runs[1]!.billed_characters).toBe(
      (JSON.parse(first.stdout) as { billedCharacters: number }).billedCharacters,
    );
    expect(status.failures).toHaveLength(1);
    expect(status.failures[0]).toMatchObject({
      kind: 'job-error',
      // The service echoed the document's key in its message: redacted where it entered.
      message: `${FAULT_DOCUMENT_MESSAGE} (document_key [REDACTED])`,
      gave_up: true,
    });
    expect(status.failures[0]!.advice).toMatch(/check that the file opens/);
    const withScan = await p.cli(['status']);
    expect(withScan.stdout).toMatch(
      /Progress by language:\n\s+mapping\s+language\s+outputs\s+up to date\s+flagged\s+stale\s+pending\s+failed\s+done\n\s+docs\s+de\s+5\s+/,
    );
    const text = await p.cli(['status', '--no-scan']);
    expect(text.stdout).toContain(FAULT_DOCUMENT_MESSAGE);
    expect(text.stdout).toMatch(/\(gave up\).*\n\s+what to do: /);
    expect(status.stale).toEqual([]);
    // The given-up document has no output; the rest, including the second run's new file, have.
    const f = status.failures[0]!;
    expect(fs.existsSync(path.join(p.dir, 'out', f.target, f.file))).toBe(false);
    expect(fs.existsSync(path.join(p.dir, 'out/de/extra.txt'))).toBe(true);
    expect(fs.existsSync(path.join(p.dir, 'out/fr/extra.txt'))).toBe(true);
  }, 60_000);
});
