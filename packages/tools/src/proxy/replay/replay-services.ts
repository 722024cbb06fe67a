import { FileSystemSandbox, TerminalManager } from '@acp-kit/client';
import { v1Codec, AcpError, ErrorCode, Methods } from '@acp-kit/protocol';
import { at, numberAt, stringAt } from '@acp-kit/protocol/internal';
import type { AnswerIndex } from './answer-index.js';
import type { ValueMap } from './id-map.js';

/** How the replay answers the live agent's permission requests. */
export type ReplayPermission = 'recorded' | 'allow' | 'reject';

/** A JSON-RPC answer body: `result` or `error`. */
interface ReplyBody {
  result?: unknown;
  error?: unknown;
}

const CANCELLED = { outcome: { outcome: 'cancelled' } };

/**
 * The editor's side of the live agent's requests during a client-side replay: permissions as
 * recorded (or by policy), `fs/*` and `terminal/*` by the sandboxed client services rooted at the
 * sessions' directories, anything else with the recorded answer for that method.
 */
export class ReplayClientServices {
  private roots: string[] = [];
  private sandbox: FileSystemSandbox | undefined;
  /** the manager of terminals created before any root was known (answers "unknown terminal") */
  private readonly unrooted = new TerminalManager({ roots: [] });
  private current: TerminalManager | undefined = this.unrooted;
  private managers: TerminalManager[] = [this.unrooted];
  private readonly terminalOwner = new Map<string, TerminalManager>();
  private permissionsAsked = 0;

  constructor(
    private readonly index: AnswerIndex,
    private readonly values: ValueMap,
    private readonly policy: ReplayPermission,
    private readonly log: (line: string) => void,
  ) {}

  /** Adds a session's `cwd` and `additionalDirectories` to the roots the services may touch. */
  addSessionRoots(params: unknown): void {
    const dirs = at(params, 'additionalDirectories');
    const add = [at(params, 'cwd'), ...(Array.isArray(dirs) ? dirs : [])].filter(
      (x): x is string => typeof x === 'string' && x.startsWith('/'),
    );
    const next = [...new Set([...this.roots, ...add])];
    if (next.length === this.roots.length) return;
    this.roots = next;
    this.sandbox = new FileSystemSandbox(this.roots);
    this.current = undefined; // a new root set: terminals created from now on check against it
  }

  /** The answer to one live agent request (errors are turned into error bodies). */
  async answer(method: string, params: Record<string, unknown>): Promise<ReplyBody> {
    if (method === 'session/request_permission') return this.permission(params);
    try {
      return { result: await this.serve(method, params) };
    } catch (e) {
      return { error: AcpError.from(e).toJSON() };
    }
  }

  /** Releases every terminal the agent created. */
  async close(): Promise<void> {
    const managers = this.managers;
    this.managers = [];
    await Promise.all(managers.map((m) => m.releaseAll()));
  }

  private permission(params: Record<string, unknown>): ReplyBody {
    this.permissionsAsked++;
    const offered: unknown[] = Array.isArray(params.options) ? params.options : [];
    if (this.policy === 'allow') return { result: pickKind(offered, ['allow_once', 'allow_always']) };
    if (this.policy === 'reject') return { result: pickKind(offered, ['reject_once', 'reject_always']) };
    const rec = this.index.nextAgentCall('session/request_permission');
    if (!rec?.answer) {
      this.log(`permission request #${this.permissionsAsked} has no recorded answer; answering cancelled`);
      return { result: CANCELLED };
    }
    if (rec.answer.kind === 'error') return { error: at(rec.answer.message, 'error') };
    const outcome = at(rec.answer.message, 'result', 'outcome');
    if (at(outcome, 'outcome') !== 'selected') return { result: CANCELLED };
    const chosen = at(outcome, 'optionId');
    const recOptions = at(rec.request.message, 'params', 'options');
    const kind = Array.isArray(recOptions)
      ? at(
          recOptions.find((o) => at(o, 'optionId') === chosen),
          'kind',
        )
      : undefined;
    const same =
      offered.find((o) => at(o, 'kind') === kind && kind !== undefined) ??
      offered.find((o) => at(o, 'optionId') === chosen);
    if (!same) {
      this.log(
        `the recorded permission answer chose ${String(chosen)} (${String(kind)}), which the live request does not offer; answering cancelled`,
      );
      return { result: CANCELLED };
    }
    return { result: { outcome: { outcome: 'selected', optionId: at(same, 'optionId') } } };
  }

  private async serve(method: string, params: Record<string, unknown>): Promise<unknown> {
    switch (method) {
      case 'fs/read_text_file':
        if (!this.sandbox)
          throw AcpError.invalidParams('fs/read_text_file before any session was opened: no session roots');
        // fs/* and terminal/* are v1 client services: their params are read with the v1 codec
        return this.sandbox.readTextFile(v1Codec.decodeParams(Methods.fsReadTextFile, params));
      case 'fs/write_text_file':
        if (!this.sandbox)
          throw AcpError.invalidParams('fs/write_text_file before any session was opened: no session roots');
        return this.sandbox.writeTextFile(v1Codec.decodeParams(Methods.fsWriteTextFile, params));
      case 'terminal/create':
        return this.createTerminal(params);
      case 'terminal/output':
      case 'terminal/wait_for_exit':
      case 'terminal/kill':
      case 'terminal/release':
        return this.useTerminal(method, params);
      default:
        return this.recordedAnswer(method);
    }
  }

  private createTerminal(params: Record<string, unknown>): unknown {
    if (this.roots.length === 0)
      throw AcpError.invalidParams('terminal/create before any session was opened: no session roots');
    let m = this.current;
    if (!m) {
      m = new TerminalManager({ roots: this.roots, defaultCwd: this.roots[0] });
      this.current = m;
      this.managers.push(m);
    }
    const r = m.create(v1Codec.decodeParams(Methods.terminalCreate, params));
    this.terminalOwner.set(r.terminalId, m);
    return r;
  }

  private async useTerminal(method: string, params: Record<string, unknown>): Promise<unknown> {
    const sessionId = typeof params.sessionId === 'string' ? params.sessionId : undefined;
    const id = String(params.terminalId);
    const m = this.terminalOwner.get(id) ?? this.unrooted;
    if (method === 'terminal/output') return m.output(id, sessionId);
    if (method === 'terminal/wait_for_exit') return m.waitForExit(id, undefined, sessionId);
    if (method === 'terminal/kill') await m.kill(id, sessionId);
    else await m.release(id, sessionId);
    return {};
  }

  private recordedAnswer(method: string): unknown {
    const rec = this.index.nextAgentCall(method);
    if (!rec?.answer) throw AcpError.methodNotFound(method);
    if (rec.answer.kind === 'error') {
      const e = at(rec.answer.message, 'error');
      throw AcpError.fromObject({
        code: numberAt(e, 'code') ?? ErrorCode.InternalError,
        message: stringAt(e, 'message') ?? 'Unknown error',
        data: at(e, 'data'),
      });
    }
    return this.values.apply(at(rec.answer.message, 'result')).value;
  }
}

/** The first offered option of the first of `kinds` that is offered; cancelled when none is. */
function pickKind(offered: readonly unknown[], kinds: readonly string[]): unknown {
  for (const k of kinds) {
    const o = offered.find((x) => at(x, 'kind') === k);
    if (o) return { outcome: { outcome: 'selected', optionId: at(o, 'optionId') } };
  }
  return CANCELLED;
}
