// session/close and session/delete through the v1 and v2 codecs: params and results checked against
// the version's schema and decoded back to the neutral value, bad params -32602 naming the field on
// arrival, and their capability markers (v1 `sessionCapabilities.close|delete`, v2 `session.delete`
// with close baseline: object markers on the wire, booleans in the model) deciding whether a client
// may call them (ACP-V1-CLOSE-01, ACP-ALL-DEL-01).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acpErrorOf, roundTrip } from '../../../test/support/codec-trip.js';
import { Methods, type AgentCapabilities } from '../src/index.js';
import { codecFor } from '../src/codec/index.js';
import { agentMethodSupported } from '../src/codec/method-names.js';
import { getValidator } from '../src/validation/validator.js';
import { id } from '../../../test/support/codec-arbitraries.js';

const METHODS = [Methods.sessionClose, Methods.sessionDelete] as const;
const meta = fc.option(fc.constant({ 'acme.dev/x': [1, 'two'] }), { nil: undefined });

describe.each([1, 2] as const)('session/close and session/delete, v%i codec', (version) => {
  it('params and the empty result round-trip through the schema, _meta kept', () => {
    fc.assert(
      fc.property(id, meta, (sessionId, m) => {
        for (const method of METHODS) {
          const params = m ? { sessionId, _meta: m } : { sessionId };
          expect(roundTrip(version, 'params', method, params)).toEqual(params);
          expect(roundTrip(version, 'result', method, m ? { _meta: m } : {})).toEqual(m ? { _meta: m } : {});
        }
      }),
      { numRuns: 50 },
    );
  });

  it('params without a string sessionId are -32602 naming it', () => {
    const codec = codecFor(version);
    for (const method of METHODS) {
      const missing = acpErrorOf(() => codec.decodeParams(method, {}));
      expect(missing.code).toBe(-32602);
      expect(missing.message).toContain("must have required property 'sessionId'");
      expect(acpErrorOf(() => codec.decodeParams(method, { sessionId: 7 })).code).toBe(-32602);
    }
  });

  it('the close and delete markers: objects on the wire, booleans in the model, and what a client may call', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), (close, del) => {
        const caps: AgentCapabilities = { session: { close, delete: del } };
        const codec = codecFor(version);
        const res = { protocolVersion: version, agentCapabilities: caps, authMethods: [] };
        const wire = JSON.parse(JSON.stringify(codec.encodeResult(Methods.initialize, res)));
        expect(getValidator(version).result(Methods.initialize, wire)).toBeNull();
        const markers = version === 1 ? wire.agentCapabilities.sessionCapabilities : wire.capabilities.session;
        // v2 has no close marker: close is baseline wherever the session surface is (ACP-V2-CAP-02)
        expect([markers?.close, markers?.delete]).toEqual([
          close && version === 1 ? {} : undefined,
          del ? {} : undefined,
        ]);
        const back = codec.decodeResult(Methods.initialize, wire).agentCapabilities;
        expect(agentMethodSupported('session/close', version, back, [])).toBe(version === 2 || close);
        expect(agentMethodSupported('session/delete', version, back, [])).toBe(del);
      }),
      { numRuns: 16 },
    );
  });
});
