import { list, rec, type AnyRec } from '../json-view.js';
import { Markdown } from './Markdown.js';

export function Blocks(props: { blocks: unknown }) {
  // consecutive text blocks are one text (chunks split words anywhere)
  const parts: Array<{ text: string } | { block: AnyRec | undefined }> = [];
  for (const b of list(props.blocks).map(rec)) {
    if (b?.type === 'text' && typeof b.text === 'string') {
      const last = parts[parts.length - 1];
      if (last && 'text' in last) last.text += b.text;
      else parts.push({ text: b.text });
    } else parts.push({ block: b });
  }
  return (
    <div class="blocks">
      {parts.map((p, i) =>
        'text' in p ? (
          <Markdown key={i} text={p.text} />
        ) : (
          <div key={i} class="block-other">
            <span class="badge">{String(p.block?.type)}</span>{' '}
            {String(p.block?.uri ?? p.block?.name ?? p.block?.mimeType ?? '')}
          </div>
        ),
      )}
    </div>
  );
}
