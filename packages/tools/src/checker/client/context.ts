import { spawn, type ChildProcess } from 'node:child_process';
import { at, isObj, stringAt } from '@acp-kit/protocol/internal';
import { NotApplicable, type CaseOf, type Check } from '../case.js';
import { WaitTimeout, type TranscriptLine, type WireId } from '../driver.js';
import { hasMessage, type MessageLine } from '../wire.js';
import { killGroup } from '../process.js';
import { absoluteFileWords } from './file-args.js';
import { ClientGone, type ClientPeer, type Received } from './peer.js';

/** What every client case needs to know about the run. */
export interface ClientCheckSettings {
  /** The client command and its arguments; `{agent}` in any of them becomes the scripted agent's command line. */
  command: string;
  args: readonly string[];
  /** Extra environment for the client (`ACP_CHECK_AGENT` is added by the checker). */
  env: Readonly<Record<string, string>>;
  /** Working directory of the client process (default: a fresh scratch directory per case). */
  processCwd?: string;
  /** How long any single step of the client may take, in milliseconds. */
  timeoutMs: number;
  /** Version of acp-kit, sent as the scripted agent's info. */
  agentVersion: string;
  /**
   * How long a whole case may take before it is stopped and reported as an error (default: six
   * steps, `6 * timeoutMs`): a case waits on several steps, each bounded, but a client that never
   * ends must not keep the run from ending.
   */
  caseLimitMs?: number;
}

/** A client conformance case: one scripted agent behaviour, one launch of the client. */
export type ClientCase = CaseOf<ClientCaseContext>;

/** How the checker reaches the client it launched: the connection its relay makes, by token. */
export interface ConnectionSource {
  /** The `{agent}` command line for `token`. */
  agentCommand(token: string): string;
  /** Resolves with the first connection the relay of `token` makes. */
  connection(token: string): Promise<ClientPeer>;
  /** Forgets `token` (the case is over). */
  release(token: string): void;
}

/**
 * One case's view of the client under test: its process (launched with the scripted agent's
 * command), the connection of that agent, the scripted agent's usual moves (answer initialize,
 * open the session, run a turn), and the judgements.
 */
export class ClientCaseContext {
  readonly checks: Check[] = [];
  peer: ClientPeer | undefined;
  /** The client's capability object from initialize (v1 `clientCapabilities`, v2 `capabilities`). */
  clientCapabilities: Record<string, unknown> = {};
  /** The session cwd the client sent. */
  sessionCwd: string | undefined;
  stdout = '';
  stderr = '';
  private child: ChildProcess | undefined;
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private exitPromise: Promise<void> = Promise.resolve();
  private spawnError: Error | undefined;
  private nextId = 1;
  /** Called when the case is over (e.g. to kill a process a case started). */
  readonly cleanups: Array<() => void | Promise<void>> = [];
  /**
   * Told once whether the client speaks the case's version: `undefined` when it opened a session
   * in it, else why not. The runner holds the other cases of the version until it knows.
   */
  onVersion: (unspoken: string | undefined) => void = () => undefined;

  constructor(
    readonly settings: ClientCheckSettings,
    readonly version: 1 | 2,
    readonly token: string,
    private readonly source: ConnectionSource,
    /** Working directory of the client (a scratch directory the checker owns, unless --cwd). */
    readonly clientCwd: string,
  ) {}

  /** Whether the client's working directory is the checker's own scratch directory (not --cwd). */
  get ownsCwd(): boolean {
    return this.settings.processCwd === undefined;
  }

  get timeout(): number {
    return this.settings.timeoutMs;
  }

  /** The connection; throws when the client never launched the agent. */
  get p(): ClientPeer {
    if (!this.peer) throw new Error('the client has not launched the agent');
    return this.peer;
  }

  pass(id: string, message?: string): void {
    this.checks.push({ id, ok: true, message });
  }

  fail(id: string, message: string, seqs: number[] = []): void {
    this.checks.push({ id, ok: false, message, excerpt: this.excerpt(seqs) });
  }

