import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NotApplicable } from '../case.js';
import { WaitTimeout } from '../driver.js';
import { judge, matchesId, type CaseResult, type CheckRun } from '../runner.js';
import { requirement } from '../requirements.js';
import { CLIENT_CASES } from './cases.js';
import { ClientCaseContext, ClientLaunchError, excerptOf, type ClientCase, type ClientCheckSettings, type ConnectionSource } from './context.js';
import { ClientPeer } from './peer.js';
import { shellJoin, writeRelay } from './relay.js';

/** Which client cases to run and how. */
export interface ClientRunOptions {
  /** The versions the scripted agent plays (v2 cases need a client that offers 2). */
  protocols: Array<1 | 2>;
  only?: readonly string[];
  skip?: readonly string[];
  /** Cases at once (each is one launch of the client). */
  concurrency?: number;
  cases?: readonly ClientCase[];
}

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
  const only = options.only ?? [];
  const skip = options.skip ?? [];
  const wanted = (id: string) => (only.length === 0 || only.some((p) => matchesId(id, p))) && !skip.some((p) => matchesId(id, p));
  const jobs: Array<{ c: ClientCase; v: 1 | 2 }> = [];
  for (const v of options.protocols) {
    for (const c of options.cases ?? CLIENT_CASES) {
      if (!c.protocols.includes(v)) continue;
      if (only.length > 0 && !c.ids.some(wanted) && !CLIENT_WIRE_IDS.some(wanted) && !wanted(`schema/v${v}`)) continue;
      jobs.push({ c, v });
    }
  }
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'acp-kit-check-client-')));
  let server: RelayServer | undefined;
  try {
    server = await RelayServer.start(writeRelay(root));
    const results: CaseResult[] = new Array(jobs.length);
    let next = 0;
    // a client that cannot run one case (does not start, never launches the agent, never prompts)
    // cannot run the others either: report them instead of waiting for each to time out
    let stopped: string | undefined;
    const worker = async () => {
      while (next < jobs.length) {
        const i = next++;
        if (stopped) {
          results[i] = { name: jobs[i]!.c.name, title: jobs[i]!.c.title, ids: jobs[i]!.c.ids, protocol: jobs[i]!.v, status: 'error', reason: `not run: ${stopped}`, checks: [], ms: 0 };
          continue;
        }
        const cwd = settings.processCwd ?? join(root, `case-${i}`);
        if (!settings.processCwd) mkdirSync(cwd);
        results[i] = await runClientCase(jobs[i]!.c, jobs[i]!.v, settings, server!, `${jobs[i]!.c.name}@v${jobs[i]!.v}#${i}-${Math.random().toString(36).slice(2, 10)}`, cwd);
        if (results[i]!.status === 'error') stopped ??= `case ${results[i]!.name} (v${results[i]!.protocol}) could not run`;
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, worker));
    const requirements = judge(results, options.protocols, wanted);
    // a case that ran may leave an ID unjudged (e.g. nothing pending to answer): not checked
    for (const r of results) {
      for (const id of r.ids) {
        if (!wanted(id) || id.startsWith(r.protocol === 1 ? 'ACP-V2-' : 'ACP-V1-')) continue;
        if (!requirements.some((x) => x.id === id && x.protocol === r.protocol)) requirements.push({ ...requirement(id), protocol: r.protocol, status: 'not-checked', failures: [], cases: [r.name] });
      }
    }
    requirements.sort((a, b) => a.protocol - b.protocol || a.id.localeCompare(b.id));
    const conformant = !requirements.some((r) => r.status === 'fail' && r.tier === 'MUST') && !results.some((r) => r.status === 'error');
    return { protocols: options.protocols, cases: results, requirements, conformant, ms: Date.now() - started };
  } finally {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  }
}

async function runClientCase(c: ClientCase, v: 1 | 2, settings: ClientCheckSettings, source: ConnectionSource, token: string, cwd: string): Promise<CaseResult> {
  const t0 = Date.now();
  const ctx = new ClientCaseContext(settings, v, token, source, cwd);
  let status: CaseResult['status'] = 'ran';
  let reason: string | undefined;
  try {
    await c.run(ctx);
  } catch (e) {
    if (e instanceof NotApplicable) {
      status = 'not-applicable';
      reason = e.message;
    } else if (e instanceof ClientLaunchError) {
      status = 'error';
      reason = e.message;
    } else {
      // a step the client never completed fails the case's first requirement for this version
      const id = c.ids.find((x) => !x.startsWith(v === 1 ? 'ACP-V2-' : 'ACP-V1-')) ?? `schema/v${v}`;
      const msg = `${e instanceof WaitTimeout || e instanceof Error ? e.message : String(e)}${ctx.exited ? ` (the client ended: ${ctx.describeExit()})${ctx.stderrTail()}` : ''}`;
      const last = ctx.peer?.transcript.at(-1)?.seq;
      ctx.fail(id, msg, last !== undefined ? [last] : []);
    }
  } finally {
    await ctx.dispose();
  }
  const checks = [...ctx.checks];
  for (const f of ctx.peer?.findings ?? []) checks.push({ id: f.id, ok: false, message: f.message, excerpt: excerptOf(ctx.peer!.transcript, f.seqs) });
  if (status === 'ran') for (const id of [...CLIENT_WIRE_IDS, `schema/v${v}`]) checks.push({ id, ok: true });
  const failed = checks.some((x) => !x.ok) || status === 'error';
  return { name: c.name, title: c.title, ids: c.ids, protocol: v, status, reason, checks, ms: Date.now() - t0, stderr: failed ? ctx.stderr.slice(-2000) || undefined : undefined };
}
