import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { median } from './timing.js';

// What any Node.js program pays before it does a sync's own work, measured on this machine beside
// rsync: the no-op's floor. A process that starts Node.js and loads the command's modules, and one
// that only walks a tree as the listing must (a readdir per folder, an lstat per file) and does
// nothing else. rsync does the same comparison in C, in two processes.

/** A bare walk: readdir of every folder, lstat of every file, no rules, no digest, no state. */
const BARE_WALK = `
const fs = require('node:fs');
const todo = [process.argv[1]];
let n = 0;
while (todo.length) {
  const dir = todo.pop();
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = dir + '/' + e.name;
    if (e.isDirectory()) todo.push(p);
    else if (fs.lstatSync(p).size >= 0) n++;
  }
}
process.stdout.write(String(n));
`;

function timedProcess(args: string[]): number {
  const started = performance.now();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`node ${args[0]} failed: ${r.stderr}`);
  return performance.now() - started;
}

/** Median wall time of a Node.js process that does nothing (the start the other two include). */
export function nodeStartMs(runs = 3): number {
  return median(Array.from({ length: runs }, () => timedProcess(['-e', ''])));
}

/** Median wall time of a Node.js process that walks `root` bare (see BARE_WALK). */
export function bareWalkMs(root: string, runs = 3): number {
  return median(Array.from({ length: runs }, () => timedProcess(['-e', BARE_WALK, root])));
}

/**
 * Median wall time of a Node.js process that only loads the sync command as bin/locsync.js does: the
 * bundled command (dist/bundle/main.js) and its sync command (dist/bundle/sync.js).
 */
export function loadSyncCommandMs(projectRoot: string, runs = 3): number {
  return median(Array.from({ length: runs }, () => timedProcess(loadArgs(projectRoot))));
}

/** node's arguments that load the bundled command and its sync command. */
function loadArgs(projectRoot: string): string[] {
  const url = (name: string) =>
    JSON.stringify(pathToFileURL(path.join(projectRoot, 'dist', 'bundle', name)).href);
  return ['--input-type=module', '-e', `await import(${url('main.js')}); await import(${url('sync.js')})`];
}
