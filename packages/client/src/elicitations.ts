import type {
  CompleteElicitationNotification,
  CreateElicitationRequest,
  CreateElicitationResponse,
} from '@acp-kit/protocol';
import type { ClientSession } from './client-session.js';
import { decideElicitation, type ElicitationPolicy } from './services/elicitation-policy.js';

/**
 * What happened to an elicitation, in wire order (`ClientConnection.on('elicitation', ...)`): a
 * request arrived (`asked`), it was answered (`answered`, with the rule's `reason` when a policy
 * decided), or the agent announced a url elicitation complete (`completed`).
 */
export type ElicitationEvent =
  | { type: 'asked'; sessionId?: string; request: CreateElicitationRequest }
  | {
      type: 'answered';
      sessionId?: string;
      request: CreateElicitationRequest;
      response: CreateElicitationResponse;
      reason?: string;
    }
  | { type: 'completed'; sessionId?: string; elicitationId: string };

/**
 * A connection's elicitations: answers them through the policy (session-scoped ones tracked as
 * pending on their session, so UIs can show them and `cancel()` withdraws them), and remembers
 * the url elicitations the user accepted until the agent completes them (ACP-ALL-ELIC-09).
 */
export class ClientElicitations {
  /** Accepted url elicitations awaiting `elicitation/complete`: id -> session id (if scoped). */
  private readonly accepted = new Map<string, string | undefined>();

  constructor(
    private readonly policy: ElicitationPolicy | undefined,
    private readonly emit: (event: ElicitationEvent) => void,
  ) {}

  async answer(
    request: CreateElicitationRequest,
    signal: AbortSignal,
    session: ClientSession | undefined,
  ): Promise<CreateElicitationResponse> {
    const sessionId = session?.sessionId;
    this.emit({ type: 'asked', ...(sessionId ? { sessionId } : {}), request });
    const decide = (s: AbortSignal) => decideElicitation(this.policy, request, { signal: s });
    const decision = session ? await session.trackElicitation(request, signal, decide) : await decide(signal);
    const { response, reason } = decision;
    if (request.mode === 'url' && response.action === 'accept') this.accepted.set(request.elicitationId, sessionId);
    this.emit({
      type: 'answered',
      ...(sessionId ? { sessionId } : {}),
      request,
      response,
      ...(reason ? { reason } : {}),
    });
    return response;
  }

  /** `elicitation/complete`: ids never accepted here, or completed already, are ignored (ACP-ALL-ELIC-09). */
  complete(params: CompleteElicitationNotification): void {
    const id = params.elicitationId;
    if (!this.accepted.has(id)) return;
    const sessionId = this.accepted.get(id);
    this.accepted.delete(id);
    this.emit({ type: 'completed', ...(sessionId ? { sessionId } : {}), elicitationId: id });
  }

  /** Accepted url elicitations the agent has not completed yet. */
  get awaitingCompletion(): string[] {
    return [...this.accepted.keys()];
  }
}
