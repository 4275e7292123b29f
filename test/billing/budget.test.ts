import { describe, expect, it } from 'vitest';
import { capBeforeUpload, checkBudget, describeExceeded } from '../../src/billing/budget.js';
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
