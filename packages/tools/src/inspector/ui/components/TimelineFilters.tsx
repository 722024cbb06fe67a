import { KINDS } from '../data.js';
import { toggled } from '../display.js';

/** The filters of the timeline as the reader set them (the search query is sent to the server). */
export interface FilterState {
  kinds: Set<string>;
  method: string;
  session: string;
  onlyViolations: boolean;
  query: string;
}

export const initialFilters = (): FilterState => ({
  kinds: new Set(KINDS),
  method: '',
  session: '',
  onlyViolations: false,
  query: '',
});

/** The timeline's header: kinds, method, session, violations only, search, and the counts. */
export function TimelineFilters(props: {
  f: FilterState;
  onChange: (patch: Partial<FilterState>) => void;
  methods: string[];
  sessions: string[];
  rowCount: number;
  frameCount: number;
}) {
  const { f, onChange } = props;
  return (
    <div class="filters">
      <fieldset>
        <legend class="sr-only">Kinds</legend>
        {KINDS.map((k) => (
          <label key={k} class="chip">
            <input
              type="checkbox"
              checked={f.kinds.has(k)}
              onChange={() => onChange({ kinds: toggled(f.kinds, k) })}
              data-testid={`kind-${k}`}
            />{' '}
            {k}
          </label>
        ))}
      </fieldset>
      <select
        aria-label="Method"
        data-testid="method-filter"
        value={f.method}
        onChange={(e) => onChange({ method: e.currentTarget.value })}
      >
        <option value="">all methods</option>
        {props.methods.map((m) => (
          <option key={m} value={m}>
            {m}
          </option>
        ))}
      </select>
      <select aria-label="Session" value={f.session} onChange={(e) => onChange({ session: e.currentTarget.value })}>
        <option value="">all sessions</option>
        {props.sessions.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
      <label class="chip">
        <input
          type="checkbox"
          checked={f.onlyViolations}
          onChange={() => onChange({ onlyViolations: !f.onlyViolations })}
        />{' '}
        violations only
      </label>
      <input
        type="search"
        placeholder="search frames…"
        aria-label="Search frames"
        data-testid="search"
        value={f.query}
        onInput={(e) => onChange({ query: e.currentTarget.value })}
      />
      <span class="muted" data-testid="row-count">
        {props.rowCount} rows · {props.frameCount} frames
      </span>
    </div>
  );
}
