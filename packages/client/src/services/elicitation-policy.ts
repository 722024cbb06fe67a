import { readFile } from 'node:fs/promises';
import {
  AcpError,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  type ElicitationValue,
  type FormElicitation,
  type UrlElicitation,
} from '@acp-kit/protocol';
import { isObj } from '@acp-kit/protocol/internal';
import { elicitationFields, fieldProblem, readFieldAnswer, validateElicitationContent } from './elicitation-form.js';

/** A form elicitation as a handler gets it (scope included). */
export type FormElicitationRequest = CreateElicitationRequest & FormElicitation;
/** A url elicitation as a handler gets it. */
export type UrlElicitationRequest = CreateElicitationRequest & UrlElicitation;

/** Context of one elicitation decision. */
export interface ElicitationContext {
  /** Aborts when the agent withdraws the request (`$/cancel_request`) or the turn is cancelled: answer `cancel`. */
  signal: AbortSignal;
}

/** An answer, and why it was given when a rule (not the user) decided (for logs and `--json`). */
export interface ElicitationDecision {
  response: CreateElicitationResponse;
  reason?: string;
}

type MaybePromise<T> = T | Promise<T>;

/**
 * Answers `elicitation/create`, per mode. The client advertises exactly the modes that have a
 * handler (ACP-ALL-ELIC-01) and refuses the others with -32602 (ACP-ALL-ELIC-10). Run through
 * {@link decideElicitation}, so cancellation and the schema check always apply.
 */
export interface ElicitationPolicy {
  form?(request: FormElicitationRequest, ctx: ElicitationContext): MaybePromise<ElicitationDecision>;
  url?(request: UrlElicitationRequest, ctx: ElicitationContext): MaybePromise<ElicitationDecision>;
}

const decline = (reason: string): ElicitationDecision => ({ response: { action: 'decline' }, reason });
const cancel = (reason: string): ElicitationDecision => ({ response: { action: 'cancel' }, reason });

/** Advertises both modes and declines every request (what `acp-kit run` does without answers). */
export function declineElicitations(reason = 'declined: no answers were given'): ElicitationPolicy {
  return { form: () => decline(reason), url: () => decline(reason) };
}

/**
 * Answers forms from `answers` (field name -> value; text is read as the field's type with
 * {@link readFieldAnswer}, so `--answer age=42` gives a number): fields not answered take their
 * schema default; a required field left without a value, or a value that does not fit its field,
 * declines the whole form with the reason (never a half-valid accept). Answers for fields the
 * form does not have are ignored (one answer set may serve several forms). `url`: how to treat url
 * elicitations (default: not advertised).
 */
export function answerElicitations(
  answers: Readonly<Record<string, unknown>>,
  options: { url?: ElicitationPolicy['url'] } = {},
): ElicitationPolicy {
  const form = (request: FormElicitationRequest): ElicitationDecision => {
    const content: Record<string, unknown> = {};
    const problems: string[] = [];
    for (const field of elicitationFields(request.requestedSchema)) {
      const raw = Object.hasOwn(answers, field.name) ? answers[field.name] : field.default;
      if (raw === undefined) {
        if (field.required) problems.push(`${field.name}: no answer given for a required field`);
        continue;
      }
      const value = readFieldAnswer(field, raw);
      const problem = fieldProblem(field, value);
      if (problem) problems.push(`${field.name}: ${problem} (got ${JSON.stringify(raw)})`);
      else content[field.name] = value;
    }
    if (problems.length) return decline(`declined: ${problems.join('; ')}`);
    const checked = validateElicitationContent(request.requestedSchema, content);
    return checked.ok
      ? { response: { action: 'accept', content: checked.content } }
      : decline(checked.problems.join('; '));
  };
  return options.url ? { form, url: options.url } : { form };
}

/** Reads an answers file: one JSON object, field name -> value. */
export async function readElicitationAnswers(path: string): Promise<Record<string, ElicitationValue>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (e) {
    throw new Error(`${path}: not a JSON answers file (${e instanceof Error ? e.message : String(e)})`, { cause: e });
  }
  if (!isObj(parsed)) throw new Error(`${path}: must hold one JSON object (field name -> value)`);
  const out: Record<string, ElicitationValue> = {};
  for (const [k, v] of Object.entries(parsed)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = v;
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[k] = v;
    else throw new Error(`${path}: ${k}: must be a string, number, boolean or list of strings`);
  }
  return out;
}

/**
 * url mode: shows the URL with its host, never opens or fetches it (ACP-ALL-ELIC-06, -11), and
 * accepts (= the user consents to open it themself) only when `consent` says so; declines
 * otherwise.
 */
export function urlConsent(options: {
  consent: boolean | ((url: URL) => boolean);
  print: (line: string) => void;
}): NonNullable<ElicitationPolicy['url']> {
  return (request) => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return decline(`declined: ${JSON.stringify(request.url)} is not a valid URL`);
    }
    options.print(`The agent asks you to open ${url.href} (host: ${url.host}): ${request.message}`);
    const ok = typeof options.consent === 'function' ? options.consent(url) : options.consent;
    return ok ? { response: { action: 'accept' } } : decline('declined: no consent to open the URL');
  };
}

/** The modes a policy answers (what the client advertises). */
export function elicitationModes(policy: ElicitationPolicy | undefined): { form?: boolean; url?: boolean } {
  if (!policy) return {};
  return { ...(policy.form ? { form: true } : {}), ...(policy.url ? { url: true } : {}) };
}

/**
 * Runs `policy` on one request: a mode without a handler (or an unknown mode) is refused with
 * -32602 (ACP-ALL-ELIC-10, ACP-ALL-ELIC-12); a withdrawn request is answered `cancel`; accepted
 * form content is checked against the requested schema and never sent invalid (`cancel` with the
 * problems instead, ACP-ALL-ELIC-07); a url accept carries no content.
 */
export async function decideElicitation(
  policy: ElicitationPolicy | undefined,
  request: CreateElicitationRequest,
  ctx: ElicitationContext,
): Promise<ElicitationDecision> {
  const mode: unknown = request.mode;
  const handler = mode === 'form' ? policy?.form : mode === 'url' ? policy?.url : undefined;
  if (!handler)
    throw AcpError.invalidParams(`params.mode: this client does not support ${JSON.stringify(mode)} elicitations`, {
      path: 'params.mode',
    });
  if (ctx.signal.aborted) return cancel('cancelled: the request was withdrawn');
  const decision = await runHandler(request, ctx);
  if (ctx.signal.aborted) return cancel('cancelled: the request was withdrawn');
  const r = decision.response;
  if (r.action !== 'accept') return decision;
  if (request.mode === 'url') return { ...decision, response: { action: 'accept' } };
  if (request.mode !== 'form') return decision;
  const checked = validateElicitationContent(request.requestedSchema, r.content ?? {});
  if (!checked.ok) return cancel(`cancelled: the answer does not fit the form (${checked.problems.join('; ')})`);
  return { ...decision, response: { ...r, content: checked.content } };

  function runHandler(req: CreateElicitationRequest, c: ElicitationContext): MaybePromise<ElicitationDecision> {
    if (req.mode === 'form' && policy?.form) return policy.form(req, c);
    if (req.mode === 'url' && policy?.url) return policy.url(req, c);
    return cancel('cancelled: no handler');
  }
}
