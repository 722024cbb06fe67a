/**
 * Elicitation through the codecs (issue 26 item 2): `elicitation/create` (form and url mode),
 * its answer and `elicitation/complete` round trip on v1 and v2, every wire checked against the
 * official schema of its version; the per-mode client capabilities (ACP-V1-CAP-02).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type {
  ClientCapabilities,
  CreateElicitationRequest,
  CreateElicitationResponse,
  ElicitationProperty,
  ElicitationSchema,
} from '../src/index.js';
import { codecFor } from '../src/codec/index.js';
import { getValidator } from '../src/validation/validator.js';
import { id } from '../../../test/support/codec-arbitraries.js';

const val = { 1: getValidator(1), 2: getValidator(2) } as const;
const wireOf = (x: unknown): unknown => JSON.parse(JSON.stringify(x));

const title = fc.string({ minLength: 1, maxLength: 8 });
const choices = fc.uniqueArray(id, { minLength: 1, maxLength: 4 });
const enumOptions = choices.chain((cs) => fc.tuple(...cs.map((c) => title.map((t) => ({ const: c, title: t })))));
const common = { title: fc.option(title, { nil: undefined }), description: fc.option(title, { nil: undefined }) };

/** A property of every kind the restricted schema has (ACP-ALL-ELIC-03). */
const property: fc.Arbitrary<ElicitationProperty> = fc.oneof(
  fc.record(
    {
      type: fc.constant('string' as const),
      ...common,
      minLength: fc.nat(3),
      maxLength: fc.integer({ min: 4, max: 40 }),
      format: fc.constantFrom('email' as const, 'uri' as const, 'date' as const, 'date-time' as const),
      default: title,
    },
    { requiredKeys: ['type'] },
  ),
  fc.record({ type: fc.constant('string' as const), ...common, enum: choices }, { requiredKeys: ['type', 'enum'] }),
  fc.record(
    { type: fc.constant('string' as const), ...common, oneOf: enumOptions },
    { requiredKeys: ['type', 'oneOf'] },
  ),
  fc.record(
    {
      type: fc.constantFrom('number' as const, 'integer' as const),
      ...common,
      minimum: fc.integer({ min: -5, max: 0 }),
      maximum: fc.integer({ min: 1, max: 99 }),
      default: fc.integer({ min: 0, max: 1 }),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record({ type: fc.constant('boolean' as const), ...common, default: fc.boolean() }, { requiredKeys: ['type'] }),
  fc.record(
    {
      type: fc.constant('array' as const),
      ...common,
      items: fc.oneof(
        choices.map((enumValues) => ({ type: 'string' as const, enum: enumValues })),
        enumOptions.map((anyOf) => ({ anyOf })),
      ),
      minItems: fc.nat(1),
    },
    { requiredKeys: ['type', 'items'] },
  ),
);

const schema: fc.Arbitrary<ElicitationSchema> = fc
  .dictionary(id, property, { minKeys: 1, maxKeys: 4 })
  .chain((properties) =>
    fc
      .subarray(Object.keys(properties))
      .map((required) => ({ type: 'object' as const, properties, ...(required.length ? { required } : {}) })),
  );
const scope = fc.oneof(
  fc.record({ sessionId: id, toolCallId: id }, { requiredKeys: ['sessionId'] }),
  fc.record({ requestId: fc.oneof(id, fc.nat()) }),
);
const request: fc.Arbitrary<CreateElicitationRequest> = fc.oneof(
  fc
    .tuple(title, schema, scope)
    .map(([message, requestedSchema, s]) => ({ message, mode: 'form' as const, requestedSchema, ...s })),
  fc
    .tuple(title, id, fc.webUrl({ withQueryParameters: false, withFragments: false }), scope)
    .map(([message, elicitationId, url, s]) => ({ message, mode: 'url' as const, elicitationId, url, ...s })),
);
const value = fc.oneof(title, fc.integer(), fc.boolean(), fc.array(id, { maxLength: 3 }));
const response: fc.Arbitrary<CreateElicitationResponse> = fc.oneof(
  fc
    .option(fc.dictionary(id, value, { maxKeys: 3 }), { nil: undefined })
    .map((content) => ({ action: 'accept' as const, ...(content ? { content } : {}) })),
  fc.constant({ action: 'decline' as const }),
  fc.constant({ action: 'cancel' as const }),
);

describe.each([1, 2] as const)('elicitation on v%i', (version) => {
  const codec = codecFor(version);

  it('elicitation/create params round trip, valid against the schema (ACP-ALL-ELIC-03)', () => {
    fc.assert(
      fc.property(request, (req) => {
        const wire = wireOf(codec.encodeParams('elicitation/create', req));
        expect(val[version].params('elicitation/create', wire)).toBeNull();
        expect(codec.decodeParams('elicitation/create', wire)).toEqual(req);
      }),
    );
  });

  it('elicitation/create results round trip, valid against the schema (ACP-ALL-ELIC-07)', () => {
    fc.assert(
      fc.property(response, (res) => {
        const wire = wireOf(codec.encodeResult('elicitation/create', res));
        expect(val[version].result('elicitation/create', wire)).toBeNull();
        expect(codec.decodeResult('elicitation/create', wire)).toEqual(res);
      }),
    );
  });

  it('an unknown action reads as cancel, never as acceptance; content only counts with accept (ACP-ALL-ELIC-07)', () => {
    expect(codec.decodeResult('elicitation/create', { action: 'approve_all', content: { a: 'x' } })).toEqual({
      action: 'cancel',
    });
    expect(codec.decodeResult('elicitation/create', { action: 'decline', content: { a: 'x' } })).toEqual({
      action: 'decline',
    });
    expect(codec.decodeResult('elicitation/create', { action: 'accept', content: { a: 'x' } })).toEqual({
      action: 'accept',
      content: { a: 'x' },
    });
  });

  it('elicitation/complete round trips and is validated (ACP-ALL-ELIC-09)', () => {
    fc.assert(
      fc.property(id, (elicitationId) => {
        const wire = wireOf(codec.encodeParams('elicitation/complete', { elicitationId }));
        expect(val[version].params('elicitation/complete', wire)).toBeNull();
        expect(codec.decodeParams('elicitation/complete', wire)).toEqual({ elicitationId });
      }),
    );
    expect(() => codec.decodeParams('elicitation/complete', {})).toThrow(/elicitationId/);
  });

  it('per-mode capabilities: {} advertises a mode, null/absent does not (ACP-V1-CAP-02, ACP-ALL-ELIC-01)', () => {
    const caps = (c: unknown): ClientCapabilities => {
      const params =
        version === 1
          ? { protocolVersion: 1, clientCapabilities: { elicitation: c } }
          : { protocolVersion: 2, info: { name: 'c', version: '1' }, capabilities: { elicitation: c } };
      return codec.decodeParams('initialize', params).clientCapabilities;
    };
    expect(caps({ form: {}, url: null }).elicitation).toEqual({ form: true });
    expect(caps({ url: {} }).elicitation).toEqual({ url: true });
    expect(caps({}).elicitation).toBeUndefined();
    fc.assert(
      fc.property(fc.record({ form: fc.boolean(), url: fc.boolean() }), (e) => {
        const neutral = { protocolVersion: version, clientCapabilities: { elicitation: e } };
        const wire = wireOf(codec.encodeParams('initialize', neutral));
        expect(val[version].params('initialize', wire)).toBeNull();
        const back = codec.decodeParams('initialize', wire).clientCapabilities.elicitation ?? {};
        expect({ form: back.form === true, url: back.url === true }).toEqual(e);
      }),
    );
  });
});

describe('version differences', () => {
  it('v2 refuses an unscoped elicitation; v1 carries it (ACP-ALL-ELIC-03)', () => {
    const unscoped = { message: 'm', mode: 'url', elicitationId: 'e', url: 'https://example.com/x' };
    expect(() => codecFor(2).encodeParams('elicitation/create', unscoped as never)).toThrow(/sessionId or a requestId/);
    expect(codecFor(1).encodeParams('elicitation/create', unscoped as never)).toEqual(unscoped);
  });
});
