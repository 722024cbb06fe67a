import type { Readable } from 'node:stream';
import { codecFor, AcpError, ErrorCode, Methods, ProxyMethods, type InitializeRequest } from '@acp-kit/protocol';
import {
  spawnAgent,
  type AgentProcess,
  type PeerOptions,
  StreamTransport,
  type CloseInfo,
} from '@acp-kit/protocol/rpc';
import { messageToText, at, isObj, type JsonObject } from '@acp-kit/protocol/internal';
import type { FileSystemSandboxOptions } from '@acp-kit/client';
import { decodeFrame, frameStamper, scanFrame, type CaptureSide, type FrameDirection } from '../../captures/capture.js';
import {
  describeExit,
  killAfterEditorClosed,
  proxyResult,
  type AgentCommandOptions,
  type ProxyResult,
} from '../agent-process.js';
import type { ProxyHandle } from '../proxy.js';
import { CaptureValidator } from '../../captures/validate.js';
import { RelayTransport } from './relay-transport.js';
import { notAProxyComponent, Translator } from './translator.js';

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
export type BridgeRoute =
  { kind: 'forward'; version: number } | { kind: 'translate'; editorVersion: 1 | 2; agentVersion: 1 | 2 };

/** A running bridge (a {@link ProxyHandle} that also tells how it routed). */
export interface BridgeHandle extends ProxyHandle {
  /** Resolves once the agent answered `initialize` and the route is chosen. */
  readonly route: Promise<BridgeRoute>;
}

/** Where the bridge is: waiting for `initialize`, forwarding unchanged, or translating through its relays. */
type BridgeState =
  | { kind: 'init' }
  | { kind: 'forward' }
  | { kind: 'translate'; editorRelay: RelayTransport; agentRelay: RelayTransport; translator: Translator };

/**
 * The bridge's capture: both legs, the editor's (what the editor sent and got, in its version) and
 * the agent's (what the agent sent and got, in its version); each leg has its own validator.
 */
class BridgeRecording {
  private readonly stamp: ReturnType<typeof frameStamper>;
  private readonly validators: Record<CaptureSide, CaptureValidator> | undefined;

  constructor(
    recorder: BridgeOptions['recorder'],
    private readonly onViolation: BridgeOptions['onViolation'],
  ) {
    this.stamp = frameStamper(recorder);
    this.validators = onViolation ? { editor: new CaptureValidator(), agent: new CaptureValidator() } : undefined;
  }

  line(side: CaptureSide, dir: FrameDirection, line: string): void {
    // validation needs the message; recording only kind/method/id, which a light scan finds without
    // parsing the line a second time (the transport parsed it already)
    const d = this.validators ? decodeFrame(line) : (scanFrame(line) ?? decodeFrame(line));
    const frame = this.stamp(dir, line, d, side);
    if (this.validators && this.onViolation)
      for (const v of this.validators[side].push(frame, d.message)) this.onViolation({ ...v, side });
  }

  /** A message on the editor's leg (`raw` when it was a line that is not JSON). */
  editor(dir: FrameDirection, message: unknown, raw?: string): void {
    this.line('editor', dir, raw ?? messageToText(sendable(message)));
  }

  /** Reports what the validators find only at the end (requests never answered, …). */
  finish(): void {
    if (!this.validators || !this.onViolation) return;
    for (const side of SIDES) for (const v of this.validators[side].finish()) this.onViolation({ ...v, side });
  }
}

/**
 * The v1<->v2 bridge: an editor speaking one ACP version and an agent speaking the other,
 * translated through the neutral model (see {@link Translator}). The agent runs in its own process
 * group and never outlives the bridge.
 */
export function startBridge(options: BridgeOptions): BridgeHandle {
  const bridge = new Bridge(options);
  const done = bridge.finish();
  void done.then(() => bridge.settleRoute({ kind: 'forward', version: 0 }));
  return {
    pid: bridge.agent.process.pid,
    done,
    route: bridge.route,
    stop: async () => {
      await bridge.agent.kill();
      return done;
    },
  };
}

