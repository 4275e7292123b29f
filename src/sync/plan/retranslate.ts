import { ConfigError } from '../../util/errors.js';
import type { StaleReason } from './types.js';

// `--retranslate`: which outputs already translated are translated (and billed) again. Nothing is
// re-billed unless asked: a style list edit or a settings change makes outputs stale, and only these
// choices turn stale (or, with all, every) output into an upload.

/** What a re-translation covers: outputs stale by their style list, by other settings, or every output. */
export type RetranslateScope = 'style' | 'settings' | 'all';

export const RETRANSLATE_CHOICES = ['stale', 'style', 'settings', 'all'] as const;
export type RetranslateChoice = (typeof RETRANSLATE_CHOICES)[number];

// The one table the advice about stale outputs is made from: what each --retranslate word covers,
// each stale reason of the plan in words with the word that re-translates it, and the commands
// advice names (test/cli/advice.test.ts parses every one with the real command line).

/** What each `--retranslate` word re-translates (its help, and the words of advice). */
export const RETRANSLATE_WORDS: Record<RetranslateChoice, string> = {
  stale: 'every stale output (style and settings)',
  style: 'outputs made with an older version of their style list or glossary (an entry or rule edited)',
  settings:
    'outputs made with other settings (source_lang changed, formality, output format, a style list or glossary added or removed)',
  all: 'every output, up to date or not, those that failed the output checks included',
};

/** A stale reason of the plan: in words, and the `--retranslate` word that re-translates it. */
export const STALE_ADVICE: Record<StaleReason, { words: string; retranslate: RetranslateChoice }> = {
  style: { words: 'style list or glossary edited', retranslate: 'style' },
  settings: { words: 'settings changed', retranslate: 'settings' },
};

/** The commands advice names; `cfg` is ` -c <manifest>` or ''. */
export const ADVISED = {
  /** What re-translating would bill: plan prices every stale output apart. */
  price: (cfg = '') => `locsync plan${cfg}`,
  retranslate: (choice: RetranslateChoice, cfg = '') => `locsync sync --retranslate ${choice}${cfg}`,
};

/** The advice about `count` stale outputs: what they are, what pricing and re-translating them is. */
export function staleAdvice(count: number, cfg = ''): string {
  return `${count} output${count === 1 ? ' is' : 's are'} stale (made before a settings, style list or glossary change; kept as they are): \`${ADVISED.price(cfg)}\` prices re-translating them, \`${ADVISED.retranslate('stale', cfg)}\` does it (billed)`;
}

/** `--retranslate stale|style|settings|all` (comma-separated: several); stale is style and settings. */
export function parseRetranslate(value: string | undefined): ReadonlySet<RetranslateScope> {
  const out = new Set<RetranslateScope>();
  if (value === undefined) return out;
  for (const word of value.split(',').map((w) => w.trim())) {
    if (word === 'stale') {
      out.add('style');
      out.add('settings');
    } else if (word === 'style' || word === 'settings' || word === 'all') out.add(word);
    else
      throw new ConfigError(
        `--retranslate: "${word}" is not one of ${RETRANSLATE_CHOICES.join(', ')} (stale: style and settings)`,
      );
  }
  return out;
}

/**
 * Off a terminal (cron, CI), an option that re-bills existing outputs needs --yes: a typo in a
 * crontab must not buy every translation again. ConfigError (exit 2) says so.
 */
export function requireYesOffTerminal(
  scope: ReadonlySet<RetranslateScope>,
  opts: { yes?: boolean; interactive: boolean; option: string },
): void {
  if (scope.size === 0 || opts.yes || opts.interactive) return;
  throw new ConfigError(
    `${opts.option} re-translates outputs that exist already, and bills them again; without a terminal it needs --yes (check the price first: \`${ADVISED.price()}\` prices re-translating stale outputs)`,
  );
}
