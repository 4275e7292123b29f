import { describe, expect, it } from 'vitest';
import { spreadOver, wordTokens } from '../../src/local-service/engine/spread.js';

describe('spreading a translation over the formatted pieces of its source', () => {
  it('cuts at word boundaries, each part in proportion to its source piece', () => {
    expect(wordTokens('Das ist sehr wichtig.')).toEqual(['Das ', 'ist ', 'sehr ', 'wichtig.']);
    // "This is " + italic "very" + " important."
    expect(spreadOver([8, 4, 11], 'Das ist sehr wichtig.')).toEqual(['Das ist ', 'sehr ', 'wichtig.']);
    expect(spreadOver([4, 6], 'Acme Wolke')).toEqual(['Acme ', 'Wolke']);
  });

  it('gives every piece a word while there are enough, and keeps every word in order', () => {
    const parts = spreadOver([30, 1, 30], 'Eins zwei drei vier fünf sechs');
    expect(parts.every((p) => p.trim() !== '')).toBe(true);
    expect(parts.join('')).toBe('Eins zwei drei vier fünf sechs');
    // Fewer words than pieces: nothing lost, some piece empty.
    expect(spreadOver([1, 1, 1], 'Zwei Wörter').join('')).toBe('Zwei Wörter');
  });

  it('pieces without weight (blank runs) get nothing; text without spaces is cut at its words', () => {
    expect(spreadOver([4, 0, 8], 'Hallo Welt')).toEqual(['Hallo ', '', 'Welt']);
    const ja = spreadOver([5, 5], 'これはとても重要です。', 'ja');
    expect(ja.join('')).toBe('これはとても重要です。');
    expect(ja.every((p) => p !== '')).toBe(true);
  });
});
