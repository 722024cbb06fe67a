import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acpErrorOf } from '../../../test/support/codec-trip.js';
import {
  Methods,
  type AgentCapabilities,
  type ClientCapabilities,
  type InitializeRequest,
  type InitializeResponse,
} from '../src/index.js';
import { codecFor } from '../src/codec/index.js';
import { getValidator } from '../src/validation/validator.js';
import { configOption, id, absPath } from '../../../test/support/codec-arbitraries.js';

const v1 = codecFor(1);
const v2 = codecFor(2);
const val = { 1: getValidator(1), 2: getValidator(2) } as const;

/** Encode on one side, check the wire against the official schema, decode on the other side. */
function paramsTrip(version: 1 | 2, method: string, neutral: unknown): { wire: unknown; back: unknown } {
  const codec = codecFor(version);
  const wireName = codec.wireMethod(method)!;
  const wire = JSON.parse(JSON.stringify(codec.encodeParams(method, neutral)));
  expect(val[version].params(wireName, wire), `${method} params: ${JSON.stringify(wire)}`).toBeNull();
  return { wire, back: codec.decodeParams(method, wire) };
}
function resultTrip(version: 1 | 2, method: string, neutral: unknown): { wire: unknown; back: unknown } {
  const codec = codecFor(version);
  const wireName = codec.wireMethod(method)!;
  const wire = JSON.parse(JSON.stringify(codec.encodeResult(method, neutral)));
  expect(val[version].result(wireName, wire), `${method} result: ${JSON.stringify(wire)}`).toBeNull();
  return { wire, back: codec.decodeResult(method, wire) };
}

const bool = fc.boolean();
const clientCaps: fc.Arbitrary<ClientCapabilities> = fc.record(
  {
    fs: fc.record({ readTextFile: bool, writeTextFile: bool }),
    terminal: bool,
    authTerminal: bool,
    elicitation: fc.record({ form: bool, url: bool }),
    booleanConfigOptions: bool,
    notices: bool,
    compaction: bool,
    _meta: fc.constant({ 'acme.dev/x': { on: true } }),
  },
  { requiredKeys: [] },
);
const agentCaps: fc.Arbitrary<AgentCapabilities> = fc.record(
  {
    loadSession: bool,
    prompt: fc.record({ image: bool, audio: bool, embeddedContext: bool }, { requiredKeys: [] }),
    mcp: fc.record({ stdio: bool, http: bool, sse: bool }, { requiredKeys: [] }),
    session: fc.record(
      { list: bool, resume: bool, close: bool, delete: bool, additionalDirectories: bool },
      { requiredKeys: [] },
    ),
    logout: bool,
  },
  { requiredKeys: [] },
);

const trueOnly = (o: Record<string, boolean | undefined> | undefined) => {
  const out: Record<string, boolean> = {};
  for (const [k, v] of Object.entries(o ?? {})) if (v) out[k] = true;
  return Object.keys(out).length ? out : undefined;
};
function canonicalClientV1(c: ClientCapabilities): ClientCapabilities {
  const out: Record<string, unknown> = {};
  if (c.fs?.readTextFile || c.fs?.writeTextFile)
    out.fs = { readTextFile: !!c.fs.readTextFile, writeTextFile: !!c.fs.writeTextFile };
  if (c.terminal) out.terminal = true;
  if (c.authTerminal) out.authTerminal = true;
  if (trueOnly(c.elicitation)) out.elicitation = trueOnly(c.elicitation);
  for (const k of ['booleanConfigOptions', 'notices', 'compaction'] as const) if (c[k]) out[k] = true;
  if (c._meta) out._meta = c._meta;
  return out as ClientCapabilities;
}
function canonicalClientV2(c: ClientCapabilities): ClientCapabilities {
  const out: Record<string, unknown> = {};
  if (c.authTerminal) out.authTerminal = true;
  if (trueOnly(c.elicitation)) out.elicitation = trueOnly(c.elicitation);
  Object.assign(out, { booleanConfigOptions: true, notices: true, compaction: true, subagents: true });
  if (c._meta) out._meta = c._meta;
  return out as ClientCapabilities;
}
function canonicalAgentV1(c: AgentCapabilities): AgentCapabilities {
  const out: Record<string, unknown> = {};
  if (c.loadSession) out.loadSession = true;
  if (trueOnly(c.prompt)) out.prompt = trueOnly(c.prompt);
  out.mcp = { stdio: true, ...trueOnly({ http: c.mcp?.http, sse: c.mcp?.sse }) };
  if (trueOnly(c.session)) out.session = trueOnly(c.session);
  if (c.logout) out.logout = true;
  return out as AgentCapabilities;
}
function canonicalAgentV2(c: AgentCapabilities, authMethods: number): AgentCapabilities {
  const out: Record<string, unknown> = {};
  if (trueOnly(c.prompt)) out.prompt = trueOnly(c.prompt);
  if (trueOnly({ stdio: c.mcp?.stdio, http: c.mcp?.http }))
    out.mcp = trueOnly({ stdio: c.mcp?.stdio, http: c.mcp?.http });
  out.session = {
    list: true,
    resume: true,
    close: true,
    ...trueOnly({ delete: c.session?.delete, additionalDirectories: c.session?.additionalDirectories }),
  };
  if (authMethods > 0) out.logout = true;
  return out as AgentCapabilities;
}

