// Elements whose content is never translated in text translation with tag_handling: those named in
// ignore_tags, and (html) those marked translate="no". The element, its tags and content are kept
// whole. An element of the same name nested inside one ends it early (no full parse of the markup).
import type { TranslateOptions } from './types.js';
import type { ProtectRule } from './mask.js';

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function untranslatedElementRules(opts: TranslateOptions): ProtectRule[] {
  if (!opts.tagHandling) return [];
  const rules: ProtectRule[] = [];
  const names = (opts.ignoreTags ?? []).filter((t) => /^[A-Za-z_][\w:.-]*$/.test(t)).map(escapeRegExp);
  if (names.length > 0)
    rules.push({ pattern: new RegExp(`<(${names.join('|')})(?:\\s[^<>]*)?>[\\s\\S]*?</\\1\\s*>`, 'g') });
  if (opts.tagHandling === 'html')
    rules.push({
      pattern:
        /<([A-Za-z][\w-]*)(?:\s[^<>]*)?\stranslate\s*=\s*["']?no["']?(?:\s[^<>]*)?>[\s\S]*?<\/\1\s*>/gi,
    });
  return rules;
}
