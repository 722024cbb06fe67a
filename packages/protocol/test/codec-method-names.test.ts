import { describe, expect, it } from 'vitest';
import { v1NeutralMethod, v1WireMethod, v2NeutralMethod, v2WireMethod } from '../src/codec/method-names.js';

describe('method name mapping is not fooled by Object.prototype names', () => {
  it.each(['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf'])(
    '%s maps to itself as a plain string',
    (name) => {
      expect(v2NeutralMethod(name)).toBe(name);
      expect(v2WireMethod(name)).toBe(name);
      expect(v1NeutralMethod(name)).toBe(name);
      expect(v1WireMethod(name)).toBe(name);
    },
  );

  it('still renames and fences the real cases (ACP §2 v2 auth renames)', () => {
    expect(v2WireMethod('authenticate')).toBe('auth/login');
    expect(v2NeutralMethod('auth/login')).toBe('authenticate');
    expect(v2NeutralMethod('authenticate')).toBe('v1:authenticate');
    expect(v1NeutralMethod('auth/login')).toBe('v2:auth/login');
  });
});
