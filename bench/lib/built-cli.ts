import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The locsync command as a user runs it: bin/locsync.js over dist/ (the esbuild bundle).

const ROOT = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
export const BIN = path.join(ROOT, 'bin', 'locsync.js');

/** dist/ as the command runs it: rebuilt when a source file is newer than the built CLI. */
export function ensureBuilt(who = 'bench'): void {
  const built = path.join(ROOT, 'dist', 'bundle', 'main.js');
  const builtAt = fs.existsSync(built) ? fs.statSync(built).mtimeMs : 0;
  const newer = (dir: string): boolean =>
    fs.readdirSync(dir, { withFileTypes: true }).some((e) => {
      const p = path.join(dir, e.name);
      return e.isDirectory() ? newer(p) : e.name.endsWith('.ts') && fs.statSync(p).mtimeMs > builtAt;
    });
  if (!newer(path.join(ROOT, 'src'))) return;
  process.stderr.write(`${who}: building dist/ (a source is newer than dist/bundle/main.js)\n`);
  const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error('npm run build failed');
}
