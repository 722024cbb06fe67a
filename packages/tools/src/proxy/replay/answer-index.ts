import { key } from './id-map.js';
import type { ScriptFrame } from './script.js';

/** One request the recorded agent sent the editor, with the editor's recorded answer when there is one. */
export interface RecordedCall {
  request: ScriptFrame;
  answer?: ScriptFrame;
}

/**
 * Which recorded answer belongs to which recorded request, built once from the frames of a capture.
 * Editor requests are paired with the agent's answers (by id, the first answer closing the request,
 * so a reused id pairs with the answer that follows it); the agent's own requests are kept per method
 * in recorded order, so the live agent's n-th request of a method is answered as the recorded n-th was.
 */
export class AnswerIndex {
  /** editor request seq -> the agent's recorded answer */
  private readonly answers = new Map<number, ScriptFrame>();
  /** agent answer seq -> the editor request seq it answers */
  private readonly requestOfAnswer = new Map<number, number>();
  private readonly agentCalls = new Map<string, RecordedCall[]>();
  private readonly agentCallsUsed = new Map<string, number>();

  constructor(frames: readonly ScriptFrame[]) {
    const open = new Map<string, ScriptFrame>();
    const openAgent = new Map<string, RecordedCall>();
    for (const f of frames) {
      if (f.kind === 'request' && f.dir === 'editor->agent') open.set(key(f.id), f);
      else if (f.kind === 'request') this.openAgentCall(f, openAgent);
      else if (f.kind !== 'response' && f.kind !== 'error') continue;
      else if (f.dir === 'agent->editor') this.closeEditorRequest(f, open);
      else {
        const entry = openAgent.get(key(f.id));
        if (!entry) continue;
        openAgent.delete(key(f.id));
        entry.answer = f;
      }
    }
  }

  private openAgentCall(f: ScriptFrame, openAgent: Map<string, RecordedCall>): void {
    const entry: RecordedCall = { request: f };
    openAgent.set(key(f.id), entry);
    // decoded requests always carry a method; '' keeps a malformed one out of every real method's list
    const method = f.method ?? '';
    const list = this.agentCalls.get(method) ?? [];
    list.push(entry);
    this.agentCalls.set(method, list);
  }

  private closeEditorRequest(answer: ScriptFrame, open: Map<string, ScriptFrame>): void {
    const req = open.get(key(answer.id));
    if (!req) return;
    open.delete(key(answer.id));
    this.answers.set(req.seq, answer);
    this.requestOfAnswer.set(answer.seq, req.seq);
  }

  /** The agent's recorded answer to the editor request at `requestSeq`. */
  answerTo(requestSeq: number): ScriptFrame | undefined {
    return this.answers.get(requestSeq);
  }

  /** The seq of the editor request the recorded agent answer at `answerSeq` answers. */
  requestOf(answerSeq: number): number | undefined {
    return this.requestOfAnswer.get(answerSeq);
  }

  /**
   * The next recorded agent request of `method` (and its recorded answer), in recorded order: each
   * call takes one, so the live agent's n-th request gets the recorded n-th; undefined past the last.
   */
  nextAgentCall(method: string): RecordedCall | undefined {
    const n = this.agentCallsUsed.get(method) ?? 0;
    this.agentCallsUsed.set(method, n + 1);
    return this.agentCalls.get(method)?.[n];
  }
}
