import { key } from './id-map.js';
import type { ScriptFrame } from './script.js';

/**
 * When each recorded agent frame may be played to a live client, from what the recording shows:
 * an answer to a client request waits for that request (and for the client's notifications and
 * answers recorded before it), not for the client's other requests recorded in between: a client
 * that pipelined `initialize` and `session/new` in the recording may wait for each answer live.
 * Any other agent frame (notification, request, a line that is not JSON-RPC) waits for everything
 * the client sent before it in the recording.
 */
export class ReplaySchedule {
  /** Per frame index: the client frame is done (matched live, or nothing to wait for). */
  private readonly clientDone: boolean[];
  /** Per frame index: the agent frame was played (or skipped). */
  private readonly agentDone: boolean[];
  /** Agent answer index -> index of the client request it answers. */
  private readonly requestOf = new Map<number, number>();
  /** Recorded agent request id -> index of the client's recorded answer to it (in order). */
  private readonly clientAnswers = new Map<string, number[]>();
  /** First client frame not done. */
  private firstOpen = 0;
  /** First client notification or answer not done (requests may stay open behind it). */
  private firstOpenNonRequest = 0;
  /** First agent frame not played. */
  private firstUnplayed = 0;

  constructor(private readonly frames: readonly ScriptFrame[]) {
    this.clientDone = frames.map((f) => f.dir !== 'editor->agent' || f.kind === 'invalid');
    this.agentDone = frames.map((f) => f.dir !== 'agent->editor');
    const openRequests = new Map<string, number>();
    frames.forEach((f, i) => {
      if (f.dir === 'editor->agent' && f.kind === 'request') openRequests.set(key(f.id), i);
      else if (f.dir === 'agent->editor' && (f.kind === 'response' || f.kind === 'error')) {
        const r = openRequests.get(key(f.id));
        if (r !== undefined) {
          openRequests.delete(key(f.id));
          this.requestOf.set(i, r);
        }
      } else if (f.dir === 'editor->agent' && (f.kind === 'response' || f.kind === 'error')) {
        const list = this.clientAnswers.get(key(f.id)) ?? [];
        list.push(i);
        this.clientAnswers.set(key(f.id), list);
      }
    });
    this.advance();
  }

  /** The request an agent answer (by index) answers, when the recording has it. */
  requestIndexOf(answer: number): number | undefined {
    return this.requestOf.get(answer);
  }

  /**
   * The first open client request or notification of this kind and method: what a live one
   * stands for (by method and order, not by its place among the other methods).
   */
  matchCall(kind: 'request' | 'notification', method: string): number | undefined {
    for (let i = this.firstOpen; i < this.frames.length; i++) {
      const f = this.frames[i];
      if (f && !this.clientDone[i] && f.kind === kind && f.method === method) return i;
    }
    return undefined;
  }

  /** The first client request or notification the recording still expects (for mismatch messages). */
  nextExpectedCall(): ScriptFrame | undefined {
    for (let i = this.firstOpen; i < this.frames.length; i++) {
      const f = this.frames[i];
      if (f && !this.clientDone[i] && (f.kind === 'request' || f.kind === 'notification')) return f;
    }
    return undefined;
  }

  /** The recorded client answer to the recorded agent request `id` that is still open, if any. */
  clientAnswerTo(id: ScriptFrame['id']): number | undefined {
    return this.clientAnswers.get(key(id))?.find((i) => !this.clientDone[i]);
  }

  /** A client frame happened live. */
  clientDid(index: number): void {
    this.clientDone[index] = true;
    this.advance();
  }

  /** An agent frame was played (or skipped). */
  played(index: number): void {
    this.agentDone[index] = true;
    this.advance();
  }

  /** The next agent frame that may be played now (the earliest in recorded order), if any. */
  nextPlayable(): number | undefined {
    // past the first open client notification/answer nothing is playable: both rules wait for it
    const end = Math.min(this.firstOpenNonRequest, this.frames.length);
    for (let i = this.firstUnplayed; i < end; i++) {
      if (this.agentDone[i]) continue;
      if (i < this.firstOpen) return i;
      const r = this.requestOf.get(i);
      if (r !== undefined && this.clientDone[r]) return i;
    }
    return undefined;
  }

  /** Every recorded frame happened. */
  get finished(): boolean {
    return this.firstOpen >= this.frames.length && this.firstUnplayed >= this.frames.length;
  }

  /** The first frame not done (client or agent side), for the end report. */
  firstPending(): ScriptFrame | undefined {
    const i = Math.min(this.firstOpen, this.firstUnplayed);
    return this.frames[i];
  }

  private advance(): void {
    const n = this.frames.length;
    while (this.firstOpen < n && this.clientDone[this.firstOpen]) this.firstOpen++;
    while (this.firstUnplayed < n && this.agentDone[this.firstUnplayed]) this.firstUnplayed++;
    let j = Math.max(this.firstOpenNonRequest, this.firstOpen);
    while (j < n && (this.clientDone[j] || this.frames[j]?.kind === 'request')) j++;
    this.firstOpenNonRequest = j;
  }
}
