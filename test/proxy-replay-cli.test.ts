// acp-kit replay as real processes: a run of the built-in agent is recorded through the proxy, then
// replayed to acp-kit's client (--as agent) and to a fresh built-in agent (--as client); and issue 10's
// round trip on that recording: replayed both ways, `acp-kit diff` finds no differences but timing.
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCapture, type CaptureFrame } from '../packages/tools/src/proxy/index.js';
import { BIN, FIXTURES, cliEnv, ndjson, tempDir } from './fixtures/cli-helpers.js';
import { useCli } from './support/cli.js';

const node = process.execPath;
const PROMPT = 'create notes.txt containing hello';
const cli = useCli();

/**
 * What a replay must reproduce, ignoring ids and timing: (direction, kind, method) per frame.
 * (One place to switch to `acp-kit diff` once it exists.)
 */
function shape(frames: CaptureFrame[]): string[] {
  return frames.map((f) => `${f.dir} ${f.kind} ${f.method ?? ''}`.trim());
}

/** The kind of the option the editor side picked for the (only) permission request of `frames`. */
function permissionAnswerKind(frames: CaptureFrame[]): string | undefined {
  const ask = frames.find((f) => f.method === 'session/request_permission');
  if (!ask) throw new Error('the capture has no session/request_permission');
  const options = JSON.parse(ask.raw).params.options as Array<{ optionId: string; kind: string }>;
  const answer = JSON.parse(
    frames.find((f) => f.dir === 'editor->agent' && f.kind === 'response' && f.id === ask.id)!.raw,
  );
  return options.find((o) => o.optionId === answer.result.outcome.optionId)?.kind;
}

type Recording = {
  dir: string;
  ws: string;
  capture: string;
  transcript: Array<Record<string, unknown>>;
  env: NodeJS.ProcessEnv;
};
const recordings = new Map<1 | 2, Promise<Recording>>();
/**
 * One recording per protocol version for the whole file (three processes and a full turn each): the
 * tests only read the capture; what a replay writes goes to its own folders (see {@link fresh}).
 */
function record(version: 1 | 2): Promise<Recording> {
  let r = recordings.get(version);
  if (!r) recordings.set(version, (r = recordRun(version)));
  return r;
}
let freshCount = 0;
/** A new workspace, capture path and data dir for one replay against the shared recording `rec`. */
function fresh(rec: Recording): { ws: string; out: string; env: NodeJS.ProcessEnv } {
  const dir = join(rec.dir, `replay-${++freshCount}`);
  const ws = join(dir, 'ws');
  mkdirSync(ws, { recursive: true });
  return { ws, out: join(dir, 'again.ndjson'), env: cliEnv({ ACP_KIT_DATA_DIR: join(dir, 'data') }) };
}

/** Records `acp-kit run --json` against the built-in agent through `proxy --record`. */
async function recordRun(version: 1 | 2): Promise<Recording> {
  const dir = tempDir(`replay-v${version}`);
  const ws = join(dir, 'ws');
  mkdirSync(ws);
  const capture = join(dir, 'cap.ndjson');
  const env = cliEnv({ ACP_KIT_DATA_DIR: join(dir, 'data') });
  const agent = `${node} ${BIN} proxy --record ${capture} -- ${node} ${BIN} agent --model demo`;
  const r = await cli(
    ['run', '--json', '--protocol', String(version), '--approve-all', '--cwd', ws, '--agent', agent, PROMPT],
    { env },
  );
  expect(r.stderr).not.toMatch(/error/i);
  expect(r.code).toBe(0);
  return { dir, ws, capture, transcript: ndjson(r.stdout), env };
}

describe('acp-kit replay --as client: permission answers', () => {
  // `--permission recorded` (allow_once here) is checked by the round-trip test below (its replay D)
  it.each([['reject', 'reject_once']] as const)(
    '--permission %s answers the live permission request with the %s option',
    async (policy, kind) => {
      const rec = await record(2);
      const { ws: ws2, out, env } = fresh(rec);
      const r = await cli(
        [
          'replay',
          rec.capture,
          '--as',
          'client',
          '--permission',
          policy,
          '--cwd',
          ws2,
          '--record',
          out,
          '--',
          node,
          BIN,
          'agent',
          '--model',
          'demo',
        ],
        { env },
      );
      expect(r.code).toBe(0);
      const { frames } = await readCapture(out);
      expect(permissionAnswerKind(frames)).toBe(kind);
    },
  );
});