/** One running bridge: the two transports, the `initialize` negotiation, then forwarding or translating. */
class Bridge {
  readonly agent: AgentProcess;
  readonly route: Promise<BridgeRoute>;
  private readonly log: (line: string) => void;
  private readonly editorT: StreamTransport;
  private readonly rec: BridgeRecording | undefined;
  private readonly editorTap: BridgeTap;
  private readonly agentTap: BridgeTap;
  private state: BridgeState = { kind: 'init' };
  private readonly heldFromEditor: unknown[] = [];
  private readonly heldFromAgent: unknown[] = [];
  private awaiting: { id: unknown; resolve(m: JsonObject): void } | undefined;
  private negotiating = false;
  private initAttempt = 0;
  private editorClosed: CloseInfo | undefined;
  private agentClosed: CloseInfo | undefined;
  private resolveRoute: (r: BridgeRoute) => void = () => undefined;

  constructor(private readonly options: BridgeOptions) {
    const log = (this.log = options.log ?? (() => undefined));
    const agentStderr = options.agentStderr ?? process.stderr;
    this.agent = spawnAgent(options.command, [...(options.args ?? [])], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      onStderr: (text) => agentStderr.write(text),
    });
    const editorOut = options.editorOut ?? process.stdout;
    editorOut.on('error', (e) => log(`editor stdout: ${e.message}`));
    this.editorT = new StreamTransport(options.editorIn ?? process.stdin, editorOut, { endOnClose: false });
    this.rec =
      options.recorder !== undefined || options.onViolation !== undefined
        ? new BridgeRecording(options.recorder, options.onViolation)
        : undefined;
    this.editorTap = options.tap?.editor;
    this.agentTap = options.tap?.agent;
    this.route = new Promise<BridgeRoute>((r) => (this.resolveRoute = r));
    const rec = this.rec;
    // the agent leg's raw lines, byte-exact (also those that are not JSON), before the transport parses them
    if (rec) splitRawLines(this.agent.process.stdout, (line) => rec.line('agent', 'agent->editor', line));
    this.editorT.start({
      onMessage: (m) => this.onEditorMessage(m),
      onInvalidLine: (info) => {
        rec?.editor('editor->agent', undefined, info.line);
        log(`editor sent a line that is not JSON: ${info.error.message}`);
        if (this.state.kind === 'translate') this.state.editorRelay.invalidLine(info);
      },
      onClose: (info) => this.onEditorClose(info),
    });
    this.agent.transport.start({
      onMessage: (m) => this.onAgentMessage(m),
      onInvalidLine: (info) => log(`agent wrote a line that is not JSON (not forwarded): ${info.line}`),
      onClose: (info) => {
        this.agentClosed = info;
        if (this.state.kind === 'translate') this.state.agentRelay.end(info);
        this.awaiting?.resolve({
          error: {
            code: ErrorCode.InternalError,
            message: `the agent ended before answering initialize: ${info.reason}`,
          },
        });
        this.awaiting = undefined;
      },
    });
  }

  settleRoute(r: BridgeRoute): void {
    this.resolveRoute(r);
  }

  private toEditor(m: unknown): void {
    const out = sendable(m);
    this.editorT.send(out);
    this.editorTap?.sent?.(out);
    this.rec?.editor('agent->editor', m);
  }

  private sendAgent(m: unknown): void {
    const out = sendable(m);
    this.agent.transport.send(out);
    this.agentTap?.sent?.(out);
    this.rec?.line('agent', 'editor->agent', messageToText(out));
  }

  private onEditorMessage(m: unknown): void {
    this.rec?.editor('editor->agent', m);
    if (this.state.kind === 'forward') {
      this.editorTap?.received?.(m);
      this.sendAgent(m);
    } else if (this.state.kind === 'translate') this.state.editorRelay.deliver(m);
    else if (!this.negotiating && isRequest(m, Methods.initialize)) {
      this.editorTap?.received?.(m);
      this.negotiating = true;
      void this.negotiate(m).finally(() => (this.negotiating = false));
    } else if (isRequest(m, ProxyMethods.initialize)) {
      // a conductor took the bridge for a proxy component: refused, not held until an initialize
      this.editorTap?.received?.(m);
      this.toEditor({ jsonrpc: '2.0', id: m.id, error: notAProxyComponent(ProxyMethods.initialize).toJSON() });
    } else this.heldFromEditor.push(m);
  }

  private onEditorClose(info: CloseInfo): void {
    this.editorClosed = info;
    if (this.state.kind === 'translate') this.state.editorRelay.end(info);
    // the agent gets EOF and a bounded time to finish, as with a direct connection
    try {
      this.agent.process.stdin?.end();
    } catch {
      /* already closed */
    }
    killAfterEditorClosed(this.agent.exited, () => this.agent.kill(), this.log, this.options.exitTimeoutMs);
  }

  private onAgentMessage(m: unknown): void {
    if (this.state.kind === 'forward') {
      this.agentTap?.received?.(m);
      this.toEditor(m);
    } else if (this.state.kind === 'translate') this.state.agentRelay.deliver(m);
    else if (this.awaiting && isResponse(m, this.awaiting.id)) {
      this.agentTap?.received?.(m);
      const a = this.awaiting;
      this.awaiting = undefined;
      a.resolve(m);
    } else this.heldFromAgent.push(m);
  }

  /** Sends `initialize` to the agent with `id` and waits for its answer. */
  private ask(id: unknown, params: unknown): Promise<JsonObject> {
    return new Promise<JsonObject>((resolve) => {
      if (this.agentClosed) {
        resolve({
          error: {
            code: ErrorCode.InternalError,
            message: `the agent ended before answering initialize: ${this.agentClosed.reason}`,
          },
        });
        return;
      }
      this.awaiting = { id, resolve };
      this.sendAgent({ jsonrpc: '2.0', id, method: Methods.initialize, params });
    });
  }

  /** Answers the editor's `initialize` from the agent's, and chooses the route. */
  private async negotiate(req: JsonObject): Promise<void> {
    const requested = at(req.params, 'protocolVersion');
    const editorVersion: 1 | 2 =
      this.options.mode === 'auto' ? (typeof requested === 'number' && requested >= 2 ? 2 : 1) : this.options.mode;
    const other: 1 | 2 = editorVersion === 1 ? 2 : 1;
    const E = codecFor(editorVersion);
    let editorInit: InitializeRequest;
    try {
      editorInit = E.decodeParams(Methods.initialize, req.params);
    } catch (e) {
      const err = e instanceof AcpError ? e : new AcpError(ErrorCode.InvalidParams, AcpError.from(e).message);
      this.toEditor({ jsonrpc: '2.0', id: req.id, error: err.toJSON() });
      return;
    }
    const shaped = (v: 1 | 2): unknown =>
      v === editorVersion ? req.params : Translator.agentInitParams(codecFor(v), editorInit);
    const { answer, offered } = await this.askAgent(
      req.id,
      this.options.mode === 'auto' ? editorVersion : other,
      shaped,
    );
    const answered = at(answer.result, 'protocolVersion');
    if (answer.error !== undefined || answered !== other || answered !== offered) this.passAnswer(req, answer);
    else this.translate(req, answer, editorInit, editorVersion, other);
  }

  /**
   * Offers the agent `offered` and, once, the other version when the agent asks for it (an error
   * -32022 with `supported`, or an answer in the other version). The agent's last answer.
   */
  private async askAgent(
    editorId: unknown,
    first: 1 | 2,
    shaped: (v: 1 | 2) => unknown,
  ): Promise<{ answer: JsonObject; offered: 1 | 2 }> {
    // the first attempt keeps the editor's id: a forwarded connection stays byte-for-byte the editor's
    const idFor = (): unknown =>
      this.initAttempt++ === 0 ? editorId : `acp-kit-bridge-initialize-${this.initAttempt}`;
    let offered = first;
    const answer = await this.ask(idFor(), shaped(offered));
    let next: 1 | 2 | undefined;
    if (answer.error !== undefined) {
      // an agent that cannot speak the offered version and says so (-32022 {supported})
      const supported = at(answer.error, 'data', 'supported');
      const alt = offered === 1 ? 2 : 1;
      if (
        at(answer.error, 'code') === ErrorCode.UnsupportedVersion &&
        Array.isArray(supported) &&
        supported.includes(alt)
      )
        next = alt;
    } else {
      const answered = at(answer.result, 'protocolVersion');
      // the agent picked the other version: ask again in that version's shape (initialize may be
      // repeated before any other request), so it reads the capabilities meant for it
      if ((answered === 1 || answered === 2) && answered !== offered) next = answered;
    }
    if (next === undefined) return { answer, offered };
    offered = next;
    return { answer: await this.ask(idFor(), shaped(offered)), offered };
  }

  /** Errors, the editor's own version and versions the bridge does not know pass through unchanged. */
  private passAnswer(req: JsonObject, answer: JsonObject): void {
    const answered = at(answer.result, 'protocolVersion');
    this.state = answer.error !== undefined ? { kind: 'init' } : { kind: 'forward' };
    this.toEditor({ ...answer, jsonrpc: '2.0', id: req.id });
    if (this.state.kind !== 'forward') return;
    if (typeof answered === 'number')
      this.options.recorder?.meta({ protocolVersion: answered, agentProtocolVersion: answered });
    this.log(`agent speaks ACP v${String(answered)}: forwarding unchanged`);
    this.resolveRoute({ kind: 'forward', version: typeof answered === 'number' ? answered : 0 });
    this.flushHeld();
  }

  /** The agent answered the other version: from now on every message goes through the translator. */
  private translate(
    req: JsonObject,
    answer: JsonObject,
    editorInit: InitializeRequest,
    editorVersion: 1 | 2,
    agentVersion: 1 | 2,
  ): void {
    const E = codecFor(editorVersion);
    const A = codecFor(agentVersion);
    let agentInit;
    try {
      agentInit = A.decodeResult(Methods.initialize, answer.result);
    } catch (e) {
      this.toEditor({
        jsonrpc: '2.0',
        id: req.id,
        error: {
          code: ErrorCode.InternalError,
          message: `the agent's initialize answer is not valid ACP v${agentVersion}: ${AcpError.from(e).message}`,
        },
      });
      return;
    }
    this.log(`editor speaks ACP v${editorVersion}, agent v${agentVersion}: translating`);
    const rec = this.rec;
    const editorRelay = new RelayTransport(this.editorT, rec ? (m) => rec.editor('agent->editor', m) : undefined);
    const agentRelay = new RelayTransport(
      this.agent.transport,
      rec ? (m) => rec.line('agent', 'editor->agent', messageToText(m)) : undefined,
    );
    const translator = new Translator(editorRelay, agentRelay, {
      editorCodec: E,
      agentCodec: A,
      editorCapabilities: editorInit.clientCapabilities ?? {},
      agentInit,
      fileSystem: this.options.fileSystem,
      log: this.log,
      editorTap: this.editorTap,
      agentTap: this.agentTap,
    });
    this.state = { kind: 'translate', editorRelay, agentRelay, translator };
    this.toEditor({ jsonrpc: '2.0', id: req.id, result: Translator.editorInitResult(E, agentInit) });
    this.options.recorder?.meta({ protocolVersion: editorVersion, agentProtocolVersion: agentVersion });
    this.resolveRoute({ kind: 'translate', editorVersion, agentVersion });
    if (this.editorClosed) editorRelay.end(this.editorClosed);
    if (this.agentClosed) agentRelay.end(this.agentClosed);
    this.flushHeld();
  }

  /** What either side sent while `initialize` was being negotiated, now on the chosen route. */
  private flushHeld(): void {
    const state = this.state;
    for (const m of this.heldFromAgent.splice(0)) {
      if (state.kind === 'translate') state.agentRelay.deliver(m);
      else this.toEditor(m);
    }
    for (const m of this.heldFromEditor.splice(0)) {
      if (state.kind === 'translate') state.editorRelay.deliver(m);
      else this.sendAgent(m);
    }
  }

  /** Settles when the agent has exited and everything it said reached the editor. */
  async finish(): Promise<ProxyResult> {
    const r = await this.agent.exited;
    // answers to what was pending (errors, since the agent is gone) reach the editor first
    await new Promise((res) => setImmediate(res));
    if (this.state.kind === 'translate') await this.state.translator.dispose();
    await this.editorT.flush();
    this.rec?.finish();
    this.editorT.close({ reason: 'the agent exited' });
    await this.agent.kill(); // leftovers of the group never outlive us
    if (r.exitCode === null && r.signal === null)
      return {
        exitCode: 1,
        agentExitCode: null,
        agentSignal: null,
        error: new Error(this.agentClosed?.reason ?? 'the agent could not be started'),
      };
    this.log(describeExit(r));
    this.options.recorder?.meta({ exitCode: r.exitCode, signal: r.signal });
    return proxyResult(r);
  }
}

type BridgeTap = PeerOptions['tap'] | undefined;

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
