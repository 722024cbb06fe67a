import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  judge,
  otherVersionId,
  planJobs,
  runCaseWith,
  runEach,
  stepFailureId,
  type CaseResult,
  type CheckRun,
  type RunOptions,
} from '../runner.js';
import { requirement } from '../requirements.js';
import { CLIENT_CASES } from './cases.js';
import {
  ClientCaseContext,
  ClientLaunchError,
  excerptOf,
  type ClientCase,
  type ClientCheckSettings,
  type ConnectionSource,
} from './context.js';
import { ClientPeer } from './peer.js';
import { shellJoin, writeRelay } from './relay.js';

/** Which client cases to run and how (v2 cases need a client that offers 2). */
export type ClientRunOptions = RunOptions<ClientCase>;

/** Wire requirements every client case checks on every line the client writes. */
const CLIENT_WIRE_IDS = ['ACP-ALL-RPC-01', 'ACP-ALL-RPC-02', 'ACP-ALL-RPC-04', 'ACP-ALL-TRANS-06'];

/**
 * The loopback server the relays connect to: a relay's first line names its case (a token), and
 * the rest of the connection is the scripted agent's stdio.
 */
class RelayServer implements ConnectionSource {
  private readonly waiting = new Map<string, { peers: ClientPeer[]; wake?: () => void }>();
  private readonly sockets = new Set<Socket>();
  private constructor(
    private readonly server: Server,
    private readonly port: number,
    private readonly relay: string,
  ) {
    server.on('connection', (s) => this.accept(s));
  }

  static async start(relay: string): Promise<RelayServer> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const addr = server.address();
    if (!addr || typeof addr === 'string') throw new Error('acp-kit check: the loopback server has no port');
    return new RelayServer(server, addr.port, relay);
  }

  agentCommand(token: string): string {
    return shellJoin([process.execPath, this.relay, String(this.port), token]);
  }

  async connection(token: string): Promise<ClientPeer> {
    const slot = this.slot(token);
    for (;;) {
      const peer = slot.peers.shift();
      if (peer) return peer;
      await new Promise<void>((resolve) => (slot.wake = resolve));
    }
  }

  release(token: string): void {
    for (const p of this.waiting.get(token)?.peers ?? []) p.close();
    this.waiting.delete(token);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private slot(token: string): { peers: ClientPeer[]; wake?: () => void } {
    let s = this.waiting.get(token);
    if (!s) this.waiting.set(token, (s = { peers: [] }));
    return s;
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    let head = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      head = Buffer.concat([head, d]);
      const i = head.indexOf(0x0a);
      if (i < 0) {
        if (head.length > 1024) socket.destroy();
        return;
      }
      socket.off('data', onData);
      const token = head.subarray(0, i).toString('utf8');
      const rest = head.subarray(i + 1);
      const slot = this.waiting.get(token);
      if (!slot) return void socket.destroy();
      const peer = new ClientPeer(socket, rest);
      slot.peers.push(peer);
      slot.wake?.();
    };
    socket.on('data', onData);
  }
}

