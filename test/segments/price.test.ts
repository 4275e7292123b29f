import fs from 'node:fs';
import { Document, Packer, Paragraph } from 'docx';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { formatFiles } from '../../src/cli/plan-text.js';
import { gateRun, pricedPlan } from '../../src/cli/sync-gate.js';
import { makePlan } from '../../src/sync/engine.js';
import { quoteSegments } from '../../src/sync/segments/quote.js';
import { silentLogger } from '../../src/log/logger.js';
import { createFixture, defaultManifest, houseStyleManifest, type Fixture } from '../sync/fixture.js';
import { charactersSent, segmentsMapping, textRequests } from './helpers.js';

// The priced plan of a segment-path target: the characters that will be sent, the segments the
// memory holds, and for Office files what the document path would bill. A style list change makes
// the outputs stale; `--retranslate stale` sends their segments again, nothing else.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const PARAGRAPHS = ['Open the lid at 14:00.', 'Clean the filter.', 'Close the lid.', 'Start the pump.'];

function docx(paragraphs: string[]): Promise<Buffer> {
  return Packer.toBuffer(new Document({ sections: [{ children: paragraphs.map((p) => new Paragraph(p)) }] }));
}

/** The house style manifest with its mapping translated segment by segment. */
function segmentsHouseStyle(timeFormat: string): Record<string, unknown> {
  const m = houseStyleManifest(timeFormat);
  const [mapping] = m.mappings as Array<Record<string, unknown>>;
  return { ...m, mappings: [{ ...mapping, source_lang: 'en', method: 'segments' }] };
}

/** 130 short labels, every tenth the same "Save" (sent once: its copies split the runs). */
function labels(edited: readonly number[] = []): string {
  const strings: Record<string, string> = {};
  for (let k = 0; k < 130; k++)
    strings[`key_${k}`] =
      k % 10 === 0 ? 'Save' : `Label ${k} of the screen${edited.includes(k) ? ' again' : ''}`;
  return `${JSON.stringify(strings, null, 2)}\n`;
}

/**
 * 2,110 sentences with one label, "Colour", near the end of a look-up's first batch of 2,000, and a
 * copy of the first sentence at 2,100: the run of the first 2,100 needs its neighbours (the label
 * does), which are the copy and the sentences after it, and so does every request of the run.
 */
function helpPage(): string {
  const strings: Record<string, string> = {};
  const sentence = (k: number) => `Sentence ${k} of the help page is here.`;
  for (let k = 0; k < 2_110; k++)
    strings[`key_${k}`] = k === 1_990 ? 'Colour' : k === 2_100 ? sentence(0) : sentence(k);
  return `${JSON.stringify(strings, null, 2)}\n`;
}

/** The plan's text requests, characters and context when it looks the memory up `batchSize` at a time. */
async function plannedRequests(fx: Fixture, batchSize?: number) {
  const loaded = await fx.load();
  const { state, close } = await fx.open();
  try {
    const { plan } = await makePlan({ loaded, state, connection: { client: fx.client() } });
    const quotes = [...(await quoteSegments(loaded, state, plan.actions, { batchSize })).values()];
    return {
      requests: quotes.reduce((n, q) => n + q.requests, 0),
      characters: quotes.reduce((n, q) => n + q.characters, 0),
      context: quotes.reduce((n, q) => n + (q.context ?? 0), 0),
    };
  } finally {
    await close();
  }
}

/** What the service counted in the text requests it answered since `mark`. */
function counted(fx: Fixture, mark: number) {
  const sent = textRequests(fx, mark);
  return {
    requests: sent.length,
    characters: sent.reduce((n, r) => n + r.characters, 0),
    context: sent.reduce((n, r) => n + r.context_characters, 0),
  };
}

async function planText(fx: Fixture) {
  const loaded = await fx.load();
  const { state, close } = await fx.open();
  try {
    const files = await pricedPlan({
      loaded,
      state,
      connection: { client: fx.client() },
      logger: silentLogger(),
      options: {},
    });
    return { files, text: formatFiles(files) };
  } finally {
    await close();
  }
}

/** What the run's gate answers for `--max-billed max`: allowed, or the refusal's message. */
async function gate(fx: Fixture, maxBilled: number): Promise<string> {
  const loaded = await fx.load();
  const { state, close } = await fx.open();
  try {
    const { plan } = await makePlan({ loaded, state, connection: { client: fx.client() } });
    await gateRun({ loaded, state, plan, checks: { maxBilled, configArg: '' } });
    return 'allowed';
  } catch (err) {
    return (err as Error).message;
  } finally {
    await close();
  }
}

