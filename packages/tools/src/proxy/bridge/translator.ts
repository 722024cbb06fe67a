import {
  type UpdateDecoder,
  type UpdateEncoder,
  type WireCodec,
  AcpError,
  ErrorCode,
  type InitializeRequest,
  type InitializeResponse,
  type LoadSessionRequest,
  type ResultOf,
  type ResumeSessionRequest,
  type SessionSetupResult,
  Methods,
  ProxyMethods,
  type AnyContentBlock,
  type ClientCapabilities,
  type ConfigOption,
  type SelectConfigOption,
  type AnySessionUpdate,
  type ErrorObject,
  type StateUpdate,
} from '@acp-kit/protocol';
import { JsonRpcPeer, type PeerOptions, type RequestContext, type Transport } from '@acp-kit/protocol/rpc';
import type { FileSystemSandboxOptions } from '@acp-kit/client';
import { at, stringAt } from '@acp-kit/protocol/internal';
import { V1HostServices } from './v1-host-services.js';
import { hasModeOption, modeOptionFromV1, withCurrentMode } from './modes.js';

/** What the translator needs from the bridge. */
export interface TranslatorOptions {
  /** The editor's and the agent's codec (different versions). */
  editorCodec: WireCodec;
  agentCodec: WireCodec;
  /** What the editor advertised in its `initialize`. */
  editorCapabilities: ClientCapabilities;
  /** The agent's decoded `initialize` answer. */
  agentInit: InitializeResponse;
  /** Prompts a v2 editor may hold per session while a v1 turn runs (default 8). */
  maxHeldPrompts?: number;
  fileSystem?: FileSystemSandboxOptions;
  log(line: string): void;
  /** Taps for the two peers (tests attach schema validators here). */
  editorTap?: PeerOptions['tap'];
  agentTap?: PeerOptions['tap'];
}

/** A prompt a v2 editor sent while the session's v1 turn was running: inserted when it ends. */
interface HeldPrompt {
  prompt: AnyContentBlock[];
  resolve(result: unknown): void;
  reject(error: unknown): void;
  ctx: RequestContext;
}

/** One permission request of the agent, forwarded to the editor and not answered yet. */
interface PendingPermission {
  /** Withdraws it from the editor; the agent gets `cancelled`. */
  withdraw: AbortController;
}

/** What the bridge keeps per session. */
class BridgeSession {
  cwd: string | undefined;
  additionalDirectories: readonly string[] = [];
  decoder: UpdateDecoder;
  encoder: UpdateEncoder;
  /** Arrival number of the last update (v1 editor over v2 agent: which idle ends which prompt). */
  seq = 0;
  lastIdle: { seq: number; update: StateUpdate } | undefined;
  foreground = 'idle';
  readonly userSeen = new Map<string, number>();
  idleWaiters: Array<{ after: number; resolve(u: StateUpdate): void }> = [];
  /** v1 prompts of the editor still open (their echo is not shown: a v1 client shows its own prompt). */
  openPrompts = 0;
  /** v2 editor over v1 agent: the running v1 turn, the prompts held behind it. */
  turn: { messageId: string } | undefined;
  held: HeldPrompt[] = [];
  state: 'idle' | 'running' | 'requires_action' = 'idle';
  readonly permissions = new Set<PendingPermission>();
  /** Updates of a v1 `session/load` used only to resume (no replay asked): not shown. */
  suppressReplay = false;
  configOptions: ConfigOption[] | undefined;
  /** v2 editor, v1 agent: the config option standing for the agent's v1 modes (see modes.ts). */
  modeOption: SelectConfigOption | undefined;
  /** Update kinds the editor's codec dropped in this session (reported once each). */
  readonly droppedKinds = new Set<string>();

  constructor(
    readonly sessionId: string,
    editor: WireCodec,
    agent: WireCodec,
    editorCaps: ClientCapabilities,
  ) {
    this.decoder = agent.createUpdateDecoder();
    this.encoder = editor.createUpdateEncoder({ clientCapabilities: editorCaps });
  }
}

const DEFAULT_MAX_HELD = 8;

/**
 * The answer to a proxy-chain request (`proxy/initialize`, `proxy/successor`): the bridge is no
 * proxy component. A conductor sends `proxy/initialize` only to a program with a successor and
 * plain `initialize` to the chain's agent (Proxy Chains RFD, "Conductor behavior"), which is where
 * a bridge goes; refusing makes the chain's initialization fail at once (as the RFD has it for a
 * component that does not accept the proxy role) instead of waiting for an `initialize`.
 */
export function notAProxyComponent(method: string): AcpError {
  return new AcpError(
    ErrorCode.MethodNotFound,
    `Method not found: ${method} (the v1<->v2 bridge is no proxy component: put it last in a chain, as the agent: acp-kit conduct -- <component> -- acp-kit proxy --bridge <v> -- <agent>)`,
    { method },
  );
}

function isProxyChainMethod(method: string): boolean {
  return method === ProxyMethods.initialize || method === ProxyMethods.successor;
}

