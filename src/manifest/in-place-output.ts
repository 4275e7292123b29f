import path from 'node:path';
import { extensionOf, isInPlaceFormat } from '../documents/format-registry.js';

// An output written into its own source file: a format whose one file holds every language
// (.xcstrings, docs/strings/xcstrings.md). Each target is a part of that file, named
// `<file>#<lang>` wherever an output is named (the plan, the state's job rows, claims), so that
// every target keeps its own record of what it wrote; the file written is the part before '#'.

const PART = '#';

/** The output naming `lang`'s part of the in-place file `file`. */
export function inPlaceOutput(file: string, lang: string): string {
  return `${file}${PART}${lang}`;
}

/** Where `output` splits into its file and its language (-1: a file of its own). */
function partAt(output: string): number {
  const at = output.lastIndexOf(PART);
  if (at === -1 || at < output.lastIndexOf('/')) return -1;
  return isInPlaceFormat(extensionOf(output.slice(0, at))) ? at : -1;
}

/** The file an output is written to: itself, or the file whose part it is. */
export function outputFile(output: string): string {
  const at = partAt(output);
  return at === -1 ? output : output.slice(0, at);
}

/** The language whose part of its file `output` is (undefined: a file of its own). */
export function outputLanguage(output: string): string | undefined {
  const at = partAt(output);
  return at === -1 ? undefined : output.slice(at + 1);
}

/**
 * Whether `rendered` (an output path, relative to the manifest folder as renderOutputPath gives
 * it) is the source file `relPath` of the folder `source` itself.
 */
export function isOwnSource(rendered: string, source: string, relPath: string): boolean {
  return rendered === path.posix.normalize(`${source.replaceAll('\\', '/')}/${relPath}`);
}
