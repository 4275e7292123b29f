import fs from 'node:fs';
import path from 'node:path';

/**
 * Every TypeScript file under `dir`, relative to it with '/' separators, with its code (comments
 * left out): what the architecture tests read.
 */
export function typescriptSources(dir: string): Array<{ file: string; code: string }> {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({
      file: f.split(path.sep).join('/'),
      code: fs.readFileSync(path.join(dir, f), 'utf8').replace(/\/\*[^]*?\*\/|\/\/.*$/gm, ''),
    }));
}
