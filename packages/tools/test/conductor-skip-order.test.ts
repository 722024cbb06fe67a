// The conductor delivers a notification past an in-process component that would only pass it on
// (`Link.passesOn`: no handler for it, no observer, nothing on its way through it). These tests hold
// that to wire order: chains of three in-process components mixing such components with busy ones
// (an async onUpdate, a session/new handler that awaits the agent, an onPrompt) in front of a real agent
// process that writes answers and updates in one write; the editor's raw end must read exactly the
// agent's order. And the rule itself: when a component is passed and when it is not.
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryTransportPair, type MemoryTransport } from '@acp-kit/protocol/rpc';
import { defineComponent, startConductor, type ComponentDefinition, type ConductorHandle } from '../src/proxy/index.js';
import { inProcessLink } from '../src/conductor/links.js';
import { fixture } from '../../../test/support/raw-child.js';

const AGENT = { command: process.execPath, args: [fixture('client-order-agent.mjs'), '--version=1'] };
const nextMacrotask = (): Promise<void> => new Promise((r) => setImmediate(r));

/** T: passes everything on; U: an onUpdate that waits a macrotask; N: session/new awaited; P: onPrompt. */
const KINDS: Record<string, ComponentDefinition> = {
  T: defineComponent({}),
  U: defineComponent({
    async onUpdate(u, next) {
      await nextMacrotask();
      next(u);
    },
  }),
  N: defineComponent({
    toAgent: {
      'session/new': async (params, next) => {
        const r = await next(params);
        await Promise.resolve();
        return r;
      },
    },
  }),
  P: defineComponent({ onPrompt: (req, next) => next(req) }),
};

const running: ConductorHandle[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.stop()));
});

interface Wire {
  id?: number;
  method?: string;
  params?: { update?: { sessionUpdate?: string; availableCommands?: Array<{ name: string }> } };
}

/** The editor's raw end: what it read, as `answer <id>` or the update's kind, in order. */
function editorEnd(t: MemoryTransport): { labels: string[]; send(m: object): void } {
  const labels: string[] = [];
  t.start({
    onMessage: (raw) => {
      const m = raw as Wire;
      const u = m.params?.update;
      if (m.method === undefined) labels.push(`answer ${String(m.id)}`);
      else if (u?.sessionUpdate === 'available_commands_update')
        labels.push(`commands:${(u.availableCommands ?? []).map((c) => c.name).join(',')}`);
      else labels.push(u?.sessionUpdate ?? m.method);
    },
    onInvalidLine: () => undefined,
    onClose: () => undefined,
  });
  return { labels, send: (m) => t.send(m) };
}

/** A conductor over the components `kinds` names (see KINDS) before `agent`; initialize is sent. */
function startChain(kinds: string, agent: { command: string; args: string[] }) {
  const [editorSide, conductorSide] = createMemoryTransportPair();
  const editor = editorEnd(editorSide);
  const components = [...kinds].map((k) => ({ component: KINDS[k] ?? defineComponent({}) }));
  running.push(startConductor({ components, agent, client: conductorSide, onStderr: () => undefined }));
  editor.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
  return editor;
}

async function until(labels: string[], n: number): Promise<string[]> {
  while (labels.length < n) await nextMacrotask();
  return labels.splice(0);
}

describe('notifications past idle pass-through components keep wire order', () => {
  for (const kinds of ['TTT', 'TUT', 'UTT', 'TTU', 'NTT', 'TNT', 'TTN', 'PUT', 'UNP']) {
    it(`chain ${kinds}: session/new and a v1 turn reach the editor in the agent's order`, async () => {
      const editor = startChain(kinds, AGENT);
      expect(await until(editor.labels, 1)).toEqual(['answer 1']);
      editor.send({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } });
      expect(await until(editor.labels, 3)).toEqual(['commands:before', 'answer 2', 'commands:before,after']);
      editor.send({ jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId: 's1', prompt: [] } });
      expect(await until(editor.labels, 3)).toEqual(['agent_message_chunk', 'answer 3', 'session_info_update']);
    });
  }
});

// An agent that asks for permission and, in the same write, sends an update: the request is still on
// its way through the first component when the update arrives, so the update must not go past it.
const ASKING_AGENT = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const out = (...ms) => process.stdout.write(ms.map((m) => JSON.stringify(m) + '\\n').join(''));
rl.on('line', (l) => {
  const m = JSON.parse(l);
  if (m.method === 'initialize') out({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, agentCapabilities: {} } });
  else if (m.method === 'session/new') out({ jsonrpc: '2.0', id: m.id, result: { sessionId: 's1' } });
  else if (m.method === 'session/prompt') {
    const update = { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'after the ask' } };
    out(
      { jsonrpc: '2.0', id: 'ask', method: 'session/request_permission', params: { sessionId: 's1', toolCall: { toolCallId: 't' }, options: [] } },
      { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update } },
    );
    prompt = m.id;
  } else if (m.id === 'ask') out({ jsonrpc: '2.0', id: prompt, result: { stopReason: 'end_turn' } });
});
let prompt;
`;

describe('a notification right behind a request never goes past a component the request is in', () => {
  for (const kinds of ['TTT', 'T', 'UTT']) {
    it(`chain ${kinds}: session/request_permission, then the update written with it`, async () => {
      const editor = startChain(kinds, { command: process.execPath, args: ['-e', ASKING_AGENT] });
      editor.send({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } });
      expect(await until(editor.labels, 2)).toEqual(['answer 1', 'answer 2']);
      editor.send({ jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId: 's1', prompt: [] } });
      expect(await until(editor.labels, 2)).toEqual(['session/request_permission', 'agent_message_chunk']);
    });
  }
});

describe('Link.passesOn: when a notification may go past an in-process component', () => {
  const link = (def: ComponentDefinition, observe?: () => void) => {
    const l = inProcessLink({ component: def, observe }, 'Proxy(0)');
    l.transport.start({ onMessage: () => undefined, onInvalidLine: () => undefined, onClose: () => undefined });
    return l;
  };

  it('a component with no handler passes every notification both ways, while nothing is on its way through it', async () => {
    const l = link(defineComponent({}));
    expect(l.passesOn?.('toClient', 'session/update')).toBe(true);
    expect(l.passesOn?.('toAgent', 'session/cancel')).toBe(true);
    // a message on its way to it: not past it until that one was handed over
    l.transport.send({ jsonrpc: '2.0', method: 'proxy/successor', params: { method: 'x' } });
    expect(l.passesOn?.('toClient', 'session/update')).toBe(false);
    await nextMacrotask();
    expect(l.passesOn?.('toClient', 'session/update')).toBe(true);
    await l.stop('done');
  });

  it('never past a handler for the method, in its direction only, nor past an observed component', async () => {
    const withUpdate = link(defineComponent({ onUpdate: (u, next) => next(u) }));
    expect(withUpdate.passesOn?.('toClient', 'session/update')).toBe(false);
    expect(withUpdate.passesOn?.('toClient', 'x/other')).toBe(true);
    expect(withUpdate.passesOn?.('toAgent', 'session/update')).toBe(true);
    const raw = link(defineComponent({ toAgent: { 'session/cancel': (p, next) => next(p) } }));
    expect(raw.passesOn?.('toAgent', 'session/cancel')).toBe(false);
    expect(raw.passesOn?.('toClient', 'session/cancel')).toBe(true);
    const observed = link(defineComponent({}), () => undefined);
    expect(observed.passesOn?.('toClient', 'session/update')).toBe(false);
    await Promise.all([withUpdate, raw, observed].map((l) => l.stop('done')));
  });
});
