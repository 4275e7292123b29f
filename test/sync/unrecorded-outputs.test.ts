import { describe, expect, it } from 'vitest';
import { unrecordedOutputs, unrecordedOutputsMessage } from '../../src/sync/plan/unrecorded-outputs.js';

const act = (file: string, reason: string, kind = 'translate') => ({
  kind,
  reason,
  ref: { mapping: 'docs', file, target: 'de', output: `out/de/${file}` },
});

describe('outputs an empty state would pay for again', () => {
  const onDisk = new Set(['out/de/a.txt', 'out/de/b.txt']);
  const exists = (o: string) => onDisk.has(o);
  const actions = [
    act('a.txt', 'new'),
    act('b.txt', 'changed'),
    act('c.txt', 'new'),
    act('b.txt', '', 'reuse'),
  ];

  it('are the new uploads whose output exists, when the state records no translation', () => {
    expect(unrecordedOutputs(actions, false, exists).map((a) => a.ref.output)).toEqual(['out/de/a.txt']);
  });

  it('are none when the state records translations (its own decisions stand)', () => {
    expect(unrecordedOutputs(actions, true, exists)).toEqual([]);
  });

  it('the refusal names the state, the outputs and both ways out', () => {
    const text = unrecordedOutputsMessage(
      [act('a.txt', 'new')],
      { location: '/p/.locsync/state.db', postgres: false },
      ' -c p.yaml',
    );
    expect(text).toContain('/p/.locsync/state.db records no translation');
    expect(text).toContain('out/de/a.txt (from docs/a.txt)');
    expect(text).toContain('locsync state adopt -c p.yaml');
    expect(text).toContain('/p/.locsync/state.db.backup-*');
  });
});
