// The unstable auth/status, auth/status_update and providers/list|set|disable through the v1 and
// v2 codecs: every encoded message is checked against the version's schema.unstable.json (the
// validator's fallback) and decodes back to the neutral value; malformed ones are -32602 naming
// the field; the `auth.status` and `providers` markers follow the object-marker semantics
// (ACP-V1-CAP-02, ACP-V2-CAP-01) and gate the methods (agentMethodSupported).
import { describe, expect, it } from 'vitest';
import { acpErrorOf, roundTrip } from '../../../test/support/codec-trip.js';
import { Methods, type AgentCapabilities } from '../src/index.js';
import { codecFor } from '../src/codec/index.js';
import { agentMethodSupported } from '../src/codec/method-names.js';
import { getValidator } from '../src/validation/validator.js';

const status = {
  state: 'authenticated',
  accounts: [{ label: 'OpenAI API key', active: true, email: null }, { label: 'Vertex AI' }],
  _meta: { 'acme.dev/x': 1 },
};
const provider = {
  providerId: 'openai',
  supported: ['openai'],
  required: false,
  current: { apiType: 'openai', baseUrl: 'http://127.0.0.1:9/v1' },
};

describe.each([1, 2] as const)('auth/status and providers/*, v%i codec', (version) => {
  it('auth/status and auth/status_update round-trip through the unstable schema', () => {
    expect(roundTrip(version, 'params', Methods.authStatus, {})).toEqual({});
    expect(roundTrip(version, 'result', Methods.authStatus, status)).toEqual(status);
    expect(roundTrip(version, 'params', Methods.authStatusUpdate, status)).toEqual(status);
    // a custom state passes (the client reads it as `unknown`)
    expect(roundTrip(version, 'result', Methods.authStatus, { state: '_sso_pending' })).toEqual({
      state: '_sso_pending',
    });
  });

  it('providers/list, set and disable round-trip', () => {
    const listed = { providers: [provider, { providerId: 'main', supported: [], required: true, current: null }] };
    expect(roundTrip(version, 'result', Methods.providersList, listed)).toEqual(listed);
    const set = { providerId: 'openai', apiType: 'openai', baseUrl: 'http://127.0.0.1:9/v1', headers: { a: 'b' } };
    expect(roundTrip(version, 'params', Methods.providersSet, set)).toEqual(set);
    expect(roundTrip(version, 'result', Methods.providersSet, {})).toEqual({});
    expect(roundTrip(version, 'params', Methods.providersDisable, { providerId: 'openai' })).toEqual({
      providerId: 'openai',
    });
    // `null` results of the empty-result methods are tolerated like the stable ones'
    expect(codecFor(version).decodeResult(Methods.providersDisable, null)).toEqual({});
  });

  it('refuses what the unstable schema refuses: -32602 naming the field', () => {
    const codec = codecFor(version);
    const noBase = acpErrorOf(() => codec.decodeParams(Methods.providersSet, { providerId: 'p', apiType: 'openai' }));
    expect(noBase.code).toBe(-32602);
    expect(noBase.message).toContain("must have required property 'baseUrl'");
    const badHeader = acpErrorOf(() =>
      codec.decodeParams(Methods.providersSet, {
        providerId: 'p',
        apiType: 'openai',
        baseUrl: 'http://x/',
        headers: { a: 1 },
      }),
    );
    expect(badHeader.message).toContain('headers');
    expect(acpErrorOf(() => codec.decodeParams(Methods.providersDisable, {})).message).toContain(
      "must have required property 'providerId'",
    );
    expect(acpErrorOf(() => codec.decodeResult(Methods.authStatus, { accounts: [] })).message).toContain(
      "must have required property 'state'",
    );
    expect(acpErrorOf(() => codec.decodeParams(Methods.authStatusUpdate, { state: 3 })).message).toContain('state');
    expect(
      acpErrorOf(() => codec.decodeResult(Methods.providersList, { providers: [{ providerId: 'x' }] })).message,
    ).toContain('supported');
  });

  it('reads skip-invalid items leniently: a broken account or protocol is dropped, not fatal', () => {
    const codec = codecFor(version);
    expect(
      codec.decodeResult(Methods.authStatus, {
        state: 'authenticated',
        accounts: [{ label: 'ok' }, { nolabel: 1 }, 7],
      }),
    ).toEqual({ state: 'authenticated', accounts: [{ label: 'ok' }] });
    expect(codec.decodeParams(Methods.authStatusUpdate, { state: 'unknown', accounts: 'junk' })).toEqual({
      state: 'unknown',
    });
    expect(
      codec.decodeResult(Methods.providersList, {
        providers: [{ providerId: 'p', supported: ['openai', 5], required: false }],
      }),
    ).toEqual({ providers: [{ providerId: 'p', supported: ['openai'], required: false }] });
  });

  it('capability markers: object markers on the wire, booleans in the neutral model; they gate the methods', () => {
    for (const authStatus of [false, true]) {
      for (const providers of [false, true]) {
        const caps: AgentCapabilities = { authStatus, providers, logout: true };
        const codec = codecFor(version);
        const res = { protocolVersion: version, agentCapabilities: caps, authMethods: [] };
        const wire = JSON.parse(JSON.stringify(codec.encodeResult(Methods.initialize, res)));
        expect(getValidator(version).result('initialize', wire)).toBeNull();
        const root = version === 1 ? wire.agentCapabilities : wire.capabilities;
        expect(root.auth?.status).toEqual(authStatus ? {} : undefined);
        expect(root.providers).toEqual(providers ? {} : undefined);
        const back = codec.decodeResult(Methods.initialize, wire).agentCapabilities;
        expect(!!back.authStatus).toBe(authStatus);
        expect(!!back.providers).toBe(providers);
        expect(agentMethodSupported('auth/status', version, back, [])).toBe(authStatus);
        for (const m of ['providers/list', 'providers/set', 'providers/disable'] as const)
          expect(agentMethodSupported(m, version, back, []), m).toBe(providers);
      }
    }
  });
});
