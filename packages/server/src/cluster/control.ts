import { isObj } from '@acp-kit/protocol/internal';

/**
 * Rows the cluster adds to a session's live updates besides the runtime's: a permission question
 * put to the followers, and its end. Live rows are never replayed; followers act on them in seq
 * order, so a question reaches a client after the tool call it is about.
 */
export const PERMISSION = '_acpkit/cluster_permission';
export const PERMISSION_DONE = '_acpkit/cluster_permission_done';

/** A permission question of the owner's runtime for the followers' clients. */
export interface PermissionRow {
  sessionUpdate: typeof PERMISSION;
  questionId: string;
  /** The v2 `session/request_permission` params, as the owner's agent sent them. */
  request: Record<string, unknown>;
}

/** The question was answered (by anyone) or withdrawn: followers withdraw it from their clients. */
export interface PermissionDoneRow {
  sessionUpdate: typeof PERMISSION_DONE;
  questionId: string;
  why: 'answered' | 'withdrawn';
}

export type ControlRow = PermissionRow | PermissionDoneRow;

/** Whether a stored live row is one of the cluster's own (not an update for clients). */
export function isControlRow(body: unknown): body is ControlRow {
  return (
    isObj(body) &&
    (body.sessionUpdate === PERMISSION || body.sessionUpdate === PERMISSION_DONE) &&
    typeof body.questionId === 'string'
  );
}
