import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkManifestFile } from '../../src/manifest/load.js';
import { patternOverlap } from '../../src/manifest/pattern-overlap.js';
import { runCli } from '../helpers/cli.js';
import { MINIMAL, projectsOfEachTest } from './project.js';

// Manifests written carelessly or to hurt: alias bombs, huge generated files, '..' in patterns,
// other URL schemes, passwords in URLs, patterns that can overlap, outputs linked into sources.

const project = projectsOfEachTest();

/** A mapping of a manifest: name, source and output pattern, one target (de) unless given. */
function mapping(name: string, source: string, output: string, langs = ['de']): string {
  return `  - name: ${name}\n    source: ${source}\n    output: ${output}\n    targets:\n${langs.map((l) => `      - lang: ${l}\n`).join('')}`;
}

describe('manifest edges', () => {
  it('refuses an alias bomb naming the file and line, and accepts an anchor used thousands of times', async () => {
    const bomb = ['mappings:', ...mapping('docs', 'docs', 'out/{lang}/{path}').trimEnd().split('\n')];
    // Nine levels of nine aliases each: 9^10 values from a few hundred bytes.
    bomb.push('    include: &l0 ["a", "b", "c", "d", "e", "f", "g", "h", "i"]');
    for (let i = 1; i <= 9; i++)
      bomb.push(
        `    exclude: &l${i} [${Array(9)
          .fill(`*l${i - 1}`)
          .join(', ')}]`,
      );
    const text = bomb
      .join('\n')
      .replace(/ {4}exclude: &l(\d)/g, (m, d: string) => (Number(d) < 9 ? `    x${d}: &l${d}` : m));
    // Only `exclude` is a key of the schema: the inner levels hang under a key the schema flags too,
    // but the expansion is refused first, at the alias that makes the data too large.
    const generated: string[] = ['mappings:'];
    generated.push(
      `  - name: m0\n    source: src/m0\n    output: out/{lang}/m0/{path}\n    targets: &targets\n      - lang: de\n      - lang: fr`,
    );
    for (let i = 1; i < 3000; i++)
      generated.push(
        `  - name: m${i}\n    source: src/m${i}\n    output: out/{lang}/m${i}/{path}\n    targets: *targets`,
      );
    const dir = await project({ 'bomb.yaml': text + '\n', 'many.yaml': generated.join('\n') + '\n' });

    const r = await runCli(['validate', '-c', path.join(dir, 'bomb.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(
      new RegExp(`${path.join(dir, 'bomb.yaml')}:\\d+:\\d+: YAML aliases expand to more than`),
    );
    expect(r.stdout + r.stderr).not.toContain('resource exhaustion');

    const many = await checkManifestFile(path.join(dir, 'many.yaml'));
    expect(many.errors).toEqual([]);
    expect(many.loaded?.manifest.mappings).toHaveLength(3000);
    expect(many.loaded?.manifest.mappings[2999]?.targets.map((t) => t.lang)).toEqual(['de', 'fr']);
  });

  it('validates a 10 MB generated manifest and still finds the one collision in it', async () => {
    const dir = await project({});
    const parts: string[] = ['mappings:\n'];
    let size = 0;
    let n = 0;
    while (size < 10_000_000) {
      const m = mapping(`m${n}`, `src/m${n}`, `out/{lang}/m${n}/{path}`, ['de', 'fr']);
      parts.push(m);
      size += m.length;
      n++;
    }
    // The last mapping writes where the first one does.
    parts.push(mapping('late', 'src/late', 'out/{lang}/m0/{path}'));
    const file = path.join(dir, 'big.yaml');
    fs.writeFileSync(file, parts.join(''));
    const { errors } = await checkManifestFile(file);
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringContaining(
        `outputs of mapping 'late' (de) collide with those of mapping 'm0' (de, line 4)`,
      ),
    ]);
    expect(errors[0]?.line).toBe(n * 6 + 4);
  }, 600_000);

  it("refuses '..' inside an output pattern (a leading '../' names a folder beside the manifest's)", async () => {
    const dir = await project({
      'inside.yaml': `mappings:\n${mapping('docs', 'docs', 'out/{lang}/../{path}')}`,
      'up.yaml': `mappings:\n${mapping('docs', 'docs', 'out/../../elsewhere/{lang}/{path}')}`,
      'beside.yaml': `mappings:\n${mapping('docs', 'docs', '../translated/{lang}/{path}')}`,
    });
    for (const f of ['inside.yaml', 'up.yaml']) {
      const { errors } = await checkManifestFile(path.join(dir, f));
      expect(errors.map((e) => [e.line, e.message])).toEqual([
        [4, expect.stringContaining("mappings[0].output: '..' inside the output pattern")],
      ]);
    }
    expect((await checkManifestFile(path.join(dir, 'beside.yaml'))).errors).toEqual([]);
  });

  it('refuses a service URL that is not http(s) at validate time, and never prints a password in it', async () => {
    const url = 'ftp://deploy:hunter2-secret@files.example.com/x';
    const dir = await project({
      'ftp.yaml': `service:\n  url: ${url}\n${MINIMAL}`,
      'pw.yaml': `service:\n  url: https://deploy:hunter2-secret@api.example.com\n${MINIMAL}`,
      'docs/a.txt': 'A document.\n',
    });
    const ftp = await runCli(['validate', '-c', path.join(dir, 'ftp.yaml')]);
    expect(ftp.code).toBe(2);
    expect(ftp.stdout).toContain(
      "service.url: expected an http:// or https:// URL such as https://api.example.com, got 'ftp://deploy:***@files.example.com/x'",
    );
    expect(ftp.stderr + ftp.stdout).not.toContain('hunter2');

    const pw = await runCli(['validate', '-c', path.join(dir, 'pw.yaml')]);
    expect(pw.code).toBe(0);
    expect(pw.stdout).toContain('warning: service.url: the URL holds a password');
    // sync without the API key: the error names the service without its password.
    const sync = await runCli(['sync', '-c', path.join(dir, 'pw.yaml')], { env: { LOCSYNC_API_KEY: '' } });
    expect(sync.code).toBe(2);
    expect(sync.stderr).toContain('the key of https://deploy:***@api.example.com');
    expect(pw.stderr + pw.stdout + sync.stderr + sync.stdout).not.toContain('hunter2');
  });

  it('warns about mappings whose output patterns can overlap, with a path both can write', async () => {
    const dir = await project({
      'p.yaml': `mappings:\n${mapping('docs', 'docs', 'out/{lang}/{path}', ['de', 'fr'])}${mapping('api', 'api', 'out/{lang}/api/{path}', ['de', 'fr'])}${mapping('notes', 'notes', 'notes-out/{lang}/{dir}/{stem}.txt')}${mapping('other', 'other', 'notes-out/{lang}/{path}.txt')}`,
    });
    const { errors, warnings } = await checkManifestFile(path.join(dir, 'p.yaml'));
    expect(errors).toEqual([]);
    const overlaps = warnings.filter((w) => w.message.includes('can overlap'));
    expect(overlaps.map((w) => [w.line, w.message])).toEqual([
      [
        10,
        expect.stringContaining(
          "outputs of mapping 'api' (de, 'out/{lang}/api/{path}') can overlap those of mapping 'docs' (de, 'out/{lang}/{path}', line 4): both can write 'out/de/api/x'",
        ),
      ],
      [
        21,
        expect.stringContaining(
          "outputs of mapping 'other' (de, 'notes-out/{lang}/{path}.txt') can overlap those of mapping 'notes' (de, 'notes-out/{lang}/{dir}/{stem}.txt', line 16)",
        ),
      ],
    ]);
  });

  it('refuses an output folder that is a link into a source folder (or into which a source is linked)', async () => {
    const dir = await project({ 'src/a.txt': 'A.\n', 'elsewhere/b.txt': 'B.\n' });
    fs.mkdirSync(path.join(dir, 'src', 'translated'));
    fs.symlinkSync(path.join(dir, 'src', 'translated'), path.join(dir, 'out'));
    fs.writeFileSync(path.join(dir, 'in.yaml'), `mappings:\n${mapping('docs', 'src', 'out/{lang}/{path}')}`);
    const r = await runCli(['validate', '-c', path.join(dir, 'in.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(
      `in.yaml:4:13: mappings[0].output: output folder 'out/de' of 'out/{lang}/{path}' (which resolves, following links, to '${fs.realpathSync(dir)}/src/translated/de') is inside the source folder 'src' of mapping 'docs'`,
    );

    // sync refuses it the same way, before anything is uploaded (the embedded local service).
    const sync = await runCli(['sync', '-c', path.join(dir, 'in.yaml')]);
    expect(sync.code).toBe(2);
    expect(sync.stderr).toContain("is inside the source folder 'src' of mapping 'docs'");
    expect(fs.readdirSync(path.join(dir, 'src', 'translated'))).toEqual([]);

    // A source folder reached through a link that lands inside the output folder.
    fs.mkdirSync(path.join(dir, 'made', 'de', 'sub'), { recursive: true });
    fs.symlinkSync(path.join(dir, 'made', 'de', 'sub'), path.join(dir, 'linked-src'));
    fs.writeFileSync(
      path.join(dir, 'around.yaml'),
      `mappings:\n${mapping('docs', 'linked-src', 'made/{lang}/{path}')}`,
    );
    const around = await checkManifestFile(path.join(dir, 'around.yaml'));
    expect(around.errors.map((e) => e.message)).toEqual([
      expect.stringContaining(
        "the source folder 'linked-src' of mapping 'docs' is inside the output folder 'made/de'",
      ),
    ]);
  });
});

describe('patternOverlap', () => {
  it('finds a path two patterns can both render, or none', () => {
    expect(patternOverlap('out/de/{path}', 'out/de/api/{path}')).toBe('out/de/api/x');
    expect(patternOverlap('out/de/docs/{path}', 'out/de/api/{path}')).toBeUndefined();
    expect(patternOverlap('out/de/{dir}/{stem}.txt', 'out/de/{path}')).toBe('out/de/x.txt');
    expect(patternOverlap('out/de/{dir}/{stem}.txt', 'out/de/{name}.html')).toBeUndefined();
    // {name} is one file name: it never stands for a folder.
    expect(patternOverlap('out/de/{name}', 'out/de/sub/{name}')).toBeUndefined();
    expect(patternOverlap('out/de/{dir}/{name}', 'out/de/sub/{name}')).toBe('out/de/sub/x');
    expect(patternOverlap('out/{path}.de', 'out/{path}.fr')).toBeUndefined();
    expect(patternOverlap('out/{stem}-de.{ext}', 'out/{stem}.{ext}')).toBe('out/x-de.x');
  });
});
