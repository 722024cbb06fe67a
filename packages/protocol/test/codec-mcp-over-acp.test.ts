// MCP over ACP (unstable MCP-over-ACP RFD) through the v1 and v2 codecs: the `acp` MCP transport
// capability, `mcpServers` entries of `type: "acp"` and `mcp/message` (request, result,
// notification), each encoded value checked against the version's schema.unstable.json and
// decoded back; malformed ones are -32602 naming the entry.
import { describe, expect, it } from 'vitest';
import { acpErrorOf } from '../../../test/support/codec-trip.js';
import { type McpServer, type NewSessionRequest } from '../src/index.js';
import { codecFor } from '../src/codec/index.js';
import { getUnstableValidator, getValidator } from '../src/validation/validator.js';

const ACP_SERVER: McpServer = { type: 'acp', name: 'tools', serverId: '550e8400-e29b-41d4-a716-446655440000' };
const STDIO: McpServer = { type: 'stdio', name: 'fs', command: '/usr/bin/mcp-fs', args: [], env: [] };

function wire(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v));
}

describe.each([1, 2] as const)('MCP over ACP, v%i codec', (version) => {
  const codec = codecFor(version);
  const unstable = getUnstableValidator(version);

  it('the acp capability is encoded where the unstable schema puts it and decoded back', () => {
    const enc = wire(
      codec.encodeResult('initialize', {
        protocolVersion: version,
        agentCapabilities: { mcp: { stdio: true, http: true, acp: true } },
        authMethods: [],
      }),
    );
    expect(unstable.def('InitializeResponse', enc)).toBeNull();
    const caps = (enc as Record<string, Record<string, unknown>>)[version === 1 ? 'agentCapabilities' : 'capabilities'];
    if (version === 1) expect(caps.mcpCapabilities).toEqual({ http: true, sse: false, acp: true });
    else expect(caps.session).toMatchObject({ mcp: { stdio: {}, http: {}, acp: {} } });
    expect(codec.decodeResult('initialize', enc).agentCapabilities.mcp?.acp).toBe(true);
  });

  it('an agent without it keeps its exact capabilities (no acp key) and decodes as unsupported', () => {
    const enc = wire(
      codec.encodeResult('initialize', {
        protocolVersion: version,
        agentCapabilities: { mcp: { stdio: true, http: true } },
        authMethods: [],
      }),
    );
    expect(JSON.stringify(enc)).not.toContain('acp');
    expect(codec.decodeResult('initialize', enc).agentCapabilities.mcp?.acp).toBeUndefined();
  });

  it('session/new with an acp server: encoded with its type, valid against the unstable schema, decoded as sent', () => {
    const params: NewSessionRequest = { cwd: '/work', mcpServers: [STDIO, ACP_SERVER] };
    const enc = wire(codec.encodeParams('session/new', params));
    expect(unstable.params('session/new', enc)).toBeNull();
    // v1's stable schema has no acp transport (v2's takes it as an open `other` kind): the stable
    // validator checks that entry against the unstable schema, as the codec does
    expect(getValidator(version).params('session/new', enc)).toBeNull();
    expect((enc as { mcpServers: unknown[] }).mcpServers[1]).toEqual(ACP_SERVER);
    expect(codec.decodeParams('session/new', enc).mcpServers).toEqual([STDIO, ACP_SERVER]);
  });

  it('an acp server without serverId is -32602 naming that entry; a bad stdio entry next to it keeps its index', () => {
    const noId = acpErrorOf(() =>
      codec.decodeParams('session/new', { cwd: '/work', mcpServers: [STDIO, { type: 'acp', name: 'tools' }] }),
    );
    expect(noId.code).toBe(-32602);
    expect(noId.data).toMatchObject({ path: expect.stringMatching(/^params\.mcpServers\[1\]/) });
    const badStdio = acpErrorOf(() =>
      codec.decodeParams('session/new', { cwd: '/work', mcpServers: [ACP_SERVER, { type: 'stdio', name: 'x' }] }),
    );
    expect(badStdio.data).toMatchObject({ path: expect.stringMatching(/^params\.mcpServers\[1\]/) });
  });

  it('mcp/message: request params, both outcome carriers and the notification pass; malformed ones do not', () => {
    const req = { serverId: ACP_SERVER.serverId, requestId: 'r1', method: 'tools/call', params: { name: 'echo' } };
    expect(codec.wireMethod('mcp/message')).toBe('mcp/message');
    expect(codec.decodeParams('mcp/message', wire(codec.encodeParams('mcp/message', req)))).toEqual(req);
    expect(codec.decodeResult('mcp/message', { result: null })).toEqual({ result: null });
    expect(codec.decodeResult('mcp/message', { error: { code: -32601, message: 'nope' } })).toEqual({
      error: { code: -32601, message: 'nope' },
    });
    expect(acpErrorOf(() => codec.decodeParams('mcp/message', { serverId: 's', method: 'x' })).code).toBe(-32602);
    expect(() => codec.decodeResult('mcp/message', { error: { message: 'no code' } })).toThrow(/Invalid result/);
  });
});
