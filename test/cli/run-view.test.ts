import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { STOP_TEXT } from '../../src/cli/shutdown.js';
import { createLogger } from '../../src/log/logger.js';
import { createSyncEvents } from '../../src/sync/events.js';
import type { PlannedAction } from '../../src/sync/plan/types.js';
import { renderProgress, RunTracker } from '../../src/cli/progress.js';
import { stoppingLines } from '../../src/cli/stop-view.js';
import { formatBytes, formatCount, formatDuration, formatPercent } from '../../src/util/format.js';

const ref = (jobId: number, target = 'de') => ({
  jobId,
  mapping: 'docs',
  file: `f${jobId}.txt`,
  target,
  output: `out/${target}/f${jobId}.txt`,
});

describe('the run view', () => {
  it('counts every unit found as waiting until a worker takes it, and gives totals per phase', () => {
    let now = 1_000_000;
    const events = createSyncEvents();
    const t = new RunTracker(events, () => now);
    events.emit('scan:done', { mapping: 'docs', files: 14, hashed: 14, bytesHashed: 1000 });
    // The executor takes twelve translations (the test only reads their kind).
    for (let i = 1; i <= 12; i++)
      events.emit('action', { kind: 'translate', ref: ref(i) } as unknown as PlannedAction);
    events.emit('job:queued', { ...ref(100), documentId: 'D100', resumed: true });
    expect(t.totals()).toMatchObject({ total: 13, waiting: 13, uploaded: 1, scanned: 14 });

    events.emit('job:queued', { ...ref(1), resumed: false });
    events.emit('job:uploading', { ...ref(1), attempt: 1 });
    events.emit('job:uploaded', { ...ref(1), documentId: 'D1' });
    events.emit('job:downloading', { ...ref(1), documentId: 'D1' });
    now += 10_000;
    events.emit('job:done', { ...ref(1), documentId: 'D1', billedCharacters: 50_000, bytes: 2048 });
    events.emit('billed', {
      characters: 50_000,
      total: 50_000,
      mapping: 'docs',
      file: 'f1.txt',
      target: 'de',
    });
    events.emit('job:queued', { ...ref(2), resumed: false });
    events.emit('job:uploading', { ...ref(2), attempt: 1 });
    const c = t.totals();
    expect(c).toMatchObject({
      total: 13,
      uploaded: 2,
      translated: 1,
      downloaded: 1,
      uploading: 1,
      waiting: 11,
    });
    expect(c.bytes).toBe(2048);
    // One finished in 10 s, twelve left.
    expect(t.etaMs()).toBe(120_000);

    const lines = renderProgress(t, { now, longJobMs: 60_000, maxJobLines: 5, color: false });
    expect(lines[0]).toBe('locsync 10s  14 files  upload 2/13  translate 1/13  download 1/13  7%  ETA 2m00s');
    expect(lines[1]).toBe('  uploading 1  at the service 0  downloading 0  waiting 11  reused 0  failed 0');
    expect(lines[2]).toBe('  billed 50,000 characters  downloaded 2.0 KiB');
  });

  it('shows a file name holding a newline or an escape sequence escaped, on one line', () => {
    const now = 1_000_000;
    const events = createSyncEvents();
    const t = new RunTracker(events, () => now);
    const evil = { ...ref(7), file: 'a\nb\u001b[2Jc.txt' };
    events.emit('action', { kind: 'translate', ref: evil } as unknown as PlannedAction);
    events.emit('job:queued', { ...evil, resumed: false });
    events.emit('job:uploading', { ...evil, attempt: 1 });
    const lines = renderProgress(t, { now: now + 120_000, longJobMs: 60_000, maxJobLines: 5, color: false });
    const job = lines.find((l) => l.includes('docs/a'));
    expect(job).toBe('  docs/a\\nb\\u{1b}[2Jc.txt -> de: uploading for 2m00s');
    expect(lines.join('\n')).not.toContain('\u001b');
  });

  it('says what it does before any work is found, and when there is none', () => {
    const events = createSyncEvents();
    const t = new RunTracker(events, () => 0);
    const draw = () => renderProgress(t, { now: 0, longJobMs: 1, maxJobLines: 1, color: false });
    expect(draw()).toEqual(['locsync 0s  0 files  checking style lists, scanning']);
    events.emit('scan:done', { mapping: 'docs', files: 3, hashed: 0, bytesHashed: 0 });
    expect(draw()).toEqual(['locsync 0s  3 files  nothing to translate']);
  });
});

/** A run mid-way: 37 files, 600 units, 57 done in 9 minutes, jobs with long names in flight. */
function busyRun(now: () => number) {
  const events = createSyncEvents();
  const t = new RunTracker(events, now);
  events.emit('scan:done', { mapping: 'handbook', files: 37, hashed: 37, bytesHashed: 1000 });
  const long = (i: number) => ({
    ...ref(i),
    mapping: 'handbook',
    file: `chapters/part-${i}/a-rather-long-file-name-for-chapter-${i}-of-the-operators-handbook.docx`,
  });
  for (let i = 1; i <= 600; i++)
    events.emit('action', { kind: 'translate', ref: long(i) } as unknown as PlannedAction);
  for (let i = 1; i <= 60; i++) {
    events.emit('job:queued', { ...long(i), resumed: false });
    events.emit('job:uploading', { ...long(i), attempt: 1 });
    events.emit('job:uploaded', { ...long(i), documentId: `D${i}ABCDEF0123456789` });
  }
  for (let i = 1; i <= 57; i++) {
    events.emit('job:done', { ...long(i), documentId: `D${i}`, billedCharacters: 12_345, bytes: 40_000 });
    events.emit('billed', { characters: 12_345, total: 0, mapping: 'handbook', file: 'x', target: 'de' });
  }
  return { events, t };
}

