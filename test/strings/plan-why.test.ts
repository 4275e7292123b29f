// `plan --why` of a string file names the keys it sends with the line each starts on, as it names
// the line of a changed Markdown block: a string file has no content digest, so what changed since
// its output was made is what the segment memory does not hold.
import { afterEach, describe, expect, it } from 'vitest';
import { createFixture, runCliOn, type Fixture } from '../sync/fixture.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const mapping = (name: string, output: string) => ({
  name: 'ui',
  source: 'src/ui',
  include: [name],
  output,
  method: 'segments',
  source_lang: 'en',
  targets: [{ lang: 'de' }],
});

async function whyAfterEdit(name: string, output: string, before: string, after: string): Promise<string> {
  fx = await createFixture({
    manifest: { mappings: [mapping(name, output)] },
    files: { [`ui/${name}`]: before },
  });
  expect((await fx.sync()).failed).toEqual([]);
  fx.write(`src/ui/${name}`, after);
  const r = await runCliOn(fx, 'plan', '--why', `src/ui/${name}`, '--no-progress');
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

describe('plan --why of a string file', () => {
  it('JSON: the changed and the added key, each with its line', async () => {
    const before = '{\n  "app": {\n    "title": "Photo Library",\n    "quit": "Quit"\n  }\n}\n';
    const after =
      '{\n  "app": {\n    "title": "Photo Library",\n    "quit": "Quit now",\n    "open": "Open a photo"\n  }\n}\n';
    const text = await whyAfterEdit('en.json', 'out/{lang}.json', before, after);
    expect(text).toContain('translate (billed): changed; what the segment memory does not hold');
    expect(text).toMatch(/^ {4} {2}line 4 \(key app\.quit\)$/m);
    expect(text).toMatch(/^ {4} {2}line 5 \(key app\.open\)$/m);
    expect(text).not.toContain('app.title');
    expect(text).not.toContain('no content digest');
  });

  it('a layout change only: nothing is sent, and it says so', async () => {
    const before = '{\n  "title": "Photo Library"\n}\n';
    const text = await whyAfterEdit('en.json', 'out/{lang}.json', before, '{ "title": "Photo Library" }\n');
    expect(text).toContain('the segment memory holds every segment: nothing is sent');
  });

  it('YAML: the line of the changed value', async () => {
    const before = 'en:\n  hello: Hello world\n  bye: Goodbye\n';
    const text = await whyAfterEdit(
      'en.yml',
      'out/{lang}.yml',
      before,
      'en:\n  hello: Hello world\n  bye: Goodbye, see you\n',
    );
    expect(text).toMatch(/^ {6}line 3 \(key bye\)$/m);
  });
});
