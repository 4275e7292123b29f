import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { commandVersion } from './tools.js';

// The machine a table of figures came from, printed with it.

export interface MachineFacts {
  cpu: string;
  cores: number;
  memoryGb: number;
  node: string;
  os: string;
  loadAverage: string;
  rsync: string;
  /** The commit measured ("+ changes" when the checkout has uncommitted ones); empty outside git. */
  commit: string;
  date: string;
}

function gitCommit(): string {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  if (head.error || head.status !== 0) return '';
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' });
  return head.stdout.trim() + (dirty.stdout?.trim() ? ' + uncommitted changes' : '');
}

export function machineFacts(now = new Date()): MachineFacts {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() || 'unknown',
    cores: os.availableParallelism?.() ?? cpus.length,
    memoryGb: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    os: `${os.type()} ${os.release()} (${os.arch()})`,
    loadAverage: os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' '),
    rsync: commandVersion('rsync')?.replace(/\s+/g, ' ') ?? 'rsync not installed',
    commit: gitCommit(),
    date: now.toISOString().replace(/\.\d+Z$/, 'Z'),
  };
}

export function formatMachine(m: MachineFacts): string {
  return [
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB memory, ${m.os}`,
    `Node ${m.node}; ${m.rsync}; load average at start ${m.loadAverage}; ${m.date}` +
      (m.commit ? `; commit ${m.commit}` : ''),
  ].join('\n');
}