/**
 * Translates one initialized connection between an editor and an agent that speak different
 * ACP versions: every message is decoded with the codec of the side it came from into the
 * neutral model and encoded with the codec of the other side. What one version has and the other
 * lacks is emulated here: the v2 prompt lifecycle over a v1 turn (and back), `session/load` vs
 * `session/resume` + `replayFrom`, and the v1 client services a v2 editor no longer offers.
 */
export class Translator {
  readonly editor: JsonRpcPeer;
  readonly agent: JsonRpcPeer;
  private readonly E: WireCodec;
  private readonly A: WireCodec;
  private readonly sessions = new Map<string, BridgeSession>();
  private readonly services: V1HostServices | undefined;
  private userIds = 0;

  constructor(
    editorTransport: Transport,
    agentTransport: Transport,
    private readonly options: TranslatorOptions,
  ) {
    this.E = options.editorCodec;
    this.A = options.agentCodec;
    const problem = (side: string) => (p: { kind: string; message: string }) => {
      if (p.kind !== 'unknown-response') options.log(`${side}: ${p.kind}: ${p.message}`);
    };
    this.editor = new JsonRpcPeer(editorTransport, {
      tap: options.editorTap,
      onProblem: problem('editor'),
      relay: true,
    });
    this.agent = new JsonRpcPeer(agentTransport, {
      tap: options.agentTap,
      onProblem: problem('agent'),
      answerParseErrors: false,
      relay: true,
    });
    if (this.A.version === 1) this.services = new V1HostServices(this.A, (id) => this.rootsOf(id), options.fileSystem);

    this.editor.onOtherRequest((method, params, ctx) => this.fromEditor(method, params, ctx));
    this.editor.onOtherNotification((method, params) => this.editorNotification(method, params));
    this.agent.onNotification('session/update', (params) => this.agentUpdate(params));
    this.agent.onOtherNotification((method, params) => {
      if (method.startsWith('_')) this.editor.notify(method, params);
      else if (method === Methods.elicitationComplete || method === Methods.authStatusUpdate)
        this.relay(method, params);
      else options.log(`agent notification ${method} has no counterpart in ACP v${this.E.version}; dropped`);
    });
    this.agent.onOtherRequest((method, params, ctx) => this.fromAgent(method, params, ctx));
  }

  /** The agent's `initialize` answer in the editor's version. */
  static editorInitResult(E: WireCodec, agentInit: InitializeResponse): unknown {
    const caps = { ...agentInit.agentCapabilities, session: { ...agentInit.agentCapabilities.session } };
    if (E.version === 1) {
      // a v1 editor's session/load is served by v2 session/resume with replay
      caps.loadSession = !!caps.session?.resume || !!caps.loadSession;
    } else {
      // a v2 editor's session/resume (with replay) is served by v1 session/load or session/resume
      caps.session = { ...caps.session, resume: !!caps.session?.resume || !!caps.loadSession };
    }
    return E.encodeResult(Methods.initialize, { ...agentInit, protocolVersion: E.version, agentCapabilities: caps });
  }

  /** The editor's `initialize` params re-shaped for the agent's version. */
  static agentInitParams(A: WireCodec, editorInit: InitializeRequest): unknown {
    const { fs: _fs, terminal: _terminal, ...rest } = editorInit.clientCapabilities ?? {};
    // a v1 agent may use fs/* and terminal/*: the bridge serves them (sandboxed to the session's roots)
    const clientCapabilities: ClientCapabilities =
      A.version === 1 ? { ...rest, fs: { readTextFile: true, writeTextFile: true }, terminal: true } : rest;
    return A.encodeParams(Methods.initialize, { ...editorInit, protocolVersion: A.version, clientCapabilities });
  }

  /** Both sides are done: terminals the bridge ran for the agent are released. */
  async dispose(): Promise<void> {
    await this.services?.releaseAll();
  }

  // ---- editor -> agent ------------------------------------------------------------------------

  private fromEditor(method: string, params: unknown, ctx: RequestContext): unknown {
    if (method.startsWith('_')) return this.agent.request(method, params, { signal: ctx.signal });
    if (method === Methods.initialize) return this.reinitialize(params, ctx);
    if (isProxyChainMethod(method)) throw notAProxyComponent(method);
    const m = this.E.neutralMethod(method);
    switch (m) {
      case Methods.sessionPrompt:
        return this.A.version === 1 ? this.promptOverV1(params, ctx) : this.promptOverV2(params, ctx);
      case Methods.sessionNew:
        return this.newSession(params, ctx);
      case Methods.sessionLoad:
        return this.loadOverV2(params, ctx);
      case Methods.sessionResume:
        return this.resume(params, ctx);
      case Methods.sessionSetMode:
        return this.setModeOverV2(params, ctx);
      case Methods.sessionClose:
      case Methods.sessionDelete:
      case Methods.sessionArchive:
        // archiving closes the session on the agent (as session/close would)
        return this.closing(m, params, ctx);
      case Methods.sessionFork:
        return this.fork(params, ctx);
      default:
        return this.forward(m, method, params, ctx);
    }
  }

