import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** The outcome of one request, as the registry's daily matrix records it. */
export interface ProbeOutcome {
  status:
    | 'success'
    | 'method_not_found'
    | 'invalid_params'
    | 'auth_required'
    | 'resource_not_found'
    | 'error'
    | 'timeout'
    | 'proc_err';
  code: number | null;
  message: string | null;
}

/** The methods the registry's matrix probes for "method not found". */
export const PROBED_METHODS = [
  'session/list',
  'session/fork',
  'session/resume',
  'session/stop',
  'session/set_model',
] as const;
export type ProbedMethod = (typeof PROBED_METHODS)[number];

/** What the registry's matrix records per agent (its `.protocol-matrix/snapshots/*.json` fields). */
export interface HandshakeProbe {
  initialize: ProbeOutcome;
  protocolVersion: number | null;
  agentInfoVersion: string | null;
  authMethods: string[];
  capabilities: {
    loadSession: boolean;
    sessionList: boolean;
    sessionFork: boolean;
    sessionResume: boolean;
    sessionStop: boolean;
    setModel: boolean;
  };
  sessionNew: ProbeOutcome;
  methodProbes: Record<ProbedMethod, ProbeOutcome>;
  stderrTail: string;
}

export interface ProbeTarget {
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The version asked for in `initialize` (the registry's matrix asks for 1). */
  protocolVersion: 1 | 2;
  timeoutMs: number;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON-RPC error as the matrix names it (ACP: -32000 auth required, -32002 resource not found). */
function outcomeOf(answer: Record<string, unknown>): ProbeOutcome {
  if (!isObj(answer.error)) return { status: 'success', code: null, message: null };
  const code = typeof answer.error.code === 'number' ? answer.error.code : null;
  const message = typeof answer.error.message === 'string' ? answer.error.message : null;
  const status =
    code === -32601
      ? 'method_not_found'
      : code === -32602
        ? 'invalid_params'
        : code === -32000
          ? 'auth_required'
          : code === -32002
            ? 'resource_not_found'
            : 'error';
  return { status, code, message };
}

/** A line-delimited JSON-RPC client over the agent's stdio: requests with a deadline; the agent's own requests refused. */
function rpc(target: ProbeTarget) {
  const child = spawn(target.command, [...target.args], {
    cwd: target.cwd,
    env: target.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: process.platform !== 'win32',
  });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => {
    stderr = (stderr + b.toString('utf8')).slice(-2000);
  });
  const waiting = new Map<number, (answer: Record<string, unknown>) => void>();
  let failure: string | undefined;
  const failAll = (why: string) => {
    failure ??= why;
    for (const w of waiting.values()) w({ error: { code: null, message: why, proc: true } });
    waiting.clear();
  };
  child.on('error', (e) => failAll(e.message));
  child.on('exit', (code, signal) => failAll(`the agent exited (${signal ?? `code ${String(code)}`})`));
  child.stdin.on('error', () => undefined);
  createInterface({ input: child.stdout }).on('line', (line) => {
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      return; // a log line on stdout: the checker judges that, the probe only wants answers
    }
    if (!isObj(msg)) return;
    if (typeof msg.method === 'string' && msg.id !== undefined)
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } })}\n`,
      );
    else if (typeof msg.id === 'number') waiting.get(msg.id)?.(msg);
  });
  let next = 0;
  const request = (method: string, params: unknown): Promise<ProbeOutcome & { result?: unknown }> => {
    const id = ++next;
    if (failure !== undefined) return Promise.resolve({ status: 'proc_err', code: null, message: failure });
    return new Promise((res) => {
      const timer = setTimeout(() => {
        waiting.delete(id);
        res({ status: 'timeout', code: null, message: `no answer in ${target.timeoutMs} ms` });
      }, target.timeoutMs);
      waiting.set(id, (answer) => {
        clearTimeout(timer);
        waiting.delete(id);
        const err = answer.error;
        if (isObj(err) && err.proc === true) res({ status: 'proc_err', code: null, message: String(err.message) });
        else res({ ...outcomeOf(answer), result: answer.result });
      });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  };
  const close = () => {
    try {
      if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGTERM');
      else child.kill('SIGTERM');
    } catch {
      /* already gone */
    }
  };
  return { request, close, stderr: () => stderr };
}

/** `initialize` capabilities as the registry's matrix reads them (`agentCapabilities`, its `sessionCapabilities`). */
function capabilitiesOf(result: unknown): HandshakeProbe['capabilities'] {
  const caps = isObj(result) && isObj(result.agentCapabilities) ? result.agentCapabilities : {};
  const session = isObj(caps.sessionCapabilities) ? caps.sessionCapabilities : {};
  const has = (o: Record<string, unknown>, k: string) => o[k] !== undefined && o[k] !== null && o[k] !== false;
  return {
    loadSession: caps.loadSession === true,
    sessionList: has(session, 'list'),
    sessionFork: has(session, 'fork'),
    sessionResume: has(session, 'resume'),
    sessionStop: has(session, 'stop'),
    setModel: has(session, 'setModel') || has(caps, 'setModel'),
  };
}

const PROBE_SESSION = 'sess_matrix_probe';

/** The five method probes, on the session `session/new` made (else a made-up id, as the registry does). */
function probeParams(method: ProbedMethod, sessionId: string, cwd: string): unknown {
  if (method === 'session/list') return { cwd };
  if (method === 'session/stop') return { sessionId };
  if (method === 'session/set_model') return { sessionId, modelId: 'matrix-model' };
  return { sessionId, cwd, mcpServers: [] };
}

/**
 * The registry's daily matrix for one agent, measured the same way: `initialize` (asking for
 * `protocolVersion`), `session/new`, then the five methods, each answered or not within the
 * deadline; the process is killed at the end.
 */
export async function probeHandshake(target: ProbeTarget): Promise<HandshakeProbe> {
  const c = rpc(target);
  try {
    const init = await c.request('initialize', {
      protocolVersion: target.protocolVersion,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: 'acp-kit-matrix', version: '1' },
      // v2 names these `info` and `capabilities`: an offer of v2 carries both spellings, as the client's `auto` does
      ...(target.protocolVersion === 2 ? { info: { name: 'acp-kit-matrix', version: '1' }, capabilities: {} } : {}),
    });
    const r = isObj(init.result) ? init.result : {};
    const info = isObj(r.agentInfo) ? r.agentInfo : {};
    const authMethods = Array.isArray(r.authMethods)
      ? r.authMethods.flatMap((m: unknown) => (isObj(m) && typeof m.id === 'string' ? [m.id] : []))
      : [];
    const sessionNew = await c.request('session/new', { cwd: target.cwd, mcpServers: [] });
    const sid =
      isObj(sessionNew.result) && typeof sessionNew.result.sessionId === 'string'
        ? sessionNew.result.sessionId
        : PROBE_SESSION;
    const methodProbes = {} as Record<ProbedMethod, ProbeOutcome>;
    for (const m of PROBED_METHODS) {
      const { result: _r, ...outcome } = await c.request(m, probeParams(m, sid, target.cwd));
      methodProbes[m] = outcome;
    }
    const { result: _i, ...initialize } = init;
    const { result: _s, ...sessionNewOutcome } = sessionNew;
    return {
      initialize,
      protocolVersion: typeof r.protocolVersion === 'number' ? r.protocolVersion : null,
      agentInfoVersion: typeof info.version === 'string' ? info.version : null,
      authMethods,
      capabilities: capabilitiesOf(init.result),
      sessionNew: sessionNewOutcome,
      methodProbes,
      stderrTail: c.stderr(),
    };
  } finally {
    c.close();
  }
}
