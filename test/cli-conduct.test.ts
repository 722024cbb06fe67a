// `acp-kit conduct`: a proxy chain (Proxy Chains RFD) of real processes over real pipes. A chain of three
// components (examples/redact-secrets-component.mjs, `acp-kit record`, examples/system-note-component.mjs)
// in front of the built-in agent, driven by `acp-kit run` on v1 and v2; its trace read back by our own
// reader; `record` and `validate` as components; a malformed proxy/successor answered -32602; nothing left
// running after SIGTERM of the conductor (checked in /proc).
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCapture } from '../packages/tools/src/proxy/index.js';
import { BIN, cliEnv, runCli, tempDir } from './fixtures/cli-helpers.js';
import { runCliInProcess } from './fixtures/cli-in-process.js';
import { alive, waitUntil } from './support/process.js';
import { fixture, RawChild } from './support/raw-child.js';

const NODE = process.execPath;
const REDACT = resolve('examples/redact-secrets-component.mjs');
const NOTE = resolve('examples/system-note-component.mjs');
const SECRET = 'sk-abcdefghijk';
const AGENT = `${NODE} ${BIN} agent --model demo`;

/** The lines of a `.jsons` trace. */
function traceEvents(path: string): Array<Record<string, any>> {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

/** Every process below `root` (children, their children, ...), from /proc. */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone meanwhile */
    }
  }
  const out: number[] = [];
  const todo = [root];
  while (todo.length > 0) {
    const p = todo.pop();
    for (const [pid, pp] of parent) {
      if (pp !== p) continue;
      out.push(pid);
      todo.push(pid);
    }
  }
  return out;
}

describe.each([1, 2] as const)('acp-kit run through conduct (redactor, recorder, system note), v%i', (v) => {
  it('the agent gets the note, the editor never sees the secret, every hop is traced and reads back', async () => {
    const d = tempDir('conduct');
    const trace = join(d, 'chain.jsons');
    const capture = join(d, 'recorder.ndjson');
    const chain = `${NODE} ${BIN} conduct --trace ${trace} -- ${NODE} ${REDACT} -- ${NODE} ${BIN} record --out ${capture} -- ${NODE} ${NOTE} -- ${AGENT}`;
    const r = await runCli(
      ['run', '--protocol', String(v), '--approve-all', '--agent', chain, `say ${SECRET} please`],
      {
        cwd: d,
        env: cliEnv({ SYSTEM_NOTE: 'System note: be brief.' }),
      },
    );
    expect(r.code, r.stderr).toBe(0);
    // the demo agent quotes the prompt it got: the note is in it, the secret is redacted on the way back
    expect(r.stdout).toContain('System note: be brief.');
    expect(r.stdout).toContain('say [REDACTED] please');
    expect(r.stdout).not.toContain(SECRET);

    const events = traceEvents(trace);
    // the RFD's conductor MUSTs: proxy/initialize to each component, initialize to the agent
    const inits = events.filter((e) => e.type === 'request' && /initialize$/.test(e.method));
    expect(inits.map((e) => [e.from, e.to, e.method, e.params.protocolVersion])).toEqual([
      ['Client', 'Proxy(0)', 'proxy/initialize', v],
      ['Proxy(0)', 'Proxy(1)', 'proxy/initialize', v],
      ['Proxy(1)', 'Proxy(2)', 'proxy/initialize', v],
      ['Proxy(2)', 'Agent', 'initialize', v],
    ]);
    const c = await readCapture(trace);
    expect(c.skipped).toEqual([]);
    const prompts = c.frames
      .filter((f) => f.method === 'session/prompt')
      .map((f) => [f.hop, JSON.parse(f.raw).params.prompt]);
    expect(prompts).toEqual([
      ['Client-Proxy(0)', [{ type: 'text', text: `say ${SECRET} please` }]],
      ['Proxy(0)-Proxy(1)', [{ type: 'text', text: `say ${SECRET} please` }]],
      ['Proxy(1)-Proxy(2)', [{ type: 'text', text: `say ${SECRET} please` }]],
      [
        'Proxy(2)-Agent',
        [
          { type: 'text', text: 'System note: be brief.' },
          { type: 'text', text: `say ${SECRET} please` },
        ],
      ],
    ]);
    const updatesWithSecret = (hop: string): number =>
      c.frames.filter((f) => f.hop === hop && f.method === 'session/update' && f.raw.includes(SECRET)).length;
    expect(updatesWithSecret('Proxy(0)-Proxy(1)')).toBeGreaterThan(0);
    expect(updatesWithSecret('Client-Proxy(0)')).toBe(0);

    // our tools read the trace and the recorder's capture, and find both clean: in this process (runMain),
    // as reading a file touches no process (~0.2 s of CPU saved per run; validate and stats run as real
    // processes in cli-json-every-command and proxy-capture-nothing)
    const validateTrace = await runCliInProcess(['validate', trace]);
    expect(validateTrace.stdout).toMatch(new RegExp(`^\\d+ frames, protocol v${v}: no violations\\n$`));
    const validateCapture = await runCliInProcess(['validate', capture]);
    expect(validateCapture.stdout, validateCapture.stderr).toMatch(
      new RegExp(`^\\d+ frames, protocol v${v}: no violations\\n$`),
    );
    const stats = await runCliInProcess(['stats', trace, '--json']);
    const hops = stats.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.type === 'stats')
      .map((l) => l.hop);
    expect(hops).toEqual(['Client-Proxy(0)', 'Proxy(0)-Proxy(1)', 'Proxy(1)-Proxy(2)', 'Proxy(2)-Agent']);
    // per-hop latency: the prompt's request-to-answer time on every hop, and what each hop adds over the next
    const hopLatency = stats.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((l) => l.type === 'hop-latency');
    const prompt = hopLatency.hops.filter((h: { method: string }) => h.method === 'session/prompt');
    expect(prompt.map((h: { hop: string }) => h.hop)).toEqual(hops);
    for (const [i, h] of prompt.entries()) {
      expect(h.latency.count).toBe(1);
      // each hop's answer comes back through the next one: never faster than it
      if (i < 3) expect(h.added.p50).toBeGreaterThanOrEqual(0);
      else expect(h.added).toBeNull();
    }
    expect(prompt[0].latency.p50).toBeGreaterThan(prompt[3].latency.p50);
    const text = await runCliInProcess(['stats', trace]);
    expect(text.stdout).toMatch(/^per-hop latency \(request to answer on each hop; added: over the next hop\):$/m);
    expect(text.stdout).toMatch(/^ {2}Proxy\(2\)-Agent +session\/prompt +1 +[\d.]+ +[\d.]+ +- +-$/m);
  });
});

