// A small agent the shared-session tests steer: `say:<words>` streams one message, `gate:<name>:<n>`
// streams n chunks, waits until the test opens the gate (or the turn is cancelled; `gate:<name>:<n>:<ms>`
// then takes ms to stop), streams n more;
// `ask` asks a permission question and reports the outcome as a message; `user:<text>` sends a
// user message of its own (one the agent adds to the conversation), then says `noted`.
import type { AgentDefinition, Turn } from '../../packages/agent/src/types.js';

export interface AgentControl {
  definition: AgentDefinition;
  /** Resolves once a turn waits at gate `name`. */
  reached(name: string): Promise<void>;
  /** Lets the turn waiting at gate `name` go on. */
  open(name: string): void;
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

export function controlledAgent(): AgentControl {
  const reachedGates = new Map<string, ReturnType<typeof deferred>>();
  const openGates = new Map<string, ReturnType<typeof deferred>>();
  const gate = (m: Map<string, ReturnType<typeof deferred>>, name: string) => {
    let d = m.get(name);
    if (!d) m.set(name, (d = deferred()));
    return d;
  };
  const say = async (turn: Turn, messageId: string, words: string[]): Promise<void> => {
    for (const w of words)
      await turn.send({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text: `${w} ` } });
  };
  const definition: AgentDefinition = {
    info: { name: 'shared-test-agent', version: '1.0.0' },
    async prompt(turn) {
      const first = turn.prompt[0];
      const text = first?.type === 'text' ? first.text : '';
      const [cmd, a, b, c] = text.split(':');
      const messageId = turn.session.newId('msg');
      if (cmd === 'say') {
        await say(turn, messageId, (a ?? '').split(' '));
        return 'end_turn';
      }
      if (cmd === 'gate') {
        const n = Number(b ?? 1);
        await say(
          turn,
          messageId,
          Array.from({ length: n }, (_, i) => `before${i}`),
        );
        gate(reachedGates, a).resolve();
        const aborted = new Promise<'cancelled'>((r) =>
          turn.signal.addEventListener('abort', () => r('cancelled'), { once: true }),
        );
        if ((await Promise.race([gate(openGates, a).promise, aborted])) === 'cancelled') {
          // `gate:<name>:<n>:<ms>`: an agent that needs a moment to stop (kill a process, flush a file)
          if (c) await new Promise((r) => setTimeout(r, Number(c)));
          return 'cancelled';
        }
        await say(
          turn,
          messageId,
          Array.from({ length: n }, (_, i) => `after${i}`),
        );
        return 'end_turn';
      }
      if (cmd === 'user') {
        await turn.send({
          sessionUpdate: 'user_message',
          messageId: turn.session.newId('user'),
          content: [{ type: 'text', text: a ?? '' }],
        });
        await say(turn, messageId, ['noted']);
        return 'end_turn';
      }
      if (cmd === 'ask') {
        const outcome = await turn.requestPermission({
          title: 'May I?',
          options: [
            { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
            { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
          ],
        });
        await say(turn, messageId, [`outcome=${outcome.outcome === 'selected' ? outcome.optionId : outcome.outcome}`]);
        return 'end_turn';
      }
      return 'end_turn';
    },
  };
  return {
    definition,
    reached: (name) => gate(reachedGates, name).promise,
    open: (name) => gate(openGates, name).resolve(),
  };
}
