import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

// A real headless browser for web pages: Debian's chromium (never a download), a fresh profile
// each time, no network beyond what the page itself asks for.

export const CHROMIUM = process.env.LOCSYNC_CHROMIUM ?? '/usr/bin/chromium';
export const HAS_CHROMIUM = fs.existsSync(CHROMIUM);

export interface Browser {
  page: Page;
  /** Console errors and uncaught exceptions of the page so far. */
  errors: string[];
  close(): Promise<void>;
}

export async function openBrowser(): Promise<Browser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1100, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return {
    page,
    errors,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Where the page tests save their screenshots: a temp folder, so that a test run never rewrites the
 * tracked docs/screenshots/ (`npm run screenshots` refreshes those: LOCSYNC_SCREENSHOTS_DIR).
 */
export const SCREENSHOTS = process.env.LOCSYNC_SCREENSHOTS_DIR
  ? path.resolve(process.env.LOCSYNC_SCREENSHOTS_DIR)
  : path.join(os.tmpdir(), `locsync-screenshots-${process.pid}`);