  /** A request both versions have: decoded, re-encoded, answered back the same way. */
  private async forward(m: string, wireMethod: string, params: unknown, ctx: RequestContext): Promise<unknown> {
    const agentWire = this.A.wireMethod(m);
    if (agentWire === undefined || m.includes(':')) {
      throw new AcpError(
        ErrorCode.MethodNotFound,
        `Method not found: ${wireMethod} (the agent speaks ACP v${this.A.version}, which has no counterpart)`,
        { method: wireMethod },
      );
    }
    if (m === Methods.sessionSetConfigOption) {
      // typed through the method table: the answer's options are kept (v1 set_mode emulation)
      const p = this.E.decodeParams(m, params);
      const emulated = this.sessions.get(p.sessionId)?.modeOption;
      if (emulated && emulated.configId === p.configId) return this.setModeOverV1(p.sessionId, p.value, ctx);
      const res = this.A.decodeResult(
        m,
        await this.agent.request(agentWire, this.A.encodeParams(m, p), { signal: ctx.signal }),
      );
      const s = this.sessions.get(p.sessionId);
      if (s && Array.isArray(res.configOptions)) s.configOptions = res.configOptions;
      return this.E.encodeResult(m, res);
    }
    const neutral = this.E.decodeParams(m, params);
    const result = await this.agent.request(agentWire, this.A.encodeParams(m, neutral), { signal: ctx.signal });
    return this.E.encodeResult(m, this.A.decodeResult(m, result));
  }

  private async reinitialize(params: unknown, ctx: RequestContext): Promise<unknown> {
    const req = this.E.decodeParams(Methods.initialize, params);
    const res = await this.agent.request(Methods.initialize, Translator.agentInitParams(this.A, req), {
      signal: ctx.signal,
    });
    return Translator.editorInitResult(this.E, this.A.decodeResult(Methods.initialize, res));
  }

  private async newSession(params: unknown, ctx: RequestContext): Promise<unknown> {
    const p = this.E.decodeParams(Methods.sessionNew, params);
    const raw = await this.agent.request(Methods.sessionNew, this.A.encodeParams(Methods.sessionNew, p), {
      signal: ctx.signal,
    });
    const res = this.A.decodeResult(Methods.sessionNew, raw);
    const s = this.session(res.sessionId);
    s.cwd = p.cwd;
    s.additionalDirectories = p.additionalDirectories ?? [];
    return this.setupAnswer(s, Methods.sessionNew, res, false);
  }

  /**
   * Unstable `session/fork` (same shape in both versions): the copy is a new session of this
   * connection, its setup result answered like `session/new`'s.
   */
  private async fork(params: unknown, ctx: RequestContext): Promise<unknown> {
    const p = this.E.decodeParams(Methods.sessionFork, params);
    const wire = this.A.wireMethod(Methods.sessionFork) ?? Methods.sessionFork;
    const raw = await this.agent.request(wire, this.A.encodeParams(Methods.sessionFork, p), { signal: ctx.signal });
    const res = this.A.decodeResult(Methods.sessionFork, raw);
    const s = this.freshSession(res.sessionId, p.cwd, p.additionalDirectories);
    return this.setupAnswer(s, Methods.sessionFork, res, false);
  }

  /**
   * A setup result in the editor's version. v1 results cannot carry commands: they go out as an
   * `available_commands_update` (before the response of a restore, right after a new session's).
   */
  private setupAnswer<M extends 'session/new' | 'session/load' | 'session/resume' | 'session/fork'>(
    s: BridgeSession,
    m: M,
    answer: ResultOf<M>,
    restored: boolean,
  ): unknown {
    const res = this.withModeOption(s, answer);
    if (Array.isArray(res.configOptions)) s.configOptions = res.configOptions;
    s.encoder = this.E.createUpdateEncoder({
      clientCapabilities: this.options.editorCapabilities,
      configOptions: s.configOptions,
    });
    if (this.E.version === 1 && res.availableCommands) {
      const u: AnySessionUpdate = {
        sessionUpdate: 'available_commands_update',
        availableCommands: res.availableCommands,
      };
      if (restored) this.toEditor(s, u);
      else setImmediate(() => this.toEditor(s, u));
    }
    return this.E.encodeResult(m, res);
  }

  /** v2 editor, v1 agent: the agent's v1 `modes` offered as a `category: "mode"` option (modes.ts). */
  private withModeOption<R extends SessionSetupResult>(s: BridgeSession, res: R): R {
    s.modeOption = undefined;
    // no modes to choose from: a select needs at least one option (v2 schema), nothing is offered
    if (
      this.E.version !== 2 ||
      this.A.version !== 1 ||
      !res.modes?.availableModes.length ||
      hasModeOption(res.configOptions ?? undefined)
    )
      return res;
    const own = res.configOptions ?? [];
    s.modeOption = modeOptionFromV1(res.modes, own);
    return { ...res, configOptions: [...own, s.modeOption] };
  }

  /** v2 editor, v1 agent: setting the emulated mode option is v1 `session/set_mode`. */
  private async setModeOverV1(sessionId: string, value: string | boolean, ctx: RequestContext): Promise<unknown> {
    const s = this.sessions.get(sessionId);
    const option = s?.modeOption;
    if (!s || !option)
      throw AcpError.invalidParams(`params.configId: session ${sessionId} has no mode option`, {
        path: 'params.configId',
      });
    if (typeof value !== 'string')
      throw AcpError.invalidParams(
        `params.value: expected a mode id (string) for config option "${option.configId}", got ${JSON.stringify(value)}`,
        { path: 'params.value' },
      );
    await this.agent.request(
      Methods.sessionSetMode,
      this.A.encodeParams(Methods.sessionSetMode, { sessionId, modeId: value }),
      { signal: ctx.signal },
    );
    s.modeOption = { ...option, currentValue: value };
    s.configOptions = withCurrentMode(s.configOptions ?? [s.modeOption], option.configId, value);
    return this.E.encodeResult(Methods.sessionSetConfigOption, { configOptions: s.configOptions });
  }

