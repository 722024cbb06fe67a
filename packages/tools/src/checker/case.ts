import { at, isObj, type JsonObject } from '@acp-kit/protocol/internal';
import { AgentDriver, type WireAnswer, type WireMessage } from './driver.js';
import type { InProcessAgent, InProcessLaunch, LaunchSpec } from './launch.js';
import type { SharedAgent, SharedMark } from './shared-agent.js';
import { answering } from './wire.js';

/** The agent command the checker starts (what `acp-kit check` runs): see {@link CheckSettings.processPerCase}. */
export interface AgentCommandSettings {
  /** The agent command and its arguments. */
  command: string;
  args: readonly string[];
  /** Working directory of the agent process (default: this process's). */
  processCwd?: string;
  /** Extra environment for the agent. */
  env: Readonly<Record<string, string>>;
}

/**
 * An agent the checker starts inside this process instead, an instance wherever it would start
 * a process (library use: checking an agent without paying for processes); cases share instances
 * as they share processes. The bytes it writes are judged exactly as a process's stdout; "exiting"
 * is ending its connection.
 */
export interface InProcessAgentSettings {
  inProcess: InProcessAgent;
}

/** The prompt of the checker's turns unless told otherwise: the built-in demo agent asks to run a command, any agent does some work. */
export const DEFAULT_CHECK_PROMPT = 'run sleep 3';

/** The prompt of the cases that only need a finished turn: any agent answers it quickly. */
export const SHORT_CHECK_PROMPT = 'hello';

/** What every case needs to know about the run. */
export type CheckSettings = (AgentCommandSettings | InProcessAgentSettings) & {
  /** Working directory of the sessions the checker opens (absolute). */
  cwd: string;
  /** How long any single answer may take, in milliseconds. */
  timeoutMs: number;
  /** The prompt of the general turn cases (the user's `--prompt`); the cancel case's too unless {@link cancelPrompt} is set. */
  prompt: string;
  /**
   * The prompt of the cancel case: it must keep the agent busy until the cancel arrives. Only this
   * case needs a long turn; default {@link prompt}.
   */
  cancelPrompt?: string;
  /**
   * The prompt of the cases that only need a turn that ends (load and resume need a conversation
   * to replay): short, so that a slow general prompt does not make them time out. Default
   * {@link SHORT_CHECK_PROMPT}.
   */
  shortPrompt?: string;
  /** An auth method id to log in with after initialize (v1 `authenticate`, v2 `auth/login`). */
  auth?: string;
  /**
   * Advertise form elicitation and decline every question (`--elicitation`); without it the
   * checker advertises none and an elicitation breaks ACP-ALL-CAP-01.
   */
  elicitation?: boolean;
  /** Version of acp-kit, sent as the client's info. */
  clientVersion: string;
  /**
   * A fresh agent process (or in-process instance) for every case, as before shared processes
   * (`--process-per-case`). By default the cases that may share one run one after another in one
   * process per concurrency lane and protocol version, initialized once: fewer processes, and
   * closer to an editor, which runs many sessions in one agent. A shared process is replaced after
   * a case that failed, errored or left work open, and when it exits; the cases about the process
   * itself (initialize, the transport, exit, login state, extra processes) always get their own.
   */
  processPerCase?: boolean;
};

/** One judgement of one requirement by one case. */
export interface Check {
  id: string;
  ok: boolean;
  /** For a failure: what went wrong; for a pass: optionally what was seen. */
  message?: string;
  /** Transcript lines showing it (`-> ` sent to the agent, `<- ` received). */
  excerpt?: string[];
}

/** Signals that a case does not apply to this agent (a capability it does not advertise). */
export class NotApplicable extends Error {}

/** What a case declares about itself (agent and client cases alike), for planning and reporting. */
export interface CaseInfo {
  /** Stable name, e.g. `prompt-v1/turn`. */
  name: string;
  /** What it does, in a few words. */
  title: string;
  /** The requirement IDs it judges (besides the wire checks every case makes). */
  ids: readonly string[];
  /** Protocol versions the case runs under. */
  protocols: ReadonlyArray<1 | 2>;
}

/** A case that runs with context `Ctx`. */
export interface CaseOf<Ctx> extends CaseInfo {
  run(ctx: Ctx): Promise<void>;
}

/**
 * A conformance case: one scenario, run in an agent process (or in-process instance) that it may
 * share with the cases before and after it, or in one of its own.
 */
export interface CheckCase extends CaseOf<CaseContext> {
  /**
   * The case needs a fresh agent process of its own: it is about initialize itself, the transport,
   * the process's exit or login state, starts other processes, or needs the agent fresh. Default:
   * it may share one (see {@link CheckSettings.processPerCase}).
   */
  ownProcess?: boolean;
}

