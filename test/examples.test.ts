// The examples in examples/ run as real processes over real pipes, importing the package by its
// own name (`acp-kit/agent`, ...: self-reference through package.json `exports`, so they need
// `npm run build`). Their printed output is asserted on, and the echo agent's wire traffic is
// checked against the official schema of each protocol version.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../packages/client/src/index.js';
import { approveAll } from '../packages/client/src/services/permission-policy.js';
import { getValidator } from '../packages/protocol/src/validation/index.js';
import { createSchemaTap } from './support/schema-tap.js';

const EXAMPLES = resolve('examples');
const CLIENT = resolve(EXAMPLES, 'client.mjs');
const ECHO = resolve(EXAMPLES, 'echo-agent.mjs');
const TRANSCRIPT = resolve(EXAMPLES, 'v1-to-v2-transcript.mjs');
const CUSTOM_MODEL = resolve(EXAMPLES, 'custom-model-agent.mjs');
// the echo agent keeps sessions in the default on-disk store: here, never in the user's data folder
const DATA = mkdtempSync(join(tmpdir(), 'acp-kit-examples-data-'));
const ENV = { ...process.env, ACP_KIT_DATA_DIR: DATA };
afterAll(() => rmSync(DATA, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node <script> ...args` from the package root (as a user would) and collects its output. */
function run(
  script: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
  timeoutMs = 15_000,
): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: opts.cwd ?? resolve('.'),
      env: opts.env ?? ENV,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(
        new Error(
          `${script} ${args.join(' ')} did not exit within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`,
        ),
      );
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/** The `[tool] <title>: <status>` lines the client prints, statuses only. */
function toolStatuses(stdout: string): string[] {
  return [...stdout.matchAll(/^\[tool\] Echo the prompt: (\S+)$/gm)].map((m) => m[1]);
}

beforeAll(() => {
  // the examples import `acp-kit/*`, which resolves to dist/ through package.json `exports`
  expect(
    existsSync(resolve('dist/entries/agent.js')) && existsSync(resolve('packages/client/dist/bundle/index.js')),
    'run `npm run build` first',
  ).toBe(true);
});

describe.each([1, 2] as const)('examples/client.mjs + examples/echo-agent.mjs over v%i', (v) => {
  // v2 is asked for by the default `--protocol auto`, which must negotiate v2 with the echo agent
  // (the other v2 runs below pass `--protocol 2`)
  it(`echoes the prompt, shows the plan and the approved tool call, ends end_turn${v === 2 ? ' (auto negotiates v2)' : ''}`, async () => {
    const prompt = `hello from the v${v} test, ${'with a longer tail '.repeat(2)}end`;
    const r = await run(CLIENT, [...(v === 1 ? ['--protocol', '1'] : []), '--prompt', prompt]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^protocol: ${v}$`, 'm'));
    expect(r.stdout).toMatch(/^agent: echo-agent 0\.1\.0$/m);
    // streamed in 8-character chunks, reassembled from the state store on one line
    expect(r.stdout).toContain(`\nYou said: ${prompt}\n`);
    expect(toolStatuses(r.stdout)).toEqual(['pending', 'in_progress', 'completed']);
    expect(r.stdout).toMatch(/^\[plan\] \[>\] Echo the prompt back {2}\[ \] Finish the turn$/m);
    expect(r.stdout).toMatch(/^\[plan\] \[x\] Echo the prompt back {2}\[x\] Finish the turn$/m);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('stop reason: end_turn');
  });

  it('a rejected permission fails the tool call and echoes nothing', async () => {
    const r = await run(CLIENT, ['--protocol', String(v), '--policy', 'deny-all', '--prompt', 'secret words']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Permission rejected: nothing echoed.');
    expect(r.stdout).not.toContain('secret words');
    expect(toolStatuses(r.stdout)).toEqual(['pending', 'failed']);
    expect(r.stdout).toMatch(/^stop reason: end_turn$/m);
  });

  it('cancellation mid-stream (ACP-V1-CANCEL-05, ACP-V2-CANCEL-05): the agent stops and the turn ends cancelled', async () => {
    const prompt = 'this reply is streamed slowly enough to be cancelled long before its end';
    const r = await run(CLIENT, [
      '--protocol',
      String(v),
      '--cancel-after-chars',
      '1',
      '--prompt',
      prompt,
      '--',
      process.execPath,
      ECHO,
      '--chunk-delay',
      '200',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^You said/m);
    expect(r.stdout).not.toContain(prompt);
    expect(r.stdout).toMatch(/^stop reason: cancelled$/m);
    // the client marks the call cancelled locally, then the agent's final update arrives
    // (v1 has no `cancelled` tool status: the codec sends `failed`)
    expect(toolStatuses(r.stdout)).toEqual(['pending', 'in_progress', 'cancelled', ...(v === 1 ? ['failed'] : [])]);
    expect(r.stdout).not.toContain('completed');
  });
});

describe('examples/client.mjs', () => {
  it('drives another agent given after `--` (a v1-only agent written with the official SDK)', async () => {
    const r = await run(CLIENT, [
      '--prompt',
      'ping',
      '--',
      process.execPath,
      resolve('test/fixtures/client-sdk-agent-v1.mjs'),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^protocol: 1$/m);
    expect(r.stdout).toMatch(/^agent: sdk-v1-agent /m);
    expect(r.stdout).toContain('(ping)');
    expect(r.stdout).toMatch(/^stop reason: end_turn$/m);
  });

  it('reports an agent that cannot be started and exits non-zero', async () => {
    const r = await run(CLIENT, ['--', resolve('examples/no-such-agent')]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).not.toMatch(/^protocol:/m);
    expect(r.stderr).toMatch(/^client: .*agent command not found: .*no-such-agent$/m);
  });
});

describe.each([1, 2] as const)('examples/echo-agent.mjs on the wire (v%i)', (v) => {
  it('every message in both directions matches the official schema, permission request included', async () => {
    const tap = createSchemaTap(v);
    const requests: string[] = [];
    const conn = await connect({
      command: process.execPath,
      args: [ECHO, '--chunk-delay', '0'],
      env: ENV,
      protocol: v,
      permissionPolicy: approveAll(),
      tap: {
        sent: (m) => tap.clientSide.sent(m),
        received: (m) => {
          tap.clientSide.received(m);
          const method = (m as { method?: unknown; id?: unknown }).method;
          if (typeof method === 'string' && (m as { id?: unknown }).id !== undefined) requests.push(method);
        },
      },
    });
    try {
      const s = await conn.newSession({ cwd: EXAMPLES });
      const r = await s.prompt('over the wire');
      expect(r.stopReason).toBe('end_turn');
      expect(s.state.messageList.filter((m) => m.role === 'agent').map((m) => m.text)).toEqual([
        'You said: over the wire',
      ]);
      expect([...s.state.toolCalls.values()].map((t) => [t.title, t.status])).toEqual([
        ['Echo the prompt', 'completed'],
      ]);
      expect(requests).toEqual(['session/request_permission']);
    } finally {
      await conn.close();
    }
    expect(tap.checked).toBeGreaterThan(10);
    tap.assertAllValid();
  });
});

describe('examples/v1-to-v2-transcript.mjs', () => {
  interface Row {
    neutral: { sessionUpdate: string };
    v1: Array<Record<string, unknown>>;
    v2: Array<Record<string, unknown>>;
  }

  let json: Run;
  beforeAll(async () => {
    json = await run(TRANSCRIPT, ['--json']);
  });

  it("--json: every wire form validates against its version's official schema", async () => {
    expect(json.code, json.stderr).toBe(0);
    const rows = JSON.parse(json.stdout) as Row[];
    expect(rows.length).toBeGreaterThanOrEqual(10);
    let checked = 0;
    for (const [i, row] of rows.entries()) {
      for (const v of [1, 2] as const) {
        for (const wire of row[`v${v}`]) {
          expect(
            getValidator(v).update(wire),
            `row ${i + 1} (${row.neutral.sessionUpdate}) v${v}: ${JSON.stringify(wire)}`,
          ).toBeNull();
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(rows.length);
  });

  it('--json: one model, two wire forms (tool_call first sighting, plans, state, diffs)', async () => {
    const rows = JSON.parse(json.stdout) as Row[];
    const kinds = (v: 1 | 2) => rows.map((row) => row[`v${v}`].map((w) => w.sessionUpdate).join(','));
    expect(rows.map((r) => r.neutral.sessionUpdate)).toContain('state_update');
    // v1 derives the state from the prompt request: no wire form (ACP-V2 state_update is v2 only)
    rows.forEach((row, i) => {
      if (row.neutral.sessionUpdate === 'state_update') {
        expect(row.v1, `row ${i + 1}`).toEqual([]);
        expect(row.v2.map((w) => w.sessionUpdate)).toEqual(['state_update']);
      }
    });
    expect(kinds(1)).toContain('tool_call');
    expect(kinds(2)).not.toContain('tool_call');
    expect(kinds(1)).toContain('plan');
    expect(kinds(2)).toContain('plan_update');
    const v2Diff = rows.flatMap((r) => r.v2).find((w) => w.sessionUpdate === 'tool_call_content_chunk') as {
      content: { type: string; patch: { format: string; text: string } };
    };
    expect(v2Diff.content).toMatchObject({ type: 'diff', patch: { format: 'git_patch' } });
    expect(v2Diff.content.patch.text).toMatch(/^diff --git \/project\/greet\.js \/project\/greet\.js\n/);
    const v1Diff = rows
      .flatMap((r) => r.v1)
      .find((w) => Array.isArray(w.content) && (w.content as Array<{ type: string }>)[0]?.type === 'diff');
    expect(v1Diff).toMatchObject({
      sessionUpdate: 'tool_call_update',
      content: [{ type: 'diff', path: '/project/greet.js', newText: 'console.log("hello");\n' }],
    });
  });

  it('prints the two wire forms in columns', async () => {
    const r = await run(TRANSCRIPT, []);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^ACP v1 +\| ACP v2$/);
    expect(lines).toContain(lines.find((l) => /^\(nothing on the wire\) +\| \{$/.test(l)));
    expect(
      lines.some((l) => /^ "sessionUpdate": "tool_call", +\| {2}"sessionUpdate": "tool_call_update",$/.test(l)),
    ).toBe(true);
  });
});

describe('docs/api.md snippets run against the built package', () => {
  // snippets are written inside the package folder so that `acp-kit/*` self-references resolve
  const dir = mkdtempSync(join(EXAMPLES, '.doc-snippets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const blocks = [...readFileSync(resolve('docs/api.md'), 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  const file = (name: string, code: string) => {
    const path = join(dir, name);
    writeFileSync(path, code);
    return path;
  };
  const snippet = (re: RegExp) => {
    const found = blocks.find((b) => re.test(b));
    expect(found, `no js snippet in docs/api.md matches ${re}`).toBeDefined();
    return found!;
  };

  it('the agent snippet serves the client snippet (the client renders the streamed text)', async () => {
    const agent = file('agent.mjs', snippet(/runAgentOnStdio\(\{/));
    const client = file(
      'client.mjs',
      `const render = (t) => console.log('render:' + t);\n${snippet(/await connect\(/).replace("'examples/echo-agent.mjs'", JSON.stringify(agent))}`,
    );
    const r = await run(client, []);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^protocol 2 echo-agent$/m);
    expect(r.stdout).toMatch(/^render:Hello $/m);
  });

  it("the permission snippet, inside a turn, asks and gets the policy's answer (v1 and v2)", async () => {
    const agent = file(
      'permission-agent.mjs',
      `import { runAgentOnStdio } from 'acp-kit/agent';
runAgentOnStdio({ info: { name: 'permission-agent', version: '1' }, async prompt(turn) {
${snippet(/requestPermission\(/)}
  await turn.send({ sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'text', text: 'answer=' + answer.optionId } });
  return 'end_turn';
} }, { store: null });
`,
    );
    for (const [v, policy, answer] of [
      [1, 'approve-all', 'allow'],
      [2, 'deny-all', 'reject'],
    ] as const) {
      const r = await run(CLIENT, ['--protocol', String(v), '--policy', policy, '--', process.execPath, agent]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`\nanswer=${answer}\n`);
    }
  });

  it('the custom-model snippet runs the coding agent with that model', async () => {
    const agent = file('model-agent.mjs', snippet(/createCodingAgent\(\{ model \}\)/));
    // runAgentOnStdio's default JsonlSessionStore writes under $ACP_KIT_DATA_DIR/agents/<info.name>
    const r = await run(CLIENT, ['--prompt', 'hi', '--', process.execPath, agent], {
      env: { ...process.env, ACP_KIT_DATA_DIR: join(dir, 'data') },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Hello! [1-9]\d* tools are available\.$/m);
    expect(r.stdout).toMatch(/^stop reason: end_turn$/m);
    expect(existsSync(join(dir, 'data', 'agents', 'acp-kit-coding-agent', 'sessions'))).toBe(true);
  });

  it('the codec and rpc snippets print what their comments say', async () => {
    const codec = await run(file('codec.mjs', snippet(/codecFor\(version\)/)), []);
    expect(codec.stdout.trim().split('\n')).toEqual(['1 tool_call null', '2 tool_call_update null']);
    const rpc = await run(file('rpc.mjs', snippet(/new JsonRpcPeer\(/)), []);
    expect(rpc.code, rpc.stderr).toBe(0);
    expect(rpc.stdout.trim()).toBe('1');
  });
});

describe('examples/custom-model-agent.mjs', () => {
  it.each([1, 2] as const)("the coding agent runs the custom LanguageModel's tool loop (v%i)", async (v) => {
    // the client opens its session in its cwd: a project with exactly two files
    const project = mkdtempSync(join(tmpdir(), 'acp-kit-example-project-'));
    try {
      writeFileSync(join(project, 'alpha.txt'), 'a');
      writeFileSync(join(project, 'beta.md'), 'b');
      const r = await run(
        CLIENT,
        ['--protocol', String(v), '--prompt', 'what is in here?', '--', process.execPath, CUSTOM_MODEL],
        { cwd: project },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^protocol: ${v}$`, 'm'));
      expect(r.stdout).toMatch(/^agent: custom-model-agent 0\.1\.0$/m);
      expect([...r.stdout.matchAll(/^\[tool\] List files: (\S+)$/gm)].map((m) => m[1])).toEqual([
        'pending',
        'in_progress',
        'completed',
      ]);
      // the model's second call saw the tool result
      expect(r.stdout).toContain('\nI found 2 files, for example alpha.txt, beta.md.\n');
      expect(r.stdout).toMatch(/^stop reason: end_turn$/m);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});

describe('every agent in examples/ and docs/api.md passes acp-kit check agent (issue 23 item 7)', () => {
  // as processes: the point is what a new process of the agent can load and resume
  // docs/api.md's agent has no MCP client (the @acp-kit/agent runtime connects no mcpServers): it
  // skips the mcp/client-server case's IDs; examples/echo-agent.mjs connects them (acp-kit/agent/mcp)
  const MCP_IDS = ['ACP-V1-SESS-01', 'ACP-ALL-SESS-08'];
  const checkProcess = async (script: string, skip: string[] = MCP_IDS) => {
    const { checkAgent } = await import('../packages/tools/src/checker/index.js');
    return checkAgent(
      { command: process.execPath, args: [script], env: { ACP_KIT_DATA_DIR: DATA } },
      { timeoutMs: 8000, skip },
    );
  };
  const verdict = (run: Awaited<ReturnType<typeof checkProcess>>) => ({
    conformant: run.conformant,
    failed: run.requirements
      .filter((r) => r.status === 'fail' && r.tier === 'MUST')
      .map((r) => `v${r.protocol} ${r.id}: ${r.failures[0]?.message ?? ''}`),
    // load and resume ran in a second process (not skipped): what is advertised works across processes
    restored: run.cases
      .filter((c) => ['sessions/load-v1', 'sessions/resume-v2'].includes(c.name))
      .map((c) => `${c.name} ${c.status}`),
  });
  it("examples/echo-agent.mjs, its MCP case included: it connects the checker's server and calls its tool", async () => {
    const run = await checkProcess(ECHO, []);
    expect(verdict(run)).toEqual({
      conformant: true,
      failed: [],
      restored: ['sessions/load-v1 ran', 'sessions/resume-v2 ran'],
    });
    // connected (v1 MUST) and used with the nonce (SHOULD) in both versions: nothing skipped or warned
    expect(
      run.requirements
        .filter((r) => MCP_IDS.includes(r.id))
        .map((r) => `v${r.protocol} ${r.id} ${r.status}`)
        .sort(),
    ).toEqual(['v1 ACP-ALL-SESS-08 pass', 'v1 ACP-V1-SESS-01 pass', 'v2 ACP-ALL-SESS-08 pass']);
  }, 60_000);
  it("docs/api.md's echo agent", async () => {
    const blocks = [...readFileSync(resolve('docs/api.md'), 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map(
      (m) => m[1]!,
    );
    const agent = blocks.find((b) => /runAgentOnStdio\(\{/.test(b));
    expect(agent).toBeDefined();
    const path = join(EXAMPLES, `.doc-agent-${process.pid}.mjs`);
    writeFileSync(path, agent ?? '');
    try {
      expect(verdict(await checkProcess(path))).toEqual({
        conformant: true,
        failed: [],
        restored: ['sessions/load-v1 ran', 'sessions/resume-v2 ran'],
      });
    } finally {
      rmSync(path, { force: true });
    }
  }, 60_000);
});

describe('examples/check-agent.mjs', () => {
  it('checks its agent definition in process for both versions and prints the CLI report: conformant, exit 0', async () => {
    const r = await run(resolve(EXAMPLES, 'check-agent.mjs'), []);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^acp-kit check agent: examples\/check-agent\.mjs$/m);
    expect(r.stdout).toMatch(/^Protocol v1$/m);
    expect(r.stdout).toMatch(/^Protocol v2$/m);
    // the cancel, load and resume cases ran and passed (the agent stops when cancelled; one store for all instances)
    for (const id of ['ACP-V1-CANCEL-05', 'ACP-V2-CANCEL-05', 'ACP-V1-LOAD-02', 'ACP-V2-RESUME-03'])
      expect(r.stdout).toMatch(new RegExp(`^ {4}pass {2}${id} `, 'm'));
    expect(r.stdout).not.toMatch(/^ {4}FAIL /m);
    expect(r.stdout).toMatch(/Verdict: CONFORMANT \(0 MUST failures\)$/m);
  });
});

describe('examples/system-note-component.mjs and examples/redact-secrets-component.mjs (proxy components)', () => {
  it.each([1, 2] as const)(
    'in an acp-kit conduct chain in front of the echo agent (v%i): the note reaches the agent, the secret never reaches the client',
    async (v) => {
      const r = await conductSecretPrompt(
        [
          '--',
          process.execPath,
          resolve(EXAMPLES, 'redact-secrets-component.mjs'),
          '--',
          process.execPath,
          resolve(EXAMPLES, 'system-note-component.mjs'),
          '--',
          process.execPath,
          ECHO,
        ],
        v,
      );
      expect(r.stdout).toMatch(new RegExp(`^protocol: ${v}$`, 'm'));
      expectNotedAndRedacted(r);
    },
  );
});

describe('the component examples in process (their default export, acp-kit conduct --component)', () => {
  it('the redactor and the system note run inside the conductor in front of the echo agent: same result as the processes', async () => {
    const r = await conductSecretPrompt([
      '--component',
      resolve(EXAMPLES, 'redact-secrets-component.mjs'),
      '--component',
      resolve(EXAMPLES, 'system-note-component.mjs'),
      '--',
      process.execPath,
      ECHO,
    ]);
    expectNotedAndRedacted(r);
  });
});

/** examples/client.mjs sends a prompt with a secret to `acp-kit conduct <chain...>` (protocol: the client's default unless given). */
function conductSecretPrompt(chain: string[], protocol?: number) {
  const version = protocol === undefined ? [] : ['--protocol', String(protocol)];
  const prompt = ['--prompt', 'token sk-secretsecret here'];
  return run(CLIENT, [...version, ...prompt, '--', process.execPath, resolve('bin/acp-kit.js'), 'conduct', ...chain]);
}

/** The echo agent echoed what reached it through the chain: the note first, then the prompt with its secret redacted. */
function expectNotedAndRedacted(r: { code: number | null; stdout: string; stderr: string }): void {
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain('System note: answer briefly.');
  expect(r.stdout).toContain('token [REDACTED] here');
  expect(r.stdout).not.toContain('sk-secretsecret');
  expect(r.stdout).toMatch(/^stop reason: end_turn$/m);
}

describe('examples/mcp-tool-component.mjs (an MCP injector component)', () => {
  it('in an acp-kit conduct chain in front of the built-in agent: the agent calls its injected tool over mcp/message in a turn', async () => {
    const bin = resolve('bin/acp-kit.js');
    const cwd = mkdtempSync(join(DATA, 'mcp-tool-'));
    const chain = [
      process.execPath,
      bin,
      'conduct',
      '--',
      process.execPath,
      resolve(EXAMPLES, 'mcp-tool-component.mjs'),
    ];
    const agent = [process.execPath, bin, 'agent', '--model', 'demo'];
    const r = await run(
      bin,
      ['run', '--json', '--agent', [...chain, '--', ...agent].join(' '), 'mcp notes session_notes {}'],
      { cwd, env: { ...ENV, ACP_KIT_DEMO_DELAY_MS: '0' } },
    );
    expect(r.code, r.stderr).toBe(0);
    const updates = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; update?: Record<string, unknown> })
      .filter((e) => e.type === 'update')
      .map((e) => e.update);
    expect(updates.find((u) => u?.name === 'mcp__notes__session_notes')).toBeDefined();
    const done = updates.find((u) => u?.sessionUpdate === 'tool_call_update' && u.status === 'completed');
    // the component's server saw the prompt on its way to the agent: it answers from the conversation
    expect(done?.content).toEqual([
      { type: 'content', content: { type: 'text', text: 'notes: 1 prompt(s): mcp notes session_notes {}' } },
    ]);
  });
});