/** Runs the client cases: one launch of the client per case and version, the scripted agent in this process. */
export async function runClientChecks(settings: ClientCheckSettings, options: ClientRunOptions): Promise<CheckRun> {
  const started = Date.now();
  const { jobs, wanted, skipped } = planJobs(options.cases ?? CLIENT_CASES, options, CLIENT_WIRE_IDS);
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-check-client-')));
  let server: RelayServer | undefined;
  try {
    const relays = await RelayServer.start(writeRelay(root));
    server = relays;
    // a client that cannot run one case (does not start, never launches the agent, never prompts)
    // cannot run the others either: report them instead of waiting for each to time out
    let stopped: string | undefined;
    // the first case of a version finds out whether the client speaks it; the others of that
    // version wait for it, so that a client that does not is launched once, not once per case
    const gates = new Map<1 | 2, VersionGate>();
    const results = await runEach(jobs, options.concurrency ?? 4, async ({ c, v }, i): Promise<CaseResult> => {
      let gate = gates.get(v);
      const first = !gate;
      if (!gate) gates.set(v, (gate = new VersionGate()));
      else await gate.known;
      // the first case of a version settles its gate on every way out (also when it is not run
      // because a case of the other version could not run): otherwise the others wait forever
      try {
        if (gate.unspoken !== undefined)
          return {
            name: c.name,
            title: c.title,
            ids: c.ids,
            protocol: v,
            status: 'not-applicable',
            reason: gate.unspoken,
            checks: [],
            ms: 0,
          };
        if (stopped)
          return {
            name: c.name,
            title: c.title,
            ids: c.ids,
            protocol: v,
            status: 'error',
            reason: `not run: ${stopped}`,
            checks: [],
            ms: 0,
          };
        const cwd = settings.processCwd ?? join(root, `case-${i}`);
        if (!settings.processCwd) mkdirSync(cwd);
        const onVersion = first ? (unspoken: string | undefined) => gate.settle(unspoken) : undefined;
        const result = await runClientCase(
          c,
          v,
          settings,
          relays,
          `${c.name}@v${v}#${i}-${Math.random().toString(36).slice(2, 10)}`,
          cwd,
          onVersion,
        );
        // before the gate settles (finally): the cases waiting on this one must see that it could not run
        if (result.status === 'error') stopped ??= `case ${result.name} (v${result.protocol}) could not run`;
        return result;
      } finally {
        if (first) gate.settle(undefined);
      }
    });
    const requirements = judge(results, options.protocols, wanted, skipped);
    // a case that ran may leave an ID unjudged (e.g. nothing pending to answer): not checked
    for (const r of results) {
      for (const id of r.ids) {
        if (!wanted(id) || otherVersionId(id, r.protocol)) continue;
        if (!requirements.some((x) => x.id === id && x.protocol === r.protocol))
          requirements.push({
            ...requirement(id),
            protocol: r.protocol,
            status: 'not-checked',
            failures: [],
            cases: [r.name],
          });
      }
    }
    requirements.sort((a, b) => a.protocol - b.protocol || a.id.localeCompare(b.id));
    const conformant =
      !requirements.some((r) => r.status === 'fail' && r.tier === 'MUST') && !results.some((r) => r.status === 'error');
    return { protocols: options.protocols, cases: results, requirements, conformant, ms: Date.now() - started };
  } finally {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** Whether the client speaks one version, once the first case of that version has found out. */
class VersionGate {
  /** Why the client does not speak the version (undefined: it does, or it is not known). */
  unspoken: string | undefined;
  readonly known: Promise<void>;
  private open!: () => void;
  private settled = false;
  constructor() {
    this.known = new Promise((resolve) => (this.open = resolve));
  }
  /** The first word wins: the case that found out, or its end (then the others find out themselves). */
  settle(unspoken: string | undefined): void {
    if (this.settled) return;
    this.settled = true;
    this.unspoken = unspoken;
    this.open();
  }
}

function runClientCase(
  c: ClientCase,
  v: 1 | 2,
  settings: ClientCheckSettings,
  source: ConnectionSource,
  token: string,
  cwd: string,
  onVersion?: (unspoken: string | undefined) => void,
): Promise<CaseResult> {
  const started = Date.now();
  const ctx = new ClientCaseContext(settings, v, token, source, cwd);
  if (onVersion) ctx.onVersion = onVersion;
  return runCaseWith(c, v, CLIENT_WIRE_IDS, {
    started,
    run: () => withinLimit(c.run(ctx), settings.caseLimitMs ?? 6 * settings.timeoutMs),
    thrown: (e) => {
      if (e instanceof ClientLaunchError) return e.message;
      const msg = `${e instanceof Error ? e.message : String(e)}${ctx.exited ? ` (the client ended: ${ctx.describeExit()})${ctx.stderrTail()}` : ''}`;
      const last = ctx.peer?.transcript.at(-1)?.seq;
      ctx.fail(stepFailureId(c, v), msg, last !== undefined ? [last] : []);
      return undefined;
    },
    dispose: () => ctx.dispose(),
    checks: () => {
      const peer = ctx.peer;
      return [
        ...ctx.checks,
        ...(peer
          ? peer.findings.map((f) => ({
              id: f.id,
              ok: false,
              message: f.message,
              excerpt: excerptOf(peer.transcript, f.seqs),
            }))
          : []),
      ];
    },
    stderr: () => ctx.stderr,
  });
}

/**
 * `work`, or a {@link ClientLaunchError} once `ms` have passed: the case is then reported as an
 * error with the limit, and its dispose stops the client (which ends what `work` waits on).
 */
async function withinLimit(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ClientLaunchError(
            `the case did not end within ${ms} ms (the client never finished it); the client was stopped`,
          ),
        ),
      ms,
    );
  });
  try {
    await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
    // `work` may still settle after the limit: its outcome no longer matters
    work.catch(() => undefined);
  }
}
