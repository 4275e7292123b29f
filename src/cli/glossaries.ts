import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { GlossaryApi } from '../api/glossaries.js';
import { fromTsv } from '../manifest/glossary-entries.js';
import { writeEntriesFile } from '../styles/glossary-write.js';
import { ConfigError, EXIT } from '../util/errors.js';
import { fileKey, withStyleContext, type PulledFile } from './styles.js';

interface PullOptions {
  config: string;
  out?: string;
  format?: string;
  json?: boolean;
}

/**
 * `locsync glossaries pull`: every glossary of the service (also ones made elsewhere) as files, one
 * per language pair (`<key>.<pair>.csv`); existing files are edited line by line, and the manifest
 * lines that use the glossaries not in it yet are printed.
 */
export async function glossariesPullAction(opts: PullOptions): Promise<void> {
  const format = opts.format ?? 'csv';
  if (format !== 'csv' && format !== 'tsv')
    throw new ConfigError(`--format accepts csv or tsv (got "${format}")`);
  await withStyleContext(opts.config, { connect: () => true }, async ({ loaded, state, connection }) => {
    const api = new GlossaryApi(connection!.client);
    const glossaries = await api.list();
    const out = opts.out ? path.resolve(opts.out) : path.join(loaded.dir, 'glossaries');
    await mkdir(out, { recursive: true });
    const keys = new Map(state.glossaries.allGlossaries().map((g) => [g.glossary_id, g.key]));
    const taken = new Set<string>();
    const unused: string[] = [];
    const written: PulledFile[] = [];
    for (const g of glossaries) {
      const key = fileKey({ id: g.glossary_id, name: g.name }, keys, taken, 'glossary');
      const files: string[] = [];
      for (const d of g.dictionaries) {
        const [s, t] = [d.source_lang.toLowerCase(), d.target_lang.toLowerCase()];
        const pair = `${s}-${t}`;
        const entries = fromTsv(await api.entries(g.glossary_id, s, t));
        const file = path.join(out, `${key}.${pair}.${format}`);
        const what = await writeEntriesFile(file, entries, format);
        const rel = path.relative(loaded.dir, file).split(path.sep).join('/');
        files.push(`      ${pair}: ${rel}`);
        const inManifest = !!loaded.glossaries?.[key];
        written.push({ key, file: rel, written: what, name: g.name, pair, in_manifest: inManifest });
        if (!opts.json)
          process.stdout.write(
            `${what.padEnd(9)} ${rel}  "${g.name}" (${pair}, ${entries.size} ${entries.size === 1 ? 'entry' : 'entries'})\n`,
          );
      }
      if (!loaded.glossaries?.[key]) {
        const name = g.name !== key ? `\n    name: ${JSON.stringify(g.name)}` : '';
        unused.push(`  ${key}:${name}\n    files:\n${files.join('\n')}`);
      }
    }
    if (opts.json) return void process.stdout.write(JSON.stringify({ out, files: written }, null, 2) + '\n');
    process.stdout.write(
      `${glossaries.length} glossar${glossaries.length === 1 ? 'y' : 'ies'} on the service written to ${out}\n`,
    );
    if (unused.length)
      process.stdout.write(
        `\nNot in ${path.basename(loaded.path)} yet; to use them add (and glossary: <key> on targets):\nglossaries:\n${unused.join('\n')}\n`,
      );
  });
  process.exitCode = EXIT.ok;
}
