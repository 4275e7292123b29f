import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: the import rules are a plain ES module (npm run lint:imports reads them).
import { LAYERS } from '../../.dependency-cruiser.mjs';

// Every folder of src/ has its place in the import rules (.dependency-cruiser.mjs), so that
// `npm run lint:imports` checks its arrows, and in the layer table of docs/architecture.md. The
// local service stands apart (its own rules).

const ROOT = path.resolve(__dirname, '../..');
const APART = ['local-service'];

const layered = (LAYERS as string[][]).flat().map((entry) => entry.replace(/\\\./g, '.'));
const entries = fs
  .readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
  .map((e) => e.name)
  .filter((name) => !APART.includes(name));

describe('the layers', () => {
  it('every folder and file at the top of src/ is in a layer of the import rules', () => {
    expect(entries.filter((name) => !layered.includes(name))).toEqual([]);
  });

  it("every layer's folders are in the layer table of docs/architecture.md", () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
    const table = /## Layers[\s\S]*?```\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    const rows = table.split('\n').map((line) => line.slice(0, 25).split(/\s+/).filter(Boolean));
    const named = new Set(rows.flat());
    expect(layered.map((entry) => entry.replace(/\.ts$/, '')).filter((name) => !named.has(name))).toEqual([]);
  });
});