describe('method names', () => {
  it('maps renamed and version-only methods', () => {
    expect(v2.wireMethod(Methods.authenticate)).toBe('auth/login');
    expect(v2.wireMethod(Methods.logout)).toBe('auth/logout');
    expect(v2.neutralMethod('auth/login')).toBe(Methods.authenticate);
    expect(v2.neutralMethod('auth/logout')).toBe(Methods.logout);
    expect(v1.wireMethod(Methods.authenticate)).toBe('authenticate');
    for (const m of [
      Methods.sessionLoad,
      Methods.sessionSetMode,
      Methods.fsReadTextFile,
      Methods.fsWriteTextFile,
      Methods.terminalCreate,
      Methods.terminalOutput,
      Methods.terminalWaitForExit,
      Methods.terminalKill,
      Methods.terminalRelease,
    ]) {
      expect(v2.wireMethod(m), m).toBeUndefined();
      expect(v1.wireMethod(m), m).toBe(m);
    }
    for (const m of [Methods.toolCallCancel, Methods.terminalCancel]) {
      expect(v1.wireMethod(m), m).toBeUndefined();
      expect(v2.wireMethod(m), m).toBe(m);
    }
    // the other version's names never reach a neutral handler
    expect(v2.neutralMethod('authenticate')).toBe('v1:authenticate');
    expect(v2.neutralMethod('session/load')).toBe('v1:session/load');
    expect(v1.neutralMethod('auth/login')).toBe('v2:auth/login');
    expect(v1.neutralMethod('tool_call/cancel')).toBe('v2:tool_call/cancel');
    expect(v1.neutralMethod('_acme/ping')).toBe('_acme/ping');
    expect(v2.neutralMethod('session/prompt')).toBe('session/prompt');
  });

  it('refuses to encode a method the version lacks', () => {
    const e = acpErrorOf(() => v2.encodeParams(Methods.fsReadTextFile, { sessionId: 's', path: '/a' }));
    expect(e.code).toBe(-32601);
    expect(e.message).toContain('fs/read_text_file (not part of ACP v2)');
  });
});

