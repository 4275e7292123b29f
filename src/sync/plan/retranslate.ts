import { ConfigError } from '../../util/errors.js';

// `--retranslate`: which outputs already translated are translated (and billed) again. Nothing is
// re-billed unless asked: a style list edit or a settings change makes outputs stale, and only these
// choices turn stale (or, with all, every) output into an upload.

/** What a re-translation covers: outputs stale by their style list, by other settings, or every output. */
export type RetranslateScope = 'style' | 'settings' | 'all';

export const RETRANSLATE_CHOICES = ['stale', 'style', 'settings', 'all'] as const;

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
    `${opts.option} re-translates outputs that exist already, and bills them again; without a terminal it needs --yes (check the price first: locsync plan ${opts.option})`,
  );
}
