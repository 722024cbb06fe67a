import type { UpdateEncoder, AnySessionUpdate, ValidationFailure, WireValidator } from '@acp-kit/protocol';
import { messageOf } from './error-text.js';
import type { AgentLifecycle } from './lifecycle/index.js';
import type { AgentLogger } from './logger.js';
import { isHistoryUpdate, type StoredSession } from './session-store.js';

/** What a history replay writes through (one connection's view of one session). */
export interface ReplayTarget {
  sessionId: string;
  lifecycle: AgentLifecycle;
  /** Encodes for the connection (the session's own encoder, or a fresh one for a joiner). */
  encoder: UpdateEncoder;
  /** The schema of the connection's version: stored lines are checked before they go out. */
  validator: WireValidator;
  logger: AgentLogger;
  /** Writes one wire update (`params.update` of a `session/update`). */
  notify(wire: object): void;
  whenWritable(): Promise<void>;
  /** Called for every update about to be encoded (the session notes what its encoder saw). */
  noteSent?(u: AnySessionUpdate): void;
}

/**
 * Sends a stored history, re-encoded for the connection's version (a v2-recorded session replays
 * to v1 and back). The lifecycle adds what a version's replay needs before an update (v2
 * primers). Shared by the agent runtime and the cluster's followers, which replay from the table.
 */
export async function replayHistory(
  t: ReplayTarget,
  stored: Pick<StoredSession, 'updates' | 'locations'>,
): Promise<void> {
  const { lifecycle, encoder: enc, validator, sessionId } = t;
  // stored lines are checked against the schema before they go out: a corrupt or hand-edited
  // store must not put invalid updates on the wire (nor abort the replay half-way)
  const send = (u: AnySessionUpdate, where: string): void => {
    t.noteSent?.(u);
    let wires: object[];
    try {
      wires = enc.encode(u);
    } catch (e) {
      t.logger.warn(
        `session ${sessionId}: stored update at ${where} dropped from the replay: it cannot be encoded (${messageOf(e)})`,
      );
      return;
    }
    if (wires.length === 0) {
      const failure = lifecycle.droppedReason(u);
      if (failure)
        t.logger.warn(
          `session ${sessionId}: stored update at ${where} dropped from the replay: invalid ${u.sessionUpdate} at ${failure.path}: ${failure.message}`,
        );
      return;
    }
    for (const wire of wires) {
      let failure: ValidationFailure | 'unknown' | null;
      try {
        failure = validator.update(wire);
      } catch (e) {
        failure = { path: 'update', message: messageOf(e) };
      }
      if (failure && failure !== 'unknown') {
        const kind = ('sessionUpdate' in wire ? wire.sessionUpdate : undefined) ?? 'update';
        t.logger.warn(
          `session ${sessionId}: stored update at ${where} dropped from the replay: invalid ${String(kind)} at ${failure.path}: ${failure.message}`,
        );
        continue;
      }
      try {
        t.notify(wire);
      } catch (e) {
        // e.g. nested too deep to serialise
        t.logger.warn(
          `session ${sessionId}: stored update at ${where} dropped from the replay: it cannot be sent (${messageOf(e)})`,
        );
      }
    }
  };
  const primed = new Set<string>();
  let n = 0;
  for (const [i, u] of stored.updates.entries()) {
    if (!isHistoryUpdate(u)) continue;
    const where = stored.locations?.[i] ?? `history entry ${i + 1}`;
    const primer = lifecycle.replayPrimer(u, primed);
    if (primer) send(primer, where);
    send(u, where);
    if (++n % 256 === 0) await t.whenWritable();
  }
}
