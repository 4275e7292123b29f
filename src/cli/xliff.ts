import { ConfigError, EXIT } from '../util/errors.js';
import { formatCounted } from '../util/format.js';
import { exportXliff } from '../xliff/export.js';
import { importXliff, type XliffImportSummary } from '../xliff/import.js';
import { withMemory, type MemoryOptions } from './memory.js';

// `locsync xliff export | import` (docs/xliff.md): a translator's round trip through a CAT tool.

export async function xliffExportAction(
  opts: MemoryOptions & {
    out?: string;
    mapping?: string;
    lang?: string;
    only?: string;
    xliff?: string;
    since?: string;
  },
): Promise<void> {
  if (!opts.out) throw new ConfigError('xliff export needs -o <file or folder>');
  const version = opts.xliff ?? '1.2';
  if (version !== '1.2' && version !== '2.1')
    throw new ConfigError(`--xliff must be 1.2 or 2.1 (got "${opts.xliff}")`);
  const only = opts.only ?? 'all';
  if (only !== 'all' && only !== 'unreviewed' && only !== 'changed')
    throw new ConfigError(`--only must be all, unreviewed or changed (got "${only}")`);
  const out = opts.out;
  const s = await withMemory(opts, 'xliff export', false, (loaded, memory, opened) =>
    exportXliff(loaded, opened.state, memory, {
      out,
      only,
      xliff: version,
      ...(opts.since !== undefined ? { since: opts.since } : {}),
      ...(opts.mapping ? { mapping: opts.mapping } : {}),
      ...(opts.lang ? { lang: opts.lang.toLowerCase() } : {}),
    }),
  );
  const notWritten = s.empty.length > 0 ? `; nothing to export into ${s.empty.join(', ')}: not written` : '';
  process.stdout.write(
    opts.json
      ? JSON.stringify(s) + '\n'
      : s.files.length === 0
        ? `nothing to export (0 units of ${formatCounted(s.documents, 'document')}): no file written\n`
        : `${s.files.join(', ')}: ${formatCounted(s.units, 'unit')} of ${formatCounted(s.documents, 'document')} (XLIFF ${version})${notWritten}\n`,
  );
}

function importLines(s: XliffImportSummary): string[] {
  const lines = [
    `${formatCounted(s.taken.length, 'unit')} taken as reviewed wording, ${s.refused.length} refused, ${s.unchanged} left alone`,
  ];
  for (const t of s.taken) lines.push(`  taken: ${t.file}: ${t.unit} (${t.document})`);
  for (const r of s.refused) lines.push(`  refused: ${r.file}: unit ${r.unit}: ${r.why}`);
  // Document-path outputs have the wording now; a user checking a docx should not wait for a sync.
  for (const w of s.written)
    lines.push(`  written: ${w} (the wording taken, into the delivered file: nothing sent)`);
  if (s.outputs.length > 0)
    lines.push(
      `  the next \`locsync sync\` writes them into ${s.outputs.length} output${s.outputs.length === 1 ? '' : 's'} (from the memory: nothing sent)`,
    );
  return lines;
}

export async function xliffImportAction(files: string[], opts: MemoryOptions): Promise<void> {
  const s = await withMemory(opts, 'xliff import', true, (loaded, memory, opened) =>
    importXliff(loaded, opened.state, memory, files),
  );
  process.stdout.write(opts.json ? JSON.stringify(s, null, 2) + '\n' : importLines(s).join('\n') + '\n');
  if (s.refused.length > 0) process.exitCode = EXIT.failed;
}