describe('initialize', () => {
  it('v1 params: booleans + object markers (ACP-V1-CAP-02), both directions', () => {
    fc.assert(
      fc.property(clientCaps, (caps) => {
        const neutral: InitializeRequest = {
          protocolVersion: 1,
          clientInfo: { name: 'ed', version: '1.0' },
          clientCapabilities: caps,
        };
        const { back } = paramsTrip(1, Methods.initialize, neutral);
        expect(back).toEqual({
          protocolVersion: 1,
          clientInfo: { name: 'ed', version: '1.0' },
          clientCapabilities: canonicalClientV1(caps),
        });
      }),
      { numRuns: 100 },
    );
    const { wire } = paramsTrip(1, Methods.initialize, {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true }, terminal: true, notices: true, elicitation: { form: true } },
    });
    expect(wire).toEqual({
      protocolVersion: 1,
      clientCapabilities: {
        fs: { readTextFile: true, writeTextFile: false },
        terminal: true,
        auth: { terminal: false },
        elicitation: { form: {} },
        session: { notices: {} },
      },
    });
  });

  it('v1 params from a minimal or sloppy client get neutral defaults', () => {
    expect(v1.decodeParams(Methods.initialize, { protocolVersion: 1 })).toEqual({
      protocolVersion: 1,
      clientInfo: null,
      clientCapabilities: {},
    });
    // markers: null = unsupported; booleans: false = unsupported
    expect(
      v1.decodeParams(Methods.initialize, {
        protocolVersion: 1,
        clientCapabilities: {
          fs: { readTextFile: false, writeTextFile: true },
          elicitation: { form: null, url: {} },
          session: { configOptions: { boolean: null }, notices: null, compaction: {} },
        },
      }),
    ).toEqual({
      protocolVersion: 1,
      clientInfo: null,
      clientCapabilities: {
        fs: { readTextFile: false, writeTextFile: true },
        elicitation: { url: true },
        compaction: true,
      },
    });
  });

  it('v1 result: capabilities, auth methods (`id`, no type for agent methods, env map)', () => {
    fc.assert(
      fc.property(agentCaps, (caps) => {
        const neutral: InitializeResponse = {
          protocolVersion: 1,
          agentInfo: { name: 'ag', version: '2' },
          agentCapabilities: caps,
          authMethods: [],
        };
        const { back } = resultTrip(1, Methods.initialize, neutral);
        expect(back).toEqual({ ...neutral, agentCapabilities: canonicalAgentV1(caps) });
      }),
      { numRuns: 100 },
    );
    const neutral: InitializeResponse = {
      protocolVersion: 1,
      agentCapabilities: { loadSession: true, session: { list: true }, logout: true },
      authMethods: [
        { methodId: 'key', name: 'API key', description: 'Use a key' },
        { methodId: 'tui', name: 'Login', type: 'terminal', args: ['--login'], env: { MODE: 'tty' } },
        { methodId: 'sso', name: 'SSO', type: '_sso' },
      ],
    };
    const { wire, back } = resultTrip(1, Methods.initialize, neutral);
    expect(wire).toEqual({
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: false, audio: false, embeddedContext: false },
        mcpCapabilities: { http: false, sse: false },
        sessionCapabilities: { list: {} },
        auth: { logout: {} },
      },
      authMethods: [
        { id: 'key', name: 'API key', description: 'Use a key' },
        { id: 'tui', name: 'Login', type: 'terminal', args: ['--login'], env: { MODE: 'tty' } },
      ],
    });
    expect((back as InitializeResponse).authMethods).toEqual([
      { methodId: 'key', name: 'API key', description: 'Use a key', type: 'agent' },
      { methodId: 'tui', name: 'Login', type: 'terminal', args: ['--login'], env: { MODE: 'tty' } },
    ]);
    expect((back as InitializeResponse).agentInfo).toBeNull();
  });

  it('v2 params: info + object markers (ACP-V2-CAP-01), both directions', () => {
    fc.assert(
      fc.property(clientCaps, (caps) => {
        const neutral: InitializeRequest = {
          protocolVersion: 2,
          clientInfo: { name: 'ed', version: '1.0', title: 'Editor' },
          clientCapabilities: caps,
        };
        const { wire, back } = paramsTrip(2, Methods.initialize, neutral);
        expect(
          Object.keys((wire as { capabilities: object }).capabilities).every((k) =>
            ['auth', 'elicitation', '_meta'].includes(k),
          ),
        ).toBe(true);
        expect(back).toEqual({
          protocolVersion: 2,
          clientInfo: { name: 'ed', version: '1.0', title: 'Editor' },
          clientCapabilities: canonicalClientV2(caps),
        });
      }),
      { numRuns: 100 },
    );
    const { wire } = paramsTrip(2, Methods.initialize, {
      protocolVersion: 2,
      clientCapabilities: { authTerminal: true, fs: { readTextFile: true }, terminal: true },
    });
    expect(wire).toEqual({
      protocolVersion: 2,
      info: { name: 'unknown', version: '0.0.0' },
      capabilities: { auth: { terminal: {} } },
    });
  });

  it('v2 result: session marker = list/resume/close, logout follows authMethods, env as a list', () => {
    fc.assert(
      fc.property(agentCaps, fc.boolean(), (caps, withAuth) => {
        const authMethods = withAuth ? [{ methodId: 'k', name: 'Key', type: 'agent' as const }] : [];
        const neutral: InitializeResponse = {
          protocolVersion: 2,
          agentInfo: { name: 'ag', version: '2' },
          agentCapabilities: caps,
          authMethods,
        };
        const { back } = resultTrip(2, Methods.initialize, neutral);
        expect(back).toEqual({ ...neutral, agentCapabilities: canonicalAgentV2(caps, authMethods.length) });
      }),
      { numRuns: 100 },
    );
    const { wire, back } = resultTrip(2, Methods.initialize, {
      protocolVersion: 2,
      agentInfo: { name: 'ag', version: '2' },
      agentCapabilities: { prompt: { image: true }, mcp: { stdio: true, sse: true }, session: { delete: true } },
      authMethods: [
        { methodId: 'tui', name: 'Login', type: 'terminal', args: ['login'], env: { A: '1', B: '2' } },
        { methodId: 'sso', name: 'SSO', type: '_sso', _meta: { x: 1 } },
      ],
    });
    expect(wire).toEqual({
      protocolVersion: 2,
      info: { name: 'ag', version: '2' },
      capabilities: { session: { prompt: { image: {} }, mcp: { stdio: {} }, delete: {} } },
      authMethods: [
        {
          methodId: 'tui',
          name: 'Login',
          type: 'terminal',
          args: ['login'],
          env: [
            { name: 'A', value: '1' },
            { name: 'B', value: '2' },
          ],
        },
        { methodId: 'sso', name: 'SSO', type: '_sso', _meta: { x: 1 } },
      ],
    });
    expect((back as InitializeResponse).authMethods[0]).toEqual({
      methodId: 'tui',
      name: 'Login',
      type: 'terminal',
      args: ['login'],
      env: { A: '1', B: '2' },
    });
  });

  it('decoding validates and names the path', () => {
    expect(
      acpErrorOf(() => v2.decodeParams(Methods.initialize, { protocolVersion: 2, capabilities: {} })).message,
    ).toBe("Invalid params: params: must have required property 'info'");
    expect(acpErrorOf(() => v1.decodeParams(Methods.initialize, { protocolVersion: '1.0.0' })).message).toMatch(
      /^Invalid params: params\.protocolVersion: must be integer/,
    );
    const e = acpErrorOf(() => v2.decodeResult(Methods.initialize, { protocolVersion: 2, info: { name: 'x' } }));
    expect(e.code).toBe(-32602);
    expect(e.message).toBe("Invalid result: result.info: must have required property 'version'");
  });
});

