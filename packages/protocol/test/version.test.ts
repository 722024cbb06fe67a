import { describe, expect, it } from 'vitest';
import { AcpError, negotiateVersion } from '../src/index.js';

describe('negotiateVersion (ACP-ALL-INIT-03, ACP-V2-INIT-05)', () => {
  it('answers the requested version when spoken, else the newest lower one', () => {
    expect(negotiateVersion(2)).toBe(2);
    expect(negotiateVersion(1)).toBe(1);
    expect(negotiateVersion(7)).toBe(2);
    expect(negotiateVersion(2, [1])).toBe(1);
  });
  it('fails with -32022 and the supported list when nothing is at or below the request', () => {
    const e = (() => {
      try {
        negotiateVersion(0);
      } catch (err) {
        return err as AcpError;
      }
    })();
    expect(e).toBeInstanceOf(AcpError);
    expect(e?.code).toBe(-32022);
    expect(e?.data).toEqual({ requested: 0, supported: [1, 2] });
  });
  it('rejects non-integer versions with -32602 naming the field (ACP-ALL-RPC-10)', () => {
    expect(() => negotiateVersion('1.0.0')).toThrow(/params\.protocolVersion must be an integer/);
    expect(() => negotiateVersion(1.5)).toThrow(AcpError);
  });
});
