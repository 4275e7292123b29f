import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT as ROOT_URL } from '../helpers/cli.js';

const ROOT = path.resolve(ROOT_URL);

// The README and docs point only at files a clone of the repository has.

const DOCS = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('documentation links', () => {
  it.each(DOCS)('%s links only to files in the repository', (file) => {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    const missing: string[] = [];
    for (const m of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/i.test(target)) continue; // http:, https:, mailto:
      const abs = path.resolve(path.dirname(path.join(ROOT, file)), target);
      if (!abs.startsWith(ROOT + path.sep) || !fs.existsSync(abs)) missing.push(target);
    }
    // Paths in backquotes that leave the repository (the project's brief lives outside it).
    for (const m of text.matchAll(/`(\.\.\/[^`]*)`/g))
      if (!fs.existsSync(path.resolve(path.dirname(path.join(ROOT, file)), m[1]!))) missing.push(m[1]!);
    expect(missing).toEqual([]);
  });
});
