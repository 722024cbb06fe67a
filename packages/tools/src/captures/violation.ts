import type { CaptureSide } from './frame.js';

/*
 * Plain types, no runtime imports: the inspector's page (a browser bundle type-checked without
 * Node's types) shows violations in the same shape the validator reports them.
 */

/** One broken rule, with the requirement it breaks and the frames involved. */
export interface Violation {
  /** Short rule name, e.g. `schema`, `unanswered-request`, `update-after-prompt-response`. */
  rule: ViolationRule;
  /**
   * The requirement ID from the ACP requirements digest (e.g. `ACP-V1-PROMPT-03`); for schema
   * failures `schema/v1` or `schema/v2` (the official schema of that version).
   */
  requirement: string;
  /** The seq numbers of the frames involved, in order; the last one is where it was detected. */
  seqs: number[];
  /** What is wrong, naming the field and the expectation. */
  message: string;
  /** Bridge captures: the leg the frames are on (each leg is checked against its own version). */
  side?: CaptureSide;
  /** Traces of a proxy chain: the hop the frames are on (each hop is checked on its own). */
  hop?: string;
}

/** The rules `CaptureValidator` (validate.ts) checks. */
export type ViolationRule =
  | 'schema'
  | 'non-json-agent-stdout'
  | 'non-json-editor-stdin'
  | 'update-after-prompt-response'
  | 'update-after-idle'
  | 'unanswered-request'
  | 'response-to-unknown-id'
  | 'duplicate-request-id'
  | 'permission-pending-after-cancel'
  | 'cancel-answered-with-error'
  | 'replay-after-load-response'
  | 'elicitation-mode-not-advertised'
  | 'elicitation-scope'
  | 'elicitation-id-reused'
  | 'elicitation-complete-unasked'
  | 'elicitation-answer-off-schema'
  | 'method-not-advertised';
