import { describe, expect, it } from 'vitest';
import { parseRetranslate, requireYesOffTerminal } from '../../src/sync/plan/retranslate.js';
import { ConfigError } from '../../src/util/errors.js';

describe('--retranslate', () => {
  it('stale is style and settings; choices combine', () => {
    expect([...parseRetranslate('stale')].sort()).toEqual(['settings', 'style']);
    expect([...parseRetranslate('style')]).toEqual(['style']);
    expect([...parseRetranslate('settings,all')].sort()).toEqual(['all', 'settings']);
    expect(parseRetranslate(undefined).size).toBe(0);
  });

  it('refuses an unknown choice with the list', () => {
    expect(() => parseRetranslate('everything')).toThrow(ConfigError);
    expect(() => parseRetranslate('everything')).toThrow(/stale, style, settings, all/);
  });

  it('re-billing without a terminal needs --yes', () => {
    const all = parseRetranslate('all');
    expect(() => requireYesOffTerminal(all, { interactive: false, option: '--retranslate all' })).toThrow(
      /needs --yes/,
    );
    expect(() =>
      requireYesOffTerminal(all, { interactive: false, yes: true, option: '--retranslate all' }),
    ).not.toThrow();
    expect(() =>
      requireYesOffTerminal(all, { interactive: true, option: '--retranslate all' }),
    ).not.toThrow();
    expect(() => requireYesOffTerminal(new Set(), { interactive: false, option: '' })).not.toThrow();
  });
});
