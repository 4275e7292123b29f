import type { ConfigError } from '../util/errors.js';
import type { CheckContext } from './types.js';
import { formatPath } from './yaml-source.js';

// Checks of a mapping's `qa:` (docs/qa.md) beyond each list on its own: a check cannot both fail
// an output and be left out.

export function checkQaSettings(ctx: CheckContext, errors: ConfigError[]): void {
  ctx.manifest.mappings.forEach((mapping, mi) => {
    const qa = mapping.qa;
    if (!qa?.fail_on) return;
    qa.ignore.forEach((check, ii) => {
      if (!qa.fail_on?.includes(check)) return;
      const at = ['mappings', mi, 'qa', 'ignore', ii];
      errors.push(
        ctx.source.errorAt(
          at,
          `${formatPath(at)}: '${check}' is in both fail_on and ignore of mapping '${mapping.name}'; a check either fails outputs (fail_on) or is not run (ignore): keep it in one list`,
        ),
      );
    });
  });
}
