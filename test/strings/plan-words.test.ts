// The plan counts a string file's work in keys: per file and target language, the keys missing or
// changed (sent) and those the segment memory holds.
import { describe, expect, it } from 'vitest';
import { priceSegments } from '../../src/billing/price.js';
import { formatUploadPrice } from '../../src/sync/plan/format-price.js';

describe('the plan of a string file', () => {
  it('says how many keys are missing or changed', () => {
    const quote = { segments: 42, fromMemory: 40, sent: 2, characters: 31, documentPath: 600, requests: 1 };
    expect(formatUploadPrice('locales/en.json', priceSegments(quote))).toBe(
      '2 keys missing or changed, 40 from memory: 31 characters',
    );
    expect(formatUploadPrice('res/values/strings.xml', priceSegments({ ...quote, sent: 1 }))).toBe(
      '1 key missing or changed, 40 from memory: 31 characters',
    );
    expect(formatUploadPrice('notes.txt', priceSegments(quote))).toBe(
      '2 new segments, 40 from memory: 31 characters',
    );
  });
});
