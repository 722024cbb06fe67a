/**
 * `npm run build` precompiles the validators of every method params/result and update branch
 * (Ajv standalone code in packages/protocol/dist/validation/precompiled/, scripts/precompile-validators.mjs)
 * so that start-up does not load Ajv or compile. They must check exactly what the run-time compiled
 * validators check: the built validator (precompiled) and the source one (Ajv at run time, nothing
 * precompiled next to src/) must return the same failure, path and message, for valid messages and
 * for systematic mutations of them. Needs `npm run build`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { getValidator as runtimeValidator } from '../src/validation/index.js';
import type { WireValidator } from '../src/validation/index.js';

const DIST_VALIDATION = resolve('packages/protocol/dist/validation');
const PRECOMPILED = resolve(DIST_VALIDATION, 'precompiled');

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const REPLACEMENTS: Json[] = [null, 5, -1, 1.5, 'x', true, [], {}, 'text', 'end_turn', 'pending'];

/** `value` itself and every variant with one change somewhere inside it. */
function* variants(value: Json): Generator<Json> {
  yield value;
  for (const r of REPLACEMENTS) yield r;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      yield value.filter((_, j) => j !== i);
      for (const m of variants(value[i])) yield value.map((x, j) => (j === i ? m : x));
    }
  } else if (value !== null && typeof value === 'object') {
    for (const k of Object.keys(value)) {
      const { [k]: _drop, ...rest } = value;
      yield rest;
      for (const m of variants(value[k])) yield { ...value, [k]: m };
    }
    yield { ...value, extraField: 1 };
  }
}

