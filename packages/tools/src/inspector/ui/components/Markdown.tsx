import { useMemo } from 'preact/hooks';
import { renderMarkdown } from '../markdown.js';

export function Markdown(props: { text: string }) {
  const html = useMemo(() => renderMarkdown(props.text), [props.text]);
  return <div class="md" dangerouslySetInnerHTML={{ __html: html }} />;
}
