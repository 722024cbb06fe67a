import { useEffect, useState } from 'preact/hooks';
import { getJson, type FrameDetail } from '../api.js';
import { Tree } from './Tree.js';

/** One side of an aligned pair: the frame's tree, the differing fields highlighted. */
export function DiffFrame(props: { source: string; seq: number; changed: Set<string> }) {
  const [d, setD] = useState<FrameDetail | undefined>(undefined);
  useEffect(() => {
    let stop = false;
    void getJson<FrameDetail>(`api/s/${props.source}/frame/${props.seq}`).then((r) => {
      if (!stop) setD(r);
    });
    return () => {
      stop = true;
    };
  }, [props.source, props.seq]);
  if (!d) return <div class="muted">Loading frame {props.seq}…</div>;
  return (
    <div class="tree">
      {d.json === undefined ? (
        <pre class="raw">{d.frame.raw}</pre>
      ) : (
        <Tree value={d.json} path="" marks={{ undeclared: [], meta: [] }} depth={0} changed={props.changed} />
      )}
    </div>
  );
}
