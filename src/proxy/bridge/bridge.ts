import type { Readable } from 'node:stream';
import { codecFor } from '../../protocol/codec/index.js';
import { AcpError, ErrorCode } from '../../protocol/errors.js';
import { Methods, type InitializeRequest } from '../../protocol/model/methods.js';
import { spawnAgent } from '../../rpc/child.js';
import type { PeerOptions } from '../../rpc/peer.js';
import { messageToText } from '../../rpc/message-text.js';
import { StreamTransport } from '../../rpc/stream-transport.js';
import type { CloseInfo } from '../../rpc/transport.js';
import type { FileSystemSandboxOptions } from '../../client/services/fs-sandbox.js';
import { decodeFrame, frameStamper, scanFrame, type CaptureSide, type FrameDirection } from '../../captures/capture.js';
import { at, isObj, type JsonObject } from '../../protocol/json.js';
import { describeExit, killAfterEditorClosed, proxyResult, type AgentCommandOptions, type ProxyResult } from '../agent-process.js';
import type { ProxyHandle } from '../proxy.js';
import { CaptureValidator } from '../../captures/validate.js';
import { RelayTransport } from './relay-transport.js';
import { Translator } from './translator.js';

const SIDES: readonly CaptureSide[] = ['editor', 'agent'];

/** `1` / `2`: the version the editor speaks (the agent is offered the other); `auto`: see {@link BridgeOptions.mode}. */
export type BridgeMode = 1 | 2 | 'auto';

/** Options of {@link startBridge}. */
export interface BridgeOptions extends AgentCommandOptions {
  /**
   * `1` or `2`: the version the EDITOR speaks; the agent is offered the other one and the bridge
   * translates. `auto`: the agent is offered the editor's version; the bridge translates only when
   * the agent answers the other one, and otherwise forwards every message unchanged.
   */
  mode: BridgeMode;
  /** Options of the sandbox serving a v1 agent's `fs/*` for a v2 editor. */
  fileSystem?: FileSystemSandboxOptions;
  /** Sees every message on each side, in wire order (tests attach schema validators here). */
  tap?: { editor?: PeerOptions['tap']; agent?: PeerOptions['tap'] };
}

/** How the bridge ended up connecting the two sides, once `initialize` was answered. */
export type BridgeRoute = { kind: 'forward'; version: number } | { kind: 'translate'; editorVersion: 1 | 2; agentVersion: 1 | 2 };

/** A running bridge (a {@link ProxyHandle} that also tells how it routed). */
export interface BridgeHandle extends ProxyHandle {
  /** Resolves once the agent answered `initialize` and the route is chosen. */
  readonly route: Promise<BridgeRoute>;
}

/**
 * The v1<->v2 bridge: an editor speaking one ACP version and an agent speaking the other,
 * translated through the neutral model (see {@link Translator}). The agent runs in its own process
 * group and never outlives the bridge.
 */
