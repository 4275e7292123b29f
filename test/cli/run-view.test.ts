import { describe, expect, it } from 'vitest';
import { createSyncEvents } from '../../src/sync/events.js';
import type { PlannedAction } from '../../src/sync/plan/types.js';
import { renderProgress, RunTracker } from '../../src/cli/progress.js';
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
