import path from 'node:path';
import { Document, Packer, Paragraph, TextRun } from 'docx';
import { afterEach, describe, expect, it } from 'vitest';
import { segmentsMapping, segmentTexts } from '../segments/helpers.js';
import { createFixture, runCliOn, type Fixture } from './fixture.js';

// A person's wording is never replaced without a person deciding (docs/review.md): where the source
// of a segment a person worded changes, the output keeps their wording, the new machine translation
// is written beside it (*.locsync-new.*) and both are listed as a conflict until `locsync outputs
// keep` (their wording, reviewed against the new source) or `take-new` (the machine's) decides; the
// edit may be from this run or one an earlier delivery took in. `plan` says beforehand exactly what
// `sync` does: every step here compares the two. Markdown, txt, docx, JSON and Android strings on the
// segment path, txt and docx on the document path; both state backends.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** Several CLI processes each (plan, status, outputs): minutes on a loaded machine, not hangs. */
const SLOW = 180_000;

const REVIEWED = 'Zweiter Absatz, von einer Person geprüft';
const TEXTS = ['First paragraph', 'Second paragraph', 'Third paragraph'];

/** A source format: a file of three segments, built from their texts. */
interface Format {
  file: string;
  build(texts: readonly string[]): string | Promise<Buffer>;
}

function docx(texts: readonly string[]): Promise<Buffer> {
  return Packer.toBuffer(
    new Document({
      sections: [{ children: texts.map((t) => new Paragraph({ children: [new TextRun(t)] })) }],
    }),
  );
}

const esc = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const FORMATS: Record<string, Format> = {
  markdown: { file: 'guide.md', build: (t) => `# ${t[0]}\n\n${t[1]}.\n\n${t[2]}.\n` },
  txt: { file: 'guide.txt', build: (t) => t.map((x) => `${x}.\n`).join('') },
  docx: { file: 'guide.docx', build: docx },
  json: { file: 'en.json', build: (t) => JSON.stringify({ a: t[0], b: t[1], c: t[2] }, null, 2) + '\n' },
  android: {
    file: 'strings.xml',
    build: (t) =>
      `<?xml version="1.0" encoding="utf-8"?>\n<resources>\n${t
        .map((x, i) => `  <string name="s${i}">${esc(x)}</string>\n`)
        .join('')}</resources>\n`,
  },
};

const outputOf = (f: Format) => `out/de/${f.file}`;
const besideOf = (output: string) => output.replace(/(\.[^./]+)?$/, (ext) => `.locsync-new${ext}`);

/** The segment texts of a file of the fixture (a translated file's translations). */
const texts = (rel: string) => segmentTexts(path.join(fx!.dir, rel));

/** A fixture with the format's file translated into German, by `method`. */
async function translated(f: Format, method: 'segments' | 'document' = 'segments'): Promise<Fixture> {
  const made = await createFixture({
    files: { [f.file]: await f.build(TEXTS) },
    manifest: { mappings: [{ ...segmentsMapping(), method }] },
  });
  expect((await made.sync()).failed).toEqual([]);
  return made;
}

/** A reviewer's correction of the output's second segment, written as the format has it. */
async function review(f: Format, output: string, wording = REVIEWED): Promise<void> {
  const now = await texts(output);
  if (f.file.endsWith('.docx')) {
    now[1] = wording;
    fx!.write(output, await docx(now));
    return;
  }
  const body = fx!.read(output);
  if (f.file.endsWith('.md')) {
    // Written escaped (`\[de\]`): the paragraph is replaced as a whole.
    const blocks = body.split('\n\n');
    blocks[1] = `${wording}\n`.trimEnd();
    fx!.write(output, blocks.join('\n\n'));
    return;
  }
  expect(body).toContain(now[1]!);
  fx!.write(output, body.replace(now[1]!, wording));
}

interface Entry {
  output: string;
  new_translation: string | null;
  new_translation_planned?: boolean;
  written_over_planned?: boolean;
  advice: string;
  segment_conflicts?: Array<{
    where: string;
    reviewed: string;
    source_before: string;
    source?: string;
    machine?: string;
  }>;
  segment_conflicts_planned?: Array<{ where: string; reviewed: string }>;
}

/**
 * `plan --json`, then `sync`, then `status --json`: the plan's word on each output a person worked on
 * is what the sync did (a file beside it or not, the conflicts at those places). Answers the status.
 */
async function planThenSync(): Promise<{ planned: Entry[]; edited: Entry[]; code: number | null }> {
  const planned = JSON.parse((await runCliOn(fx!, 'plan', '--json')).stdout).edited as Entry[];
  const before = new Map(planned.map((e) => [e.output, fx!.exists(besideOf(e.output))]));
  expect((await fx!.sync()).failed).toEqual([]);
  const status = await runCliOn(fx!, 'status', '--json');
  const edited = JSON.parse(status.stdout).edited as Entry[];
  for (const p of planned) {
    const beside = fx!.exists(besideOf(p.output));
    if (p.new_translation_planned) expect(beside, `${p.output}: written beside, as planned`).toBe(true);
    else expect(beside, `${p.output}: nothing beside, as planned`).toBe(before.get(p.output));
    const done = edited.find((e) => e.output === p.output);
    expect(
      (done?.segment_conflicts ?? []).map((c) => c.where),
      `${p.output}: the conflicts planned`,
    ).toEqual((p.segment_conflicts_planned ?? done?.segment_conflicts ?? []).map((c) => c.where));
  }
  return { planned, edited, code: status.code };
}