describe('session setup', () => {
  const stdio = {
    type: 'stdio' as const,
    name: 'fs',
    command: '/bin/mcp',
    args: ['-v'],
    env: [{ name: 'A', value: 'b' }],
  };
  const http = { type: 'http' as const, name: 'web', url: 'https://mcp.example.com', headers: [] };
  const sse = { type: 'sse' as const, name: 'old', url: 'https://sse.example.com', headers: [] };

  it('session/new v1: stdio servers without type, mcpServers required (ACP-V1-SESS-03)', () => {
    const { wire, back } = paramsTrip(1, Methods.sessionNew, {
      cwd: '/w',
      mcpServers: [stdio, http, sse, { type: '_acp', name: 'x' }],
    });
    expect((wire as { mcpServers: unknown[] }).mcpServers).toEqual([
      { name: 'fs', command: '/bin/mcp', args: ['-v'], env: [{ name: 'A', value: 'b' }] },
      http,
      sse,
    ]);
    expect(back).toEqual({ cwd: '/w', mcpServers: [stdio, http, sse] });
    expect(acpErrorOf(() => v1.decodeParams(Methods.sessionNew, { cwd: '/w' })).message).toBe(
      "Invalid params: params: must have required property 'mcpServers'",
    );
  });

  it('session/new v2: type on every server, no SSE, mcpServers optional (ACP-V2-SESS-01)', () => {
    const { wire, back } = paramsTrip(2, Methods.sessionNew, {
      cwd: '/w',
      mcpServers: [stdio, http, sse],
      additionalDirectories: ['/x'],
    });
    expect((wire as { mcpServers: unknown[] }).mcpServers).toEqual([stdio, http]);
    expect(back).toEqual({ cwd: '/w', mcpServers: [stdio, http], additionalDirectories: ['/x'] });
    expect(
      v2.decodeParams(Methods.sessionNew, { cwd: '/w', mcpServers: [{ type: 'stdio', name: 'n', command: '/c' }] }),
    ).toEqual({
      cwd: '/w',
      mcpServers: [{ type: 'stdio', name: 'n', command: '/c', args: [], env: [] }],
    });
    expect(v2.decodeParams(Methods.sessionNew, { cwd: '/w' })).toEqual({ cwd: '/w', mcpServers: [] });
  });

  it('session/new results: config options renamed in v1, commands tagged in v2, modes v1 only', () => {
    fc.assert(
      fc.property(fc.array(configOption, { maxLength: 3 }), id, (configOptions, sessionId) => {
        const modes = { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }] };
        const availableCommands = [{ name: 'test', description: 'Run', input: { hint: 'file' } }];
        const r1 = resultTrip(1, Methods.sessionNew, { sessionId, configOptions, modes, availableCommands });
        expect(r1.back).toEqual({ sessionId, configOptions, modes });
        for (const o of (r1.wire as { configOptions: Array<Record<string, unknown>> }).configOptions) {
          expect(o.id).toBeDefined();
          expect(o.configId).toBeUndefined();
        }
        const r2 = resultTrip(2, Methods.sessionNew, { sessionId, configOptions, modes, availableCommands });
        expect(r2.back).toEqual({ sessionId, configOptions, availableCommands });
        expect((r2.wire as { availableCommands: unknown }).availableCommands).toEqual([
          { type: 'command', name: 'test', description: 'Run', input: { type: 'text', hint: 'file' } },
        ]);
      }),
      { numRuns: 60 },
    );
    // receivers read null lists as omitted (ACP-V2-SESS-06, v1 schema allows null)
    expect(
      v2.decodeResult(Methods.sessionNew, { sessionId: 's', configOptions: null, availableCommands: null }),
    ).toEqual({ sessionId: 's' });
    expect(v1.decodeResult(Methods.sessionNew, { sessionId: 's', configOptions: null, modes: null })).toEqual({
      sessionId: 's',
      modes: null,
    });
  });

  it('session/load (v1): result null accepted as {} (docs example, ACP §5.10)', () => {
    paramsTrip(1, Methods.sessionLoad, { sessionId: 's', cwd: '/w', mcpServers: [] });
    expect(v1.decodeResult(Methods.sessionLoad, null)).toEqual({});
    expect(v1.decodeResult(Methods.fsWriteTextFile, null)).toEqual({});
    expect(v2.wireMethod(Methods.sessionLoad)).toBeUndefined();
  });

  it('session/resume: replayFrom in v2 (ACP-V2-RESUME-02/03), dropped in v1', () => {
    fc.assert(
      fc.property(id, absPath, fc.option(fc.constant({ type: 'start' as const })), (sessionId, cwd, replayFrom) => {
        const neutral = { sessionId, cwd, replayFrom };
        expect(paramsTrip(2, Methods.sessionResume, neutral).back).toEqual(neutral);
        expect(paramsTrip(1, Methods.sessionResume, neutral).back).toEqual({ sessionId, cwd });
      }),
      { numRuns: 30 },
    );
    // unknown cursors are kept for the agent to reject (ACP-V2-RESUME-06)
    expect(
      v2.decodeParams(Methods.sessionResume, { sessionId: 's', cwd: '/w', replayFrom: { type: '_at', cursor: 'c' } }),
    ).toEqual({ sessionId: 's', cwd: '/w', replayFrom: { type: '_at', cursor: 'c' } });
  });

  it('session/set_config_option: v1 type only for booleans, v2 id|boolean (ACP-V1-CFG-02, ACP-V2-CFG-02)', () => {
    expect(paramsTrip(1, Methods.sessionSetConfigOption, { sessionId: 's', configId: 'm', value: 'fast' })).toEqual({
      wire: { sessionId: 's', configId: 'm', value: 'fast' },
      back: { sessionId: 's', configId: 'm', value: 'fast' },
    });
    expect(paramsTrip(1, Methods.sessionSetConfigOption, { sessionId: 's', configId: 'b', value: true })).toEqual({
      wire: { sessionId: 's', configId: 'b', value: true, type: 'boolean' },
      back: { sessionId: 's', configId: 'b', value: true },
    });
    expect(paramsTrip(2, Methods.sessionSetConfigOption, { sessionId: 's', configId: 'm', value: 'fast' })).toEqual({
      wire: { sessionId: 's', configId: 'm', value: 'fast', type: 'id' },
      back: { sessionId: 's', configId: 'm', value: 'fast' },
    });
    expect(paramsTrip(2, Methods.sessionSetConfigOption, { sessionId: 's', configId: 'b', value: false }).wire).toEqual(
      { sessionId: 's', configId: 'b', value: false, type: 'boolean' },
    );
    expect(
      acpErrorOf(() => v2.decodeParams(Methods.sessionSetConfigOption, { sessionId: 's', configId: 'm', value: 'x' }))
        .message,
    ).toMatch(/^Invalid params: params: must have required property 'type'/);
    fc.assert(
      fc.property(fc.array(configOption, { maxLength: 3 }), (configOptions) => {
        expect(resultTrip(1, Methods.sessionSetConfigOption, { configOptions }).back).toEqual({ configOptions });
        expect(resultTrip(2, Methods.sessionSetConfigOption, { configOptions }).back).toEqual({ configOptions });
      }),
      { numRuns: 40 },
    );
  });
});

