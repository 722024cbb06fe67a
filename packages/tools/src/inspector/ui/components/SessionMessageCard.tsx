import type { SessionMessageItem } from '../api.js';
import { Blocks } from './Blocks.js';

/** An inter-session message: who sent it to whom, and its text as upserted and streamed. */
export function SessionMessageCard({ it }: { it: SessionMessageItem }) {
  return (
    <>
      <div class="label">
        Message{' '}
        <span class="muted" data-testid="session-message-route">
          {it.senderSessionId ?? '?'} → {it.recipientSessionId ?? '?'}
        </span>
      </div>
      <Blocks blocks={it.content} />
    </>
  );
}
