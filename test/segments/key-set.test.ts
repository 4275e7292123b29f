import { describe, expect, it } from 'vitest';
import { SegmentKeySet } from '../../src/sync/segments/key-set.js';
import { segmentKey } from '../../src/sync/segments/memory-key.js';

// The plan's set of segment keys sent (quote.ts): a segment counted once in the whole plan.

describe('the plan’s set of segment keys sent', () => {
  it('finds every key added, and none other, past many growths', () => {
    const set = new SegmentKeySet();
    const key = (i: number) => segmentKey(`Segment number ${i}.`, 'en', 'de', 'settings');
    for (let i = 0; i < 50_000; i += 2) set.add(key(i));
    for (let i = 0; i < 50_000; i++) expect(set.has(key(i)), `segment ${i}`).toBe(i % 2 === 0);
  });

  it('tells apart keys that differ only in their last or first characters', () => {
    const set = new SegmentKeySet();
    const base = 'a'.repeat(56);
    for (let i = 0; i < 3000; i++) set.add(base + i.toString(16).padStart(8, '0'));
    for (let i = 0; i < 3000; i++)
      expect(set.has(base + (i + 3000).toString(16).padStart(8, '0'))).toBe(false);
    expect(set.has(base + '00000000')).toBe(true);
    expect(set.has('b' + base.slice(1) + '00000000')).toBe(false);
  });

  it('keeps a key that is not a hex digest as it is', () => {
    const set = new SegmentKeySet();
    set.add('not-a-digest');
    set.add('A'.repeat(64));
    expect(set.has('not-a-digest')).toBe(true);
    expect(set.has('A'.repeat(64))).toBe(true);
    expect(set.has('a'.repeat(64))).toBe(false);
    expect(set.has('not-a-digest2')).toBe(false);
  });

  it('keeps the number added with each key, the first one', () => {
    const set = new SegmentKeySet();
    const key = (i: number) => segmentKey(`Segment number ${i}.`, 'en', 'de', 'settings');
    for (let i = 0; i < 5_000; i++) set.add(key(i), i * 3);
    set.add(key(7), 1);
    set.add('not-a-digest', 9);
    set.add('not-a-digest', 10);
    for (let i = 0; i < 5_000; i++) expect(set.get(key(i))).toBe(i * 3);
    expect(set.get('not-a-digest')).toBe(9);
    expect(set.get(key(5_000))).toBeUndefined();
  });
});
