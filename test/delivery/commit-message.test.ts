import { describe, expect, it } from 'vitest';
import { commitMessage, commitSubject } from '../../src/delivery/commit-message.js';
import type { Delivery, WrittenFile } from '../../src/delivery/delivered.js';

// The delivery commit's message (docs/operations.md, "Delivering through git"): a subject of at
// most 72 characters saying what was delivered, a body wrapped at 72.

const file = (
  target: string,
  name: string,
  billed: number,
  extra: Partial<WrittenFile> = {},
): WrittenFile => ({
  path: `out/${target}/${name}`,
  mapping: 'docs',
  file: name,
  target,
  billed,
  reused: false,
  beside: false,
  ...extra,
});

const delivery = (over: Partial<Delivery>): Delivery => ({
  runs: [12],
  command: 'sync',
  written: [],
  removed: [],
  failed: [],
  ...over,
});

describe('the commit message of a delivery', () => {
  it('names the documents, languages and characters; the body lists files per language, bill, failures, run', () => {
    const d = delivery({
      written: [
        file('de', 'a.txt', 1200),
        file('de', 'guide.locsync-new.txt', 10, { beside: true }),
        file('fr', 'a.txt', 0, { reused: true }),
      ],
      removed: ['out/de/old.txt'],
      failed: [
        {
          mapping: 'docs',
          file: 'broken.docx',
          target: 'fr',
          kind: 'transient',
          error:
            'the service answered 503 Service Unavailable after every retry, the job resumes with the next run',
          willRetry: true,
        },
      ],
    });
    const msg = commitMessage(d, { price_per_million: 25, currency: 'EUR' });
    const [subject, blank, ...body] = msg.trimEnd().split('\n');
    expect(subject).toBe('locsync: 3 documents into de, fr (1,210 characters), 1 output removed');
    expect(blank).toBe('');
    expect(body.join('\n')).toBe(
      [
        'Run #12 of locsync sync delivered 3 documents and removed 1 output.',
        '1,210 characters (€0.03) billed for 2 documents; 1 copy of identical',
        'translations (not billed).',
        '',
        'de (2):',
        '  out/de/a.txt',
        '  out/de/guide.locsync-new.txt (beside a version edited by a person)',
        '',
        'fr (1):',
        '  out/fr/a.txt',
        '',
        'Removed, their sources deleted (1):',
        '  out/de/old.txt',
        '',
        'Left failed (1; 1 retried by the next run):',
        '  broken.docx -> fr: transient: the service answered 503 Service',
        '    Unavailable after every retry, the job resumes with the next run',
        '',
        'Locsync-Run: 12',
      ].join('\n'),
    );
    for (const line of body) expect(line.length).toBeLessThanOrEqual(72);
  });

  it('stays within 72 characters however many languages: they are counted instead', () => {
    const langs = ['de', 'fr', 'es', 'it', 'pt-br', 'ja', 'zh-hans', 'ko', 'nl', 'pl', 'sv', 'da', 'fi'];
    const s = commitSubject(delivery({ written: langs.map((l) => file(l, 'a.txt', 1000)) }));
    expect(s).toBe('locsync: 13 documents into 13 languages (13,000 characters)');
    expect(commitSubject(delivery({ written: [file('de', 'a.txt', 0, { reused: true })] }))).toBe(
      'locsync: 1 document into de (nothing billed)',
    );
    expect(commitSubject(delivery({ removed: ['out/de/a.txt', 'out/fr/a.txt'] }))).toBe(
      'locsync: 2 outputs removed (sources deleted)',
    );
  });
});