  /** v1 editor, v2 agent: `session/load` = `session/resume` with a replay from the start. */
  private async loadOverV2(params: unknown, ctx: RequestContext): Promise<unknown> {
    const p = this.E.decodeParams(Methods.sessionLoad, params);
    const s = this.freshSession(p.sessionId, p.cwd, p.additionalDirectories);
    const resume: ResumeSessionRequest = {
      sessionId: p.sessionId,
      cwd: p.cwd,
      mcpServers: p.mcpServers,
      replayFrom: { type: 'start' },
    };
    if (p.additionalDirectories) resume.additionalDirectories = p.additionalDirectories;
    if (p._meta) resume._meta = p._meta;
    const raw = await this.agent.request(Methods.sessionResume, this.A.encodeParams(Methods.sessionResume, resume), {
      signal: ctx.signal,
    });
    return this.setupAnswer(s, Methods.sessionLoad, this.A.decodeResult(Methods.sessionResume, raw), true);
  }

  /**
   * `session/resume`. v2 editor, v1 agent: with `replayFrom` it is served by v1 `session/load`
   * (the only v1 replay), then a `state_update` snapshot precedes the response as a v2 agent's
   * would; without, by v1 `session/resume`, or by a `session/load` whose replay is not shown.
   */
  private async resume(params: unknown, ctx: RequestContext): Promise<unknown> {
    const p = this.E.decodeParams(Methods.sessionResume, params);
    if (this.A.version === 2) {
      const s = this.freshSession(p.sessionId, p.cwd, p.additionalDirectories);
      const raw = await this.agent.request(Methods.sessionResume, this.A.encodeParams(Methods.sessionResume, p), {
        signal: ctx.signal,
      });
      return this.setupAnswer(s, Methods.sessionResume, this.A.decodeResult(Methods.sessionResume, raw), true);
    }
    const caps = this.options.agentInit.agentCapabilities;
    const canLoad = !!caps.loadSession;
    const canResume = !!caps.session?.resume;
    const replay = p.replayFrom != null;
    if (!canLoad && !canResume)
      throw new AcpError(
        ErrorCode.MethodNotFound,
        'Method not found: session/resume (the v1 agent advertises neither loadSession nor sessionCapabilities.resume)',
      );
    const known = this.sessions.get(p.sessionId);
    const s = known?.turn ? known : this.freshSession(p.sessionId, p.cwd, p.additionalDirectories);
    let res: SessionSetupResult;
    if (canLoad && (replay || !canResume)) {
      const load: LoadSessionRequest = { sessionId: p.sessionId, cwd: p.cwd, mcpServers: p.mcpServers ?? [] };
      if (p.additionalDirectories) load.additionalDirectories = p.additionalDirectories;
      if (p._meta) load._meta = p._meta;
      s.suppressReplay = !replay;
      try {
        res = this.A.decodeResult(
          Methods.sessionLoad,
          await this.agent.request(Methods.sessionLoad, this.A.encodeParams(Methods.sessionLoad, load), {
            signal: ctx.signal,
          }),
        );
      } finally {
        s.suppressReplay = false;
      }
    } else {
      const { replayFrom: _r, ...rest } = p;
      res = this.A.decodeResult(
        Methods.sessionResume,
        await this.agent.request(Methods.sessionResume, this.A.encodeParams(Methods.sessionResume, rest), {
          signal: ctx.signal,
        }),
      );
    }
    s.cwd = p.cwd;
    s.additionalDirectories = p.additionalDirectories ?? [];
    // the v2 resume snapshot: the foreground state as the bridge knows it (ACP-V2-RESUME-03)
    this.toEditor(s, { sessionUpdate: 'state_update', state: s.turn ? s.state : 'idle' });
    return this.setupAnswer(s, Methods.sessionResume, res, true);
  }

  /** v1 editor, v2 agent: `session/set_mode` = setting the `category: "mode"` config option. */
  private async setModeOverV2(params: unknown, ctx: RequestContext): Promise<unknown> {
    if (this.A.version === 1) return this.forward(Methods.sessionSetMode, 'session/set_mode', params, ctx);
    const p = this.E.decodeParams(Methods.sessionSetMode, params);
    const option = this.sessions.get(p.sessionId)?.configOptions?.find((o) => o.category === 'mode');
    if (!option)
      throw AcpError.invalidParams(
        `params.modeId: the agent (ACP v2) offers no config option with category "mode" for session ${p.sessionId}`,
        { path: 'params.modeId' },
      );
    const raw = await this.agent.request(
      Methods.sessionSetConfigOption,
      this.A.encodeParams(Methods.sessionSetConfigOption, {
        sessionId: p.sessionId,
        configId: option.configId,
        value: p.modeId,
      }),
      { signal: ctx.signal },
    );
    const res = this.A.decodeResult(Methods.sessionSetConfigOption, raw);
    const s = this.sessions.get(p.sessionId);
    if (s && Array.isArray(res.configOptions)) {
      s.configOptions = res.configOptions;
      this.toEditor(s, { sessionUpdate: 'current_mode_update', currentModeId: p.modeId });
    }
    return this.E.encodeResult(Methods.sessionSetMode, {});
  }