/** How the checker starts the agent of `settings`: a process, or an in-process instance. */
export function agentLaunch(settings: CheckSettings): LaunchSpec | InProcessLaunch {
  return 'inProcess' in settings
    ? { inProcess: settings.inProcess }
    : {
        command: settings.command,
        args: settings.args,
        cwd: settings.processCwd ?? process.cwd(),
        env: settings.env,
      };
}

/**
 * A case of an optional method, which an agent offers only when it advertises the capability at
 * `needs` (its v1 path, its v2 path): initializes, skips unless advertised ("not applicable"), runs.
 */
export function advertisedCase(
  spec: Omit<CaseInfo, 'protocols'> & { needs: readonly [v1: string, v2: string]; ownProcess?: boolean },
  run: (ctx: CaseContext) => Promise<void>,
): CheckCase {
  const { needs, ...info } = spec;
  return {
    ...info,
    protocols: [1, 2],
    async run(ctx) {
      await ctx.init();
      const path = ctx.version === 2 ? needs[1] : needs[0];
      if (!ctx.advertises(path)) ctx.skip(`the agent does not advertise ${path}`);
      await run(ctx);
    },
  };
}

/**
 * The case's view of one agent process: the raw driver plus helpers for the usual steps
 * (initialize, session/new, a turn) and for recording judgements. Over a {@link SharedAgent} the
 * driver is the shared one: the case's part of it begins at {@link start}.
 */
export class CaseContext {
  readonly checks: Check[] = [];
  /** The initialize result, once {@link init} ran. */
  initResult: Record<string, unknown> | undefined;
  /** Permission requests answered by the default policy (reject), or held by a case. */
  readonly permissionRequests: WireMessage[] = [];
  /**
   * How permission requests are answered: `reject` (the reject option), `hold` (not until the case
   * answers them), `cancelled` (outcome cancelled, as a client does after it cancelled the turn),
   * `allow` (an allow option, for the cases that need a tool to run).
   */
  permissionPolicy: 'reject' | 'hold' | 'cancelled' | 'allow' = 'reject';
  /**
   * A case's own answers to the agent's requests (e.g. `mcp/message` for the MCP server the case
   * offers over ACP), asked before the defaults; undefined leaves the request to them.
   */
  answerRequest: ((m: WireMessage) => WireAnswer | undefined) | undefined;
  private readonly drivers: AgentDriver[] = [];
  readonly driver: AgentDriver;
  /** Where the case's part of {@link driver} begins (all zero on a driver of its own). */
  readonly start: SharedMark = { seq: 0, findings: 0, stderr: 0 };

  /** `shared`: the process the case shares with others (default: it starts its own). */
  constructor(
    readonly settings: CheckSettings,
    readonly version: 1 | 2,
    readonly shared?: SharedAgent,
  ) {
    if (shared === undefined) {
      this.driver = this.spawn();
      return;
    }
    this.driver = shared.driver;
    // the agent's requests from now on are this case's to answer (its permission policy, its MCP server)
    this.driver.onRequest = (m) => this.onAgentRequest(m);
    this.start = { ...shared.mark };
  }

  /** The seq after which the lines of this case begin on {@link driver}. */
  get since(): number {
    return this.start.seq;
  }

  /** Starts another process (or in-process instance) of the agent, for cases that span processes. */
  spawn(): AgentDriver {
    const d = new AgentDriver(agentLaunch(this.settings));
    d.onRequest = (m) => this.onAgentRequest(m);
    this.drivers.push(d);
    return d;
  }

  get all(): readonly AgentDriver[] {
    return this.drivers;
  }

  /** The agent process (or instance) started last: where a step that threw was talking. */
  get latest(): AgentDriver {
    return this.drivers.at(-1) ?? this.driver;
  }

  get timeout(): number {
    return this.settings.timeoutMs;
  }

  pass(id: string, message?: string): void {
    this.checks.push({ id, ok: true, message });
  }

  fail(id: string, message: string, seqs: number[] = [], driver: AgentDriver = this.driver): void {
    this.checks.push({ id, ok: false, message, excerpt: excerpt(driver, seqs) });
  }

  /** Records a pass or a failure of `id`. */
  judge(id: string, ok: boolean, failure: string, seqs: number[] = [], driver: AgentDriver = this.driver): boolean {
    if (ok) this.pass(id);
    else this.fail(id, failure, seqs, driver);
    return ok;
  }

  skip(reason: string): never {
    throw new NotApplicable(reason);
  }

