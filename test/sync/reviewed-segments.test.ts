import { afterEach, describe, expect, it } from 'vitest';
import { segmentsMapping } from '../segments/helpers.js';
import { createFixture, runCliOn, type Fixture } from './fixture.js';

// The segment path (method: segments) and a person's corrections (docs/review.md): the wording of an
// edited output is taken into the segment memory as reviewed; a change of another paragraph keeps it
// byte for byte; a change of the reviewed paragraph's own source gets the new machine translation and
// is listed as a conflict until accepted. Runs on both backends.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const SOURCE = 'First paragraph.\nSecond paragraph, reviewed.\nThird paragraph.\n';
const REVIEWED = 'Zweiter Absatz, von einer Person geprüft.';

/** A text file translated segment by segment, whose German second line a person corrected. */
async function reviewed(): Promise<{ f: Fixture; lines: string[] }> {
  const f = await createFixture({
    files: { 'guide.txt': SOURCE },
    manifest: { mappings: [segmentsMapping()] },
  });
  expect((await f.sync()).failed).toEqual([]);
  const lines = f.read('out/de/guide.txt').split('\n');
  lines[1] = REVIEWED;
  f.write('out/de/guide.txt', lines.join('\n'));
  return { f, lines };
}

describe('segment path: reviewed segments', () => {
  it('a reviewed paragraph survives a change in another paragraph, byte for byte; sync without a change sends nothing', async () => {
    const r = await reviewed();
    fx = r.f;
    const idle = fx.mark();
    await fx.sync();
    expect(
      fx.service
        .requests()
        .slice(idle)
        .filter((q) => q.path === '/v2/translate'),
    ).toEqual([]);

    fx.write('src/guide.txt', 'First paragraph, changed.\nSecond paragraph, reviewed.\nThird paragraph.\n');
    expect((await fx.sync()).failed).toEqual([]);
    const out = fx.read('out/de/guide.txt').split('\n');
    expect(out[1]).toBe(REVIEWED);
    expect(out[0]).not.toBe(r.lines[0]);
    expect(out[2]).toBe(r.lines[2]);
    // Written over the edit (it carries the person's wording): nothing beside it, no conflict.
    expect(fx.exists('out/de/guide.locsync-new.txt')).toBe(false);
    const status = await runCliOn(fx, 'status', '--json');
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).edited).toEqual([]);

    // A later change elsewhere keeps it too (the memory prefers the reviewed wording).
    fx.write(
      'src/guide.txt',
      'First paragraph, changed.\nSecond paragraph, reviewed.\nThird paragraph, changed.\n',
    );
    await fx.sync();
    expect(fx.read('out/de/guide.txt').split('\n')[1]).toBe(REVIEWED);
  });

  it("a change of the reviewed paragraph's source: the wording stays, the machine's beside it, a conflict until decided", async () => {
    const r = await reviewed();
    fx = r.f;
    fx.write(
      'src/guide.txt',
      'First paragraph.\nSecond paragraph, rewritten by the author.\nThird paragraph.\n',
    );
    expect((await fx.sync()).failed).toEqual([]);
    const out = fx.read('out/de/guide.txt').split('\n');
    expect(out[1]).toBe(REVIEWED);
    expect(out[0]).toBe(r.lines[0]);
    const machine = fx.read('out/de/guide.locsync-new.txt').split('\n')[1]!;
    expect(machine).not.toBe(REVIEWED);
    expect(machine).not.toBe(r.lines[1]);

    const status = await runCliOn(fx, 'status');
    expect(status.code).toBe(1);
    expect(status.stdout).toContain(
      `line 2: reviewed "${REVIEWED}" (source was "Second paragraph, reviewed.")`,
    );
    expect(status.stdout).toContain(
      `new machine translation "${machine}" (source now "Second paragraph, rewritten by the author.")`,
    );
    expect(status.stdout).toContain('locsync outputs keep out/de/guide.txt');
    const json = JSON.parse((await runCliOn(fx, 'status', '--json')).stdout);
    expect(json.edited).toEqual([
      expect.objectContaining({
        output: 'out/de/guide.txt',
        new_translation: 'out/de/guide.locsync-new.txt',
        segment_conflicts: [
          {
            where: 'line 2',
            source_before: 'Second paragraph, reviewed.',
            reviewed: REVIEWED,
            source: 'Second paragraph, rewritten by the author.',
            machine,
          },
        ],
      }),
    ]);

    const accepted = await runCliOn(fx, 'outputs', 'take-new', 'out/de/guide.txt');
    expect(accepted.code).toBe(0);
    expect(fx.read('out/de/guide.txt').split('\n')[1]).toBe(machine);
    expect(fx.read('out/de/guide.locsync-edited.txt').split('\n')[1]).toBe(REVIEWED);
    expect((await runCliOn(fx, 'status')).code).toBe(0);
  });
});
