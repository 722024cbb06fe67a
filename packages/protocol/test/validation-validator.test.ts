import { describe, expect, it } from 'vitest';
import { formatFailure, getValidator, type ValidationFailure } from '../src/validation/index.js';

const v1 = getValidator(1);
const v2 = getValidator(2);

const text = { type: 'text', text: 'hi' };

function failure(r: ValidationFailure | null | 'unknown'): ValidationFailure {
  if (r === null || r === 'unknown') throw new Error(`expected a failure, got ${String(r)}`);
  return r;
}

describe('getValidator', () => {
  it('is built once per version', () => {
    expect(getValidator(1)).toBe(v1);
    expect(getValidator(2)).toBe(v2);
    expect(v1.version).toBe(1);
    expect(v2.version).toBe(2);
    expect(() => getValidator(3 as 1)).toThrow(/version 3/);
  });

  it('knows methods and their side from x-method / x-side', () => {
    expect(v1.knows('session/prompt')).toBe(true);
    expect(v1.sideOf('session/prompt')).toBe('agent');
    expect(v1.sideOf('fs/read_text_file')).toBe('client');
    expect(v1.sideOf('$/cancel_request')).toBe('protocol');
    expect(v2.knows('fs/read_text_file')).toBe(false); // gone in v2
    expect(v2.knows('tool_call/cancel')).toBe(true);
  });
});

describe('update(): session/update dispatched on sessionUpdate', () => {
  it('accepts a valid agent_message_chunk (v1 without messageId, v2 with)', () => {
    expect(v1.update({ sessionUpdate: 'agent_message_chunk', content: text })).toBeNull();
    expect(v2.update({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: text })).toBeNull();
  });

  it('v2 requires messageId on message chunks (ACP v2 ContentChunk)', () => {
    const f = failure(v2.update({ sessionUpdate: 'agent_message_chunk', content: text }, 'params.update'));
    expect(f).toEqual({ path: 'params.update', message: "must have required property 'messageId'" });
    expect(failure(v2.update({ sessionUpdate: 'user_message_chunk', messageId: 7, content: text })).path).toBe(
      'messageId',
    );
  });

  it('v1 tool_call needs a title; tool_call_update does not', () => {
    expect(failure(v1.update({ sessionUpdate: 'tool_call', toolCallId: 't1' }))).toEqual({
      path: '',
      message: "must have required property 'title'",
    });
    expect(v1.update({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read file' })).toBeNull();
    expect(v1.update({ sessionUpdate: 'tool_call_update', toolCallId: 't1' })).toBeNull();
    expect(failure(v1.update({ sessionUpdate: 'tool_call_update', title: 'x' }))).toEqual({
      path: '',
      message: "must have required property 'toolCallId'",
    });
  });

  it('a known discriminator with a bad body is rejected with the path into the body', () => {
    // bad content block inside a chunk: the error of the `text` branch, not "must match anyOf"
    expect(
      failure(v1.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 5 } }, 'params.update')),
    ).toEqual({
      path: 'params.update.content.text',
      message: 'must be string',
    });
    expect(
      failure(
        v2.update(
          { sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'image' } },
          'params.update',
        ),
      ),
    ).toEqual({
      path: 'params.update.content',
      message: "must have required property 'data'",
    });
    // array index in the path, nested tagged unions (tool call content -> content block)
    const bad = {
      sessionUpdate: 'tool_call_update',
      toolCallId: 't',
      content: [
        { type: 'content', content: text },
        { type: 'content', content: { type: 'text' } },
      ],
    };
    expect(failure(v1.update(bad, 'params.update'))).toEqual({
      path: 'params.update.content[1].content',
      message: "must have required property 'text'",
    });
    expect(failure(v2.update(bad, 'params.update')).path).toBe('params.update.content[1].content');
  });

  it('lists the allowed values of a closed v1 enum or union tag', () => {
    const f = failure(v1.update({ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'cancelled' }));
    expect(f).toEqual({ path: 'status', message: 'must be equal to one of: pending, in_progress, completed, failed' });
    const g = failure(v1.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'video' } }));
    expect(g).toEqual({
      path: 'content.type',
      message: 'must be equal to one of: text, image, audio, resource_link, resource',
    });
  });

  it('v2 unions and enums are open: unknown tags and statuses pass', () => {
    expect(v2.update({ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'cancelled' })).toBeNull();
    expect(v2.update({ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'some_future_status' })).toBeNull();
    expect(
      v2.update({ sessionUpdate: 'agent_message_chunk', messageId: 'm', content: { type: 'video', src: 'x' } }),
    ).toBeNull();
    // ...but still typed: an open enum is a string
    expect(failure(v2.update({ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 3 }))).toEqual({
      path: 'status',
      message: 'must be string',
    });
  });

  it("returns 'unknown' for a discriminator the schema does not define", () => {
    expect(v1.update({ sessionUpdate: 'future_thing', x: 1 })).toBe('unknown');
    expect(v2.update({ sessionUpdate: 'future_thing' })).toBe('unknown');
    // v1 `plan` is v2 `plan_update`
    expect(v1.update({ sessionUpdate: 'plan', entries: [] })).toBeNull();
    expect(v2.update({ sessionUpdate: 'plan', entries: [] })).toBe('unknown');
  });

  it('fails a non-object or a missing / non-string discriminator', () => {
    expect(failure(v1.update(null, 'params.update'))).toEqual({ path: 'params.update', message: 'must be object' });
    expect(failure(v2.update([], 'params.update'))).toEqual({ path: 'params.update', message: 'must be object' });
    expect(failure(v1.update({ content: text }))).toEqual({
      path: '',
      message: "must have required property 'sessionUpdate'",
    });
    expect(failure(v2.update({ sessionUpdate: 1 }, 'u'))).toEqual({
      path: 'u.sessionUpdate',
      message: 'must be string',
    });
  });
});