  private async closing(
    m: 'session/close' | 'session/delete' | 'session/archive',
    params: unknown,
    ctx: RequestContext,
  ): Promise<unknown> {
    const id = this.E.decodeParams(m, params).sessionId;
    const s = this.sessions.get(id);
    if (s) this.withdrawHeld(s, 'the session was closed');
    try {
      return await this.forward(m, m, params, ctx);
    } finally {
      if (s) {
        this.sessions.delete(id);
        void this.services?.releaseSession(id);
      }
    }
  }

  private editorNotification(method: string, params: unknown): void {
    if (method.startsWith('_')) {
      this.agent.notify(method, params);
      return;
    }
    const m = this.E.neutralMethod(method);
    if (m === Methods.sessionCancel) {
      let sessionId: string;
      try {
        sessionId = this.E.decodeParams(Methods.sessionCancel, params).sessionId;
      } catch (e) {
        this.options.log(`ignored malformed session/cancel: ${AcpError.from(e).message}`);
        return;
      }
      this.agent.notify(Methods.sessionCancel, this.A.encodeParams(Methods.sessionCancel, { sessionId }));
      const s = this.sessions.get(sessionId);
      if (s && this.E.version === 2) {
        // v2 editor, v1 agent: the v1 client's duties on cancel are the bridge's (ACP-V1-CANCEL-03):
        // held prompts end -32800, pending permission requests are answered `cancelled` to the
        // agent and withdrawn from the editor
        this.withdrawHeld(s, 'session/cancel');
        for (const p of [...s.permissions]) p.withdraw.abort();
      }
      return;
    }
    const wire = this.A.wireMethod(m);
    if (wire === undefined) {
      this.options.log(`editor notification ${method} has no counterpart in ACP v${this.A.version}; dropped`);
      return;
    }
    try {
      this.agent.notify(wire, this.A.encodeParams(m, this.E.decodeParams(m, params)));
    } catch (e) {
      this.options.log(`ignored malformed ${method}: ${AcpError.from(e).message}`);
    }
  }

  // ---- prompts: v2 editor over a v1 agent -----------------------------------------------------

  /**
   * The v2 lifecycle over a v1 turn: acknowledged with a `messageId` at insertion (at once, or
   * when the running turn ends for a held prompt), then the `user_message` echo and `running`;
   * `requires_action` while a permission request is pending; `idle` with the v1 stop reason (or
   * `error` with the v1 error) when the v1 prompt is answered.
   */
  private promptOverV1(params: unknown, ctx: RequestContext): unknown {
    const p = this.E.decodeParams(Methods.sessionPrompt, params);
    const s = this.sessions.get(p.sessionId);
    if (!s) throw AcpError.sessionNotFound(p.sessionId);
    if (!Array.isArray(p.prompt) || p.prompt.length === 0)
      throw AcpError.invalidParams('params.prompt: must contain at least one content block (ACP-V2-LIFE-14)', {
        path: 'params.prompt',
      });
    if (!s.turn) {
      const messageId = this.insertV1Turn(s, p.prompt);
      return this.E.encodeResult(Methods.sessionPrompt, { messageId });
    }
    const max = this.options.maxHeldPrompts ?? DEFAULT_MAX_HELD;
    if (s.held.length >= max)
      throw AcpError.invalidRequest(
        `session ${p.sessionId} already holds ${max} prompts behind the running turn; wait for it to end`,
      );
    return new Promise<unknown>((resolve, reject) => {
      const held: HeldPrompt = { prompt: p.prompt, resolve, reject, ctx };
      s.held.push(held);
      ctx.signal.addEventListener(
        'abort',
        () => {
          const i = s.held.indexOf(held);
          if (i >= 0) {
            s.held.splice(i, 1);
            reject(AcpError.cancelled('the held prompt was withdrawn ($/cancel_request) before it was inserted'));
          }
        },
        { once: true },
      );
    });
  }

  /** Starts the v1 turn of an inserted prompt; its echo and `running` follow the v2 response. */
  private insertV1Turn(s: BridgeSession, prompt: AnyContentBlock[]): string {
    const messageId = `bridge-user-${++this.userIds}`;
    s.turn = { messageId };
    // after the response to the v2 prompt has been written (it is written when this handler returns)
    setImmediate(() => {
      if (s.turn?.messageId !== messageId) return;
      this.toEditor(s, { sessionUpdate: 'user_message', messageId, content: prompt });
      this.setState(s, 'running');
      s.decoder.startTurn?.();
      const end = (out: { stopReason: string | null; error?: ErrorObject }): void => this.endV1Turn(s, messageId, out);
      this.agent
        .request(
          Methods.sessionPrompt,
          this.A.encodeParams(Methods.sessionPrompt, { sessionId: s.sessionId, prompt }),
          {
            // applied when the answer is read, in wire order: every update of the turn precedes idle
            onAnswer: (a) => {
              if ('error' in a) end({ stopReason: 'error', error: a.error.toJSON() });
              else {
                try {
                  end({ stopReason: this.A.decodeResult(Methods.sessionPrompt, a.result).stopReason ?? 'end_turn' });
                } catch (e) {
                  end({ stopReason: 'error', error: AcpError.from(e).toJSON() });
                }
              }
            },
          },
        )
        .catch((e: unknown) => {
          // no answer at all: the agent is gone; the editor learns it from the connection ending
          this.options.log(`session/prompt of ${s.sessionId} got no answer: ${AcpError.from(e).message}`);
        });
    });
    return messageId;
  }