describe('acp-kit replay: divergence and bad input', () => {
  it('--as client: an agent that answers with an error where the recording has a result: exit 1, the frame named on stderr', async () => {
    const dir = tempDir('replay-diverge');
    const cap = join(dir, 'cap.ndjson');
    const lines = [
      {
        type: 'header',
        format: 'acp-kit-capture',
        formatVersion: 1,
        acpKit: '0.1.0',
        agent: ['x'],
        start: new Date(0).toISOString(),
      },
      {
        seq: 1,
        t: 0,
        dir: 'editor->agent',
        kind: 'request',
        method: 'initialize',
        id: 0,
        raw: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: 1, clientCapabilities: {} },
        }),
      },
      {
        seq: 2,
        t: 1,
        dir: 'agent->editor',
        kind: 'response',
        id: 0,
        raw: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          result: { protocolVersion: 1, agentCapabilities: { loadSession: true }, authMethods: [] },
        }),
      },
      {
        seq: 3,
        t: 2,
        dir: 'editor->agent',
        kind: 'request',
        method: 'session/load',
        id: 1,
        raw: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'session/load',
          params: { sessionId: 'sess_gone', cwd: dir, mcpServers: [] },
        }),
      },
      {
        seq: 4,
        t: 3,
        dir: 'agent->editor',
        kind: 'response',
        id: 1,
        raw: JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }),
      },
    ];
    writeFileSync(cap, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    // any agent that errs there will do: the hand-written one (no CLI to start) has no session/load
    const r = await cli(['replay', cap, '--as', 'client', '--', node, join(FIXTURES, 'cli-raw-v1-agent.mjs')], {
      env: cliEnv({ ACP_KIT_DATA_DIR: join(dir, 'data') }),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /the agent answered session\/load \(frame 3\) with an error .*; the recording has a result at frame 4/,
    );
  });

  it('--as client: a wait that times out at the end of the recording names the last frame, not frame 0', async () => {
    const dir = tempDir('replay-end-timeout');
    const cap = join(dir, 'cap.ndjson');
    const frame = (seq: number, dir: string, kind: string, msg: Record<string, unknown>) => ({
      seq,
      t: seq,
      dir,
      kind,
      ...('method' in msg ? { method: msg.method } : {}),
      id: msg.id,
      raw: JSON.stringify({ jsonrpc: '2.0', ...msg }),
    });
    const lines = [
      {
        type: 'header',
        format: 'acp-kit-capture',
        formatVersion: 1,
        acpKit: '0.1.0',
        agent: ['x'],
        start: new Date(0).toISOString(),
      },
      frame(1, 'editor->agent', 'request', {
        id: 0,
        method: 'initialize',
        params: { protocolVersion: 1, clientCapabilities: {} },
      }),
      frame(2, 'agent->editor', 'response', {
        id: 0,
        result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] },
      }),
      frame(3, 'editor->agent', 'request', { id: 1, method: 'session/new', params: { cwd: dir, mcpServers: [] } }),
      frame(4, 'agent->editor', 'response', { id: 1, result: { sessionId: 'raw-s1' } }),
      // "wait" keeps the hand-written agent's turn open: the recorded answer never comes live
      frame(5, 'editor->agent', 'request', {
        id: 2,
        method: 'session/prompt',
        params: { sessionId: 'raw-s1', prompt: [{ type: 'text', text: 'wait' }] },
      }),
      frame(6, 'agent->editor', 'response', { id: 2, result: { stopReason: 'end_turn' } }),
    ];
    writeFileSync(cap, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const r = await cli(
      ['replay', cap, '--as', 'client', '--timeout', '1', '--', node, join(FIXTURES, 'cli-raw-v1-agent.mjs')],
      { env: cliEnv({ ACP_KIT_DATA_DIR: join(dir, 'data') }) },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('waited 1 s at the end of the recording for the answer to session/prompt (frame 5)');
    expect(r.stderr).toMatch(/diverged at frame 6: /);
    expect(r.stderr).not.toMatch(/frame 0/);
  });

  it('--as client: a v2 recording against a v1 agent (official SDK) says version mismatch and exits 10, not a timeout', async () => {
    const rec = await record(2);
    const { ws: ws2, env } = fresh(rec);
    const r = await cli(
      [
        'replay',
        rec.capture,
        '--as',
        'client',
        '--timeout',
        '30',
        '--cwd',
        ws2,
        '--',
        node,
        join(FIXTURES, 'cli-sdk-agent.mjs'),
      ],
      { env },
    );
    expect(r.stderr).toMatch(
      /version mismatch: the recording speaks ACP v2, the live agent answered initialize \(frame 1\) with v1/,
    );
    expect(r.stderr).not.toMatch(/timeout|waited/);
    expect(r.code).toBe(10);
  });

  it('--as agent: a client request that does not match gets a JSON-RPC error naming the expected method and frame, and a stderr line', async () => {
    const rec = await record(1);
    const init = JSON.parse((await readCapture(rec.capture)).frames[0]!.raw);
    const input =
      [
        JSON.stringify({ ...init, id: 'i' }),
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'x',
          method: 'session/load',
          params: { sessionId: 's', cwd: rec.ws, mcpServers: [] },
        }),
      ].join('\n') + '\n';
    const r = await cli(['replay', rec.capture, '--as', 'agent', '--fast'], { env: fresh(rec).env, input });
    const out = ndjson(r.stdout);
    expect(out[0]).toMatchObject({ id: 'i', result: { protocolVersion: 1 } });
    expect(out[1]).toEqual({
      jsonrpc: '2.0',
      id: 'x',
      error: {
        code: -32050,
        message: 'replay: expected session/new at frame 3, got session/load',
        data: { expected: 'session/new', frame: 3, got: 'session/load' },
      },
    });
    expect(r.stderr).toContain('acp-kit replay: expected session/new at frame 3, got session/load');
    expect(r.code).toBe(1);
  });

  it('a garbage capture, a capture with only a torn line, a missing file, no --as: exit 2 with a clear message, no crash', async () => {
    const dir = tempDir('replay-bad');
    const garbage = join(dir, 'garbage.ndjson');
    writeFileSync(garbage, 'this is not a capture\n\x00\x01\n');
    const torn = join(dir, 'torn.ndjson');
    writeFileSync(
      torn,
      JSON.stringify({
        type: 'header',
        format: 'acp-kit-capture',
        formatVersion: 1,
        acpKit: '0.1.0',
        agent: ['x'],
        start: new Date(0).toISOString(),
      }) + '\n',
    );
    appendFileSync(torn, '{"seq":1,"t":0.5,"dir":"editor->ag');
    const cases: Array<[string[], RegExp]> = [
      [['replay', garbage, '--as', 'agent'], /line 1 is not JSON; expected an acp-kit capture/],
      [['replay', torn, '--as', 'agent'], /no JSON-RPC frames to replay \(1 unreadable line skipped\)/],
      [['replay', join(dir, 'missing.ndjson'), '--as', 'client', '--', 'true'], /no such capture file/],
      [['replay', torn], /--as/],
      [['replay', torn, '--as', 'client'], /--as client needs the agent command/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(args, { input: '' });
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/internal error|at .*\.js:\d+/);
    }
  });
});

