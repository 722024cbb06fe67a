import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson, ROW, type SessionView } from '../api.js';
import type { Data } from '../data.js';
import { SessionBlock } from './SessionBlock.js';

/** `v`, in a task of its own: what the caller does next does not lengthen the current task. */
function inNextTask<T>(v: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(v), 0));
}

/**
 * The sessions rebuilt up to frame `uptoSeq` (undefined: all of them, asked for again as frames
 * come in). One request at a time; a position asked for while one loads is asked for after it.
 */
function useSessions(sourceId: string, data: Data, uptoSeq: number | undefined): SessionView[] {
  const [sessions, setSessions] = useState<SessionView[]>([]);
  const inflight = useRef(false);
  const wanted = useRef<string>('');
  const [again, setAgain] = useState(0);
  useEffect(() => {
    // the timeline paints first: the session (a bigger answer) is asked for once the frames are in
    // the whole session is asked for once every frame is analyzed (a replay position needs only frames)
    if (data.version === 0 || (uptoSeq === undefined && !data.analysisComplete)) return;
    const q = uptoSeq === undefined ? '' : `?upto=${uptoSeq}`;
    const key = `${sourceId}${q}#${uptoSeq === undefined ? data.version : ''}`;
    wanted.current = key;
    const load = () => {
      if (inflight.current) return;
      inflight.current = true;
      // parsing the answer (2.4 MB at 100k frames) and rendering it are two tasks, not one
      void getJson<{ sessions: SessionView[] }>(`api/s/${sourceId}/sessions${q}`)
        .then(inNextTask)
        .then(
          (r) => {
            inflight.current = false;
            setSessions(r.sessions);
            // a newer position was asked for while this one loaded
            if (wanted.current !== key) setAgain((x) => x + 1);
          },
          () => {
            inflight.current = false;
          },
        );
    };
    const timer = setTimeout(load, uptoSeq === undefined ? 100 : 0);
    return () => clearTimeout(timer);
  }, [sourceId, uptoSeq, uptoSeq === undefined ? data.version : 0, data.analysisComplete, again]);
  return sessions;
}

/** Play: advances the replay position through capture time at `speed`, and stops at the end. */
function usePlayback(
  playing: boolean,
  speed: number,
  store: Data['store'],
  setPos: (update: (cur: number | undefined) => number | undefined) => void,
  setPlaying: (v: boolean) => void,
): void {
  const total = store.length;
  useEffect(() => {
    if (!playing) return;
    const tick = 100;
    const timer = setInterval(() => {
      setPos((cur) => {
        const i = cur === undefined ? 0 : cur;
        if (i >= total) {
          setPlaying(false);
          return undefined;
        }
        const tNow = i === 0 ? 0 : store.get(i - 1, ROW.t);
        const target = tNow + tick * speed;
        let j = i + 1;
        while (j < total && store.get(j, ROW.t) <= target) j++;
        return Math.min(j, total);
      });
    }, tick);
    return () => clearInterval(timer);
  }, [playing, speed, total]);
}

/** The conversation rebuilt from the frames, with a replay scrubber. */
export function SessionPane(props: {
  sourceId: string;
  data: Data;
  selected: Set<number>;
  onSelect: (seqs: number[], focus?: number) => void;
}) {
  const { sourceId, data, selected, onSelect } = props;
  const { store } = data;
  const total = store.length;
  const [pos, setPos] = useState<number | undefined>(undefined); // undefined = follow the end
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(4);
  const at = pos === undefined ? total : Math.min(pos, total);
  const uptoSeq = pos === undefined || at >= total ? undefined : at === 0 ? 0 : store.get(at - 1, ROW.seq);

  const sessions = useSessions(sourceId, data, uptoSeq);

  usePlayback(playing, speed, data.store, setPos, setPlaying);

  const chosenRef = useRef<HTMLDivElement>(null);
  // reverse selection: bring the first item built by the selected frame into view
  useEffect(() => {
    const el = chosenRef.current?.querySelector<HTMLElement>('.item.selected');
    el?.scrollIntoView({ block: 'nearest' });
  }, [selected]);

  return (
    <div class="session" ref={chosenRef}>
      <div class="scrubber" aria-label="Replay">
        <button
          onClick={() => {
            if (!playing && (pos === undefined || pos >= total)) setPos(0);
            setPlaying(!playing);
          }}
          aria-label={playing ? 'Pause' : 'Play'}
          data-testid="play"
        >
          {playing ? '❚❚' : '▶'}
        </button>
        <label>
          speed{' '}
          <select
            value={String(speed)}
            onChange={(e) => setSpeed(Number(e.currentTarget.value))}
            aria-label="Replay speed"
          >
            {[1, 4, 16, 64, 256].map((s) => (
              <option key={s} value={String(s)}>
                {s}×
              </option>
            ))}
          </select>
        </label>
        <input
          type="range"
          min={0}
          max={total}
          value={at}
          aria-label="Replay position (frames)"
          data-testid="scrubber"
          onInput={(e) => {
            setPlaying(false);
            const v = Number(e.currentTarget.value);
            setPos(v >= total ? undefined : v);
          }}
        />
        <span class="muted" data-testid="scrub-label">
          {pos === undefined ? `all ${total} frames` : `frame ${at} / ${total}`}
        </span>
        {pos !== undefined ? (
          <button
            class="link"
            onClick={() => {
              setPlaying(false);
              setPos(undefined);
            }}
          >
            end
          </button>
        ) : null}
      </div>
      {sessions.length === 0 ? <p class="muted">No session yet.</p> : null}
      {sessions.map((s) => (
        <SessionBlock key={s.sessionId} s={s} selected={selected} onSelect={onSelect} />
      ))}
    </div>
  );
}
