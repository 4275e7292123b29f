// End to end over real HTTP: every sample is uploaded to the local service, translated by the engine,
// downloaded and checked like the engine-level tests do; style lists and corrupt files too.
import { readFile, writeFile } from 'node:fs/promises';
import { extname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/local-service/types.js';
import { AUTH, call, start, upload, waitFinished, type UploadParts } from '../service/helpers.js';
import { defaultOutputExtension } from '../../src/documents/format-registry.js';
import { PHRASEBOOK, SAMPLES, sampleFiles, workdir, type Workdir } from './helpers.js';
import { verifierFor } from './verify.js';
import { paragraphs, readZip } from './zip-helpers.js';

let w: Workdir;
beforeAll(async () => (w = await workdir()));
afterAll(() => w.cleanup());

/** Uploads `file`, waits until the job is finished and downloads the result into the work dir. */
async function roundTrip(s: RunningService, file: string, parts: UploadParts) {
  const name = file.split('/').pop() as string;
  const up = await upload(s, name, new Uint8Array(await readFile(file)), parts);
  expect(up.status, up.text).toBe(200);
  const final = await waitFinished(s, up.body.document_id, up.body.document_key, 60_000);
  if (final.status !== 'done') return { final };
  const r = await fetch(`${s.url}/v2/document/${up.body.document_id}/result`, {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': 'application/json' },
    body: JSON.stringify({ document_key: up.body.document_key }),
  });
  expect(r.status).toBe(200);
  const out = join(
    w.dir,
    `${up.body.document_id}.${parts.output_format ?? defaultOutputExtension(extname(name).slice(1))}`,
  );
  await writeFile(out, Buffer.from(await r.arrayBuffer()));
  return { final, out };
}

describe('documents over HTTP', () => {
  for (const file of sampleFiles()) {
    const ext = extname(file).slice(1);
    it(`${relative(SAMPLES, file)}: upload, translate, download, same structure`, async () => {
      const s = await start({ phrasebookPath: PHRASEBOOK });
      const { final, out } = await roundTrip(s, file, { target_lang: 'DE', source_lang: 'EN' });
      expect(final.status, final.message).toBe('done');
      await verifierFor(ext)(file, out as string, 'de');
      if (['png', 'jpg'].includes(ext)) expect(final.billed_characters).toBe(0);
      else expect(final.billed_characters).toBeGreaterThan(0);
    });
  }

  it('a pdf with output_format docx becomes a Word document', async () => {
    const s = await start({ phrasebookPath: PHRASEBOOK });
    const file = join(SAMPLES, 'office', 'report.pdf');
    const { final, out } = await roundTrip(s, file, { target_lang: 'FR', output_format: 'docx' });
    expect(final.status, final.message).toBe('done');
    await verifierFor('pdf', 'docx')(file, out as string, 'fr');
  });

  it('a style list with 24-hour clock and curly quotes shows in the translated document', async () => {
    const s = await start({ phrasebookPath: PHRASEBOOK });
    const list = await call<{ style_id: string }>(s, 'POST', '/v3/style_rules', {
      name: 'German docs',
      language: 'de',
      configured_rules: {
        dates_and_times: { time_format: 'use_24_hour_clock' },
        punctuation: { quotation_mark: 'use_curly_quotation_marks' },
      },
      custom_instructions: [{ label: 'Product', prompt: 'Do not translate "locsync"' }],
    });
    expect(list.status).toBe(201);
    for (const file of [join(SAMPLES, 'office', 'report.docx'), join(SAMPLES, 'readme.txt')]) {
      const { final, out } = await roundTrip(s, file, { target_lang: 'DE', style_id: list.body.style_id });
      expect(final.status, final.message).toBe('done');
      const text = file.endsWith('.docx')
        ? paragraphs(
            (await readZip(out as string)).get('word/document.xml')?.toString('utf8') ?? '',
            'p',
            't',
          ).join('\n')
        : await readFile(out as string, 'utf8');
      expect(text).toContain('15:30');
      expect(text).not.toContain('3:30 PM');
      expect(text).toContain('\u201CSpeichern\u201D');
    }
  });

  it('corrupt documents end in error with a clear message, and the service keeps working', async () => {
    const s = await start({ phrasebookPath: PHRASEBOOK });
    const cases: Array<[string, string | Uint8Array, RegExp]> = [
      ['broken.docx', 'not a zip at all', /not a valid Word document/],
      ['binary.txt', new Uint8Array(await readFile(join(SAMPLES, 'images', 'logo.png'))), /binary/],
      ['bad.xlf', '<xliff version="2.1"><file>', /not well-formed XML/],
    ];
    for (const [name, content, message] of cases) {
      const up = await upload(s, name, content, { target_lang: 'DE' });
      expect(up.status, up.text).toBe(200);
      const final = await waitFinished(s, up.body.document_id, up.body.document_key, 30_000);
      expect(final.status).toBe('error');
      expect(final.message).toMatch(message);
    }
    const { final } = await roundTrip(s, join(SAMPLES, 'readme.txt'), { target_lang: 'FR' });
    expect(final.status).toBe('done');
  });
});
