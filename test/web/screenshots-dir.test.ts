import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCREENSHOTS } from '../helpers/browser.js';
import { ROOT } from '../helpers/cli.js';

// The test run leaves the tracked files alone: the page tests' screenshots go to a temp folder unless
// `npm run screenshots` asks for docs/screenshots/.

describe('screenshots of the page tests', () => {
  it.skipIf(!!process.env.LOCSYNC_SCREENSHOTS_DIR)('go outside the checkout during a test run', () => {
    const rel = path.relative(ROOT, SCREENSHOTS);
    expect(rel.startsWith('..') || path.isAbsolute(rel)).toBe(true);
  });
});