export function startBridge(options: BridgeOptions): BridgeHandle {
  const log = options.log ?? (() => undefined);
  const agentStderr = options.agentStderr ?? process.stderr;
  const agent = spawnAgent(options.command, [...(options.args ?? [])], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    onStderr: (text) => agentStderr.write(text),
  });
  const editorIn = options.editorIn ?? process.stdin;
  const editorOut = options.editorOut ?? process.stdout;
  editorOut.on('error', (e) => log(`editor stdout: ${e.message}`));
  const editorT = new StreamTransport(editorIn, editorOut, { endOnClose: false });

  // the capture holds both legs: the editor's (what the editor sent and got, in its version) and
  // the agent's (what the agent sent and got, in its version); each leg has its own validator
  const validators = options.onViolation ? { editor: new CaptureValidator(), agent: new CaptureValidator() } : undefined;
  const stamp = frameStamper(options.recorder);
  const recordLine = (side: CaptureSide, dir: FrameDirection, line: string): void => {
    // validation needs the message; recording only kind/method/id, which a light scan finds without
    // parsing the line a second time (the transport parsed it already)
    const d = validators ? decodeFrame(line) : (scanFrame(line) ?? decodeFrame(line));
    const frame = stamp(dir, line, d, side);
    if (validators) for (const v of validators[side].push(frame, d.message)) options.onViolation!({ ...v, side });
  };
  const record = (dir: FrameDirection, message: unknown, raw?: string): void => recordLine('editor', dir, raw ?? messageToText(sendable(message)));
  const recording = options.recorder !== undefined || validators !== undefined;
  const toEditor = (m: unknown): void => {
    const out = sendable(m);
    editorT.send(out);
    options.tap?.editor?.sent?.(out);
    if (recording) record('agent->editor', m);
  };

  let mode: 'init' | 'forward' | 'translate' = 'init';
  const heldFromEditor: unknown[] = [];
  const heldFromAgent: unknown[] = [];
  let editorRelay: RelayTransport | undefined;
  let agentRelay: RelayTransport | undefined;
  let translator: Translator | undefined;
  let awaiting: { id: unknown; resolve(m: JsonObject): void } | undefined;
  let negotiating = false;
  let resolveRoute!: (r: BridgeRoute) => void;
  const route = new Promise<BridgeRoute>((r) => (resolveRoute = r));
  const agentTap = options.tap?.agent;
  const editorTap = options.tap?.editor;
  const sendAgent = (m: unknown): void => {
    const out = sendable(m);
    agent.transport.send(out);
    agentTap?.sent?.(out);
    if (recording) recordLine('agent', 'editor->agent', messageToText(out));
  };
  // the agent leg's raw lines, byte-exact (also those that are not JSON), before the transport parses them
  if (recording) splitRawLines(agent.process.stdout, (line) => recordLine('agent', 'agent->editor', line));

  let editorClosed: CloseInfo | undefined;
  let agentClosed: CloseInfo | undefined;

  editorT.start({
    onMessage: (m) => {
      if (recording) record('editor->agent', m);
      if (mode === 'forward') {
        editorTap?.received?.(m);
        sendAgent(m);
      } else if (mode === 'translate') editorRelay!.deliver(m);
      else if (!negotiating && isRequest(m, Methods.initialize)) {
        editorTap?.received?.(m);
        negotiating = true;
        void negotiate(m).finally(() => (negotiating = false));
      } else heldFromEditor.push(m);
    },
    onInvalidLine: (info) => {
      if (recording) record('editor->agent', undefined, info.line);
      log(`editor sent a line that is not JSON: ${info.error.message}`);
      if (mode === 'translate') editorRelay!.invalidLine(info);
    },
    onClose: (info) => {
      editorClosed = info;
      editorRelay?.end(info);
      // the agent gets EOF and a bounded time to finish, as with a direct connection
      try {
        agent.process.stdin?.end();
      } catch {
        /* already closed */
      }
      killAfterEditorClosed(agent.exited, () => agent.kill(), log, options.exitTimeoutMs);
    },
  });
  agent.transport.start({
    onMessage: (m) => {
      if (mode === 'forward') {
        agentTap?.received?.(m);
        toEditor(m);
      } else if (mode === 'translate') agentRelay!.deliver(m);
      else if (awaiting && isResponse(m, awaiting.id)) {
        agentTap?.received?.(m);
        const a = awaiting;
        awaiting = undefined;
        a.resolve(m);
      } else heldFromAgent.push(m);
    },
    onInvalidLine: (info) => {
      log(`agent wrote a line that is not JSON (not forwarded): ${info.line}`);
    },
    onClose: (info) => {
      agentClosed = info;
      agentRelay?.end(info);
      awaiting?.resolve({ error: { code: ErrorCode.InternalError, message: `the agent ended before answering initialize: ${info.reason}` } });
      awaiting = undefined;
    },
  });

  /** Sends `initialize` to the agent with `id` and waits for its answer. */
  const ask = (id: unknown, params: unknown): Promise<JsonObject> =>
    new Promise<JsonObject>((resolve) => {
      if (agentClosed) {
        resolve({ error: { code: ErrorCode.InternalError, message: `the agent ended before answering initialize: ${agentClosed.reason}` } });
        return;
      }
      awaiting = { id, resolve };
      sendAgent({ jsonrpc: '2.0', id, method: Methods.initialize, params });
    });

  let initAttempt = 0;
  const negotiate = async (req: JsonObject): Promise<void> => {
    const requested = at(req.params, 'protocolVersion');
    const editorVersion: 1 | 2 = options.mode === 'auto' ? (typeof requested === 'number' && requested >= 2 ? 2 : 1) : options.mode;
    const other: 1 | 2 = editorVersion === 1 ? 2 : 1;
    const E = codecFor(editorVersion);
    let editorInit: InitializeRequest;
    try {
      editorInit = E.decodeParams(Methods.initialize, req.params);
    } catch (e) {
      const err = e instanceof AcpError ? e : new AcpError(ErrorCode.InvalidParams, AcpError.from(e).message);
      toEditor({ jsonrpc: '2.0', id: req.id, error: err.toJSON() });
      return;
    }
    const shaped = (v: 1 | 2): unknown => (v === editorVersion ? req.params : Translator.agentInitParams(codecFor(v), editorInit));
    let offered: 1 | 2 = options.mode === 'auto' ? editorVersion : other;
    // the first attempt keeps the editor's id: a forwarded connection stays byte-for-byte the editor's
    const idFor = (): unknown => (initAttempt++ === 0 ? req.id : `acp-kit-bridge-initialize-${initAttempt}`);
    let answer = await ask(idFor(), shaped(offered));
    for (let tries = 0; tries < 2; tries++) {
      if (answer.error !== undefined) {
        // an agent that cannot speak the offered version and says so (-32022 {supported})
        const supported = at(answer.error, 'data', 'supported');
        const alt = offered === 1 ? 2 : 1;
        if (at(answer.error, 'code') === ErrorCode.UnsupportedVersion && Array.isArray(supported) && supported.includes(alt) && tries === 0) {
          offered = alt;
          answer = await ask(idFor(), shaped(offered));
          continue;
        }
        break;
      }
      const answered = at(answer.result, 'protocolVersion');
      if ((answered === 1 || answered === 2) && answered !== offered && tries === 0) {
        // the agent picked the other version: ask again in that version's shape (initialize may be
        // repeated before any other request), so it reads the capabilities meant for it
        offered = answered;
        answer = await ask(idFor(), shaped(offered));
        continue;
      }
      break;
    }
    const answered = at(answer.result, 'protocolVersion');
    if (answer.error !== undefined || answered !== other || answered !== offered) {
      // errors, the editor's own version and versions the bridge does not know pass through unchanged
      mode = answer.error !== undefined ? 'init' : 'forward';
      toEditor({ ...answer, jsonrpc: '2.0', id: req.id });
      if (mode === 'forward') {
        if (typeof answered === 'number') options.recorder?.meta({ protocolVersion: answered, agentProtocolVersion: answered });
        log(`agent speaks ACP v${String(answered)}: forwarding unchanged`);
        resolveRoute({ kind: 'forward', version: typeof answered === 'number' ? answered : 0 });
        flushHeld();
      }
      return;
    }
    const agentVersion: 1 | 2 = other;
    const A = codecFor(agentVersion);
    let agentInit;
    try {
      agentInit = A.decodeResult(Methods.initialize, answer.result);
    } catch (e) {
      toEditor({ jsonrpc: '2.0', id: req.id, error: { code: ErrorCode.InternalError, message: `the agent's initialize answer is not valid ACP v${answered}: ${AcpError.from(e).message}` } });
      return;
    }
    log(`editor speaks ACP v${editorVersion}, agent v${answered}: translating`);
    editorRelay = new RelayTransport(editorT, recording ? (m) => record('agent->editor', m) : undefined);
    agentRelay = new RelayTransport(agent.transport, recording ? (m) => recordLine('agent', 'editor->agent', messageToText(m)) : undefined);
    translator = new Translator(editorRelay, agentRelay, {
      editorCodec: E,
      agentCodec: A,
      editorCapabilities: editorInit.clientCapabilities ?? {},
      agentInit,
      fileSystem: options.fileSystem,
      log,
      editorTap,
      agentTap,
    });
    mode = 'translate';
    toEditor({ jsonrpc: '2.0', id: req.id, result: Translator.editorInitResult(E, agentInit) });
    options.recorder?.meta({ protocolVersion: editorVersion, agentProtocolVersion: agentVersion });
    resolveRoute({ kind: 'translate', editorVersion, agentVersion });
    if (editorClosed) editorRelay.end(editorClosed);
    if (agentClosed) agentRelay.end(agentClosed);
    flushHeld();
  };

  const flushHeld = (): void => {
    for (const m of heldFromAgent.splice(0)) {
      if (mode === 'forward') toEditor(m);
      else agentRelay!.deliver(m);
    }
    for (const m of heldFromEditor.splice(0)) {
      if (mode === 'forward') sendAgent(m);
      else editorRelay!.deliver(m);
    }
  };

  const done = (async (): Promise<ProxyResult> => {
    const r = await agent.exited;
    // answers to what was pending (errors, since the agent is gone) reach the editor first
    await new Promise((res) => setImmediate(res));
    await translator?.dispose();
    await editorT.flush();
    if (validators) for (const side of SIDES) for (const v of validators[side].finish()) options.onViolation!({ ...v, side });
    editorT.close({ reason: 'the agent exited' });
    await agent.kill(); // leftovers of the group never outlive us
    if (r.exitCode === null && r.signal === null) return { exitCode: 1, agentExitCode: null, agentSignal: null, error: new Error(agentClosed?.reason ?? 'the agent could not be started') };
    log(describeExit(r));
    options.recorder?.meta({ exitCode: r.exitCode, signal: r.signal });
    return proxyResult(r);
  })();
  void done.then(() => resolveRoute({ kind: 'forward', version: 0 }));

  return {
    pid: agent.process.pid,
    done,
    route,
    stop: async () => {
      await agent.kill();
      return done;
    },
  };
}