  /** The params of the checker's initialize for `version` (or another requested version). */
  initializeParams(protocolVersion: number = this.version): Record<string, unknown> {
    const info = { name: 'acp-kit-check', title: 'acp-kit check', version: this.settings.clientVersion };
    const elicitation = this.settings.elicitation ? { elicitation: { form: {} } } : {};
    return this.version === 2
      ? { protocolVersion, capabilities: { ...elicitation }, info }
      : {
          protocolVersion,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false, ...elicitation },
          clientInfo: info,
        };
  }

  /**
   * Initializes `driver` at the case's version (and logs in when --auth was given). Skips the case
   * when the agent answers another version: the agent does not speak this one. A shared process is
   * initialized once, by the first case on it: the others get its answer without a request.
   */
  async init(driver: AgentDriver = this.driver): Promise<Record<string, unknown>> {
    const cached = driver === this.driver ? this.shared?.initResult : undefined;
    if (cached !== undefined) {
      this.initResult = cached;
      return cached;
    }
    const r = await driver.request('initialize', this.initializeParams(), this.timeout);
    if (r.error)
      this.skip(`the agent refused initialize at protocol version ${this.version}: ${JSON.stringify(r.error)}`);
    const result = isObj(r.result) ? r.result : {};
    if (result.protocolVersion !== this.version)
      this.skip(
        `the agent answered protocol version ${JSON.stringify(result.protocolVersion)} to a request for ${this.version}`,
      );
    // the capture validator judged the result already: it takes the version from the answer
    driver.version = this.version;
    if (this.settings.auth !== undefined) {
      const method = this.version === 2 ? 'auth/login' : 'authenticate';
      const a = await driver.request(method, { methodId: this.settings.auth }, this.timeout);
      if (a.error)
        this.skip(`${method} with method ${JSON.stringify(this.settings.auth)} failed: ${JSON.stringify(a.error)}`);
    }
    if (driver === this.driver) {
      this.initResult = result;
      if (this.shared) this.shared.initResult = result;
    }
    return result;
  }

  /** The agent's capability object (v1 `agentCapabilities`, v2 `capabilities`). */
  get capabilities(): Record<string, unknown> {
    const caps = at(this.initResult, this.version === 2 ? 'capabilities' : 'agentCapabilities');
    return isObj(caps) ? caps : {};
  }

  /** Whether a capability at `path` (dotted) is advertised: an object marker or `true`. */
  advertises(path: string): boolean {
    const v = at(this.capabilities, ...path.split('.'));
    return v === true || (typeof v === 'object' && v !== null);
  }

  /** Opens a session in the configured cwd; skips the case when the agent has none (v2 without `session`). */
  async newSession(driver: AgentDriver = this.driver): Promise<string> {
    if (this.version === 2 && !this.advertises('session')) this.skip('the agent advertises no session capability');
    const r = await driver.request('session/new', { cwd: this.settings.cwd, mcpServers: [] }, this.timeout);
    if (r.error) throw new Error(`session/new failed: ${JSON.stringify(r.error)}`);
    const id = at(r.result, 'sessionId');
    if (typeof id !== 'string') throw new Error(`session/new answered no sessionId: ${JSON.stringify(r.result)}`);
    return id;
  }

  /** The prompt params for `sessionId`. */
  promptParams(
    sessionId: string,
    text = this.settings.prompt,
    extra: readonly unknown[] = [],
  ): Record<string, unknown> {
    return { sessionId, prompt: [{ type: 'text', text }, ...extra] };
  }

  /**
   * Runs one turn to its end: v1 until the prompt response, v2 until the idle state update after
   * the prompt. Returns the seqs that mark it.
   */
  async turn(
    sessionId: string,
    driver: AgentDriver = this.driver,
    text = this.settings.prompt,
    extra: readonly unknown[] = [],
  ): Promise<{ promptSeq: number; response: WireMessage & { seq: number }; endSeq: number; stopReason: unknown }> {
    const sent = driver.send('session/prompt', this.promptParams(sessionId, text, extra));
    const responseLine = await driver.waitFor(
      answering(sent.id),
      this.turnTimeout,
      'the session/prompt response',
      sent.seq,
    );
    const response = { ...responseLine.msg, seq: responseLine.seq };
    if (this.version === 1 || response.error)
      return { promptSeq: sent.seq, response, endSeq: response.seq, stopReason: at(response.result, 'stopReason') };
    const idle = await this.waitIdle(sessionId, sent.seq, driver);
    return { promptSeq: sent.seq, response, endSeq: idle.seq, stopReason: idle.stopReason };
  }

  /** The prompt of the cases that only need a turn that ends (see {@link CheckSettings.shortPrompt}). */
  get shortPrompt(): string {
    return this.settings.shortPrompt ?? SHORT_CHECK_PROMPT;
  }

  /** A whole turn may take longer than one answer: the agent may think, run tools or call a model. */
  get turnTimeout(): number {
    return Math.max(this.timeout, 4 * this.timeout);
  }

  /** Waits for a v2 idle state update of `sessionId` after `after`. */
  async waitIdle(
    sessionId: string,
    after: number,
    driver: AgentDriver = this.driver,
  ): Promise<{ seq: number; stopReason: unknown }> {
    const line = await driver.waitFor(
      (l) => isUpdate(l.msg, sessionId, 'state_update') && updateOf(l.msg)?.state === 'idle',
      this.turnTimeout,
      'the idle state_update that ends the turn',
      after,
    );
    return { seq: line.seq, stopReason: updateOf(line.msg)?.stopReason };
  }

  /** Answers a held permission request. */
  answerPermission(req: WireMessage, outcome: Record<string, unknown>, driver: AgentDriver = this.driver): void {
    driver.writeRaw(JSON.stringify({ jsonrpc: '2.0', id: req.id, result: { outcome } }));
  }

  private onAgentRequest(m: WireMessage): WireAnswer | Promise<undefined> | undefined {
    const own = this.answerRequest?.(m);
    if (own !== undefined) return own;
    // --elicitation: form mode is advertised and every question declined; what arrives is judged
    // by the wire rules (mode advertised, scope: ACP-ALL-ELIC-01, -03)
    if (m.method === 'elicitation/create' && this.settings.elicitation) return { result: { action: 'decline' } };
    if (m.method !== 'session/request_permission') return undefined;
    this.permissionRequests.push(m);
    this.checkPermission(m);
    if (this.permissionPolicy === 'hold') return new Promise<never>(() => undefined).then(() => undefined);
    if (this.permissionPolicy === 'cancelled') return { result: { outcome: { outcome: 'cancelled' } } };
    const options = at(m, 'params', 'options');
    const list = Array.isArray(options) ? options : [];
    const [once, always] =
      this.permissionPolicy === 'allow' ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
    const pick = list.find((o) => at(o, 'kind') === once) ?? list.find((o) => at(o, 'kind') === always);
    return {
      result: {
        outcome: pick ? { outcome: 'selected', optionId: at(pick, 'optionId') } : { outcome: 'cancelled' },
      },
    };
  }

  /** ACP-ALL-PERM-04 beyond the schema: options are there and their ids are unique. */
  private checkPermission(m: WireMessage): void {
    const options = at(m, 'params', 'options');
    const seq = this.driver.transcript.find((l) => l.msg === m)?.seq ?? 0;
    if (!Array.isArray(options) || options.length === 0)
      return this.fail('ACP-ALL-PERM-04', 'session/request_permission offers no options', [seq]);
    const ids: unknown[] = options.map((o) => at(o, 'optionId'));
    this.judge(
      'ACP-ALL-PERM-04',
      new Set(ids).size === ids.length,
      `session/request_permission offers duplicate optionIds: ${JSON.stringify(ids)}`,
      [seq],
    );
    this.pass(this.version === 2 ? 'ACP-V2-PERM-01' : 'ACP-V1-PERM-01');
  }
}