  judge(id: string, ok: boolean, failure: string, seqs: number[] = []): boolean {
    if (ok) this.pass(id);
    else this.fail(id, failure, seqs);
    return ok;
  }

  skip(reason: string): never {
    throw new NotApplicable(reason);
  }

  /** The client does not speak the case's version: no other case of that version can run either. */
  private unspoken(reason: string): never {
    this.onVersion(reason);
    this.skip(reason);
  }

  /** A fresh string id for a request of the agent (string ids on purpose: clients must echo them). */
  id(label: string): string {
    return `acp-kit-check:${label}-${this.nextId++}`;
  }

  /** Starts the client and waits until it launches the scripted agent. */
  async launch(): Promise<ClientPeer> {
    const agent = this.source.agentCommand(this.token);
    // in the checker's scratch directory, paths typed relative to where the check was started
    const [typed, ...typedArgs] = this.ownsCwd
      ? absoluteFileWords([this.settings.command, ...this.settings.args], process.cwd())
      : [this.settings.command, ...this.settings.args];
    const args = typedArgs.map((a) => a.split('{agent}').join(agent));
    const command = (typed ?? this.settings.command).split('{agent}').join(agent);
    const child = spawn(command, args, {
      cwd: this.clientCwd,
      env: { ...process.env, ...this.settings.env, ACP_CHECK_AGENT: agent },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
    });
    this.child = child;
    this.exitPromise = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve();
      });
      child.on('error', (e) => {
        this.spawnError = e;
        this.exitInfo ??= { code: null, signal: null };
        resolve();
      });
    });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      if (this.stdout.length < 256_000) this.stdout += d;
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      if (this.stderr.length < 64_000) this.stderr += d;
    });
    const connectMs = Math.max(this.timeout, 15_000);
    let timer: NodeJS.Timeout | undefined;
    const peer = await Promise.race([
      this.source.connection(this.token),
      this.exitPromise.then(() => {
        throw new ClientLaunchError(
          this.spawnError
            ? `the client could not be started: ${this.spawnError.message}`
            : `the client ended (${this.describeExit()}) without launching the agent${this.stderrTail()}${this.ownsCwd ? `; it ran in a scratch directory (${this.clientCwd}), so relative paths in its command do not reach your files: give absolute paths, or --cwd` : ''}`,
        );
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new ClientLaunchError(
                `the client did not launch the agent within ${connectMs} ms (does the command contain {agent}, or read $ACP_CHECK_AGENT?)${this.stderrTail()}`,
              ),
            ),
          connectMs,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    this.peer = peer;
    return peer;
  }

  /** The version spoken on the wire (the case's, unless it answered another one on purpose). */
  get wire(): 1 | 2 {
    return this.peer?.version ?? this.version;
  }

  /**
   * Takes initialize and answers it with `answer` (default: the case's version; a v2 case needs a
   * client that offers 2), advertising `extraCapabilities` besides the scripted agent's own (a case
   * that sends what a capability gates, e.g. `auth/status_update`).
   */
  async handshake(answer: 1 | 2 = this.version, extraCapabilities: Record<string, unknown> = {}): Promise<Received> {
    const p = this.p;
    const init = await this.setup('initialize', () => p.takeRequest('initialize', this.timeout));
    const asked = at(init.params, 'protocolVersion');
    if (this.version === 2 && !(typeof asked === 'number' && asked >= 2)) {
      p.respondError(init, -32022, 'Unsupported protocol version');
      this.unspoken(
        `the client offered protocol version ${JSON.stringify(asked)}; the v2 cases need a client that offers 2`,
      );
    }
    p.version = answer;
    const info = {
      name: 'acp-kit-check',
      title: 'acp-kit check (scripted agent)',
      version: this.settings.agentVersion,
    };
    if (answer === 1) {
      const caps = at(init.params, 'clientCapabilities');
      this.clientCapabilities = isObj(caps) ? caps : {};
      p.respond(init, {
        protocolVersion: 1,
        agentInfo: info,
        agentCapabilities: { loadSession: false, ...extraCapabilities },
        authMethods: [],
      });
    } else {
      const caps = at(init.params, 'capabilities');
      this.clientCapabilities = isObj(caps) ? caps : {};
      p.respond(init, {
        protocolVersion: 2,
        info,
        capabilities: { session: {}, ...extraCapabilities },
        authMethods: [],
      });
    }
    return init;
  }

  /**
   * Takes session/new; `before` runs before the answer (to send updates the client must keep
   * although they precede it). Returns the session id.
   */
  async openSession(before?: (sessionId: string, req: Received) => void): Promise<string> {
    const p = this.p;
    let req: Received;
    try {
      req = await this.setup('session/new', () => p.takeRequest('session/new', this.timeout));
    } catch (e) {
      // a client that offered v2 may leave when the agent answers v1: it does not speak v1 (allowed)
      if (e instanceof ClientSetupError && e.gone && this.version === 1 && (p.asked ?? 1) >= 2)
        this.unspoken('the client offered v2 and left when the agent answered v1: it does not speak v1');
      throw e;
    }
    this.onVersion(undefined);
    const sessionId = `check-${this.token.replace(/[^\w-]/g, '-')}`;
    this.sessionCwd = stringAt(req.params, 'cwd');
    before?.(sessionId, req);
    p.respond(req, { sessionId });
    return sessionId;
  }

  /** Takes session/prompt; in v2 acknowledges it at once with the user message echo and `running`. */
  async startTurn(sessionId: string): Promise<Received> {
    const p = this.p;
    const req = await this.setup('session/prompt', () => p.takeRequest('session/prompt', this.timeout));
    if (this.wire === 2) {
      const messageId = `check-user-${this.nextId++}`;
      p.respond(req, { messageId });
      const prompt = at(req.params, 'prompt');
      p.update(sessionId, { sessionUpdate: 'user_message', messageId, content: Array.isArray(prompt) ? prompt : [] });
      p.update(sessionId, { sessionUpdate: 'state_update', state: 'running' });
    }
    return req;
  }

  /** Ends the turn (v1: the prompt response; v2: the idle state update). */
  endTurn(req: Received, sessionId: string, stopReason = 'end_turn'): number {
    if (this.wire === 1) return this.p.respond(req, { stopReason });
    return this.p.update(sessionId, { sessionUpdate: 'state_update', state: 'idle', stopReason });
  }

  /** An agent message with `text` (v1: a chunk; v2: a chunk with a messageId). */
  say(sessionId: string, text: string, messageId = `check-agent-${this.nextId++}`): number {
    const update: Record<string, unknown> = { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } };
    if (this.wire === 2) update.messageId = messageId;
    return this.p.update(sessionId, update);
  }

  /**
   * Sends a request for a method no client has and waits for the answer: proves the client read
   * everything sent before it (and is still alive), judges ACP-ALL-EXT-05 and that the id came back.
   */
  async ping(id: WireId = this.id('ping')): Promise<number> {
    const p = this.p;
    const sent = p.send('_acp_kit_check/ping', { _meta: { 'acp-kit-check': true } }, id);
    const line = await p.waitFor(
      (l): l is MessageLine =>
        l.dir === 'in' &&
        hasMessage(l) &&
        l.msg.method === undefined &&
        (JSON.stringify(l.msg.id) === JSON.stringify(id) || p.findings.some((f) => f.seqs.includes(l.seq))),
      this.timeout,
      `the client's answer to the unknown method _acp_kit_check/ping (id ${JSON.stringify(id)})`,
      sent,
    );
    if (
      !this.judge(
        'ACP-ALL-RPC-03',
        JSON.stringify(line.msg.id) === JSON.stringify(id),
        `the client answered the request with id ${JSON.stringify(id)} with id ${JSON.stringify(line.msg.id)}`,
        [sent, line.seq],
      )
    )
      return line.seq;
    const code = at(line.msg, 'error', 'code');
    this.judge(
      'ACP-ALL-EXT-05',
      code === -32601,
      `an unknown request of the agent must be answered with error -32601; the client answered ${line.raw.slice(0, 200)}`,
      [sent, line.seq],
    );
    return line.seq;
  }

  /**
   * A step of the set-up (initialize, session/new, the prompt) the client must make on its own:
   * when it never comes the case cannot run at all, which is not a failure of the case's rule.
   */
  private async setup<T>(what: string, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (e) {
      if (e instanceof ClientGone)
        throw new ClientSetupError(
          `the client closed the connection before its ${what} request${this.exited ? ` (it ended: ${this.describeExit()})` : ''}${this.stderrTail()}`,
          true,
        );
      if (e instanceof WaitTimeout)
        throw new ClientSetupError(
          `the client sent no ${what} request within ${this.timeout} ms; check client needs a client command that initializes, opens a session and sends a prompt on its own (e.g. acp-kit run --agent "{agent}" hello)${this.stderrTail()}`,
          false,
        );
      throw e;
    }
  }

  /** Sends Ctrl-C to the client's process group (what a user in a terminal does to cancel). */
  interrupt(): void {
    const child = this.child;
    const pid = child?.pid;
    if (child === undefined || pid === undefined || this.exitInfo) return;
    try {
      if (process.platform !== 'win32') process.kill(-pid, 'SIGINT');
      else child.kill('SIGINT');
    } catch {
      /* already gone */
    }
  }

  /** Waits up to `ms` for the client to exit; true when it did. */
  async waitExit(ms: number): Promise<boolean> {
    let t: NodeJS.Timeout | undefined;
    const r = await Promise.race([
      this.exitPromise.then(() => true),
      new Promise<boolean>((resolve) => (t = setTimeout(() => resolve(false), ms))),
    ]);
    clearTimeout(t);
    return r;
  }

  get exited(): boolean {
    return this.exitInfo !== undefined;
  }

  describeExit(): string {
    const e = this.exitInfo;
    if (!e) return 'still running';
    return e.signal ? `killed by ${e.signal}` : `exit code ${e.code}`;
  }

  stderrTail(): string {
    const lines = this.stderr
      .trim()
      .split('\n')
      .filter((l) => l.trim() !== '');
    // a crash ends with a stack and the runtime's version: the error line is what says why
    const error = [...lines].reverse().find((l) => /^\s*(\w*Error\b|error:)/i.test(l));
    const tail = [...(error !== undefined && !lines.slice(-3).includes(error) ? [error] : []), ...lines.slice(-3)].join(
      ' | ',
    );
    return tail ? ` (client stderr: ${tail.slice(0, 400)})` : '';
  }

  /** Ends the client (and its process group), the connection and what the case started. */
  async dispose(): Promise<void> {
    this.peer?.close();
    if (this.child && !this.exitInfo) killGroup(this.child);
    await this.exitPromise;
    for (const c of this.cleanups.splice(0)) await c();
    this.source.release(this.token);
  }

  /** Transcript lines around `seqs`, marked by direction (`->` to the client, `<-` from it). */
  excerpt(seqs: number[]): string[] {
    if (seqs.length === 0 || !this.peer) return [];
    return excerptOf(this.peer.transcript, seqs);
  }
}

/** Transcript lines around `seqs` (two before the first, one after the last). */
export function excerptOf(transcript: readonly TranscriptLine[], seqs: number[]): string[] {
  if (seqs.length === 0) return [];
  const lo = Math.min(...seqs) - 2;
  const hi = Math.max(...seqs) + 1;
  return transcript
    .filter((l) => l.seq >= lo && l.seq <= hi)
    .map(
      (l) =>
        `${String(l.seq).padStart(3)} ${l.dir === 'out' ? '->' : '<-'} ${l.raw.length > 400 ? `${l.raw.slice(0, 400)}…` : l.raw}${seqs.includes(l.seq) ? '   <==' : ''}`,
    );
}

/** The client could not be started, or never launched the agent: the case could not run at all. */
export class ClientLaunchError extends Error {}

/** The client did not set up the session the case needs (see {@link ClientCaseContext.setup}). */
export class ClientSetupError extends ClientLaunchError {
  constructor(
    message: string,
    /** True when the client closed the connection (rather than going silent). */
    readonly gone: boolean,
  ) {
    super(message);
  }
}