// Issue 10's round trip, as real processes: the recording A above (`acp-kit proxy --record A` in front of
// the built-in agent), replayed both ways (`replay A --as client --record B -- acp-kit agent`, and a client
// recorded through a proxy in front of `replay A --as agent`, capture C), and `acp-kit diff` finds no
// differences but timing. Every replay uses the recording's workspace, emptied as it was before the
// recorded run, so the sessions are the same sessions; a run in another workspace is a real difference,
// and diff reports it.
// The same invocations check what each replay direction must reproduce (one process set serves both,
// a replay costs two or three CLI processes): C's `acp-kit run` transcript against the recorded one
// (`--as agent`), D's capture frame by frame against A (`--as client --record` in another workspace).
describe.each([1, 2] as const)('record, replay both ways, diff: protocol v%s', (version) => {
  it('diff A B (replay --as client) and diff A C (replay --as agent behind a recording proxy) exit 0: no differences but timing; C reproduces the recorded transcript; D (--as client --record, another --cwd) has the frames of A, answers the permission as recorded and exits 0', async () => {
    const rec = await record(version);
    const { ws, capture: A, env } = rec;
    const dir = join(rec.dir, 'round-trip');
    mkdirSync(dir);
    /** The workspace as it was before the recorded run: empty. */
    const freshWorkspace = () => {
      rmSync(ws, { recursive: true, force: true });
      mkdirSync(ws);
    };
    const run = (args: string[]) => cli(args, { env });
    const [B, C, D] = ['B', 'C', 'D'].map((n) => join(dir, `${n}.ndjson`));

    // the recorded run did something worth comparing
    const types = rec.transcript.map((e) =>
      e.type === 'update' ? ((e.update as { sessionUpdate?: string }).sessionUpdate ?? 'update') : e.type,
    );
    expect(types).toEqual(
      expect.arrayContaining([
        'connection',
        'session',
        'agent_message_chunk',
        'tool_call_update',
        'permission',
        'result',
      ]),
    );
    expect(rec.transcript.at(-1)).toMatchObject({ type: 'result', stopReason: 'end_turn', exitCode: 0 });

    freshWorkspace();
    const b = await run(['replay', A, '--as', 'client', '--record', B, '--', node, BIN, 'agent', '--model', 'demo']);
    expect(b.code).toBe(0);
    const ab = await run(['diff', A, B]);
    expect(ab.stdout).toContain('no differences (timing aside)');
    expect(ab.code).toBe(0);

    freshWorkspace();
    // --as agent, recorded timing (the default): the client sees the recorded gaps, as it saw them live
    const c = await run([
      'run',
      '--json',
      '--protocol',
      String(version),
      '--approve-all',
      '--cwd',
      ws,
      '--agent',
      `${node} ${BIN} proxy --record ${C} -- ${node} ${BIN} replay ${A} --as agent`,
      PROMPT,
    ]);
    expect(c.code).toBe(0);
    // acp-kit run against the replayed agent prints the transcript of the recorded run (messages, tool
    // call, permission, stop reason): the same events, only the agent command line of the connection
    // event differs; the client's own echo of the prompt (emitted when it sends the prompt) may land
    // before or after an agent update already in flight, so it is compared apart from the agent's
    // ordered stream (v1 also: the client's emulated v2 state_update events, derived from its own prompt lifetime)
    const isLocalEcho = (e: Record<string, unknown>) => {
      const u = e.update as { messageId?: unknown; sessionUpdate?: unknown } | undefined;
      return String(u?.messageId ?? '').startsWith('_local_') || (version === 1 && u?.sessionUpdate === 'state_update');
    };
    const split = (events: Array<Record<string, unknown>>) => {
      const rest = events.map(({ agent: _agent, ...e }) => e);
      return { ordered: rest.filter((e) => !isLocalEcho(e)), local: rest.filter(isLocalEcho) };
    };
    const replayed = split(ndjson(c.stdout));
    const recorded = split(rec.transcript);
    expect(replayed.ordered).toEqual(recorded.ordered);
    expect(replayed.local).toEqual(recorded.local);
    expect(recorded.local.length).toBeGreaterThanOrEqual(version === 1 ? 2 : 0); // v2 agents send these themselves
    expect(ndjson(c.stdout)[0]!.agent).toEqual([
      node,
      BIN,
      'proxy',
      '--record',
      C,
      '--',
      node,
      BIN,
      'replay',
      A,
      '--as',
      'agent',
    ]);
    const ac = await run(['diff', A, C]);
    expect(ac.stdout).toContain('no differences (timing aside)');
    expect(ac.code).toBe(0);

    // the same replay in another workspace: the paths differ, and diff says where.
    // v2 passes --permission recorded, v1 relies on it being the default: both answer the live
    // permission request as the recording did
    const ws2 = join(dir, 'ws2');
    mkdirSync(ws2);
    const permission = version === 2 ? ['--permission', 'recorded'] : [];
    const d = await run([
      'replay',
      A,
      '--as',
      'client',
      ...permission,
      '--cwd',
      ws2,
      '--record',
      D,
      '--',
      node,
      BIN,
      'agent',
      '--model',
      'demo',
    ]);
    expect(d.stderr).toContain('done:');
    expect(d.code).toBe(0);
    const [a, dCap] = await Promise.all([readCapture(A), readCapture(D)]);
    expect(shape(dCap.frames)).toEqual(shape(a.frames));
    expect(dCap.metas).toContainEqual(expect.objectContaining({ protocolVersion: version }));
    // the live session id went into the prompt, the recorded cwd was mapped onto --cwd
    const sessionOf = (frames: CaptureFrame[]) =>
      JSON.parse(
        frames.find(
          (f) =>
            f.dir === 'agent->editor' &&
            f.id === frames.find((x) => x.method === 'session/new')!.id &&
            f.kind === 'response',
        )!.raw,
      ).result.sessionId as string;
    const liveSession = sessionOf(dCap.frames);
    expect(liveSession).not.toBe(sessionOf(a.frames));
    expect(JSON.parse(dCap.frames.find((f) => f.method === 'session/prompt')!.raw).params.sessionId).toBe(liveSession);
    expect(JSON.parse(dCap.frames.find((f) => f.method === 'session/new')!.raw).params.cwd).toBe(ws2);
    expect(permissionAnswerKind(dCap.frames)).toBe('allow_once');
    const ad = await run(['diff', A, D]);
    expect(ad.code).toBe(1);
    expect(ad.stdout).toContain(`params.cwd: ${JSON.stringify(ws)} -> ${JSON.stringify(ws2)}`);
  }, 90_000);
});
