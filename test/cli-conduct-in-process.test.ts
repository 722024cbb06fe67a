// `acp-kit conduct --component <module>`: in-process components named on the command line. One real chain
// (the option form, the segment form and a command component mixed) driven by `acp-kit run`, its trace read
// back; a module that would start itself on the conductor's stdio refused by a real conductor (exit 2, no
// stack); the other bad modules and segments in process (usage errors: nothing of the chain starts).
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCapture } from '../packages/tools/src/proxy/index.js';
import { BIN, cliEnv, runCli, tempDir } from './fixtures/cli-helpers.js';
import { runCliInProcess } from './fixtures/cli-in-process.js';
import { fixture, RawChild } from './support/raw-child.js';

const NODE = process.execPath;
const REDACT = resolve('examples/redact-secrets-component.mjs');
const NOTE = resolve('examples/system-note-component.mjs');
const SECRET = 'sk-abcdefghijk';
const AGENT = `${NODE} ${BIN} agent --model demo`;

it('--component before the chain and as a segment, beside a command component: the chain works and is traced per hop', async () => {
  const d = tempDir('conduct-inproc');
  const trace = join(d, 'chain.jsons');
  const capture = join(d, 'c.ndjson');
  // in process: the redactor (option form) and the note (segment form); between them `acp-kit record` as a process
  const chain = `${NODE} ${BIN} conduct --trace ${trace} --component ${REDACT} -- ${NODE} ${BIN} record --out ${capture} -- --component ${NOTE} -- ${AGENT}`;
  const r = await runCli(['run', '--protocol', '1', '--approve-all', '--agent', chain, `say ${SECRET} please`], {
    cwd: d,
    env: cliEnv({ SYSTEM_NOTE: 'System note: in process.' }),
  });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain('System note: in process.');
  expect(r.stdout).toContain('say [REDACTED] please');
  expect(r.stdout).not.toContain(SECRET);
  // the trace as written: the RFD's proxy/initialize to each component, initialize to the agent
  const events = readFileSync(trace, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; from: string; to: string; method?: string });
  const inits = events.filter((e) => e.type === 'request' && /initialize$/.test(e.method ?? ''));
  expect(inits.map((e) => [e.from, e.to, e.method])).toEqual([
    ['Client', 'Proxy(0)', 'proxy/initialize'],
    ['Proxy(0)', 'Proxy(1)', 'proxy/initialize'],
    ['Proxy(1)', 'Proxy(2)', 'proxy/initialize'],
    ['Proxy(2)', 'Agent', 'initialize'],
  ]);
  const c = await readCapture(trace);
  expect(c.skipped).toEqual([]);
  // the recorder (a process between the two in-process components) saw the secret before the redactor
  const recorded = await readCapture(capture);
  expect(recorded.frames.some((f) => f.method === 'session/update' && f.raw.includes(SECRET))).toBe(true);
});