describe('session/prompt', () => {
  const prompt = [
    { type: 'text' as const, text: 'hi' },
    { type: 'resource_link' as const, uri: 'file:///a', name: 'a', icons: [{ src: 'https://i/x.png' }] },
  ];

  it('params: v1 drops v2-only content details; v2 passes through', () => {
    expect(paramsTrip(1, Methods.sessionPrompt, { sessionId: 's', prompt }).back).toEqual({
      sessionId: 's',
      prompt: [prompt[0], { type: 'resource_link', uri: 'file:///a', name: 'a' }],
    });
    expect(paramsTrip(2, Methods.sessionPrompt, { sessionId: 's', prompt }).back).toEqual({ sessionId: 's', prompt });
    expect(acpErrorOf(() => v2.decodeParams(Methods.sessionPrompt, { sessionId: 's', prompt: [] })).message).toBe(
      'Invalid params: params.prompt: must NOT have fewer than 1 items',
    );
  });

  it('v1 result: stopReason from the closed set (ACP-V1-STOP-01)', () => {
    for (const r of ['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled']) {
      expect(resultTrip(1, Methods.sessionPrompt, { stopReason: r, messageId: 'u1' })).toEqual({
        wire: { stopReason: r },
        back: { stopReason: r },
      });
    }
    expect(resultTrip(1, Methods.sessionPrompt, { stopReason: '_handoff' }).wire).toEqual({ stopReason: 'end_turn' });
    // `error` has no v1 stop reason: the prompt is answered with a JSON-RPC error instead
    const e = acpErrorOf(() =>
      v1.encodeResult(Methods.sessionPrompt, {
        stopReason: 'error',
        error: { code: -32000, message: 'Authentication required' },
      }),
    );
    expect(e.toJSON()).toEqual({ code: -32000, message: 'Authentication required' });
    expect(acpErrorOf(() => v1.encodeResult(Methods.sessionPrompt, { stopReason: 'error' })).code).toBe(-32603);
    expect(acpErrorOf(() => v1.decodeResult(Methods.sessionPrompt, { stopReason: 'error' })).message).toMatch(
      /^Invalid result: result\.stopReason: must be equal to one of/,
    );
  });

  it('v2 result: messageId at insertion (ACP-V2-LIFE-03); older empty answers accepted', () => {
    expect(resultTrip(2, Methods.sessionPrompt, { messageId: 'u1', stopReason: 'end_turn' })).toEqual({
      wire: { messageId: 'u1' },
      back: { messageId: 'u1' },
    });
    expect(v2.decodeResult(Methods.sessionPrompt, {})).toEqual({});
    expect(v2.decodeResult(Methods.sessionPrompt, null)).toEqual({});
    expect(acpErrorOf(() => v2.encodeResult(Methods.sessionPrompt, { stopReason: 'end_turn' })).code).toBe(-32603);
    expect(acpErrorOf(() => v2.decodeResult(Methods.sessionPrompt, { messageId: 5 })).message).toBe(
      'Invalid result: result.messageId: must be string',
    );
  });
});

