// The translated Office documents open in LibreOffice (when it is installed: apt-get install
// libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui poppler-utils): each
// is converted to PDF and its text must hold the translations.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLES, phrasebook, workdir, type Workdir } from './helpers.js';

function installed(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const available = installed('soffice') && installed('pdftotext');

let w: Workdir;
beforeAll(async () => (w = await workdir()));
afterAll(() => w?.cleanup());

describe.skipIf(!available)('LibreOffice opens the translated documents', () => {
  it('docx, pptx, xlsx, doc -> docx and pdf -> docx convert to PDF with the translated text', async () => {
    const inputs: Array<[string, string | undefined]> = [
      ['report.docx', undefined],
      ['slides.pptx', undefined],
      ['status.xlsx', undefined],
      ['legacy-report.doc', undefined],
      ['report.pdf', 'docx'],
    ];
    const outs: string[] = [];
    for (const [file, outExt] of inputs) {
      outs.push((await w.translate(join(SAMPLES, 'office', file), 'de', outExt ? { outExt } : {})).out);
    }
    const pdfDir = join(w.dir, 'pdf');
    execFileSync(
      'soffice',
      [
        '--headless',
        `-env:UserInstallation=file://${w.dir}/lo-profile`,
        '--convert-to',
        'pdf',
        '--outdir',
        pdfDir,
        ...outs,
      ],
      {
        stdio: 'ignore',
        timeout: 180_000,
      },
    );
    const expected: Record<number, string> = {
      0: phrasebook.lookup('Confidential', 'de') as string,
      1: phrasebook.lookup('Quarterly update', 'de') as string,
      2: phrasebook.lookup('In progress', 'de') as string,
      3: phrasebook.lookup('Welcome to locsync.', 'de') as string,
      4: phrasebook.lookup('This folder is translated automatically.', 'de') as string,
    };
    outs.forEach((out, i) => {
      const pdf = join(pdfDir, basename(out).replace(/\.\w+$/, '.pdf'));
      expect(existsSync(pdf), `${inputs[i]?.[0]} converted`).toBe(true);
      const text = execFileSync('pdftotext', [pdf, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
      expect(text, inputs[i]?.[0]).toContain(expected[i]);
      expect(text, inputs[i]?.[0]).toContain('[de] ');
    });
  });
});
