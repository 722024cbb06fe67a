/**
 * `acp-kit/checker` from an agent author's test suite: `checkAgent` takes an agent definition
 * (served in this process by `agentInProcess`), an in-process agent of one's own, or a command,
 * with the CLI's defaults; a scratch session directory it made is gone afterwards.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../../agent/src/types.js';
import { agentInProcess, checkAgent, formatText, type CheckRun, type InProcessAgent } from '../src/checker/index.js';
import { fixtureAgent } from '../../../test/support/checker-agents.js';
import { createCodingAgent, createDemoModel } from '../../coding-agent/src/coding-agent.js';
import { ModelProviders } from '../../coding-agent/src/index.js';
import { at } from '../../protocol/src/json.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/checker/agent.mjs', import.meta.url));
const failed = (run: CheckRun) =>
  run.requirements
    .filter((r) => r.status === 'fail')
    .map((r) => `v${r.protocol} ${r.id}`)
    .sort();
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Streams a word per 20 ms until done or cancelled; remembers the session directories it was given. */
function wordsAgent(cwds: Set<string>): AgentDefinition {
  return {
    info: { name: 'words-agent', version: '1.0.0' },
    async prompt(turn) {
      cwds.add(turn.session.cwd);
      const messageId = turn.session.newId('msg');
      for (const word of ['one ', 'two ', 'three ']) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 20);
          turn.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
        });
        if (turn.signal.aborted) return 'cancelled';
        await turn.send({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text: word } });
      }
      return 'end_turn';
    },
  };
}

/** A wire message as the rewriting agent below sees it. */
type Line = Record<string, unknown>;
/** What one message the agent sends becomes; a response comes with the method and params it answers. */
type Rewrite = (m: Line, method: string | undefined, params?: unknown) => Line[];

/**
 * The built-in agent with model providers, its output rewritten by `rewrite`: each message it sends
 * (with the method a response answers) becomes the messages `rewrite` returns. A v1 agent that
 * breaks one unstable rule, since the kit mirror speaks v2 only.
 */
function rewritten(rewrite: Rewrite): InProcessAgent {
  const demo = createDemoModel({ delayMs: 0 });
  const inner = agentInProcess(createCodingAgent({ model: demo, providers: new ModelProviders({ model: demo }) }));
  return (io) => {
    const asked = new Map<string, { method: string; params: unknown }>();
    const input = new PassThrough();
    const output = new PassThrough();
    const toAgent = createInterface({ input: io.input });
    toAgent.on('line', (line) => {
      const m: unknown = JSON.parse(line);
      if (typeof m === 'object' && m !== null && 'id' in m && 'method' in m && typeof m.method === 'string')
        asked.set(JSON.stringify(m.id), { method: m.method, params: 'params' in m ? m.params : undefined });
      input.write(`${line}\n`);
    });
    toAgent.on('close', () => input.end());
    createInterface({ input: output }).on('line', (line) => {
      const m: Line = JSON.parse(line);
      const request = typeof m.method === 'string' ? undefined : asked.get(JSON.stringify(m.id));
      const method = typeof m.method === 'string' ? m.method : request?.method;
      for (const out of rewrite(m, method, request?.params)) io.output.write(`${JSON.stringify(out)}\n`);
    });
    return inner({ ...io, input, output });
  };
}