describe('the priced plan of method: segments', () => {
  it('prices an edit by the characters of the segments not in the memory, beside the document path', async () => {
    fx = await createFixture({
      manifest: segmentsHouseStyle('use_24_hour_clock'),
      files: { 'manual.docx': await docx(PARAGRAPHS) },
    });
    const before = await planText(fx);
    const de = before.files.toTranslate.find((t) => t.target === 'de')!;
    expect(de.price.segments).toMatchObject({ segments: 4, sent: 4, fromMemory: 0, documentPath: 50_000 });
    await fx.sync();

    const edited = [...PARAGRAPHS];
    edited[1] = 'Clean the filter twice.';
    fx.write('src/manual.docx', await docx(edited));
    const { files, text } = await planText(fx);
    const price = files.toTranslate.find((t) => t.target === 'de')!.price;
    expect(price).toMatchObject({
      billed: edited[1]!.length,
      segments: { segments: 4, sent: 1, fromMemory: 3, characters: edited[1]!.length, documentPath: 50_000 },
    });
    expect(text).toContain(
      '1 new segment, 3 from memory: 23 characters (the document path would bill 50,000 characters)',
    );
    // --max-billed holds the edit's price, not the document's: the gate lets the run go.
    expect(await gate(fx, 100)).toBe('allowed');
    expect(await gate(fx, 10)).toMatch(/the plan bills 46 characters/);
    // What the plan priced is what the run sends.
    const mark = fx.mark();
    await fx.sync();
    expect(charactersSent(fx, mark)).toBe(2 * edited[1]!.length);
  });

  it('makes outputs stale on a style list change; --retranslate stale sends their segments again', async () => {
    fx = await createFixture({
      manifest: segmentsHouseStyle('use_24_hour_clock'),
      files: { 'manual.docx': await docx(PARAGRAPHS), 'notes.txt': 'Close the lid.\n' },
    });
    expect((await fx.sync()).failed).toEqual([]);
    const write = (timeFormat: string) =>
      fs.writeFileSync(
        fx!.manifestPath,
        stringify({ ...defaultManifest(fx!.service.url), ...segmentsHouseStyle(timeFormat) }),
      );
    write('use_12_hour_clock');
    let mark = fx.mark();
    const second = await fx.sync();
    expect(second.stale).toBe(2);
    expect(charactersSent(fx, mark)).toBe(0);
    mark = fx.mark();
    const third = await fx.sync({ retranslate: 'stale' });
    expect(third.retranslated).toBe(2);
    // Only the German segments (the style list's language) are sent again, each once.
    const de = fx.service
      .requests()
      .slice(mark)
      .filter((r) => r.path === '/v2/translate' && r.text);
    expect(de.every((r) => r.text!.target_lang === 'DE')).toBe(true);
    expect(charactersSent(fx, mark)).toBe(PARAGRAPHS.join('').length);
    expect(fx.read('out/de/notes.txt')).not.toContain('Close the lid.');
  });

  it('counts the context its text requests upload, as the service counts it', async () => {
    fx = await createFixture({
      manifest: { mappings: [segmentsMapping()] },
      files: { 'screen.json': labels() },
    });
    for (const edited of [[], [3, 4, 57, 111, 129]]) {
      if (edited.length) fx.write('src/screen.json', labels(edited));
      const { files, text } = await planText(fx);
      const t = files.price.total;
      const planned = { requests: t.text_requests, characters: t.billed, context: t.context_characters };
      const mark = fx.mark();
      expect((await fx.sync()).failed).toEqual([]);
      const sent = counted(fx, mark);
      // Labels need their neighbours: some context is sent, and the plan said how much.
      expect(sent.context).toBeGreaterThan(0);
      expect(planned).toEqual(sent);
      expect(text).toContain(
        `uploaded with the text requests as context (not billed): ${sent.context.toLocaleString('en-US')} characters`,
      );
    }
  });

  it('counts the same context whatever batches the memory is looked up in', async () => {
    fx = await createFixture({
      manifest: { mappings: [segmentsMapping()] },
      files: { 'help.json': helpPage() },
    });
    const planned = await plannedRequests(fx);
    // The runs of neighbours are the whole document's, not a batch's.
    expect(await plannedRequests(fx, 7)).toEqual(planned);
    expect(await plannedRequests(fx, 2_000)).toEqual(planned);
    const mark = fx.mark();
    expect((await fx.sync()).failed).toEqual([]);
    const sent = counted(fx, mark);
    expect(sent.context).toBeGreaterThan(0);
    expect(planned).toEqual(sent);
  });
});
