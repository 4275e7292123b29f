import path from 'node:path';

/** Extension of a file name without the dot, lower-case ('' when none). */
export function extOf(file: string): string {
  return path.extname(file).slice(1).toLowerCase();
}
