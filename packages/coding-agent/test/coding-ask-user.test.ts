/**
 * The built-in coding agent's `ask_user` tool (issue 26 item 2), on the demo model, through the
 * real agent and client runtimes in process: offered only when the client advertises form
 * elicitation (ACP-ALL-ELIC-01, -02: otherwise the agent says it cannot ask), the question goes
 * out as a form scoped to the tool call, and the answer, a decline or a dismissal is what the
 * model reads (ACP-ALL-ELIC-08).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createCodingAgent, createDemoModel } from '../src/coding-agent.js';
import {
  answerElicitations,
  declineElicitations,
  type ElicitationEvent,
  type ElicitationPolicy,
} from '../../client/src/index.js';
import { connectInProcess, type InProcessPair } from '../../../test/support/in-process.js';
import { tempDir } from '../../../test/support/temp.js';

const pairs: InProcessPair[] = [];
afterEach(async () => {
  for (const p of pairs.splice(0)) {
    expect(p.tap.failures).toEqual([]);
    await p.close();
  }
});

async function ask(version: 1 | 2, elicitation: ElicitationPolicy | undefined, prompt: string) {
  const agent = createCodingAgent({ model: createDemoModel({ delayMs: 0 }) });
  const p = await connectInProcess(agent, {
    version,
    client: elicitation ? { elicitation } : {},
    serve: { store: null },
  });
  pairs.push(p);
  const events: ElicitationEvent[] = [];
  p.conn.on('elicitation', (e) => events.push(e));
  const session = await p.conn.newSession({ cwd: tempDir('ask-user-') });
  const r = await session.prompt(prompt);
  const text = session.state.messageList
    .filter((m) => m.role === 'agent')
    .map((m) => m.text)
    .join('\n');
  return { r, text, events, tools: [...session.state.toolCalls.values()] };
}

describe.each([1, 2] as const)('coding agent ask_user, v%i', (version) => {
  it('an ambiguous choice goes to the user as a form scoped to the tool call; the answer is what the model reads', async () => {
    const { r, text, events, tools } = await ask(
      version,
      answerElicitations({ answer: 'sqlite' }),
      'ask Which database? choices postgres, sqlite',
    );
    expect(r.stopReason).toBe('end_turn');
    const asked = events.find((e) => e.type === 'asked');
    const call = tools.find((t) => t.name === 'ask_user');
    expect(call?.status).toBe('completed');
    expect(asked?.request).toMatchObject({
      mode: 'form',
      message: 'Which database?',
      toolCallId: call?.toolCallId,
      requestedSchema: {
        properties: { answer: { type: 'string', enum: ['postgres', 'sqlite'] } },
        required: ['answer'],
      },
    });
    expect(text).toContain('The user answered: sqlite');
  });

  it('a declined question is reported as declined, not as an answer', async () => {
    const { text, tools } = await ask(version, declineElicitations(), 'ask What should the file be called?');
    expect(tools.find((t) => t.name === 'ask_user')?.status).toBe('completed');
    expect(text).toContain('The user declined to answer the question.');
  });

  it('without form elicitation the tool is not offered and the agent says it cannot ask (ACP-ALL-ELIC-02)', async () => {
    const { text, events, tools } = await ask(version, undefined, 'ask Which database? choices postgres, sqlite');
    expect(tools).toEqual([]);
    expect(events).toEqual([]);
    expect(text).toContain('cannot show questions (no form elicitation)');
  });
});