const text = { type: 'text', text: 'hi' };
/** Valid-ish messages per version: [kind, method or '', value]. */
const SAMPLES: Record<1 | 2, Array<['params' | 'result' | 'update', string, Json]>> = {
  1: [
    [
      'params',
      'initialize',
      { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } } },
    ],
    ['result', 'initialize', { protocolVersion: 1, agentCapabilities: { loadSession: true }, authMethods: [] }],
    ['params', 'session/new', { cwd: '/tmp', mcpServers: [{ name: 'm', command: 'x', args: [], env: [] }] }],
    [
      'params',
      'session/prompt',
      { sessionId: 's', prompt: [text, { type: 'resource_link', uri: 'file:///a', name: 'a' }] },
    ],
    ['result', 'session/prompt', { stopReason: 'end_turn' }],
    [
      'params',
      'session/request_permission',
      {
        sessionId: 's',
        toolCall: { toolCallId: 't', title: 'T' },
        options: [{ optionId: 'a', name: 'A', kind: 'allow_once' }],
      },
    ],
    ['update', '', { sessionUpdate: 'agent_message_chunk', content: text }],
    [
      'update',
      '',
      {
        sessionUpdate: 'tool_call',
        toolCallId: 't',
        title: 'T',
        kind: 'edit',
        status: 'pending',
        content: [{ type: 'diff', path: '/a', oldText: null, newText: 'x' }],
      },
    ],
    ['update', '', { sessionUpdate: 'plan', entries: [{ content: 'c', priority: 'high', status: 'pending' }] }],
  ],
  2: [
    ['params', 'initialize', { protocolVersion: 2, info: { name: 'c', version: '1' }, capabilities: {} }],
    ['params', 'session/new', { cwd: '/tmp', mcpServers: [] }],
    ['params', 'session/prompt', { sessionId: 's', prompt: [text], messageId: 'm' }],
    ['update', '', { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: text }],
    ['update', '', { sessionUpdate: 'tool_call_update', toolCallId: 't', title: 'T', status: 'in_progress' }],
    ['update', '', { sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' }],
  ],
};

let built: { getValidator(v: 1 | 2): WireValidator & { knows(m: string): boolean } };

beforeAll(async () => {
  expect(existsSync(resolve(DIST_VALIDATION, 'index.js')), 'run `npm run build` first').toBe(true);
  built = await import(resolve(DIST_VALIDATION, 'index.js'));
});

describe('precompiled validators (dist) check exactly what run-time compiled ones (src) check', () => {
  it('the build wrote one per method params/result and update branch of both versions', () => {
    const files = readdirSync(PRECOMPILED);
    expect(files).toContain('v1-InitializeRequest.cjs');
    expect(files).toContain('v2-InitializeRequest.cjs');
    expect(files.filter((f) => f.startsWith('v2-SessionUpdate')).length).toBeGreaterThan(10);
    expect(files.length).toBeGreaterThan(100);
  });

  it('answering initialize and checking updates does not load Ajv (the precompiled validators are used)', () => {
    const script = `
      import { createRequire } from 'node:module';
      const { getValidator } = await import(${JSON.stringify(resolve(DIST_VALIDATION, 'index.js'))});
      const failure = getValidator(2).params('initialize', { protocolVersion: 2, info: { name: 'c', version: '1' }, capabilities: {} });
      const bad = getValidator(2).params('initialize', { protocolVersion: 'two' });
      const update = getValidator(2).update({ sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'text', text: 'hi' } });
      const unknown = getValidator(2).update({ sessionUpdate: '_x/y' });
      const ajvLoaded = Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('/ajv/dist/core.js'));
      console.log(JSON.stringify({ failure, bad, update, unknown, ajvLoaded }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      failure: unknown;
      bad: { path: string; message: string } | null;
      update: unknown;
      unknown: unknown;
      ajvLoaded: boolean;
    };
    expect(out.failure).toBeNull();
    expect(out.update).toBeNull();
    expect(out.unknown).toBe('unknown');
    expect(out.bad).toEqual(runtimeValidator(2).params('initialize', { protocolVersion: 'two' }));
    expect(out.bad).not.toBeNull();
    expect(out.ajvLoaded).toBe(false);
  });

  for (const version of [1, 2] as const) {
    it(`v${version}: same failures over mutations of valid messages`, () => {
      const a = built.getValidator(version);
      const b = runtimeValidator(version);
      let checked = 0;
      let failures = 0;
      for (const [kind, method, value] of SAMPLES[version]) {
        for (const v of variants(value)) {
          const got = kind === 'update' ? a.update(v, 'update') : a[kind](method, v, kind);
          const want = kind === 'update' ? b.update(v, 'update') : b[kind](method, v, kind);
          expect(got, `${kind} ${method} ${JSON.stringify(v)}`).toEqual(want);
          checked++;
          if (want !== null) failures++;
        }
      }
      expect(failures).toBeGreaterThan(50);
      expect(checked - failures).toBeGreaterThan(5);
    });

    it(`v${version}: every precompiled validator agrees on junk values`, () => {
      const a = built.getValidator(version);
      const b = runtimeValidator(version);
      const methods = readdirSync(PRECOMPILED).length; // keep the loop honest: there is something to check
      expect(methods).toBeGreaterThan(0);
      const junk: Json[] = [null, {}, [], 'x', { sessionId: 's' }, { sessionId: 5, cwd: '/' }, { _meta: {} }];
      const names = [
        'initialize',
        'authenticate',
        'session/new',
        'session/load',
        'session/resume',
        'session/list',
        'session/close',
        'session/prompt',
        'session/cancel',
        'session/update',
        'session/request_permission',
        'session/set_mode',
        'session/set_config_option',
        'fs/read_text_file',
        'fs/write_text_file',
        'terminal/create',
        'terminal/output',
        'terminal/wait_for_exit',
        'terminal/kill',
        'terminal/release',
        'tool_call/cancel',
        'terminal/cancel',
        'logout',
      ];
      let known = 0;
      for (const method of names) {
        if (!b.knows(method)) continue;
        known++;
        for (const v of junk) {
          expect(a.params(method, v, 'params'), `params ${method} ${JSON.stringify(v)}`).toEqual(
            b.params(method, v, 'params'),
          );
          expect(a.result(method, v, 'result'), `result ${method} ${JSON.stringify(v)}`).toEqual(
            b.result(method, v, 'result'),
          );
        }
      }
      expect(known).toBeGreaterThan(10);
    });
  }
});
