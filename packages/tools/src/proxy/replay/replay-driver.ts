import type { AnswerIndex } from './answer-index.js';
import type { ReplayDivergence } from './replay-agent.js';
import { describeFrame, updateKind, type ScriptFrame } from './script.js';

/**
 * What the live agent has done so far, counted the way the recording is read: which recorded
 * editor requests have their live answer, how many permission requests and v2 `state_update`s
 * of each state arrived, whether the agent went away, and the first divergence. Every change
 * wakes the driver's wait ({@link LiveProgress.changedWithin}), which then re-checks its condition.
 */
export class LiveProgress {
  /** recorded editor request seqs whose live answer arrived */
  readonly answered = new Set<number>();
  permissions = 0;
  readonly states = new Map<string, number>();
  agentGone = false;
  divergence: ReplayDivergence | undefined;
  private wake: () => void = () => undefined;
  private changed = new Promise<void>((resolve) => (this.wake = resolve));

  constructor(private readonly log: (line: string) => void = () => undefined) {}

  answer(requestSeq: number): void {
    this.answered.add(requestSeq);
    this.notify();
  }

  permission(): void {
    this.permissions++;
    this.notify();
  }

  state(state: string): void {
    this.states.set(state, (this.states.get(state) ?? 0) + 1);
    this.notify();
  }

  gone(): void {
    this.agentGone = true;
    this.notify();
  }

  /** Records the first divergence (later ones are consequences of it and are dropped). */
  diverge(seq: number, expected: string, got: string, message: string): void {
    if (this.divergence) return;
    this.divergence = { seq, expected, got, message };
    this.log(message);
    this.notify();
  }

  notify(): void {
    const w = this.wake;
    this.changed = new Promise<void>((resolve) => (this.wake = resolve));
    w();
  }

  /** Resolves at the next change, or after `ms` when nothing changed. */
  async changedWithin(ms: number): Promise<void> {
    let t: NodeJS.Timeout | undefined;
    await Promise.race([this.changed, new Promise<void>((resolve) => (t = setTimeout(resolve, ms)))]);
    clearTimeout(t);
  }
}

/**
 * What the recording shows the agent did before the next editor frame: answers to earlier editor
 * requests, a number of permission requests, a number of `state_update`s per state. The driver
 * sends that frame only once the live agent has done as much ({@link RecordedNeeds.unmet} empty).
 */
class RecordedNeeds {
  private readonly answers = new Set<number>();
  private permissions = 0;
  private readonly states = new Map<string, number>();

  constructor(
    private readonly index: AnswerIndex,
    private readonly frames: readonly ScriptFrame[],
  ) {}

  /** Takes in one recorded agent frame: what the live agent must also have done from now on. */
  add(f: ScriptFrame): void {
    const reqSeq = this.index.requestOf(f.seq);
    if (reqSeq !== undefined) this.answers.add(reqSeq);
    else if (f.kind === 'request' && f.method === 'session/request_permission') this.permissions++;
    else if (f.kind === 'notification') {
      const { update, state } = updateKind(f.message);
      if (update === 'state_update' && state !== undefined) this.states.set(state, (this.states.get(state) ?? 0) + 1);
    }
  }

  /** What the live agent has not done yet of what the recording shows (empty: go on), for messages. */
  unmet(live: LiveProgress): string[] {
    const parts: string[] = [];
    for (const s of this.answers) {
      if (!live.answered.has(s))
        parts.push(`the answer to ${this.frames.find((f) => f.seq === s)?.method ?? '?'} (frame ${s})`);
    }
    if (live.permissions < this.permissions)
      parts.push(`permission request ${live.permissions + 1} of ${this.permissions}`);
    for (const [state, n] of this.states)
      if ((live.states.get(state) ?? 0) < n) parts.push(`state_update ${state} #${n}`);
    return parts;
  }
}

/** What the driver needs from the live run around it. */
export interface DriverIo {
  progress: LiveProgress;
  /** Longest wait for one thing the recording says comes next. */
  timeoutMs: number;
  /** How the agent went away, e.g. `exited with code 1` (asked once stdout ended). */
  describeGone(): Promise<string>;
  /** Sends one recorded editor request or notification to the live agent. */
  send(f: ScriptFrame): Promise<void>;
}

/**
 * Waits until the live agent has done all of `needs`. False (with the divergence recorded in the
 * progress) when a divergence was found, the agent went away, or nothing moved for `timeoutMs`.
 */
async function waitForNeeds(
  needs: RecordedNeeds,
  at: ScriptFrame | undefined,
  lastSeq: number,
  io: DriverIo,
): Promise<boolean> {
  const live = io.progress;
  const deadline = Date.now() + io.timeoutMs;
  const where = at ? `before frame ${at.seq} (${describeFrame(at)})` : 'at the end of the recording';
  const seq = at?.seq ?? lastSeq;
  for (;;) {
    if (live.divergence) return false;
    if (needs.unmet(live).length === 0) return true;
    if (live.agentGone) {
      const how = await io.describeGone();
      const pending = needs.unmet(live).join(', ');
      live.diverge(seq, pending, 'agent gone', `replay: the agent ${how} ${where}, still waiting for ${pending}`);
      return false;
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      const pending = needs.unmet(live).join(', ');
      live.diverge(seq, pending, 'timeout', `replay: waited ${io.timeoutMs / 1000} s ${where} for ${pending}`);
      return false;
    }
    await live.changedWithin(left);
  }
}

/**
 * The replay's driver: walks the recording in order and sends each editor request and notification
 * once the live agent has done what the recording shows it did before that frame. Answers to the
 * agent's requests are not sent from here (they are given live) and lines that are not JSON-RPC are
 * not resent. True when every frame was sent and the agent then did all the recording shows after them.
 */
export async function driveReplay(frames: readonly ScriptFrame[], index: AnswerIndex, io: DriverIo): Promise<boolean> {
  const needs = new RecordedNeeds(index, frames);
  const lastSeq = frames[frames.length - 1]?.seq ?? 0;
  for (const f of frames) {
    if (f.dir === 'agent->editor') {
      needs.add(f);
      continue;
    }
    if (f.kind !== 'request' && f.kind !== 'notification') continue;
    if (!(await waitForNeeds(needs, f, lastSeq, io))) return false;
    await io.send(f);
  }
  return waitForNeeds(needs, undefined, lastSeq, io);
}
