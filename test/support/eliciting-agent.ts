/**
 * An agent definition for elicitation tests (issue 26 item 2), served by the real agent runtime:
 * the prompt's text says what to ask. `form` puts a form and reports the answer; `url` sends the
 * user to a URL and, on consent, completes it (`elicitation/complete`); `url-id <id>` uses a given
 * id; `hang-form` asks and reports whatever the ask resolves with (the test cancels meanwhile).
 * Every answer is reported as an `agent_message_chunk` with the JSON of what the author got.
 */
import type { ElicitationSchema } from '../../packages/protocol/src/index.js';
import type { AgentDefinition, Turn } from '../../packages/agent/src/types.js';

export const NAME_SCHEMA: ElicitationSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 1 },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    color: {
      type: 'string',
      oneOf: [
        { const: 'r', title: 'Red' },
        { const: 'g', title: 'Green' },
      ],
    },
    subscribe: { type: 'boolean', default: false },
  },
  required: ['name'],
};

async function say(turn: Turn, text: string): Promise<void> {
  await turn.send({
    sessionUpdate: 'agent_message_chunk',
    messageId: turn.session.newId('m'),
    content: { type: 'text', text },
  });
}

async function run(turn: Turn, command: string): Promise<void> {
  const [verb, arg] = command.split(' ');
  if (verb === 'form' || verb === 'hang-form') {
    const answer = await turn.elicit({ message: 'Who are you?', requestedSchema: NAME_SCHEMA });
    await say(turn, JSON.stringify(answer));
  } else if (verb === 'url' || verb === 'url-id') {
    const answer = await turn.elicitUrl({
      message: 'Sign in',
      url: 'https://auth.example.com/consent?flow=1',
      ...(arg ? { elicitationId: arg } : {}),
    });
    if (answer.action === 'accept') turn.session.completeElicitation(answer.elicitationId);
    await say(turn, JSON.stringify(answer));
  } else if (verb === 'url-dup') {
    // the same id twice while the first is outstanding: the second is refused before it is sent
    const ask = () => turn.elicitUrl({ message: 'Sign in', url: 'https://auth.example.com/x', elicitationId: 'dup' });
    const first = ask();
    const second = await ask().then(
      (a) => JSON.stringify(a),
      (e: unknown) => `error: ${e instanceof Error ? e.message : String(e)}`,
    );
    const firstAnswer = await first;
    const whileAccepted = await ask().then(
      () => 'sent',
      () => 'refused',
    );
    turn.session.completeElicitation('dup');
    const afterComplete = (await ask()).action;
    await say(turn, JSON.stringify({ second, first: firstAnswer.action, whileAccepted, afterComplete }));
  } else if (verb === 'supports') {
    await say(
      turn,
      JSON.stringify({ form: turn.session.supportsElicitation('form'), url: turn.session.supportsElicitation('url') }),
    );
  }
}

export const elicitingAgent: AgentDefinition = {
  info: { name: 'eliciting-agent', version: '1.0.0' },
  async prompt(turn) {
    const first = turn.prompt[0];
    const command = first?.type === 'text' ? first.text : '';
    try {
      await run(turn, command);
    } catch (e) {
      await say(turn, `error: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
    }
    return turn.signal.aborted ? 'cancelled' : 'end_turn';
  },
};
