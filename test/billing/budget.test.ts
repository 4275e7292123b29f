import { describe, expect, it } from 'vitest';
import {
  capBeforeUpload,
  checkBudget,
  describeExceeded,
  describeReached,
  type BudgetCaps,
} from '../../src/billing/budget.js';
import { estimateKey, SpendGuard } from '../../src/billing/spend-guard.js';
import { formatCharacters } from '../../src/billing/money.js';

describe('checkBudget (before a run)', () => {
  it('lets a run through when no cap is set or every cap holds', () => {
    expect(checkBudget(10_000_000, {}, 0)).toEqual([]);
    expect(checkBudget(1000, { perRun: 1000, perMonth: 5000 }, 4000)).toEqual([]);
  });

  it('stops a run whose plan is over the run cap', () => {
    expect(checkBudget(1001, { perRun: 1000 }, 0)).toEqual([
      { cap: 'per_run', limit: 1000, used: 0, adding: 1001 },
    ]);
  });

  it('counts the month so far against the monthly cap', () => {
    expect(checkBudget(600, { perMonth: 5000 }, 4500)).toEqual([
      { cap: 'per_month', limit: 5000, used: 4500, adding: 600 },
    ]);
    expect(checkBudget(500, { perMonth: 5000 }, 4500)).toEqual([]);
  });

  it('--max-billed replaces the run cap for this run, the monthly cap still holds', () => {
    expect(checkBudget(2000, { perRun: 1000, maxBilled: 3000 }, 0)).toEqual([]);
    expect(checkBudget(2000, { perRun: 5000, maxBilled: 1000 }, 0).map((c) => c.cap)).toEqual(['max-billed']);
    expect(checkBudget(2000, { maxBilled: 3000, perMonth: 2500 }, 1000).map((c) => c.cap)).toEqual([
      'per_month',
    ]);
  });

  it('a zero cap allows only runs that bill nothing', () => {
    expect(checkBudget(0, { maxBilled: 0 }, 0)).toEqual([]);
    expect(checkBudget(1, { maxBilled: 0 }, 0)).toHaveLength(1);
  });

  it('says how to proceed for each cap', () => {
    const lines = describeExceeded(
      checkBudget(70_000, { perRun: 50_000, perMonth: 100_000 }, 40_000),
      formatCharacters,
    );
    expect(lines[0]).toContain('budget.per_run (50,000)');
    expect(lines[0]).toContain('--max-billed');
    expect(lines[1]).toContain('budget.per_month (100,000; 40,000 billed this month)');
    expect(lines[1]).toContain('raise budget.per_month');
  });
});

describe('capBeforeUpload (during a run)', () => {
  it('stops the upload that would go over what the run has committed', () => {
    expect(capBeforeUpload(900, 100, { perRun: 1000 }, 0)).toBeUndefined();
    expect(capBeforeUpload(901, 100, { perRun: 1000 }, 0)?.cap).toBe('per_run');
    expect(capBeforeUpload(0, 100, { perMonth: 1000 }, 950)?.cap).toBe('per_month');
  });
});

describe('SpendGuard (the caps while a run goes on)', () => {
  const guard = (caps: BudgetCaps, billedThisMonth = 0) =>
    new SpendGuard({ caps, billedThisMonth, count: () => Promise.resolve(undefined) });

  it('reserves estimates, replaces them by the bill, and frees what was not billed', async () => {
    const g = guard({ perRun: 1000 });
    expect(await g.reserve(1, 400)).toBeUndefined();
    expect(await g.reserve(2, 400)).toBeUndefined();
    // 800 in flight: a third upload of 300 would go over.
    expect((await g.reserve(3, 300))?.cap).toBe('per_run');
    // The first document billed less than estimated, the second never reached the service.
    await g.settle(1, 250);
    g.release(2);
    expect(g.committed()).toBe(250);
    expect(await g.reserve(3, 300)).toBeUndefined();
    // A bill reported twice (at the download, then done) counts once; beyond its estimate by 20.
    expect(await g.settle(3, 320)).toBe(20);
    expect(await g.settle(3, 320)).toBe(0);
    expect(g.committed()).toBe(570);
  });

  it('uploads starting together cannot both slip under the run cap', async () => {
    const g = guard({ perRun: 500 });
    const both = await Promise.all([g.reserve(1, 300), g.reserve(2, 300)]);
    expect(both.filter((o) => o === undefined)).toHaveLength(1);
  });

  it('a document uploaded again after its download was lost is billed again', async () => {
    const g = guard({ perRun: 1000 });
    await g.reserve(7, 300);
    await g.settle(7, 300);
    expect(await g.reserve(7, 300)).toBeUndefined();
    await g.settle(7, 300);
    expect(g.committed()).toBe(600);
  });

  it('an upload whose answer was lost counts for good: uploaded again, it counts twice', async () => {
    const g = guard({ perRun: 1000 });
    await g.reserve(7, 300);
    g.possiblyBilled(7);
    expect(await g.reserve(7, 300)).toBeUndefined();
    await g.settle(7, 280);
    expect(g.committed()).toBe(580);
    // A third upload of 450 would go over the run's cap.
    expect((await g.reserve(8, 450))?.cap).toBe('per_run');
  });

  it('the month cap counts the month before the run and documents collected for earlier runs', async () => {
    const g = guard({ perMonth: 1000 }, 600);
    // Uploaded by an earlier run, billed now: the month's, not this run's.
    await g.settle(99, 300);
    expect(g.committed()).toBe(0);
    const over = await g.reserve(1, 200);
    expect(over?.cap).toBe('per_month');
    expect(describeReached(over!, 200, formatCharacters)).toBe(
      'this month has 900 characters billed or in flight; the next upload (about 200) would go over budget.per_month (1,000): raise budget.per_month in the manifest, or wait for next month',
    );
  });

  it('estimates a document as the service bills it: minimum for docx, nothing for images', async () => {
    const counted: string[] = [];
    const g = new SpendGuard({
      caps: { perRun: 1 },
      billedThisMonth: 0,
      count: (abs) => {
        counted.push(abs);
        return Promise.resolve(120);
      },
      // What the plan priced already is not counted again; other content (a changed file) is.
      known: new Map([[estimateKey('docs', 'b.txt', 'sha-b'), 77]]),
    });
    const job = (rel_path: string, sha256 = 'sha') => ({ mapping: 'docs', rel_path, sha256 });
    expect(await g.estimate(job('a.txt'), '/x/a.txt')).toBe(120);
    expect(await g.estimate(job('a.docx'), '/x/a.docx')).toBe(50_000);
    expect(await g.estimate(job('logo.png'), '/x/logo.png')).toBe(0);
    expect(await g.estimate(job('b.txt', 'sha-b'), '/x/b.txt')).toBe(77);
    expect(await g.estimate(job('b.txt', 'sha-b2'), '/x/b.txt')).toBe(120);
    expect(counted.filter((c) => c === '/x/b.txt')).toHaveLength(1);
  });
});