  private endV1Turn(
    s: BridgeSession,
    messageId: string,
    out: { stopReason: string | null; error?: ErrorObject },
  ): void {
    if (s.turn?.messageId !== messageId) return;
    s.turn = undefined;
    for (const p of [...s.permissions]) p.withdraw.abort(); // nothing of a turn outlives it
    const idle: StateUpdate = { sessionUpdate: 'state_update', state: 'idle', stopReason: out.stopReason };
    if (out.error) idle.error = out.error;
    s.state = 'idle';
    this.toEditor(s, idle);
    const next = s.held.shift();
    if (next) {
      const id = this.insertV1Turn(s, next.prompt);
      next.resolve(this.E.encodeResult(Methods.sessionPrompt, { messageId: id }));
    }
  }

  private setState(s: BridgeSession, state: 'running' | 'requires_action'): void {
    if (s.state === state) return;
    s.state = state;
    this.toEditor(s, { sessionUpdate: 'state_update', state });
  }

  private withdrawHeld(s: BridgeSession, why: string): void {
    for (const h of s.held.splice(0))
      h.reject(AcpError.cancelled(`the held prompt was withdrawn by ${why} before it was inserted`));
  }

  // ---- prompts: v1 editor over a v2 agent -----------------------------------------------------

  /**
   * The v1 prompt stays open for the whole v2 turn: answered at the first `idle` after the
   * message was inserted, with its stop reason (`error` becomes the JSON-RPC error that carries the
   * agent's error). A held prompt the agent cancels (-32800) ends `cancelled`, as v1 requires.
   */
  private async promptOverV2(params: unknown, ctx: RequestContext): Promise<unknown> {
    const p = this.E.decodeParams(Methods.sessionPrompt, params);
    const s = this.session(p.sessionId);
    s.openPrompts++;
    const sentAt = s.seq;
    let insertedAt = -1;
    let messageId: string | undefined;
    const inserted = new AbortController();
    // a $/cancel_request for the open v1 prompt cancels its turn (held: withdraws the v2 prompt)
    const onAbort = (): void => {
      if (insertedAt >= 0)
        this.agent.notify(
          Methods.sessionCancel,
          this.A.encodeParams(Methods.sessionCancel, { sessionId: p.sessionId }),
        );
      else inserted.abort();
    };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    try {
      try {
        await this.agent.request(Methods.sessionPrompt, this.A.encodeParams(Methods.sessionPrompt, p), {
          signal: inserted.signal,
          onAnswer: (a) => {
            if ('error' in a) return;
            insertedAt = s.seq;
            messageId = stringAt(a.result, 'messageId') ?? messageId;
          },
        });
      } catch (e) {
        if (e instanceof AcpError && e.code === ErrorCode.RequestCancelled)
          return this.E.encodeResult(Methods.sessionPrompt, { stopReason: 'cancelled' });
        throw e;
      }
      let done: StateUpdate | undefined;
      const idle = s.lastIdle;
      if (idle && s.foreground === 'idle' && idle.seq > sentAt) {
        // the whole turn may have been read before the response (cf. the client's v2 lifecycle)
        const seen = messageId !== undefined ? s.userSeen.get(messageId) : undefined;
        if (seen !== undefined && idle.seq > seen) done = idle.update;
      }
      done ??= await new Promise<StateUpdate>((resolve) =>
        s.idleWaiters.push({ after: Math.max(insertedAt, sentAt), resolve }),
      );
      const stopReason = done.stopReason ?? 'end_turn';
      if (stopReason === 'error') {
        const cause = done.error;
        throw new AcpError(
          cause?.code ?? ErrorCode.InternalError,
          `the agent's turn ended with an error: ${cause?.message ?? 'no error object given'}`,
          cause?.data,
        );
      }
      return this.E.encodeResult(Methods.sessionPrompt, { stopReason });
    } finally {
      s.openPrompts--;
      ctx.signal.removeEventListener('abort', onAbort);
    }
  }

  // ---- agent -> editor ------------------------------------------------------------------------

