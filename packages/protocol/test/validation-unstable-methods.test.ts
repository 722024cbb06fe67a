// The validator on what only schema.unstable.json has, beyond plain client/agent methods:
// - the proxy-chain methods `proxy/initialize` and `proxy/successor` (Proxy Chains RFD, `x-side:
//   proxy`): known, handled by neither the client nor the agent role, right shapes pass and wrong
//   ones are named field by field (before, the validator did not know them: everything passed);
// - `mcp/message`, a request (to the client) AND a notification (to the agent): each form has its
//   own side (before, the notification was said to be handled by the client, so a capture of a
//   client's progress notification was a direction violation);
// - `mcpServers` entries of the unstable `acp` transport in stable `session/new` params;
// - the `plan_removed` update kind, judged as the official unstable schema (Ajv) judges it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { getValidator } from '../src/validation/index.js';

type Version = 1 | 2;

const initParams = (v: Version): Record<string, unknown> =>
  v === 1
    ? { protocolVersion: 1, clientCapabilities: {} }
    : { protocolVersion: 2, info: { name: 'conductor', version: '1' }, capabilities: {} };
const initResult = (v: Version): Record<string, unknown> =>
  v === 1
    ? { protocolVersion: 1, agentCapabilities: {}, authMethods: [] }
    : { protocolVersion: 2, info: { name: 'proxy', version: '1' }, capabilities: {} };

function unstableDef(v: Version, name: string): (value: unknown) => boolean {
  const file = join(import.meta.dirname, '../../..', 'node_modules/@agentclientprotocol/sdk/schema');
  const schema = JSON.parse(readFileSync(join(file, `v${v}`, 'schema.unstable.json'), 'utf8')) as object;
  const ajv = new Ajv2020({ strict: false, validateFormats: false, logger: false });
  ajv.addSchema({ ...schema, $id: `u${v}` });
  const fn = ajv.getSchema(`u${v}#/$defs/${name}`);
  if (!fn) throw new Error(`no ${name}`);
  return (value) => fn(value) === true;
}

describe.each([1, 2] as const)('v%i validator: unstable methods', (v) => {
  const val = getValidator(v);

  it('proxy/initialize: known, neither role handles it, initialize shapes pass, wrong fields named', () => {
    expect(val.sideOf('proxy/initialize')).toBe('protocol');
    expect(val.params('proxy/initialize', initParams(v), 'params')).toBeNull();
    expect(val.result('proxy/initialize', initResult(v), 'result')).toBeNull();
    expect(val.params('proxy/initialize', { ...initParams(v), protocolVersion: 'x' }, 'params')).toEqual({
      path: 'params.protocolVersion',
      message: expect.stringMatching(/^must be/),
    });
    const { protocolVersion: _p, ...noVersion } = initParams(v);
    expect(val.params('proxy/initialize', noVersion, 'params')).toEqual({
      path: 'params',
      message: "must have required property 'protocolVersion'",
    });
    expect(val.result('proxy/initialize', { ...initResult(v), protocolVersion: [] }, 'result')?.path).toBe(
      'result.protocolVersion',
    );
  });

  it('proxy/successor: request and notification envelopes pass; a missing or wrong method is named', () => {
    expect(val.sideOf('proxy/successor', 'request')).toBe('protocol');
    expect(val.sideOf('proxy/successor', 'notification')).toBe('protocol');
    const env = { method: 'session/prompt', params: { sessionId: 's', prompt: [] }, _meta: { hop: 1 } };
    expect(val.params('proxy/successor', env, 'params', 'request')).toBeNull();
    expect(val.params('proxy/successor', { method: 'session/cancel' }, 'params', 'notification')).toBeNull();
    expect(val.params('proxy/successor', { params: {} }, 'params', 'request')).toEqual({
      path: 'params',
      message: "must have required property 'method'",
    });
    expect(val.params('proxy/successor', { method: 7 }, 'params', 'notification')).toEqual({
      path: 'params.method',
      message: 'must be string',
    });
  });

  it('mcp/message: the request is handled by the client, its notification by the agent; each form checked', () => {
    expect(val.sideOf('mcp/message')).toBe('client');
    expect(val.sideOf('mcp/message', 'request')).toBe('client');
    expect(val.sideOf('mcp/message', 'notification')).toBe('agent');
    const note = { serverId: 'srv', requestId: 'r1', method: 'notifications/progress', params: { progress: 1 } };
    expect(val.params('mcp/message', note, 'params', 'notification')).toBeNull();
    expect(val.params('mcp/message', { serverId: 'srv', method: 'x' }, 'params', 'notification')).toEqual({
      path: 'params',
      message: "must have required property 'requestId'",
    });
  });

  it('session/new with an acp MCP server passes; a malformed acp entry is named at its index', () => {
    const stdio = { name: 'fs', command: '/bin/fs', args: [], env: [], ...(v === 2 ? { type: 'stdio' } : {}) };
    const acp = { type: 'acp', name: 'tools', serverId: '550e8400-e29b-41d4-a716-446655440000' };
    expect(val.params('session/new', { cwd: '/w', mcpServers: [stdio, acp] }, 'params')).toBeNull();
    const bad = val.params('session/new', { cwd: '/w', mcpServers: [stdio, { type: 'acp', name: 't' }] }, 'params');
    // (which branch of the McpServer union the failure names is the failure picker's choice)
    expect(bad?.path).toMatch(/^params\.mcpServers\[1\]/);
    // the rest of the params is still checked against the stable schema
    expect(val.params('session/new', { cwd: 5, mcpServers: [acp] }, 'params')?.path).toBe('params.cwd');
  });
});

describe.each([1, 2] as const)('v%i validator: plan_removed', (v) => {
  const val = getValidator(v);
  const official = unstableDef(v, 'PlanRemoved');
  const frames: Array<Record<string, unknown>> = [
    { sessionUpdate: 'plan_removed', planId: 'p1' },
    { sessionUpdate: 'plan_removed', planId: 'p1', _meta: { why: 'done' } },
    { sessionUpdate: 'plan_removed' },
    { sessionUpdate: 'plan_removed', planId: 4 },
    { sessionUpdate: 'plan_removed', planId: null },
  ];

  it.each(frames.map((f) => [JSON.stringify(f), f] as const))('%s: the unstable schema verdict', (_, frame) => {
    const { sessionUpdate: _k, ...body } = frame;
    const verdict = val.update(frame, 'params.update');
    expect(verdict === null, JSON.stringify(verdict)).toBe(official(body));
  });

  it('the failures name the field', () => {
    expect(val.update({ sessionUpdate: 'plan_removed' }, 'update')).toEqual({
      path: 'update',
      message: "must have required property 'planId'",
    });
    expect(val.update({ sessionUpdate: 'plan_removed', planId: 4 }, 'update')).toEqual({
      path: 'update.planId',
      message: 'must be string',
    });
  });
});
