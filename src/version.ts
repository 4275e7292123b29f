import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest package.json above this module: dist/ as tsc writes it, or the bundled command's folder. */
function packageJson(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) return file;
    if (path.dirname(dir) === dir)
      throw new Error('locsync: package.json not found above ' + import.meta.url);
  }
}

/** The package version, read from package.json (User-Agent `locsync/<version>`). */
export const VERSION: string = (JSON.parse(readFileSync(packageJson(), 'utf8')) as { version: string })
  .version;
