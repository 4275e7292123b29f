import { describe, expect, it } from 'vitest';
import { formatStatus, type StatusData } from '../../src/cli/status.js';
import type { RunRecord } from '../../src/state/types.js';

// The words of `locsync status` for runs, from the data it collects (no state needed).

function data(runs: RunRecord[]): StatusData {
  return {
    state: '/tmp/state.db',
    last_outcome: null,
    last_run: runs.find((r) => r.status !== 'skipped') ?? null,
    runs,
    inFlight: [],
    failures: [],
    stale: null,
    gaveUp: null,
    skipped: null,
    spooled: { folder: '/tmp/spool', documents: [] },
  };
}

const run = (over: Partial<RunRecord>): RunRecord => ({
  id: 1,
  started_at: '2026-01-01T10:00:00.000Z',
  finished_at: null,
  command: 'sync',
  status: 'running',
  pid: 4242,
  counts: null,
  billed_characters: 0,
  reason: null,
  ...over,
});

describe('status text', () => {
  it('a run still going says "running (pid N)" once, with how long ago it started', () => {
    const now = Date.parse('2026-01-01T10:02:00.000Z');
    const text = formatStatus(data([run({})]), 'pipeline.yaml', now);
    expect(text).toContain('#1 sync 2026-01-01T10:00:00.000Z (2m00s ago): running (pid 4242)');
    expect(text).not.toMatch(/running: running/);
  });

  it('a finished run gives its duration; a run refused by the lock reads skipped (lock)', () => {
    const now = Date.parse('2026-01-01T11:00:00.000Z');
    const text = formatStatus(
      data([
        run({
          id: 2,
          status: 'skipped',
          reason: 'lock',
          finished_at: '2026-01-01T10:30:00.000Z',
          started_at: '2026-01-01T10:30:00.000Z',
        }),
        run({ status: 'ok', finished_at: '2026-01-01T10:00:05.000Z' }),
      ]),
      'pipeline.yaml',
      now,
    );
    expect(text).toContain('#2 sync 2026-01-01T10:30:00.000Z (30m00s ago), 0s: skipped (lock)');
    expect(text).toContain('#1 sync 2026-01-01T10:00:00.000Z (1h00m ago), 5s: ok');
  });
});
