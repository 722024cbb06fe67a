import type { SessionView } from '../api.js';

/**
 * What the unstable session methods told about the session (issue 26 item 3): archived, the last
 * status, the session it was forked from and the forks made of it. Each chip selects the answer
 * that told it.
 */
export function SessionFacts(props: { s: SessionView; onSelect: (seqs: number[], focus?: number) => void }) {
  const { s, onSelect } = props;
  const chip = (seq: number, text: string, testId: string) => (
    <li key={`${testId}-${seq}`}>
      <button class="chip" data-testid={testId} onClick={() => onSelect([seq], seq)} title={`frame ${seq}`}>
        {text}
      </button>
    </li>
  );
  const status = s.status?.value;
  if (s.archived === undefined && status === undefined && s.forkOf === undefined && s.forks.length === 0) return null;
  return (
    <ul class="facts" aria-label="Session facts">
      {s.archived ? chip(s.archived.seq, s.archived.value ? 'archived' : 'unarchived', 'session-archived') : null}
      {s.status && status
        ? chip(s.status.seq, `status: ${status.status}${status.state ? ` (${status.state})` : ''}`, 'session-status')
        : null}
      {s.forkOf ? chip(s.forkOf.seq, `fork of ${s.forkOf.value}`, 'session-fork-of') : null}
      {s.forks.map((f) => chip(f.seq, `forked -> ${f.value}`, 'session-fork'))}
    </ul>
  );
}
