import { describe, expect, it } from 'vitest';
import type { StyleRuleList } from '../../src/api/types.js';
import { contentHash, diffContent, remoteContent } from '../../src/styles/content.js';

const base: StyleRuleList = {
  style_id: 's1',
  name: 'n',
  language: 'de',
  version: 1,
  creation_time: '',
  updated_time: '',
  configured_rules: { punctuation: { quotation_mark: 'use_curly_quotation_marks' }, numbers: {} },
  custom_instructions: [
    { id: 'a', label: 'A', prompt: 'p' },
    { id: 'b', label: 'B', prompt: 'q', source_language: 'en' },
  ],
};

describe('style list content', () => {
  it('compares lists by content: instruction order, ids and empty categories do not count', () => {
    const reordered: StyleRuleList = {
      ...base,
      style_id: 's2',
      version: 9,
      configured_rules: { punctuation: { quotation_mark: 'use_curly_quotation_marks' } },
      custom_instructions: [
        { id: 'y', label: 'B', prompt: 'q', source_language: 'en' },
        { id: 'x', label: 'A', prompt: 'p' },
      ],
    };
    expect(diffContent(remoteContent(base), remoteContent(reordered))).toEqual([]);
    expect(contentHash(remoteContent(base))).toBe(contentHash(remoteContent(reordered)));
  });

  it('reads configured_rules given as a list of category objects', () => {
    const listShaped = {
      ...base,
      configured_rules: [
        { punctuation: { quotation_mark: 'use_curly_quotation_marks' } },
        { numbers: { thousands_separator: 'do_not_use' } },
      ],
    } as unknown as StyleRuleList;
    expect(remoteContent(listShaped).configured_rules).toEqual({
      numbers: { thousands_separator: 'do_not_use' },
      punctuation: { quotation_mark: 'use_curly_quotation_marks' },
    });
  });

  it('tells rule and instruction changes apart, and a source_language change is a change', () => {
    const changed: StyleRuleList = {
      ...base,
      configured_rules: { numbers: { thousands_separator: 'do_not_use' } },
      custom_instructions: [
        { id: 'a', label: 'A', prompt: 'p' },
        { id: 'b', label: 'B', prompt: 'q', source_language: 'fr' },
      ],
    };
    expect(
      diffContent(remoteContent(base), remoteContent(changed)).map((c) => `${c.op} ${c.what} ${c.key}`),
    ).toEqual([
      'add rule numbers.thousands_separator',
      'remove rule punctuation.quotation_mark',
      'change instruction B',
    ]);
    expect(contentHash(remoteContent(base))).not.toBe(contentHash(remoteContent(changed)));
  });
});