describe('params() and result()', () => {
  it('initialize params: v1 needs an integer protocolVersion, v2 also needs info', () => {
    expect(
      v1.params('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true } } }),
    ).toBeNull();
    expect(failure(v1.params('initialize', { protocolVersion: '1' }, 'params'))).toEqual({
      path: 'params.protocolVersion',
      message: 'must be integer',
    });
    expect(failure(v1.params('initialize', { protocolVersion: 70000 }, 'params'))).toEqual({
      path: 'params.protocolVersion',
      message: 'must be <= 65535',
    });
    expect(failure(v1.params('initialize', {}))).toEqual({
      path: '',
      message: "must have required property 'protocolVersion'",
    });
    expect(v2.params('initialize', { protocolVersion: 2, info: { name: 'ed', version: '1' } })).toBeNull();
    expect(failure(v2.params('initialize', { protocolVersion: 2 }, 'params'))).toEqual({
      path: 'params',
      message: "must have required property 'info'",
    });
    expect(failure(v2.params('initialize', { protocolVersion: 2, info: { name: 'ed' } }, 'params'))).toEqual({
      path: 'params.info',
      message: "must have required property 'version'",
    });
  });

  it('stop reasons: v1 closed list in the prompt result, v2 open in the idle state update', () => {
    for (const r of ['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled']) {
      expect(v1.result('session/prompt', { stopReason: r })).toBeNull();
    }
    expect(failure(v1.result('session/prompt', { stopReason: 'done' }, 'result'))).toEqual({
      path: 'result.stopReason',
      message: 'must be equal to one of: end_turn, max_tokens, max_turn_requests, refusal, cancelled',
    });
    expect(failure(v1.result('session/prompt', {}))).toEqual({
      path: '',
      message: "must have required property 'stopReason'",
    });
    // v2: the prompt result is just the message id; the stop reason arrives as a state update
    expect(v2.result('session/prompt', { messageId: 'm1' })).toBeNull();
    expect(failure(v2.result('session/prompt', { stopReason: 'end_turn' }))).toEqual({
      path: '',
      message: "must have required property 'messageId'",
    });
    expect(v2.update({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' })).toBeNull();
    // an idle update that ends no foreground work need not carry one
    expect(v2.update({ sessionUpdate: 'state_update', state: 'idle' })).toBeNull();
    expect(failure(v2.update({ sessionUpdate: 'state_update', state: 'idle', stopReason: 4 }))).toEqual({
      path: 'stopReason',
      message: 'must be string',
    });
  });

  it('checks notification params, including the update inside session/update', () => {
    expect(v1.params('session/cancel', { sessionId: 's' })).toBeNull();
    expect(failure(v1.params('session/cancel', {}))).toEqual({
      path: '',
      message: "must have required property 'sessionId'",
    });
    expect(
      failure(
        v1.params(
          'session/update',
          { sessionId: 's', update: { sessionUpdate: 'tool_call', toolCallId: 't' } },
          'params',
        ),
      ),
    ).toEqual({
      path: 'params.update',
      message: "must have required property 'title'",
    });
    expect(v1.params('$/cancel_request', { requestId: 3 })).toBeNull();
    expect(failure(v2.params('$/cancel_request', { requestId: true }, 'params'))).toEqual({
      path: 'params.requestId',
      message: 'must be integer or string',
    });
  });

  it('is lenient with methods the schema does not define', () => {
    expect(v1.params('_acme/ping', 42)).toBeNull();
    expect(v1.result('_acme/ping', 'anything')).toBeNull();
    expect(v2.params('fs/read_text_file', null)).toBeNull();
    expect(v1.result('session/cancel', {})).toBeNull(); // a notification has no result def
  });

  it('def() validates any $defs entry and throws for a missing name', () => {
    expect(v1.def('ContentBlock', text)).toBeNull();
    expect(failure(v1.def('ContentBlock', { type: 'resource_link', name: 'n' }, 'prompt[0]'))).toEqual({
      path: 'prompt[0]',
      message: "must have required property 'uri'",
    });
    expect(() => v1.def('NoSuchDef', {})).toThrow(/NoSuchDef/);
  });

  it('names unusual keys readably in paths', () => {
    const f = failure(
      v1.params(
        'session/new',
        { cwd: '/w', mcpServers: [{ name: 'a', command: 'c', args: [], env: [{ name: 'A' }] }] },
        'params',
      ),
    );
    expect(f.path).toBe('params.mcpServers[0].env[0]');
    expect(f.message).toBe("must have required property 'value'");
  });
});

describe('formatFailure', () => {
  it('joins the prefix and the path and says what was expected', () => {
    expect(formatFailure('params', { path: 'update.content.type', message: 'must be string' })).toBe(
      'params.update.content.type: must be string',
    );
    expect(formatFailure('params', { path: '[0]', message: 'must be object' })).toBe('params[0]: must be object');
    expect(formatFailure('params', { path: '', message: 'must be object' })).toBe('params: must be object');
    expect(formatFailure('', { path: '', message: 'must be object' })).toBe('must be object');
  });
});

describe('schema files at runtime', () => {
  it('loads the schemas copied to schema/ at the @acp-kit/protocol package root, from src/ and from dist/', async () => {
    const { schemaLocation } = await import('../src/validation/index.js');
    const { spawnSync } = await import('node:child_process');
    const { resolve } = await import('node:path');
    const root = resolve(import.meta.dirname, '../../..');
    // under vitest (src/): the copy made by `npm run build` (scripts/copy-schemas.mjs)
    expect(schemaLocation(1)).toBe(resolve(root, 'packages/protocol/schema/v1/schema.json'));
    expect(schemaLocation(2, 'unstable')).toBe(resolve(root, 'packages/protocol/schema/v2/schema.unstable.json'));
    // built (dist/): same depth below the root, same files
    const script = `
      const m = await import(${JSON.stringify(resolve(root, 'packages/protocol/dist/validation/index.js'))});
      const v = m.getValidator(2);
      console.log(JSON.stringify([m.schemaLocation(2), v.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x' } }, 'params.update')]));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([
      resolve(root, 'packages/protocol/schema/v2/schema.json'),
      { path: 'params.update', message: "must have required property 'messageId'" },
    ]);
  });
});
