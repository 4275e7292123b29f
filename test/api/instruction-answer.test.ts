// POST …/custom_instructions: our spec answers the whole list, the real service the new
// instruction alone. The client gives its caller the list either way.
import { describe, expect, it } from 'vitest';
import { makeClient, startStub } from './helpers.js';

const list = {
  style_id: 's1',
  name: 'House style',
  language: 'fr',
  version: 2,
  creation_time: '2026-01-01T00:00:00Z',
  updated_time: '2026-01-02T00:00:00Z',
  configured_rules: {},
  custom_instructions: [{ id: 'i1', label: 'Tone', prompt: 'Use vous' }],
};

describe('addCustomInstruction', () => {
  it('reads the list when the service answers the new instruction alone (the real service)', async () => {
    const seen: string[] = [];
    const stub = await startStub((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      req.resume();
      res.setHeader('Content-Type', 'application/json');
      if (req.method === 'POST') {
        res.statusCode = 201;
        res.end(JSON.stringify({ id: 'i1', label: 'Tone', prompt: 'Use vous' }));
      } else res.end(JSON.stringify(list));
    });
    try {
      const added = await makeClient(stub.url).addCustomInstruction('s1', {
        label: 'Tone',
        prompt: 'Use vous',
      });
      expect(added).toEqual(list);
      expect(seen).toEqual(['POST /v3/style_rules/s1/custom_instructions', 'GET /v3/style_rules/s1']);
    } finally {
      await stub.close();
    }
  });

  it('takes the whole list as it comes when the service answers it (our spec)', async () => {
    const seen: string[] = [];
    const stub = await startStub((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      req.resume();
      res.statusCode = 201;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(list));
    });
    try {
      expect(
        await makeClient(stub.url).addCustomInstruction('s1', { label: 'Tone', prompt: 'Use vous' }),
      ).toEqual(list);
      expect(seen).toEqual(['POST /v3/style_rules/s1/custom_instructions']);
    } finally {
      await stub.close();
    }
  });
});
