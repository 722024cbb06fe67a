import { describe, expect, it } from 'vitest';
import { authMethodsFromV1 } from '../src/codec/v1-shapes.js';
import { authMethodsFromV2 } from '../src/codec/v2-shapes.js';

// The decoders build a typed AuthMethod from the wire entry, so an entry without the two required
// strings (only reachable without schema validation, e.g. from an error's `data.authMethods`) is
// left out instead of coming back with `methodId: undefined`.
describe('auth method decoding (neutral AuthMethod from the wire)', () => {
  it('v1: `id` becomes `methodId`, agent methods get `type: "agent"`, entries without id/name are left out', () => {
    expect(
      authMethodsFromV1([
        { id: 'key', name: 'API key', description: 'paste it' },
        { id: 'login', name: 'Log in', type: 'terminal', args: ['--login'], env: { A: '1' } },
        { name: 'no id' },
        { id: 'no-name' },
        { id: 7, name: 'numeric id' },
        'not an object',
      ]),
    ).toEqual([
      { methodId: 'key', type: 'agent', name: 'API key', description: 'paste it' },
      { methodId: 'login', type: 'terminal', name: 'Log in', args: ['--login'], env: { A: '1' } },
    ]);
  });

  it('v2: `env` list becomes a map, entries without methodId/name are left out', () => {
    expect(
      authMethodsFromV2([
        { methodId: 'login', name: 'Log in', type: 'terminal', env: [{ name: 'A', value: '1' }] },
        { name: 'no id' },
        { methodId: 'no-name', type: 'agent' },
      ]),
    ).toEqual([{ methodId: 'login', name: 'Log in', type: 'terminal', env: { A: '1' } }]);
  });
});
