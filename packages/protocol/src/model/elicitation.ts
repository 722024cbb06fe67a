import type { Meta, UnknownKind } from './json.js';

/**
 * Elicitation (`elicitation/create`, `elicitation/complete`): the agent asks the user for
 * structured input through the client, as a form or by sending the user to a URL. The neutral
 * shapes are those of both versions' wire (the codecs only adjust what one version cannot carry:
 * v1's closed `format` set, v2's required `type`/`properties` and scope).
 */

/** A choice with a display title (`oneOf` of a single select, `anyOf` of a multi select). */
export interface ElicitationEnumOption {
  const: string;
  title: string;
  description?: string | null;
  _meta?: Meta | null;
}

/** What every form property may carry. */
export interface ElicitationPropertyBase {
  title?: string | null;
  description?: string | null;
  _meta?: Meta | null;
}

/** A text field, or a single select when `enum` / `oneOf` is set. */
export interface ElicitationStringProperty extends ElicitationPropertyBase {
  type: 'string';
  minLength?: number | null;
  maxLength?: number | null;
  pattern?: string | null;
  /** `email`, `uri`, `date`, `date-time` (v2 also any other hint; v1 drops those) */
  format?: 'email' | 'uri' | 'date' | 'date-time' | (string & {}) | null;
  default?: string | null;
  enum?: string[] | null;
  oneOf?: ElicitationEnumOption[] | null;
}

export interface ElicitationNumberProperty extends ElicitationPropertyBase {
  type: 'number' | 'integer';
  minimum?: number | null;
  maximum?: number | null;
  default?: number | null;
}

export interface ElicitationBooleanProperty extends ElicitationPropertyBase {
  type: 'boolean';
  default?: boolean | null;
}

/** A multi select: the answer is a list of the offered strings. */
export interface ElicitationMultiSelectProperty extends ElicitationPropertyBase {
  type: 'array';
  minItems?: number | null;
  maxItems?: number | null;
  items:
    { type: 'string'; enum: string[]; _meta?: Meta | null } | { anyOf: ElicitationEnumOption[]; _meta?: Meta | null };
  default?: string[] | null;
}

/** A property type this version of acp-kit does not know: kept raw, never shown as a known one (ACP-ALL-ELIC-12). */
export interface ElicitationUnknownProperty extends ElicitationPropertyBase {
  type: UnknownKind;
  [key: string]: unknown;
}

export type ElicitationProperty =
  | ElicitationStringProperty
  | ElicitationNumberProperty
  | ElicitationBooleanProperty
  | ElicitationMultiSelectProperty
  | ElicitationUnknownProperty;

/** The restricted JSON Schema of a form: an object of primitive-typed properties. */
export interface ElicitationSchema {
  type?: 'object';
  title?: string | null;
  description?: string | null;
  properties: Record<string, ElicitationProperty>;
  required?: string[] | null;
}

/** A value of an answered form field (v2 also carries any other JSON; v1 drops it). */
export type ElicitationValue = string | number | boolean | string[];

/**
 * What an elicitation is tied to: a session (and optionally one of its tool calls), or a pending
 * client request (e.g. during authentication, before any session exists). Exactly one
 * (ACP-ALL-ELIC-03).
 */
export type ElicitationScope =
  | { sessionId: string; toolCallId?: string | null; requestId?: undefined }
  | { requestId: string | number; sessionId?: undefined; toolCallId?: undefined };

/** What every elicitation carries. */
export interface ElicitationBase {
  message: string;
  _meta?: Meta | null;
}
export type FormElicitation = ElicitationBase & { mode: 'form'; requestedSchema: ElicitationSchema };
/** `url` must not carry credentials or personal data (ACP-ALL-ELIC-11). */
export type UrlElicitation = ElicitationBase & { mode: 'url'; elicitationId: string; url: string };

/** `elicitation/create` params. */
export type CreateElicitationRequest = (FormElicitation | UrlElicitation) & ElicitationScope;

/**
 * `elicitation/create` result. A url `accept` means the user consented to open it, not that the
 * flow completed (ACP-ALL-ELIC-07): completion comes as `elicitation/complete`.
 */
export type CreateElicitationResponse =
  | { action: 'accept'; content?: Record<string, ElicitationValue> | null; _meta?: Meta | null }
  | { action: 'decline'; _meta?: Meta | null }
  | { action: 'cancel'; _meta?: Meta | null };

/** The action of an elicitation answer. */
export type ElicitationAction = CreateElicitationResponse['action'];

/** `elicitation/complete` params: a url elicitation finished out of band. */
export interface CompleteElicitationNotification {
  elicitationId: string;
  _meta?: Meta | null;
}
