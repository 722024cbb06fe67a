import { validateElicitationContent } from '@acp-kit/client';
import type { ElicitationSchema } from '@acp-kit/protocol';
import { at, isObj, type JsonObject } from '@acp-kit/protocol/internal';
import type { CaptureFrame } from './capture.js';
import type { Violation, ViolationRule } from './violation.js';

interface Asked {
  seq: number;
  mode: unknown;
  schema: unknown;
  elicitationId?: string;
}

const idKey = (id: unknown): string => JSON.stringify(id ?? null);

/**
 * The elicitation rules of the capture validator (issue 26): what an agent may ask (only the modes
 * the client advertised, ACP-ALL-ELIC-01; one scope and a mode, ACP-ALL-ELIC-03; a url id unique
 * among outstanding ones and completions only of ids it sent this client, ACP-ALL-ELIC-09) and
 * what a client may answer (accepted form content that fits the requested schema, ACP-ALL-ELIC-07).
 * A client ignoring a completion it does not know is its right (ACP-ALL-ELIC-09), so nothing is
 * judged on the client for one.
 */
export class ElicitationRules {
  /** The modes the client's initialize advertised; `undefined` while the capture holds none. */
  private advertised: { form: boolean; url: boolean } | undefined;
  /** elicitation/create requests in flight, by request id. */
  private readonly asked = new Map<string, Asked>();
  /** url elicitation ids sent: `true` while outstanding (not declined, cancelled nor completed). */
  private readonly urlIds = new Map<string, boolean>();

  /**
   * The editor's initialize request (capabilities in `clientCapabilities` in v1, `capabilities` in
   * v2): `elicitation.form` / `.url` non-null advertise a mode (`{}` none).
   */
  initialize(params: JsonObject | undefined): void {
    const e = at(params, 'clientCapabilities', 'elicitation') ?? at(params, 'capabilities', 'elicitation');
    const has = (mode: string): boolean => isObj(e) && e[mode] !== undefined && e[mode] !== null;
    this.advertised = { form: has('form'), url: has('url') };
  }

  /** An elicitation/create request from the agent. */
  create(frame: CaptureFrame, id: unknown, params: JsonObject | undefined): Violation[] {
    const out: Violation[] = [];
    const mode = params?.mode;
    const v = (rule: ViolationRule, requirement: string, message: string, seqs = [frame.seq]): void =>
      void out.push({ rule, requirement, seqs, message });
    if (typeof mode !== 'string') v('elicitation-scope', 'ACP-ALL-ELIC-03', 'elicitation/create has no mode');
    else if ((mode === 'form' || mode === 'url') && this.advertised && !this.advertised[mode])
      v(
        'elicitation-mode-not-advertised',
        'ACP-ALL-ELIC-01',
        `elicitation/create asks in ${mode} mode, which the client's initialize did not advertise`,
      );
    const session = typeof params?.sessionId === 'string';
    const request = params?.requestId !== undefined && params?.requestId !== null;
    if (session === request)
      v(
        'elicitation-scope',
        'ACP-ALL-ELIC-03',
        `elicitation/create must be scoped to exactly one of a session (sessionId) or a request (requestId); it has ${session ? 'both' : 'neither'}`,
      );
    else if (!session && params?.toolCallId !== undefined && params?.toolCallId !== null)
      v('elicitation-scope', 'ACP-ALL-ELIC-03', 'elicitation/create names a toolCallId without a sessionId');
    const asked: Asked = { seq: frame.seq, mode, schema: params?.requestedSchema };
    const eid = params?.elicitationId;
    if (mode === 'url' && typeof eid === 'string') {
      if (this.urlIds.get(eid))
        v(
          'elicitation-id-reused',
          'ACP-ALL-ELIC-09',
          `url elicitation id ${JSON.stringify(eid)} is reused while an elicitation with that id is still outstanding`,
        );
      this.urlIds.set(eid, true);
      asked.elicitationId = eid;
    }
    this.asked.set(idKey(id), asked);
    return out;
  }

  /** The editor's answer (result or error) to an elicitation/create. */
  answer(frame: CaptureFrame, id: unknown, result: unknown, isError: boolean): Violation[] {
    const asked = this.asked.get(idKey(id));
    if (!asked) return [];
    this.asked.delete(idKey(id));
    const action = at(result, 'action');
    // only a consented url stays outstanding (until elicitation/complete)
    if (asked.elicitationId !== undefined && (isError || action !== 'accept'))
      this.urlIds.set(asked.elicitationId, false);
    if (isError || action !== 'accept' || asked.mode !== 'form' || !isObj(asked.schema)) return [];
    // the schema check has judged the schema's shape: read as the elicitation schema it claims to be
    const schema: ElicitationSchema = { type: 'object', properties: {}, ...asked.schema };
    const checked = validateElicitationContent(schema, at(result, 'content') ?? {});
    if (checked.ok) return [];
    return [
      {
        rule: 'elicitation-answer-off-schema',
        requirement: 'ACP-ALL-ELIC-07',
        seqs: [asked.seq, frame.seq],
        message: `the accepted answer to elicitation/create (seq ${asked.seq}) does not fit the requested schema: ${checked.problems.join('; ')}`,
      },
    ];
  }

  /**
   * elicitation/complete from the agent: it may complete only a url elicitation it sent this
   * client (ACP-ALL-ELIC-09), judged only when the capture starts at initialize (else the request
   * may predate the capture).
   */
  complete(frame: CaptureFrame, params: JsonObject | undefined): Violation[] {
    const eid = params?.elicitationId;
    if (typeof eid !== 'string') return [];
    const known = this.urlIds.has(eid);
    this.urlIds.set(eid, false);
    if (known || !this.advertised) return [];
    return [
      {
        rule: 'elicitation-complete-unasked',
        requirement: 'ACP-ALL-ELIC-09',
        seqs: [frame.seq],
        message: `elicitation/complete for ${JSON.stringify(eid)}, an id the agent never sent this client as a url elicitation (completions go only to the client that was asked)`,
      },
    ];
  }
}
