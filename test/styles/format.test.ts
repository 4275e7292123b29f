import { describe, expect, it } from 'vitest';
import { formatStylePlan } from '../../src/styles/format.js';
import type { StylePlan } from '../../src/styles/reconcile.js';

// The style part of `plan` for people: a list changed only on the service is not "matching".

const drifted: StylePlan = {
  actions: [],
  drift: [
    {
      key: 'de-docs',
      style_id: 'abc',
      policy: 'fail',
      appliedVersion: 1,
      remoteVersion: 2,
      changes: [{ what: 'rule', op: 'change', key: 'punctuation.quotation_mark', from: 'a', to: 'b' }],
      yamlChanged: false,
    },
  ],
  styleIds: {},
  changedKeys: [],
};

describe('formatStylePlan', () => {
  it('does not say the service matches the YAML when it drifted; says what to do', () => {
    const text = formatStylePlan(drifted);
    expect(text).not.toContain('no changes: the service matches the YAML');
    expect(text).toContain('nothing to change from the YAML; changed on the service (see Drift below)');
    expect(text).toContain('de-docs: version 1 → 2 on the service');
    expect(text).toContain('run with --drift overwrite or --drift adopt');
  });

  it('says the service matches when nothing changed anywhere', () => {
    expect(formatStylePlan({ ...drifted, drift: [] })).toContain('no changes: the service matches the YAML');
  });
});
