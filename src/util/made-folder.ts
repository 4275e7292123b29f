import fsp from 'node:fs/promises';
import path from 'node:path';

// A folder made for a file that may never arrive (an output that fails its checks, a write that
// breaks off): whoever made it takes it back, so that no empty output folder is left behind.

/** Takes back the folders a makeFolder call created, those still empty, deepest first. */
export type TakeBack = () => Promise<void>;

/**
 * Makes `dir` and the parents it lacks; answers how to remove what it made. A folder that holds
 * anything when taken back (another output written into it meanwhile) stays.
 */
export async function makeFolder(dir: string): Promise<TakeBack> {
  const first = await fsp.mkdir(dir, { recursive: true });
  if (first === undefined) return async () => undefined;
  return async () => {
    for (let d = path.resolve(dir); ; d = path.dirname(d)) {
      try {
        await fsp.rmdir(d);
      } catch {
        return;
      }
      if (d === path.resolve(first) || d === path.dirname(d)) return;
    }
  };
}