it('acp-kit record and acp-kit validate run as components: conduct -- acp-kit record --out f -- acp-kit validate -- agent', async () => {
  const d = tempDir('conduct');
  const capture = join(d, 'c.ndjson');
  const chain = `${NODE} ${BIN} conduct -- ${NODE} ${BIN} record --out ${capture} -- ${NODE} ${BIN} validate -- ${AGENT}`;
  const r = await runCli(['run', '--protocol', '1', '--approve-all', '--verbose', '--agent', chain, 'list files'], {
    cwd: d,
  });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).not.toMatch(/violation/);
  const c = await readCapture(capture);
  expect(c.frames.filter((f) => f.kind === 'request').map((f) => f.method)).toEqual([
    'initialize',
    'session/new',
    'session/prompt',
  ]);
});

it('a malformed proxy/successor gets -32602 naming the field; SIGTERM of the conductor leaves no process of the chain running', async () => {
  const conductor = new RawChild(BIN, [
    'conduct',
    '--',
    NODE,
    fixture('conduct-probe-component.mjs'),
    '--',
    ...AGENT.split(' '),
  ]);
  try {
    conductor.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: 1, clientCapabilities: {} },
    });
    const init = await conductor.until((m) => m.id === 1);
    expect(init.result.protocolVersion).toBe(1);
    expect(init.result._meta.badErrors).toEqual([
      {
        code: -32602,
        message: "Invalid params: proxy/successor: params: must have required property 'method'",
        data: { path: 'params' },
      },
      {
        code: -32602,
        message: 'Invalid params: proxy/successor: params.params: must be an object or an array (JSON-RPC params)',
        data: { path: 'params.params' },
      },
    ]);
    const pid = conductor.child.pid ?? -1;
    const chain = descendants(pid);
    // the component, its sleep and the agent at least
    expect(chain).toContain(init.result._meta.sleeperPid);
    expect(chain.length).toBeGreaterThanOrEqual(3);
    conductor.child.kill('SIGTERM');
    await new Promise((r) => conductor.child.once('exit', r));
    await waitUntil(
      () => chain.every((p) => !alive(p)),
      10_000,
      `every process of the chain (${chain.join(', ')}) is gone`,
    );
    expect(chain.filter(alive)).toEqual([]);
  } finally {
    conductor.kill();
  }
});
