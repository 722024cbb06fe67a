// A neutral value through one version's codec and back, with the wire form checked against that
// version's schema on the way: what the codec tests of each method family do.
import { expect } from 'vitest';
import { AcpError, type NeutralMethod } from '../../packages/protocol/src/index.js';
import { codecFor } from '../../packages/protocol/src/codec/index.js';
import { getValidator } from '../../packages/protocol/src/validation/validator.js';

/** Encodes `neutral` as `method`'s params or result, validates the JSON wire form, decodes it back. */
export function roundTrip(version: 1 | 2, kind: 'params' | 'result', method: NeutralMethod, neutral: unknown): unknown {
  const codec = codecFor(version);
  expect(codec.wireMethod(method), method).toBe(method);
  const encoded =
    kind === 'params'
      ? codec.encodeParams(method, neutral as never)
      : codec.encodeResult(method as never, neutral as never);
  const wire: unknown = JSON.parse(JSON.stringify(encoded));
  const v = getValidator(version);
  const failure = kind === 'params' ? v.params(method, wire) : v.result(method, wire);
  expect(failure, `${method} ${kind}: ${JSON.stringify(wire)}`).toBeNull();
  return kind === 'params' ? codec.decodeParams(method, wire) : codec.decodeResult(method as never, wire);
}

/** The AcpError `f` throws; anything else thrown is rethrown, and not throwing fails. */
export function acpErrorOf(f: () => unknown): AcpError {
  try {
    f();
  } catch (e) {
    if (e instanceof AcpError) return e;
    throw e;
  }
  throw new Error('expected an AcpError');
}
