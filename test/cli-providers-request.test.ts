/**
 * What `acp-kit providers set` sends (providerRequest in src/cli/commands/providers.ts), decided
 * before the agent starts: --header pairs, --api-key-env as the protocol's key header, the
 * provider id as the default protocol, and usage errors for what cannot be sent.
 */
import { describe, expect, it } from 'vitest';
import { providerRequest } from '../src/cli/commands/providers.js';
import { CliError } from '../src/cli/errors.js';

function usage(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof CliError && e.exitCode === 2) return e.message;
    throw e;
  }
  throw new Error('expected a usage error');
}

describe('providers set: the request', () => {
  it('headers, the key from the environment per protocol, and the default protocol', () => {
    const env = { K: 'sk-1' };
    expect(
      providerRequest(
        'openai',
        { endpoint: 'http://127.0.0.1:9/v1', header: ['X-A: b: c', 'X-B:d'], apiKeyEnv: 'K' },
        env,
      ),
    ).toEqual({
      providerId: 'openai',
      apiType: 'openai',
      baseUrl: 'http://127.0.0.1:9/v1',
      headers: { 'X-A': 'b: c', 'X-B': 'd', Authorization: 'Bearer sk-1' },
    });
    expect(providerRequest('anthropic', { endpoint: 'http://127.0.0.1:9/', apiKeyEnv: 'K' }, env).headers).toEqual({
      'x-api-key': 'sk-1',
    });
    expect(providerRequest('main', { endpoint: 'http://127.0.0.1:9/', apiType: 'bedrock' }, env)).toEqual({
      providerId: 'main',
      apiType: 'bedrock',
      baseUrl: 'http://127.0.0.1:9/',
    });
  });

  it('usage errors: no endpoint, no protocol for a custom id, a header without a name, an unset key variable', () => {
    expect(usage(() => providerRequest('openai', {}, {}))).toContain('--endpoint');
    expect(usage(() => providerRequest('main', { endpoint: 'http://x/' }, {}))).toContain('--api-type');
    expect(usage(() => providerRequest('openai', { endpoint: 'http://x/', header: [': v'] }, {}))).toContain(
      '--header',
    );
    expect(usage(() => providerRequest('openai', { endpoint: 'http://x/', apiKeyEnv: 'NOPE' }, {}))).toContain('$NOPE');
  });
});