describe('acp-kit/checker: checkAgent', () => {
  it('an agent definition, served in process for both versions, is conformant; restores find the sessions of an earlier instance; the scratch directory is removed', async () => {
    const cwds = new Set<string>();
    // the words agent has no MCP client: the mcp/client-server case reports exactly that, and only that
    const unskipped = await checkAgent(wordsAgent(new Set()), { protocols: [1], only: ['ACP-V1-SESS-01'] });
    expect(failed(unskipped)).toEqual(['v1 ACP-V1-SESS-01']);
    const run = await checkAgent(wordsAgent(cwds), { skip: ['ACP-V1-SESS-01', 'ACP-ALL-SESS-08'] });
    expect(failed(run)).toEqual([]);
    expect(run.conformant).toBe(true);
    expect(run.protocols).toEqual([1, 2]);
    expect(run.cases.filter((c) => c.status === 'ran').length).toBeGreaterThan(20);
    // v1 load and v2 resume open the session in a second instance: one store is shared
    for (const [v, id] of [
      [1, 'ACP-V1-LOAD-02'],
      [2, 'ACP-V2-RESUME-03'],
    ] as const) {
      expect(run.requirements.find((r) => r.protocol === v && r.id === id)?.status, id).toBe('pass');
    }
    expect(formatText(run, 'words-agent')).toContain('Verdict: CONFORMANT');
    // every turn ran in the one scratch directory checkAgent made, which is gone now
    expect(cwds.size).toBe(1);
    const [cwd] = [...cwds];
    expect(cwd).toMatch(/acp-kit-check-/);
    expect(existsSync(cwd!)).toBe(false);
  });

  it('the built-in agent: tool_call/cancel, terminal/cancel (v2) and $/cancel_request (both versions) are exercised and pass', async () => {
    // the method each case sends, and the requirement it judges
    const byMethod: Record<string, string> = {
      'tool_call/cancel': 'ACP-V2-TOOL-11',
      'terminal/cancel': 'ACP-V2-TERM-13',
      '$/cancel_request': 'ACP-ALL-CREQ-04',
    };
    // the default prompt (`run sleep 3`) asks to run a command: the entity cases allow it and cancel it
    const run = await checkAgent(createCodingAgent({ model: createDemoModel() }), { only: Object.values(byMethod) });
    expect(failed(run)).toEqual([]);
    for (const [method, id] of Object.entries(byMethod)) {
      const versions = run.requirements.filter((r) => r.id === id && r.status === 'pass').map((r) => r.protocol);
      expect(versions, `${method} (${id})`).toEqual(method === '$/cancel_request' ? [1, 2] : [2]);
    }
  });

  it('the built-in agent with model providers passes every unstable case, v1 and v2 (issue 26 item 3)', async () => {
    // the wire method (or update kind) each case exercises, and the requirement it judges
    const byRow: Record<string, string> = {
      'session/fork': 'unstable/session-fork',
      'session/archive': 'unstable/session-archive',
      'session/unarchive': 'unstable/session-archive',
      'session/set_title': 'unstable/session-title',
      'session/status': 'unstable/session-status',
      'auth/status': 'unstable/auth-status',
      // providers/set without a key turns the status unauthenticated, disable back to not_required
      'auth/status_update': 'unstable/auth-status-update',
      'providers/list': 'unstable/providers',
      'providers/set': 'unstable/providers',
      'providers/disable': 'unstable/providers',
      'mcp/message': 'unstable/mcp-over-acp',
    };
    const demo = createDemoModel({ delayMs: 0 });
    const agent = createCodingAgent({ model: demo, providers: new ModelProviders({ model: demo }) });
    const run = await checkAgent(agent, { only: ['unstable/*'] });
    expect(
      failed(run),
      JSON.stringify(
        run.requirements.filter((r) => r.status === 'fail'),
        null,
        1,
      ),
    ).toEqual([]);
    for (const [row, id] of Object.entries(byRow)) {
      const versions = run.requirements.filter((r) => r.id === id && r.status === 'pass').map((r) => r.protocol);
      expect(versions, `${row} (${id})`).toEqual([1, 2]);
    }
    expect(run.requirements.filter((r) => r.id.startsWith('unstable/')).map((r) => r.tier)).toEqual(
      expect.arrayContaining(['unstable']),
    );
  });

  // [row, the unstable requirement that must fail, the rewrite that breaks it] (v1: the kit variants prove v2)
  it.each<[string, string, Rewrite]>([
    // the fork answers its parent's id
    [
      'session/fork',
      'unstable/session-fork',
      (m, method, params) => [method === 'session/fork' ? { ...m, result: { sessionId: at(params, 'sessionId') } } : m],
    ],
    [
      'session/set_title',
      'unstable/session-title',
      (m, method) => [method === 'session/set_title' && m.result ? { ...m, result: { title: 'not it' } } : m],
    ],
    // an unknown session answered "saved" instead of -32002
    [
      'session/status',
      'unstable/session-status',
      (m, method) => [
        method === 'session/status' && m.error ? { jsonrpc: '2.0', id: m.id, result: { status: 'saved' } } : m,
      ],
    ],
    // every listed session reported as not archived
    [
      'session/archive',
      'unstable/session-archive',
      (m, method) => {
        const listed = at(m.result, 'sessions');
        if (method !== 'session/list' || !Array.isArray(listed)) return [m];
        return [{ ...m, result: { sessions: listed.map((x: Line) => ({ ...x, archived: false })) } }];
      },
    ],
    [
      'auth/status',
      'unstable/auth-status',
      (m, method) => [
        method === 'auth/status'
          ? { jsonrpc: '2.0', id: m.id, error: { code: -32000, message: 'Authentication required' } }
          : m,
      ],
    ],
    // every status update sent twice
    [
      'auth/status_update',
      'unstable/auth-status-update',
      (m, method) => (method === 'auth/status_update' ? [m, m] : [m]),
    ],
    // the list never shows a routing
    [
      'providers/list',
      'unstable/providers',
      (m, method) => [
        method === 'providers/list'
          ? { ...m, result: { providers: [{ providerId: 'openai', supported: ['openai'], required: false }] } }
          : m,
      ],
    ],
  ])('v1: the built-in agent rewritten to break %s fails %s', async (_row, id, rewrite) => {
    const run = await checkAgent(rewritten(rewrite), { only: [id], protocols: [1] });
    expect(failed(run)).toEqual([`v1 ${id}`]);
    expect(run.conformant).toBe(true);
  });

  it('a v2 turn that ends after the session/close answer and a later round trip still counts as cancelled by the close (ACP-ALL-CLOSE-01)', async () => {
    // the spec does not order the close's answer and the turn's end; the checker judged the end only
    // if it came before one round trip after the close, so a slower wind-down failed a correct agent
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-checker-lib-')));
    dirs.push(cwd);
    const report = await checkAgent(fixtureAgent({ END_DELAY_MS: '300', FIXTURE_STORE: cwd }).agent, {
      only: ['ACP-ALL-CLOSE-01'],
      cwd,
      protocols: [2],
    });
    const busy = report.cases.find((c) => c.name === 'sessions/close-busy');
    expect(busy?.status).toBe('ran');
    expect(busy?.checks.filter((c) => c.id === 'ACP-ALL-CLOSE-01' && !c.ok)).toEqual([]);
    expect(busy?.checks.some((c) => c.id === 'ACP-ALL-CLOSE-01')).toBe(true);
  });

  it('an in-process agent and a command that break a rule fail it, the same way; a given cwd is used and kept', async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-checker-lib-')));
    dirs.push(cwd);
    const only = ['ACP-ALL-TRANS-05'];
    const inProcess = await checkAgent(fixtureAgent({ BREAK: 'stdout-log', FIXTURE_STORE: cwd }).agent, {
      only,
      cwd,
      protocols: [2],
    });
    const asProcess = await checkAgent(
      { command: process.execPath, args: [FIXTURE], env: { BREAK: 'stdout-log', FIXTURE_STORE: cwd } },
      { only, cwd, protocols: [2] },
    );
    expect(failed(inProcess)).toEqual(['v2 ACP-ALL-TRANS-05']);
    expect(failed(asProcess)).toEqual(failed(inProcess));
    expect(inProcess.conformant).toBe(false);
    expect(existsSync(cwd)).toBe(true);
  });
});
