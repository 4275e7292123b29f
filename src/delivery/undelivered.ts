import fs from 'node:fs';
import path from 'node:path';
import { PartFile } from '../util/part-file.js';
import type { Delivery } from './delivered.js';

// A delivery whose commit was refused (a detached HEAD, a merge under way ...) is kept in the state
// folder, so that the next run that commits takes its files in too: a run that then has nothing new
// to deliver still commits what the refused one wrote.

const FILE = 'git-undelivered.json';

export function loadUndelivered(stateDir: string): Delivery | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(stateDir, FILE), 'utf8')) as Delivery;
  } catch {
    return undefined;
  }
}

export async function saveUndelivered(stateDir: string, d: Delivery): Promise<void> {
  fs.mkdirSync(stateDir, { recursive: true });
  const part = await PartFile.open(path.join(stateDir, FILE), 'git', { exclusive: false });
  try {
    await part.handle.writeFile(JSON.stringify(d, null, 1) + '\n');
    await part.commit();
  } finally {
    await part.discard();
  }
}

export function clearUndelivered(stateDir: string): void {
  fs.rmSync(path.join(stateDir, FILE), { force: true });
}