describe('a person’s wording whose source changes (segment path)', () => {
  it.each(Object.entries(FORMATS))(
    '%s: kept in the output, the machine’s beside it, keep or take-new decides',
    async (name, f) => {
      fx = await translated(f);
      const output = outputOf(f);
      const beside = besideOf(output);
      const first = await texts(output);
      await review(f, output);

      // 1. The source of the worded segment changes.
      fx.write(`src/${f.file}`, await f.build([TEXTS[0]!, 'Second paragraph, rewritten', TEXTS[2]!]));
      const one = await planThenSync();
      expect(one.code).toBe(1);
      const kept = await texts(output);
      expect(kept[1]).toBe(REVIEWED);
      expect(kept[0]).toBe(first[0]);
      const machine = (await texts(beside))[1]!;
      expect(machine).not.toBe(REVIEWED);
      expect(machine).not.toBe(first[1]);
      const [entry] = one.edited;
      expect(entry).toMatchObject({ output, new_translation: beside });
      expect(entry!.segment_conflicts).toEqual([
        expect.objectContaining({
          reviewed: REVIEWED,
          machine,
          source: expect.stringContaining('rewritten'),
        }),
      ]);
      expect(entry!.segment_conflicts![0]!.source_before).toContain('Second paragraph');

      // 2. A person decides: odd formats keep their wording, the others take the machine's.
      const keep = ['markdown', 'docx', 'android'].includes(name);
      const decided = await runCliOn(fx, 'outputs', keep ? 'keep' : 'take-new', output);
      expect(decided.code).toBe(0);
      expect(fx.exists(beside)).toBe(false);
      expect((await texts(output))[1]).toBe(keep ? REVIEWED : machine);

      // 3. Another segment's source changes: the decision stands, no conflict.
      fx.write(
        `src/${f.file}`,
        await f.build(['First paragraph, changed', 'Second paragraph, rewritten', TEXTS[2]!]),
      );
      const two = await planThenSync();
      expect(two.code).toBe(0);
      const after = await texts(output);
      expect(after[1]).toBe(keep ? REVIEWED : machine);
      expect(after[0]).not.toBe(first[0]);
      expect(fx.exists(beside)).toBe(false);
    },
    SLOW,
  );

  it(
    'an edit an earlier delivery took in is a conflict when its source changes later; plan says so each time',
    async () => {
      const f = FORMATS.markdown!;
      fx = await translated(f);
      const output = outputOf(f);
      await review(f, output);
      // Another paragraph changes: the edit is taken in, the output written over it with the wording.
      fx.write(`src/${f.file}`, await f.build(['First paragraph, changed', TEXTS[1]!, TEXTS[2]!]));
      const taken = await planThenSync();
      expect(taken.planned).toEqual([
        expect.objectContaining({ output, written_over_planned: true, new_translation_planned: false }),
      ]);
      // The advice says what this sync does with the edit, not the generic "written beside it".
      expect(taken.planned[0]!.advice).not.toMatch(/beside/);
      expect(taken.code).toBe(0);
      expect((await texts(output))[1]).toBe(REVIEWED);
      expect(fx.exists(besideOf(output))).toBe(false);

      // Later its own source changes: the output as locsync wrote it, but the wording is a person's.
      fx.write(
        `src/${f.file}`,
        await f.build(['First paragraph, changed', 'Second paragraph, rewritten', TEXTS[2]!]),
      );
      const conflict = await planThenSync();
      expect(conflict.code).toBe(1);
      expect((await texts(output))[1]).toBe(REVIEWED);
      expect((await texts(besideOf(output)))[1]).not.toBe(REVIEWED);

      // Changed once more before anyone decided: still the person's wording, the conflict moves along.
      fx.write(
        `src/${f.file}`,
        await f.build(['First paragraph, changed', 'Second paragraph, rewritten twice', TEXTS[2]!]),
      );
      const again = await planThenSync();
      expect(again.code).toBe(1);
      expect((await texts(output))[1]).toBe(REVIEWED);
      expect(again.edited[0]!.segment_conflicts).toEqual([
        expect.objectContaining({ reviewed: REVIEWED, source: expect.stringContaining('twice') }),
      ]);
      expect(again.edited[0]!.segment_conflicts![0]!.source_before).toBe('Second paragraph.');
    },
    SLOW,
  );

  it('an edit that cannot be matched (a paragraph added): the output is left alone, the new translation beside it', async () => {
    const f = FORMATS.markdown!;
    fx = await translated(f);
    const output = outputOf(f);
    const edited = `${fx.read(output)}\nEin Absatz, den eine Person hinzufügte.\n`;
    fx.write(output, edited);
    fx.write(`src/${f.file}`, await f.build(['First paragraph, changed', TEXTS[1]!, TEXTS[2]!]));
    const run = await planThenSync();
    expect(run.code).toBe(1);
    expect(fx.read(output)).toBe(edited);
    expect(fx.exists(besideOf(output))).toBe(true);
  });
});

describe('a person’s edit whose source changes (document path)', () => {
  it.each([
    ['txt', FORMATS.txt!],
    ['docx', FORMATS.docx!],
  ])('%s: plan and sync agree, the new translation beside it', async (_, f) => {
    fx = await translated(f, 'document');
    const output = outputOf(f);
    await review(f, output);
    const edited = fx.read(output);
    fx.write(`src/${f.file}`, await f.build([TEXTS[0]!, 'Second paragraph, rewritten', TEXTS[2]!]));
    const run = await planThenSync();
    expect(run.code).toBe(1);
    expect(fx.read(output)).toBe(edited);
    expect(run.edited).toEqual([expect.objectContaining({ output, new_translation: besideOf(output) })]);
  });
});