it('two in-process pass-through components: notifications cross both ways byte for byte and in order, a request between them is answered', async () => {
  const PASS = resolve('bench/pass-component.mjs');
  const c = new RawChild(BIN, [
    'conduct',
    '--component',
    PASS,
    '--',
    '--component',
    PASS,
    '--',
    NODE,
    fixture('conduct-echo-agent.mjs'),
  ]);
  try {
    c.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 2, clientCapabilities: {} } });
    expect(((await c.until((m) => m.id === 1)) as { result: { protocolVersion: number } }).result.protocolVersion).toBe(
      2,
    );
    // numbers JSON cannot hold as doubles, and the sender's spacing: only text forwarding keeps them
    const payloads = ['{ "n" : 12345678901234567890, "x": 1e400 }', '[ 0.10000000000000000001 ,{"t":"a\\u00e9"}]'];
    for (let k = 0; k < 20; k++) {
      c.write(`{"params":${payloads[k % 2] ?? ''},  "method":"_test/say","jsonrpc":"2.0"}\n`);
      if (k === 10) c.send({ jsonrpc: '2.0', id: 2, method: '_test/unknown', params: {} });
    }
    c.write('{"jsonrpc":"2.0","method":"_test/last"}\n');
    const lines: string[] = [];
    const done = (): boolean => lines.some((l) => l.includes('_test/last')) && lines.some((l) => l.includes('"id":2'));
    while (!done()) lines.push(await c.line());
    expect(lines.filter((l) => l.includes('"_test/said"'))).toEqual(
      Array.from({ length: 20 }, (_, k) => `{"jsonrpc":"2.0","method":"_test/said","params":${payloads[k % 2] ?? ''}}`),
    );
    // the agent read the notifications in order, the last one after all the others
    const echoes = lines.filter((l) => l.includes('_test/echo'));
    expect(echoes.length).toBeGreaterThanOrEqual(1);
    expect(lines.indexOf(echoes.at(-1) ?? '')).toBeGreaterThan(lines.findLastIndex((l) => l.includes('_test/said')));
    expect(JSON.parse(lines.find((l) => l.includes('"id":2')) ?? '{}')).toMatchObject({ error: { code: -32601 } });
  } finally {
    c.kill();
  }
});

it('a module that starts itself on stdio when imported: a real conductor exits 2 saying what to do, no stack', async () => {
  const r = await runCli(
    ['conduct', '--component', fixture('conduct-component-on-stdio.mjs'), '--', ...AGENT.split(' ')],
    {
      env: cliEnv(),
      input: '',
    },
  );
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(
    /component module .*conduct-component-on-stdio\.mjs could not be loaded: the module starts a component on stdio when it is imported/,
  );
  expect(r.stderr).toContain('runComponentIfMain(import' + '.meta.url, definition)');
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(r.stdout).toBe('');
});

describe('bad component modules and segments are usage errors (exit 2), naming what was expected', () => {
  const d = tempDir('conduct-bad-modules');
  const mod = (name: string, text: string): string => {
    const p = join(d, name);
    writeFileSync(p, text);
    return p;
  };
  const cases: Array<[string, string, RegExp]> = [
    ['a missing file', join(d, 'nope.mjs'), /component module .*nope\.mjs: no such file/],
    ['no default export', mod('named.mjs', 'export const x = 1;\n'), /named\.mjs: it has no default export/],
    [
      'a number',
      mod('number.mjs', 'export default 42;\n'),
      /number\.mjs: its default export is a number, not a component definition/,
    ],
    [
      'a function',
      mod('fn.mjs', 'export default () => ({});\n'),
      /fn\.mjs: its default export is a function, not a component definition/,
    ],
    [
      'a misspelt handler',
      mod('typo.mjs', 'export default { onPromt() {} };\n'),
      /typo\.mjs: its default export has a member "onPromt"/,
    ],
    [
      'a handler table of non-functions',
      mod('table.mjs', "export default { toAgent: { 'session/new': 1 } };\n"),
      /table\.mjs: its default export's toAgent\["session\/new"\] is not a function/,
    ],
    ['a syntax error', mod('broken.mjs', 'export default {\n'), /broken\.mjs could not be loaded: /],
  ];
  it.each(cases)('%s', async (_what, path, message) => {
    const r = await runCliInProcess(['conduct', '--component', path, '--', NODE, fixture('conduct-echo-agent.mjs')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain('export default defineComponent({ ... })');
  });

  it('a --component segment takes exactly one module; the agent must be a command', async () => {
    const two = await runCliInProcess(['conduct', '--', '--component', NOTE, 'extra', '--', NODE, 'agent.mjs']);
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/--component takes one module, got 2 word\(s\)/);
    const agent = await runCliInProcess(['conduct', '--', NODE, NOTE, '--', '--component', NOTE]);
    expect(agent.code).toBe(2);
    expect(agent.stderr).toMatch(/the agent must be a command, not --component /);
  });
});
