/**
 * v1 message grouping of chunks without `messageId` (ACP-V1-MSG-01/02), Zed's rule: a chunk
 * continues the current message of its role across updates that start no new content; a role
 * change, a new tool call or a new prompt turn starts a new message.
 */
import { describe, expect, it } from 'vitest';
import { codecFor } from '../src/codec/index.js';
import type { UpdateDecoder } from '../src/codec/types.js';
import type { AnySessionUpdate } from '../src/model/update.js';

const codec = codecFor(1);
const text = (t: string) => ({ type: 'text', text: t });
const agent = (t: string) => ({ sessionUpdate: 'agent_message_chunk', content: text(t) });
const thought = (t: string) => ({ sessionUpdate: 'agent_thought_chunk', content: text(t) });

/** Decodes a wire sequence and groups the chunk texts by minted message id, in order. */
function messages(dec: UpdateDecoder, wire: object[]): string[] {
  const order: string[] = [];
  const texts = new Map<string, string>();
  for (const w of wire) {
    for (const u of dec.decode(w) as Array<AnySessionUpdate & { messageId?: string; content?: { text?: string } }>) {
      if (!u.sessionUpdate.endsWith('_chunk') || typeof u.messageId !== 'string') continue;
      if (!texts.has(u.messageId)) order.push(u.messageId);
      texts.set(u.messageId, (texts.get(u.messageId) ?? '') + (u.content?.text ?? ''));
    }
  }
  return order.map((id) => texts.get(id)!);
}

describe('v1 decoder: id-less chunks continue the current message across non-content updates', () => {
  it('goose: usage, commands, session info, mode, config and plan updates inside one answer keep it one message', () => {
    const dec = codec.createUpdateDecoder();
    expect(
      messages(dec, [
        agent('The answer '),
        { sessionUpdate: 'usage_update', used: 10, size: 1000 },
        agent('is '),
        { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'x', description: 'x' }] },
        agent('forty'),
        { sessionUpdate: 'session_info_update', title: 'Question' },
        agent('-two'),
        { sessionUpdate: 'current_mode_update', currentModeId: 'code' },
        agent(', '),
        { sessionUpdate: 'config_option_update', configOptions: [] },
        agent('as '),
        { sessionUpdate: 'plan', entries: [{ content: 'step', priority: 'medium', status: 'pending' }] },
        agent('computed.'),
      ]),
    ).toEqual(['The answer is forty-two, as computed.']);
  });

  it('an update to a known tool call continues the message; a new tool call starts a new one', () => {
    const dec = codec.createUpdateDecoder();
    expect(
      messages(dec, [
        { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read', status: 'in_progress' },
        agent('Reading '),
        { sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed' },
        agent('done. '),
        { sessionUpdate: 'tool_call', toolCallId: 't2', title: 'Write' },
        agent('Writing.'),
        // a tool_call_update for an id never seen creates a call: new content too
        { sessionUpdate: 'tool_call_update', toolCallId: 't3', status: 'pending' },
        agent('More.'),
      ]),
    ).toEqual(['Reading done. ', 'Writing.', 'More.']);
  });

  it('a role change starts a new message, also back to the earlier role', () => {
    const dec = codec.createUpdateDecoder();
    expect(
      messages(dec, [
        thought('hmm '),
        thought('ok'),
        agent('A'),
        { sessionUpdate: 'usage_update', used: 1, size: 2 },
        thought('again'),
        agent('B'),
      ]),
    ).toEqual(['hmm ok', 'A', 'again', 'B']);
  });

  it('startTurn (a new prompt) starts a new message even with the same role and nothing in between', () => {
    const dec = codec.createUpdateDecoder();
    const id = (w: object) => (dec.decode(w)[0] as { messageId: string }).messageId;
    const first = id(agent('first turn'));
    expect(typeof dec.startTurn).toBe('function');
    dec.startTurn!();
    const second = id(agent('second '));
    expect(second).not.toBe(first);
    expect(id(agent('turn'))).toBe(second);
  });

  it('notices, compaction and unknown kinds still start a new message', () => {
    const dec = codec.createUpdateDecoder();
    expect(
      messages(dec, [
        agent('a'),
        { sessionUpdate: 'notice', severity: 'info', title: 'hi' },
        agent('b'),
        { sessionUpdate: '_vendor_thing', x: 1 },
        agent('c'),
      ]),
    ).toEqual(['a', 'b', 'c']);
  });
});