describe('session/request_permission', () => {
  const options = [
    { optionId: 'ok', name: 'Allow', kind: 'allow_once' },
    { optionId: 'no', name: 'Reject', kind: 'reject_once' },
  ];

  it('v1: a tool_call subject becomes toolCall (ACP-V1-PERM-01)', () => {
    const neutral = {
      sessionId: 's',
      title: 'Allow edit?',
      options,
      subject: {
        type: 'tool_call',
        toolCall: {
          toolCallId: 't',
          title: 'Edit a.ts',
          status: 'paused',
          content: [{ type: 'diff', path: '/a.ts', oldText: 'a', newText: 'b' }],
        },
      },
    };
    const { wire, back } = paramsTrip(1, Methods.requestPermission, neutral);
    expect(wire).toEqual({
      sessionId: 's',
      options,
      toolCall: {
        toolCallId: 't',
        title: 'Edit a.ts',
        status: 'in_progress',
        content: [{ type: 'diff', path: '/a.ts', oldText: 'a', newText: 'b' }],
      },
    });
    expect(back).toEqual({
      sessionId: 's',
      title: 'Edit a.ts',
      options,
      subject: {
        type: 'tool_call',
        toolCall: {
          toolCallId: 't',
          title: 'Edit a.ts',
          status: 'in_progress',
          content: [{ type: 'diff', path: '/a.ts', oldText: 'a', newText: 'b' }],
        },
      },
    });
  });

  it('v1: other subjects become a synthetic tool call carrying the title and description', () => {
    const { wire } = paramsTrip(1, Methods.requestPermission, {
      sessionId: 's',
      title: 'Run rm?',
      description: 'Deletes build/',
      options,
      subject: { type: 'command', command: 'rm -rf build', cwd: '/w' },
    });
    const toolCall = (wire as { toolCall: Record<string, unknown> }).toolCall;
    expect(toolCall.toolCallId).toMatch(/^permission-/);
    expect(toolCall).toEqual({
      toolCallId: toolCall.toolCallId,
      title: 'Run rm?',
      kind: 'execute',
      rawInput: { command: 'rm -rf build', cwd: '/w' },
      content: [{ type: 'content', content: { type: 'text', text: 'Deletes build/' } }],
    });
    expect(
      (
        paramsTrip(1, Methods.requestPermission, {
          sessionId: 's',
          title: 'Run?',
          options,
          subject: { type: 'command', command: 'ls', cwd: '/w', toolCallId: 't9' },
        }).wire as { toolCall: unknown }
      ).toolCall,
    ).toEqual({ toolCallId: 't9' });
    expect(
      (
        paramsTrip(1, Methods.requestPermission, { sessionId: 's', title: 'Go?', options }).wire as {
          toolCall: { title: string };
        }
      ).toolCall.title,
    ).toBe('Go?');
  });

  it('v1: a decoded request without a tool title gets a generic title; unknown outcomes never approve', () => {
    expect(
      (
        v1.decodeParams(Methods.requestPermission, { sessionId: 's', toolCall: { toolCallId: 't' }, options }) as {
          title: string;
        }
      ).title,
    ).toBe('Permission requested');
    expect(resultTrip(1, Methods.requestPermission, { outcome: { outcome: '_deferred' } }).wire).toEqual({
      outcome: { outcome: 'cancelled' },
    });
    expect(resultTrip(1, Methods.requestPermission, { outcome: { outcome: 'selected', optionId: 'ok' } }).back).toEqual(
      { outcome: { outcome: 'selected', optionId: 'ok' } },
    );
  });

  it('v2: title/description/subject pass through; diffs in the subject are mapped (ACP-V2-PERM-01/02)', () => {
    const neutral = {
      sessionId: 's',
      title: 'Allow?',
      description: 'details',
      options,
      subject: {
        type: 'tool_call',
        toolCall: { toolCallId: 't', content: [{ type: 'diff', path: '/a', oldText: null, newText: 'x\n' }] },
      },
    };
    const { wire, back } = paramsTrip(2, Methods.requestPermission, neutral);
    expect(
      (wire as { subject: { toolCall: { content: Array<{ type: string; changes: unknown }> } } }).subject.toolCall
        .content[0],
    ).toMatchObject({ type: 'diff', changes: [{ operation: 'add', path: '/a' }] });
    expect(
      (back as { subject: { toolCall: { content: Array<{ type: string }> } } }).subject.toolCall.content[0].type,
    ).toBe('file_changes');
    const command = { sessionId: 's', title: 'Run?', options, subject: { type: 'command', command: 'ls', cwd: '/w' } };
    expect(paramsTrip(2, Methods.requestPermission, command).back).toEqual(command);
    expect(acpErrorOf(() => v2.decodeParams(Methods.requestPermission, { sessionId: 's', options })).message).toBe(
      "Invalid params: params: must have required property 'title'",
    );
  });
});

