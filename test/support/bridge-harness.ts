/**
 * The bridge's translator (what `proxy --bridge` runs once `initialize` chose to translate) between
 * two in-memory ends that the test drives as the editor and as the agent, message by message.
 * Every message either end sends or receives is checked against the official schema of that
 * end's version (test/support/schema-tap.ts). Protocol logic only: no process, no pipes.
 */
import { codecFor } from '../../packages/protocol/src/codec/index.js';
import { Methods } from '../../packages/protocol/src/model/methods.js';
import { Translator } from '../../packages/tools/src/proxy/bridge/index.js';
import type { CloseInfo, Transport, TransportHandlers } from '../../packages/protocol/src/rpc/transport.js';
import { createSchemaTap, type SchemaTap } from './schema-tap.js';

type Msg = Record<string, unknown>;

/** One side of the translator: `deliver` is what that side's peer sends; `sent` what the bridge sent it. */
export class MemoryEnd implements Transport {
  private handlers: TransportHandlers | undefined;
  readonly sent: Msg[] = [];
  private waiters: Array<{ from: number; pred: (m: Msg) => boolean; resolve(m: Msg): void }> = [];

  start(handlers: TransportHandlers): void {
    this.handlers = handlers;
  }

  send(message: object): void {
    // a copy through JSON, as a pipe would carry it
    const m = JSON.parse(JSON.stringify(message)) as Msg;
    this.sent.push(m);
    const i = this.sent.length - 1;
    this.waiters = this.waiters.filter((w) => {
      if (i < w.from || !w.pred(m)) return true;
      w.resolve(m);
      return false;
    });
  }

  deliver(message: Msg): void {
    this.handlers!.onMessage(JSON.parse(JSON.stringify(message)));
  }

  /** The first message the bridge sent this end at index >= `from` that matches (waits for it). */
  next(pred: (m: Msg) => boolean, from = 0, what = 'a message'): Promise<Msg> {
    const hit = this.sent.slice(from).find(pred);
    if (hit) return Promise.resolve(hit);
    return new Promise<Msg>((resolve, reject) => {
      // a guard against a hang, not a test of absence: the bridge owes this message
      const t = setTimeout(
        () =>
          reject(
            new Error(`no ${what} arrived within 5 s; got ${JSON.stringify(this.sent.slice(from)).slice(0, 800)}`),
          ),
        5000,
      );
      this.waiters.push({ from, pred, resolve: (m) => (clearTimeout(t), resolve(m)) });
    });
  }

  whenWritable(): Promise<void> {
    return Promise.resolve();
  }
  flush(): Promise<void> {
    return Promise.resolve();
  }
  close(_info?: CloseInfo): void {}
}

/** Capabilities that switch every optional path on (notices, compaction, boolean options...). */
const EDITOR_INIT: Record<1 | 2, Msg> = {
  1: {
    protocolVersion: 1,
    clientCapabilities: {
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
      session: { configOptions: { boolean: {} }, notices: {}, compaction: {} },
    },
    clientInfo: { name: 'editor', version: '1.0.0' },
  },
  2: { protocolVersion: 2, info: { name: 'editor', version: '1.0.0' }, capabilities: {} },
};

const AGENT_INIT: Record<1 | 2, Msg> = {
  1: {
    protocolVersion: 1,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: true, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, additionalDirectories: {} },
    },
    authMethods: [{ id: 'key', name: 'API key' }],
    agentInfo: { name: 'agent', version: '1.0.0' },
  },
  2: {
    protocolVersion: 2,
    info: { name: 'agent', version: '1.0.0' },
    capabilities: {
      session: {
        prompt: { image: {}, audio: {}, embeddedContext: {} },
        mcp: { stdio: {}, http: {} },
        delete: {},
        additionalDirectories: {},
      },
    },
    authMethods: [{ type: 'agent', methodId: 'key', name: 'API key' }],
  },
};

export interface BridgePair {
  editorVersion: 1 | 2;
  agentVersion: 1 | 2;
  /** The editor's end: `deliver` = the editor sends; `sent` = what the editor got. */
  editor: MemoryEnd;
  /** The agent's end: `deliver` = the agent sends; `sent` = what the agent got. */
  agent: MemoryEnd;
  /** Schema checks of the editor's connection (editor's version) and of the agent's (agent's version). */
  editorTap: SchemaTap;
  agentTap: SchemaTap;
  /** What the bridge logged: its problem reports. */
  log: string[];
  translator: Translator;
}

