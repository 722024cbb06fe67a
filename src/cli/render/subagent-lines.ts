/**
 * `run`'s text rendering of the unstable subagent kinds: a child session's work is rendered by a
 * transcript renderer of its own whose output is indented under the parent's, one whole line at
 * a time (a child's half-written line never splits a line of the parent's).
 */
import type { SessionState } from '@acp-kit/protocol';
import type { Style } from '../style.js';
import { TranscriptRenderer } from './transcript.js';

/** The indentation of a child's lines (deeper children are indented again by their own parent). */
export const SUBAGENT_INDENT = '  │ ';

/** Renders the children of one top session, each through its own indented renderer. */
export class SubagentRenderers {
  private readonly renderers = new Map<string, { r: TranscriptRenderer; pending: string }>();

  constructor(
    private readonly parent: TranscriptRenderer,
    private readonly style: Style,
    private readonly cwd: string,
  ) {}

  /** The renderer of the child whose state is `child` (made on its first update). */
  of(child: SessionState): TranscriptRenderer {
    return this.entry(child.sessionId).r;
  }

  /** Writes what is left of every child's unfinished line (at the end of the turn). */
  flush(): void {
    for (const e of this.renderers.values()) {
      if (e.pending !== '') this.parent.line(`${SUBAGENT_INDENT}${e.pending}`);
      e.pending = '';
    }
  }

  private entry(id: string): { r: TranscriptRenderer; pending: string } {
    const e = this.renderers.get(id);
    if (e) return e;
    // `created` is read by its own write function: lines are emitted whole, under the parent's
    const created = {
      pending: '',
      r: new TranscriptRenderer({
        style: this.style,
        cwd: this.cwd,
        write: (s: string) => {
          const lines = (created.pending + s).split('\n');
          created.pending = lines.pop() ?? '';
          for (const l of lines) this.parent.line(`${SUBAGENT_INDENT}${l}`);
        },
      }),
    };
    this.renderers.set(id, created);
    return created;
  }
}