describe('other methods', () => {
  it('passes simple shapes through and validates them', () => {
    expect(paramsTrip(2, Methods.authenticate, { methodId: 'k' }).back).toEqual({ methodId: 'k' });
    expect(v2.decodeResult(Methods.authenticate, null)).toEqual({});
    expect(paramsTrip(1, Methods.sessionList, { cwd: '/w', cursor: null }).back).toEqual({ cwd: '/w', cursor: null });
    expect(
      resultTrip(2, Methods.sessionList, { sessions: [{ sessionId: 's', cwd: '/w', title: null }], nextCursor: '' })
        .back,
    ).toEqual({ sessions: [{ sessionId: 's', cwd: '/w', title: null }], nextCursor: '' });
    expect(paramsTrip(2, Methods.toolCallCancel, { sessionId: 's', toolCallId: 't' }).back).toEqual({
      sessionId: 's',
      toolCallId: 't',
    });
    expect(paramsTrip(1, Methods.fsReadTextFile, { sessionId: 's', path: '/a', line: 3 }).back).toEqual({
      sessionId: 's',
      path: '/a',
      line: 3,
    });
    expect(paramsTrip(1, Methods.sessionCancel, { sessionId: 's' }).back).toEqual({ sessionId: 's' });
    expect(acpErrorOf(() => v1.decodeParams(Methods.terminalCreate, { sessionId: 's' })).message).toBe(
      "Invalid params: params: must have required property 'command'",
    );
    // session/update: only the envelope is checked; the body is the update decoder's job
    const future = { sessionId: 's', update: { sessionUpdate: 'subagent_update', x: 1 } };
    expect(v1.decodeParams(Methods.sessionUpdate, future)).toBe(future);
    expect(acpErrorOf(() => v1.decodeParams(Methods.sessionUpdate, { update: {} })).message).toBe(
      "Invalid params: params: must have required property 'sessionId'",
    );
    expect(acpErrorOf(() => v2.decodeParams(Methods.sessionUpdate, { sessionId: 's', update: 3 })).message).toBe(
      'Invalid params: params.update: must be object',
    );
    // extension methods are not validated and pass through
    expect(v2.decodeParams('_acme/ping', { any: 1 })).toEqual({ any: 1 });
  });
});