/**
 * A translating bridge, already initialized (the agent advertised everything). `flavor`: which
 * schema the taps check against (`unstable` for the methods only schema.unstable.json has).
 */
export function bridgePair(editorVersion: 1 | 2, flavor: 'stable' | 'unstable' = 'stable'): BridgePair {
  const agentVersion: 1 | 2 = editorVersion === 1 ? 2 : 1;
  const E = codecFor(editorVersion);
  const A = codecFor(agentVersion);
  const editor = new MemoryEnd();
  const agent = new MemoryEnd();
  const editorTap = createSchemaTap(editorVersion, flavor);
  const agentTap = createSchemaTap(agentVersion, flavor);
  const log: string[] = [];
  const translator = new Translator(editor, agent, {
    editorCodec: E,
    agentCodec: A,
    editorCapabilities: E.decodeParams(Methods.initialize, EDITOR_INIT[editorVersion]).clientCapabilities ?? {},
    agentInit: A.decodeResult(Methods.initialize, AGENT_INIT[agentVersion]),
    log: (line) => log.push(line),
    // sent by the editor's peer = received by the editor (from the agent's side of the schema)
    editorTap: { sent: (m) => editorTap.fromAgent(m), received: (m) => editorTap.fromClient(m) },
    agentTap: { sent: (m) => agentTap.fromClient(m), received: (m) => agentTap.fromAgent(m) },
  });
  return { editorVersion, agentVersion, editor, agent, editorTap, agentTap, log, translator };
}

let probes = 0;

/**
 * Sends `_probe` from the agent (an extension request, forwarded unchanged and in order) and
 * answers it: once the editor has it, the editor has everything the bridge made of what the agent
 * sent before. Returns what the editor got from index `from` up to the probe.
 */
export async function agentRoundTrip(p: BridgePair, from: number): Promise<Msg[]> {
  const id = `probe-${++probes}`;
  p.agent.deliver({ jsonrpc: '2.0', id, method: '_probe', params: { id } });
  const got = await p.editor.next(
    (m) => m.method === '_probe' && (m.params as Msg | undefined)?.id === id,
    from,
    'forwarded _probe',
  );
  const at = p.editor.sent.indexOf(got);
  p.editor.deliver({ jsonrpc: '2.0', id: got.id as string | number, result: {} });
  await p.agent.next((m) => m.id === id && m.method === undefined, 0, '_probe answer');
  return p.editor.sent.slice(from, at);
}

/** The same from the editor's side: what the agent got from index `from` up to the probe. */
export async function editorRoundTrip(p: BridgePair, from: number): Promise<Msg[]> {
  const id = `probe-${++probes}`;
  p.editor.deliver({ jsonrpc: '2.0', id, method: '_probe', params: { id } });
  const got = await p.agent.next(
    (m) => m.method === '_probe' && (m.params as Msg | undefined)?.id === id,
    from,
    'forwarded _probe',
  );
  const at = p.agent.sent.indexOf(got);
  p.agent.deliver({ jsonrpc: '2.0', id: got.id as string | number, result: {} });
  await p.editor.next((m) => m.id === id && m.method === undefined, 0, '_probe answer');
  return p.agent.sent.slice(from, at);
}

/** The agent sends a request; the editor's end answers whatever reaches it with `answer`. Returns the agent's answer and what the editor got. */
export async function agentAsks(
  p: BridgePair,
  method: string,
  params: Msg,
  answer: unknown = {},
): Promise<{ answer: Msg; editorGot: Msg[] }> {
  const id = `ask-${++probes}`;
  const from = p.editor.sent.length;
  p.agent.deliver({ jsonrpc: '2.0', id, method, params });
  const answered = p.agent.next((m) => m.id === id && m.method === undefined, 0, `answer to ${method}`);
  const forwarded = p.editor.next(
    (m) => typeof m.method === 'string' && m.id !== undefined,
    from,
    `${method} at the editor`,
  );
  const first = await Promise.race([answered.then(() => undefined), forwarded]);
  if (first) p.editor.deliver({ jsonrpc: '2.0', id: first.id as string | number, result: answer });
  return { answer: await answered, editorGot: p.editor.sent.slice(from) };
}
