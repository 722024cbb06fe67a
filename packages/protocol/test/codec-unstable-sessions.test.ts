// The unstable session methods through the v1 and v2 codecs: every encoded message is checked
// against the version's schema.unstable.json (the validator falls back to it for the methods the
// stable schema lacks), and decodes back to the neutral value; bad params are -32602 on arrival.
// The capability markers follow the object-marker semantics (ACP-V1-CAP-02, ACP-V2-CAP-01).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acpErrorOf, roundTrip } from '../../../test/support/codec-trip.js';
import { Methods, type AgentCapabilities } from '../src/index.js';
import { codecFor } from '../src/codec/index.js';
import { agentMethodSupported } from '../src/codec/method-names.js';
import { getValidator } from '../src/validation/validator.js';
import { absPath, configOption, id } from '../../../test/support/codec-arbitraries.js';

const meta = fc.option(fc.constant({ 'acme.dev/x': 1 }), { nil: undefined });
const withMeta = <T extends object>(o: T, m: object | undefined): T => (m ? { ...o, _meta: m } : o);

describe.each([1, 2] as const)('unstable session methods, v%i codec', (version) => {
  it('session/fork params and result round-trip through the unstable schema', () => {
    fc.assert(
      fc.property(id, absPath, fc.array(absPath, { maxLength: 2 }), meta, (sessionId, cwd, dirs, m) => {
        const params = withMeta({ sessionId, cwd, additionalDirectories: dirs, mcpServers: [] }, m);
        expect(roundTrip(version, 'params', Methods.sessionFork, params)).toEqual(params);
      }),
      { numRuns: 50 },
    );
    fc.assert(
      fc.property(id, fc.array(configOption, { maxLength: 2 }), (sessionId, configOptions) => {
        const back = roundTrip(version, 'result', Methods.sessionFork, { sessionId, configOptions });
        expect(back).toMatchObject({ sessionId });
      }),
      { numRuns: 50 },
    );
  });

  it('archive, unarchive, status and set_title round-trip; status state is v2 only', () => {
    fc.assert(
      fc.property(id, fc.string({ minLength: 1, maxLength: 20 }), meta, (sessionId, title, m) => {
        for (const method of [Methods.sessionArchive, Methods.sessionUnarchive, Methods.sessionStatus]) {
          expect(roundTrip(version, 'params', method, withMeta({ sessionId }, m))).toEqual(withMeta({ sessionId }, m));
        }
        expect(roundTrip(version, 'result', Methods.sessionArchive, {})).toEqual({});
        const setTitle = withMeta({ sessionId, title }, m);
        expect(roundTrip(version, 'params', Methods.sessionSetTitle, setTitle)).toEqual(setTitle);
        expect(roundTrip(version, 'result', Methods.sessionSetTitle, { title })).toEqual({ title });
      }),
      { numRuns: 50 },
    );
    const status = { status: 'open', state: { state: 'running' } };
    expect(roundTrip(version, 'result', Methods.sessionStatus, status)).toEqual(
      version === 2 ? status : { status: 'open' },
    );
    // a custom status passes (the client reads an unknown one as `saved`)
    expect(roundTrip(version, 'result', Methods.sessionStatus, { status: '_parked' })).toEqual({ status: '_parked' });
    // the archive filter of session/list and `archived` of its entries
    expect(roundTrip(version, 'params', Methods.sessionList, { archived: 'only' })).toEqual({ archived: 'only' });
    const listed = { sessions: [{ sessionId: 's1', cwd: '/w', archived: true }] };
    expect(roundTrip(version, 'result', Methods.sessionList, listed)).toEqual(listed);
  });

  it('refuses what the unstable schema refuses: -32602 naming the field', () => {
    const codec = codecFor(version);
    expect(acpErrorOf(() => codec.decodeParams(Methods.sessionFork, { sessionId: 's' })).message).toContain(
      "must have required property 'cwd'",
    );
    expect(acpErrorOf(() => codec.decodeParams(Methods.sessionSetTitle, { sessionId: 's', title: null })).code).toBe(
      -32602,
    );
    expect(acpErrorOf(() => codec.decodeResult(Methods.sessionStatus, {})).message).toContain(
      "must have required property 'status'",
    );
    expect(acpErrorOf(() => codec.decodeResult(Methods.sessionSetTitle, { title: 3 })).message).toContain(
      'Invalid result',
    );
  });

  it('capability markers: object markers on the wire, booleans in the neutral model, both ways', () => {
    const bool = fc.boolean();
    fc.assert(
      fc.property(bool, bool, bool, bool, (fork, archive, status, title) => {
        const caps: AgentCapabilities = { session: { fork, archive, status, title } };
        const codec = codecFor(version);
        const res = { protocolVersion: version, agentCapabilities: caps, authMethods: [] };
        const wire = JSON.parse(JSON.stringify(codec.encodeResult(Methods.initialize, res)));
        const markers = version === 1 ? wire.agentCapabilities.sessionCapabilities : wire.capabilities.session;
        for (const [k, on] of Object.entries({ fork, archive, status, title })) {
          expect(markers[k], k).toEqual(on ? {} : undefined);
        }
        const back = codec.decodeResult(Methods.initialize, wire).agentCapabilities;
        for (const [k, on] of Object.entries({ fork, archive, status, title })) {
          expect(!!back.session?.[k as 'fork'], k).toBe(on);
          const method = {
            fork: 'session/fork',
            archive: 'session/archive',
            status: 'session/status',
            title: 'session/set_title',
          }[k] as 'session/fork';
          expect(agentMethodSupported(method, version, back, []), method).toBe(on);
        }
      }),
      { numRuns: 32 },
    );
  });
});

describe('validator fallback to schema.unstable.json', () => {
  it('checks the unstable methods, which the stable schema does not define', () => {
    for (const version of [1, 2] as const) {
      const v = getValidator(version);
      expect(v.knows('session/fork')).toBe(false);
      expect(v.sideOf('session/fork')).toBe('agent');
      expect(v.params('session/fork', { sessionId: 's', cwd: '/w' })).toBeNull();
      expect(v.params('session/fork', { sessionId: 's' })?.message).toBe("must have required property 'cwd'");
      expect(v.result('session/set_title', {})?.message).toBe("must have required property 'title'");
      // unknown to both schemas: still lenient
      expect(v.params('_acme/x', 42)).toBeNull();
    }
  });
});