/** The `update` of a session/update notification, if `m` is one. */
export function updateOf(m: WireMessage | undefined): JsonObject | undefined {
  if (m?.method !== 'session/update' || m.id !== undefined) return undefined;
  const u = at(m.params, 'update');
  return isObj(u) ? u : undefined;
}

/** Whether `m` is a session/update of `sessionId` (of kind `kind` when given). */
export function isUpdate(m: WireMessage | undefined, sessionId: string, kind?: string): boolean {
  const u = updateOf(m);
  return (
    u !== undefined && at(m, 'params', 'sessionId') === sessionId && (kind === undefined || u.sessionUpdate === kind)
  );
}

/** Transcript lines around `seqs` (two before the first, one after the last), marked by direction. */
export function excerpt(driver: AgentDriver, seqs: number[]): string[] {
  if (seqs.length === 0) return [];
  const lo = Math.min(...seqs) - 2;
  const hi = Math.max(...seqs) + 1;
  return driver.transcript
    .filter((l) => l.seq >= lo && l.seq <= hi)
    .map(
      (l) =>
        `${String(l.seq).padStart(3)} ${l.dir === 'out' ? '->' : '<-'} ${l.raw.length > 400 ? `${l.raw.slice(0, 400)}…` : l.raw}${seqs.includes(l.seq) ? '   <==' : ''}`,
    );
}