  private async fromAgent(method: string, params: unknown, ctx: RequestContext): Promise<unknown> {
    if (method.startsWith('_')) return this.editor.request(method, params, { signal: ctx.signal });
    // a conductor behind the bridge speaks plain ACP to it (its proxy-chain frames stay inside the chain)
    if (isProxyChainMethod(method)) throw notAProxyComponent(method);
    const m = this.A.neutralMethod(method);
    if (m === Methods.requestPermission) return this.permission(params, ctx);
    if (m === Methods.elicitationCreate && this.A.wireMethod(m) === method) return this.elicitation(params, ctx);
    if (this.services && V1HostServices.serves(m) && this.A.wireMethod(m) === method)
      return this.services.handle(m, params, ctx);
    const wire = this.E.wireMethod(m);
    if (wire === undefined || m.includes(':')) throw AcpError.methodNotFound(method);
    const res = await this.editor.request(wire, this.E.encodeParams(m, this.A.decodeParams(m, params)), {
      signal: ctx.signal,
    });
    return this.A.encodeResult(m, this.E.decodeResult(m, res));
  }

  /**
   * A permission request, forwarded. Withdrawn from the editor (`$/cancel_request`) and answered
   * `cancelled` to the agent when the editor cancels a v1 agent's turn, the turn ends, or the
   * agent withdraws it.
   */
  private permission(params: unknown, ctx: RequestContext): Promise<unknown> {
    const req = this.A.decodeParams(Methods.requestPermission, params);
    return this.askEditor(
      this.session(req.sessionId),
      ctx,
      async (signal) => {
        const m = Methods.requestPermission;
        const wire = await this.editor.request(m, this.E.encodeParams(m, req), { signal });
        return this.A.encodeResult(m, this.E.decodeResult(m, wire));
      },
      () => this.A.encodeResult(Methods.requestPermission, { outcome: { outcome: 'cancelled' } }),
    );
  }

  /**
   * An elicitation, forwarded both ways (the codecs adjust what one version cannot carry). A
   * session-scoped one is withdrawn like a permission request (answered `cancel`) when a v2
   * editor cancels a v1 agent's turn. A v1 agent's unscoped elicitation (v1 allows naming no
   * session and no request) cannot be put to a v2 editor, which requires a scope: the v2 codec
   * refuses it and the agent gets -32602 (docs/bridge.md).
   */
  private elicitation(params: unknown, ctx: RequestContext): Promise<unknown> {
    const m = Methods.elicitationCreate;
    const req = this.A.decodeParams(m, params);
    const forward = async (signal: AbortSignal): Promise<unknown> => {
      const wire = await this.editor.request(m, this.E.encodeParams(m, req), { signal });
      return this.A.encodeResult(m, this.E.decodeResult(m, wire));
    };
    const s = req.sessionId !== undefined ? this.sessions.get(req.sessionId) : undefined;
    if (!s) return forward(ctx.signal);
    return this.askEditor(s, ctx, forward, () => this.A.encodeResult(m, { action: 'cancel' }));
  }

  /**
   * An agent notification the same in both versions, checked on the way: `elicitation/complete`
   * (ACP-ALL-ELIC-09) and the unstable `auth/status_update`.
   */
  private relay(m: 'elicitation/complete' | 'auth/status_update', params: unknown): void {
    try {
      this.editor.notify(m, this.E.encodeParams(m, this.A.decodeParams(m, params)));
    } catch (e) {
      this.options.log(`ignored malformed ${m}: ${AcpError.from(e).message}`);
    }
  }

  /** A question of the agent to the editor's user, pending on its session while it is asked. */
  private async askEditor(
    s: BridgeSession,
    ctx: RequestContext,
    ask: (signal: AbortSignal) => Promise<unknown>,
    cancelled: () => unknown,
  ): Promise<unknown> {
    const pending: PendingPermission = { withdraw: new AbortController() };
    s.permissions.add(pending);
    if (this.E.version === 2 && s.turn) this.setState(s, 'requires_action');
    try {
      return await ask(AbortSignal.any([ctx.signal, pending.withdraw.signal]));
    } catch (e) {
      if (e instanceof AcpError && e.code === ErrorCode.RequestCancelled) return cancelled();
      throw e;
    } finally {
      s.permissions.delete(pending);
      if (this.E.version === 2 && s.turn && s.permissions.size === 0) this.setState(s, 'running');
    }
  }

  private agentUpdate(params: unknown): void {
    let p: unknown;
    try {
      p = this.A.decodeParams(Methods.sessionUpdate, params);
    } catch (e) {
      this.options.log(`dropped an invalid session/update from the agent: ${AcpError.from(e).message}`);
      return;
    }
    // the codec checked the envelope (sessionId string, update object); read it without trusting that
    const sessionId = stringAt(p, 'sessionId');
    if (sessionId === undefined) {
      this.options.log('dropped an invalid session/update from the agent: params.sessionId: must be string');
      return;
    }
    const s = this.session(sessionId);
    let updates: AnySessionUpdate[];
    try {
      updates = s.decoder.decode(at(p, 'update'));
    } catch (e) {
      this.options.log(`dropped an invalid session/update from the agent: ${AcpError.from(e).message}`);
      return;
    }
    for (const update of updates) {
      const u = s.modeOption ? this.observeModes(s, update) : update;
      if (this.E.version === 1 && !this.observeV2(s, u)) continue;
      if (s.suppressReplay) continue;
      this.toEditor(s, u);
    }
  }

