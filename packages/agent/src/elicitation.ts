import {
  AcpError,
  ErrorCode,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  type ElicitationSchema,
  type Meta,
} from '@acp-kit/protocol';
import type { ClientPeerInfo } from './types.js';

/** An elicitation mode (`elicitation.form` / `.url` in the client's capabilities). */
export type ElicitationMode = 'form' | 'url';

/** A form to put to the user ({@link Turn.elicit}); the session is filled in. */
export interface FormElicitationQuestion {
  /** What the agent asks for and why. */
  message: string;
  /** The restricted JSON Schema of the form (string/number/integer/boolean, selects). Never ask for secrets this way (ACP-ALL-ELIC-05). */
  requestedSchema: ElicitationSchema;
  /** The tool call the question belongs to, if any. */
  toolCallId?: string | null;
  _meta?: Meta | null;
}

/** A URL to send the user to ({@link Turn.elicitUrl}), e.g. an OAuth consent page. */
export interface UrlElicitationQuestion {
  message: string;
  /** No credentials or personal data in it (ACP-ALL-ELIC-11). */
  url: string;
  /** Unique among this session's outstanding url elicitations; minted when omitted (ACP-ALL-ELIC-09). */
  elicitationId?: string;
  toolCallId?: string | null;
  _meta?: Meta | null;
}

/** The answer to a url elicitation: `accept` is consent to open it, not completion (ACP-ALL-ELIC-07). */
export type UrlElicitationAnswer = CreateElicitationResponse & { elicitationId: string };

/**
 * The client did not advertise the mode asked for (ACP-ALL-ELIC-01). Nothing was sent; a url
 * question is never put as a form instead (ACP-ALL-ELIC-05).
 */
export class ElicitationNotSupportedError extends AcpError {
  constructor(readonly mode: ElicitationMode) {
    super(
      ErrorCode.InvalidParams,
      `the client did not advertise elicitation.${mode} (ACP-ALL-ELIC-01)${mode === 'url' ? '; a url elicitation never falls back to a form (ACP-ALL-ELIC-05)' : ''}`,
      { mode },
    );
    this.name = 'ElicitationNotSupportedError';
  }
}

/** The connection an elicitation goes to (one: it is bound to the receiving client, ACP-ALL-ELIC-04). */
export interface ElicitationTarget {
  readonly client: ClientPeerInfo;
  /** Sends `elicitation/create`; aborting `signal` sends `$/cancel_request` and rejects. */
  elicit(params: CreateElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse>;
  /** Sends `elicitation/complete`. */
  completeElicitation(elicitationId: string): void;
}

/** Whether `client` advertised elicitation `mode` (a non-null marker, ACP-V1-CAP-02). */
export function clientSupportsElicitation(client: ClientPeerInfo, mode: ElicitationMode): boolean {
  return client.capabilities.elicitation?.[mode] === true;
}

/**
 * The elicitations of one session: which connection each goes to, capability checks, and the url
 * elicitations still outstanding (accepted, not completed), whose ids are unique among them and
 * whose completion goes only to the client that was asked (ACP-ALL-ELIC-09).
 */
export class SessionElicitations {
  /** Created with the first url elicitation (few sessions ask any). */
  private outstanding: Map<string, ElicitationTarget> | undefined;

  constructor(
    private readonly sessionId: () => string,
    private readonly target: () => ElicitationTarget,
    private readonly mintId: () => string,
  ) {}

  supports(mode: ElicitationMode): boolean {
    return clientSupportsElicitation(this.target().client, mode);
  }

  async form(q: FormElicitationQuestion, signal: AbortSignal): Promise<CreateElicitationResponse> {
    const target = this.target();
    if (!clientSupportsElicitation(target.client, 'form')) throw new ElicitationNotSupportedError('form');
    return target.elicit(
      { ...this.scope(q), mode: 'form', message: q.message, requestedSchema: q.requestedSchema },
      signal,
    );
  }

  async url(q: UrlElicitationQuestion, signal: AbortSignal): Promise<UrlElicitationAnswer> {
    const target = this.target();
    if (!clientSupportsElicitation(target.client, 'url')) throw new ElicitationNotSupportedError('url');
    const elicitationId = q.elicitationId ?? this.freshId();
    const outstanding = (this.outstanding ??= new Map<string, ElicitationTarget>());
    if (outstanding.has(elicitationId))
      throw AcpError.invalidParams(
        `elicitationId ${JSON.stringify(elicitationId)} is still outstanding (ACP-ALL-ELIC-09)`,
      );
    // reserved while asked, so a second question cannot take the same id meanwhile
    outstanding.set(elicitationId, target);
    try {
      const answer = await target.elicit(
        { ...this.scope(q), mode: 'url', message: q.message, url: q.url, elicitationId },
        signal,
      );
      // only an accepted url stays outstanding until `completeElicitation`
      if (answer.action !== 'accept') outstanding.delete(elicitationId);
      return { ...answer, elicitationId };
    } catch (e) {
      outstanding.delete(elicitationId);
      throw e;
    }
  }

  /** Sends `elicitation/complete` to the client that was asked; `false` for an id not outstanding. */
  complete(elicitationId: string): boolean {
    const target = this.outstanding?.get(elicitationId);
    if (!target) return false;
    this.outstanding?.delete(elicitationId);
    target.completeElicitation(elicitationId);
    return true;
  }

  /** The session closed: nothing is outstanding any more. */
  clear(): void {
    this.outstanding?.clear();
  }

  private freshId(): string {
    let id = this.mintId();
    while (this.outstanding?.has(id)) id = this.mintId();
    return id;
  }

  private scope(q: { toolCallId?: string | null; _meta?: Meta | null }): {
    sessionId: string;
    toolCallId?: string;
    _meta?: Meta;
  } {
    return {
      sessionId: this.sessionId(),
      ...(q.toolCallId != null ? { toolCallId: q.toolCallId } : {}),
      ...(q._meta != null ? { _meta: q._meta } : {}),
    };
  }
}
