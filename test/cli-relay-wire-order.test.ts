// What relays hand the editor, read as raw lines from real processes over real pipes: an agent that
// writes its answer and the next update in ONE write (goose, codex-acp and cursor do; the fixture
// test/fixtures/client-order-agent.mjs) must reach the editor in that order through `acp-kit conduct`
// (no component, an in-process one, a process one) and through `acp-kit proxy --bridge`. Before the
// peers' `relay` option the update overtook the answer: an editor got `session/update` for a session
// whose `session/new` answer had not arrived yet.
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from './fixtures/cli-helpers.js';
import { fixture, RawChild } from './support/raw-child.js';

const NODE = process.execPath;
const AGENT = fixture('client-order-agent.mjs');
const PASS = resolve('bench/pass-component.mjs');
const running: RawChild[] = [];
afterEach(() => running.splice(0).forEach((c) => c.kill()));

interface Wire {
  id?: number;
  method?: string;
  params?: { update?: { sessionUpdate?: string; availableCommands?: Array<{ name: string }> } };
}

/** A line as `answer <id>` or the update's kind (commands listed), in the order the editor read them. */
function label(m: Wire): string {
  if (m.method === undefined) return `answer ${String(m.id)}`;
  const u = m.params?.update;
  if (u?.sessionUpdate === 'available_commands_update')
    return `commands:${(u.availableCommands ?? []).map((c) => c.name).join(',')}`;
  return u?.sessionUpdate ?? m.method;
}

function start(args: string[]): RawChild {
  const c = new RawChild(BIN, args);
  running.push(c);
  return c;
}

async function read(c: RawChild, n: number): Promise<string[]> {
  const out: string[] = [];
  while (out.length < n) out.push(label((await c.next()) as Wire));
  return out;
}

const initialize = (v: 1 | 2) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params:
    v === 1
      ? { protocolVersion: 1, clientCapabilities: {} }
      : { protocolVersion: 2, clientCapabilities: {}, info: { name: 'wire-order-test', version: '1' } },
});
const newSession = { jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } };

/** initialize, then `session/new`: the agent writes one update, then the answer and a second update in one write. */
async function expectSessionNewInOrder(c: RawChild, v: 1 | 2): Promise<void> {
  c.send(initialize(v));
  expect(await read(c, 1)).toEqual(['answer 1']);
  c.send(newSession);
  expect(await read(c, 3)).toEqual(['commands:before', 'answer 2', 'commands:before,after']);
}

const chains: Record<string, string[]> = {
  'no component': [],
  'an in-process component': ['--component', PASS],
  'a process component': ['--', NODE, PASS],
};

describe('acp-kit conduct keeps an answer before the update written right after it', () => {
  for (const [name, chain] of Object.entries(chains)) {
    for (const v of [1, 2] as const) {
      it(`${name}, v${v}: session/new`, async () => {
        const c = start(['conduct', ...chain, '--', NODE, AGENT, `--version=${v}`]);
        await expectSessionNewInOrder(c, v);
        if (v === 2) return;
        // v1 prompt: a chunk in its own write, then the answer and session_info_update in one write (cursor)
        c.send({ jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId: 's1', prompt: [] } });
        expect(await read(c, 3)).toEqual(['agent_message_chunk', 'answer 3', 'session_info_update']);
      });
    }
  }
});

describe('acp-kit proxy --bridge keeps the same order while it translates', () => {
  for (const editor of [1, 2] as const) {
    const agent = editor === 1 ? 2 : 1;
    it(`a v${editor} editor, a v${agent} agent: session/new`, async () => {
      const c = start(['proxy', '--bridge', String(editor), '--', NODE, AGENT, `--version=${agent}`]);
      await expectSessionNewInOrder(c, editor);
    });
  }
});