describe('the run view at 80 and 120 columns (issue 29)', () => {
  const start = 1_000_000;
  let now = start;
  const clock = () => now;
  const rate = { price_per_million: 25, currency: 'EUR' };
  const draw = (t: RunTracker, width: number) =>
    renderProgress(t, { now, longJobMs: 0, maxJobLines: 5, color: false, width, rate });

  for (const width of [79, 119]) {
    it(`every line fits ${width + 1} columns, the share done and the ETA whole, names shortened`, () => {
      now = start;
      const { t } = busyRun(clock);
      now = start + 9 * 60_000;
      const lines = draw(t, width);
      for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(width);
      expect(lines[0]).toMatch(/ 9% {2}ETA 1h25m$/);
      expect(lines[0]).toContain('download 57/600');
      // What each job does and for how long is never cut; its name is shortened in the middle.
      const jobs = lines.filter((l) => l.includes(' -> de: '));
      expect(jobs).toHaveLength(3);
      for (const j of jobs)
        expect(j).toMatch(/^ {2}handbook\/chapters.*….*\.docx -> de: waiting on the service for 9m00s/);
    });
  }

  it('shows money beside the characters billed when billing: is set', () => {
    now = start;
    const { t } = busyRun(clock);
    expect(draw(t, 79).join('\n')).toContain('billed 703,665 characters (€17.59)');
    const without = renderProgress(t, { now, longJobMs: 0, maxJobLines: 5, color: false, width: 79 });
    expect(without.join('\n')).toContain('billed 703,665 characters  ');
  });

  it('wraps the stop message and a reason to stop uploading between words', () => {
    now = start;
    const { events, t } = busyRun(clock);
    events.emit('run:stopping', { graceEndsAt: start + 30_000 });
    const reason =
      'the character quota of the account is used up (456): Quota exceeded. No more uploads this run; documents already uploaded are still collected.';
    events.emit('uploads:stopped', { reason, kind: 'quota' });
    for (const width of [79, 119]) {
      const lines = draw(t, width);
      for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(width);
      const words = (text: string) => text.split(/\s+/).filter(Boolean);
      // The message's lines hold its words whole and in order: no word is cut at the edge.
      const stopAt = lines.findIndex((l) => l.startsWith('Stopping:'));
      const stop = lines.slice(
        stopAt,
        lines.findIndex((l) => l.startsWith('locsync')),
      );
      expect(stop.length).toBeGreaterThan(1);
      expect(words(stop.join(' '))).toEqual(words(stoppingLines(t, now).join(' ')));
      const upAt = lines.findIndex((l) => l.startsWith('  uploads stopped:'));
      const up = lines.slice(upAt, upAt + 3).filter((l, i) => i === 0 || l.startsWith('    '));
      expect(words(up.join(' '))).toEqual(words(`uploads stopped: ${reason}`));
    }
  });

  it('a log line on a 120-column terminal wraps between words (the stop message)', () => {
    let written = '';
    const tty = Object.assign(new PassThrough(), { isTTY: true, columns: 120 });
    tty.on('data', (d: Buffer) => (written += d.toString()));
    const logger = createLogger({ format: 'pretty', destination: tty, level: 'info' });
    const message = `SIGINT: stopping: no new uploads, documents in flight get 30s to finish (${STOP_TEXT.again})`;
    logger.warn(message);
    const lines = written
      .replace(new RegExp(`${'\x1b'}\\[[0-9;]*m`, 'g'), '')
      .trimEnd()
      .split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(119);
    const words = (text: string) => text.split(/\s+/).filter(Boolean);
    expect(words(lines.join(' '))).toEqual(expect.arrayContaining(words(message)));
    expect(lines.join(' ').replace(/\s+/g, ' ')).toContain(message);
  });

  it('counts the files of a watch as they come and go, not as the first scan found them', () => {
    const events = createSyncEvents();
    const t = new RunTracker(events, () => 0);
    events.emit('scan:start', { mapping: 'docs' });
    events.emit('scan:done', { mapping: 'docs', files: 37, hashed: 0, bytesHashed: 0 });
    for (let i = 0; i < 5; i++)
      events.emit('source:changed', {
        mapping: 'docs',
        file: `new${i}.txt`,
        change: 'added',
        recorded: false,
      });
    // Written twice before it is recorded: counted once.
    events.emit('source:changed', { mapping: 'docs', file: 'new0.txt', change: 'added', recorded: false });
    events.emit('source:changed', { mapping: 'docs', file: 'old.txt', change: 'removed', recorded: true });
    // Its deletion seen twice (an event and a rescan of its folder): counted once.
    events.emit('source:changed', { mapping: 'docs', file: 'old.txt', change: 'removed', recorded: true });
    expect(t.totals().scanned).toBe(41);
    // Added, then deleted before the state knew it: gone from the count again.
    events.emit('source:changed', { mapping: 'docs', file: 'new4.txt', change: 'removed', recorded: false });
    expect(t.totals().scanned).toBe(40);
    // A rescan counts afresh.
    events.emit('scan:start', { mapping: 'docs' });
    events.emit('scan:done', { mapping: 'docs', files: 40, hashed: 0, bytesHashed: 0 });
    expect(t.totals().scanned).toBe(40);
  });
});

describe('number formatting', () => {
  it('separates thousands, and gives bytes, durations and shares their units', () => {
    expect(formatCount(753750)).toBe('753,750');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(300 * 1024 * 1024)).toBe('300 MiB');
    expect(formatDuration(75_000)).toBe('1m15s');
    expect(formatDuration(3_960_000)).toBe('1h06m');
    expect(formatPercent(41, 42)).toBe('97%');
    expect(formatPercent(0, 0)).toBe('–');
  });
});