function isRequest(m: unknown, method: string): m is JsonObject {
  return isObj(m) && m.method === method && m.id !== undefined;
}

function isResponse(m: unknown, id: unknown): m is JsonObject {
  return isObj(m) && m.method === undefined && m.id === id && ('result' in m || 'error' in m);
}

/**
 * What a transport sends for a value read from the other side. Forwarding passes every JSON value
 * on unchanged, also one that is no object (a peer may write `5` or `null`): it goes out through
 * `toJSON`, which serializes to exactly that value.
 */
function sendable(m: unknown): object {
  return typeof m === 'object' && m !== null ? m : { toJSON: () => m };
}


/**
 * Hands every line of `from` to `onLine` as it was written (without its `\n`; a `\r`, a BOM and
 * lines that are not JSON kept), a last line without `\n` at the end. A second reader beside the
 * transport's: the transport normalises lines, a capture keeps them byte-exact.
 */
function splitRawLines(from: Readable | null, onLine: (line: string) => void): void {
  if (!from) return;
  let held: Buffer[] = [];
  from.on('data', (chunk: Buffer) => {
    let start = 0;
    let nl = chunk.indexOf(10);
    while (nl !== -1) {
      const part = chunk.subarray(start, nl);
      onLine((held.length > 0 ? Buffer.concat([...held, part]) : part).toString('utf8'));
      held = [];
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    // copied: the stream may reuse its buffer
    if (start < chunk.length) held.push(Buffer.from(chunk.subarray(start)));
  });
  from.once('end', () => {
    if (held.length > 0) onLine(Buffer.concat(held).toString('utf8'));
    held = [];
  });
}