  /**
   * v1 editor over a v2 agent: follows the foreground state (which idle ends which prompt).
   * Returns whether the update is shown to the v1 editor: the echo of its own prompt is not
   * (a v1 client shows its prompt itself), nor state updates (the codec drops them anyway).
   */
  private observeV2(s: BridgeSession, u: AnySessionUpdate): boolean {
    const seq = ++s.seq;
    if (u.sessionUpdate === 'user_message' || u.sessionUpdate === 'user_message_chunk') {
      const id = u.messageId;
      if (typeof id === 'string' && !s.userSeen.has(id)) s.userSeen.set(id, seq);
      return s.openPrompts === 0;
    }
    if (u.sessionUpdate === 'state_update') {
      const su = u;
      s.foreground = su.state;
      if (su.state === 'idle') {
        s.lastIdle = { seq, update: su };
        const ready = s.idleWaiters.filter((w) => w.after < seq);
        s.idleWaiters = s.idleWaiters.filter((w) => w.after >= seq);
        for (const w of ready) w.resolve(su);
      }
      return false;
    }
    if (u.sessionUpdate === 'config_option_update') s.configOptions = u.configOptions;
    return true;
  }

  /**
   * v2 editor, v1 agent with emulated modes: a v1 mode change moves the option's value (the v2
   * encoder turns it into a `config_option_update`); the agent's own new option list keeps the
   * emulated option at its end.
   */
  private observeModes(s: BridgeSession, u: AnySessionUpdate): AnySessionUpdate {
    const option = s.modeOption;
    if (!option) return u;
    if (u.sessionUpdate === 'current_mode_update') {
      s.modeOption = { ...option, currentValue: u.currentModeId };
      s.configOptions = withCurrentMode(s.configOptions ?? [s.modeOption], option.configId, u.currentModeId);
      return u;
    }
    if (u.sessionUpdate === 'config_option_update' && !hasModeOption(u.configOptions)) {
      s.configOptions = [...u.configOptions, option];
      return { ...u, configOptions: s.configOptions };
    }
    return u;
  }

  /** Encodes one neutral update for the editor and sends it. */
  private toEditor(s: BridgeSession, u: AnySessionUpdate): void {
    const update = this.E.version === 1 ? withoutDisplayTerminals(u) : u;
    if (!update) {
      this.reportDrop(s, u.sessionUpdate);
      return;
    }
    let wires: object[];
    try {
      wires = s.encoder.encode(update);
    } catch (e) {
      this.options.log(
        `dropped a ${u.sessionUpdate} update the editor's ACP v${this.E.version} cannot carry: ${AcpError.from(e).message}`,
      );
      return;
    }
    if (wires.length === 0) this.reportDrop(s, u.sessionUpdate);
    for (const w of wires) this.editor.notify(Methods.sessionUpdate, { sessionId: s.sessionId, update: w });
  }

  /**
   * An update the editor's codec had no form for (e.g. a v1 mode change before the v2 editor knows
   * the mode option, a v2 display terminal for a v1 editor) is dropped, and said so: once per
   * session and kind, as terminal output may arrive in thousands of chunks.
   */
  private reportDrop(s: BridgeSession, kind: string): void {
    if (s.droppedKinds.has(kind)) return;
    s.droppedKinds.add(kind);
    this.options.log(
      `dropped a ${kind} update of session ${s.sessionId}: ACP v${this.E.version} has no form for it here (codec README, "What a version cannot express"); further ones of this kind are not logged`,
    );
  }

  // ---- sessions -------------------------------------------------------------------------------

  private session(id: string): BridgeSession {
    let s = this.sessions.get(id);
    if (!s) {
      s = new BridgeSession(id, this.E, this.A, this.options.editorCapabilities);
      this.sessions.set(id, s);
    }
    return s;
  }

  /** A restored session starts with fresh codec state (the replay rebuilds it). */
  private freshSession(id: string, cwd: string, dirs: readonly string[] | undefined): BridgeSession {
    const old = this.sessions.get(id);
    if (old) this.withdrawHeld(old, 'a restore of the session');
    const s = new BridgeSession(id, this.E, this.A, this.options.editorCapabilities);
    s.cwd = cwd;
    s.additionalDirectories = dirs ?? [];
    this.sessions.set(id, s);
    return s;
  }

  private rootsOf(id: string): { cwd: string; additionalDirectories: readonly string[] } | undefined {
    const s = this.sessions.get(id);
    return s?.cwd ? { cwd: s.cwd, additionalDirectories: s.additionalDirectories } : undefined;
  }
}

/**
 * v2 display terminals do not exist for a v1 client (its terminals are the ones it runs itself),
 * so tool-call content referring to them is left out (cf. the codec README: bridges must not
 * feed v2 display-terminal references into a v1 encoder).
 */
function withoutDisplayTerminals(u: AnySessionUpdate): AnySessionUpdate | undefined {
  if (u.sessionUpdate === 'tool_call_update' && Array.isArray(u.content) && u.content.some(isTerminalContent)) {
    return { ...u, content: u.content.filter((c) => !isTerminalContent(c)) };
  }
  if (u.sessionUpdate === 'tool_call_content_chunk' && isTerminalContent(u.content)) return undefined;
  return u;
}

function isTerminalContent(c: unknown): boolean {
  return at(c, 'type') === 'terminal';
}
