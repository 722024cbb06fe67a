import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';
import { stripAnsi } from '../style.js';

const identity = (s: string): string => s;

/**
 * One Markdown renderer for the chat (marked + marked-terminal). Colour and code highlighting
 * follow chalk's level, which `chat` derives from NO_COLOR/FORCE_COLOR before ink is loaded.
 * Block-level styles are identity: marked-terminal's default `chalk.reset` would also reset the
 * colours ink puts around the text.
 */
const marked = new Marked(
  markedTerminal({
    paragraph: identity,
    listitem: identity,
    table: identity,
    hr: identity,
    emoji: false,
    tab: 2,
    showSectionPrefix: true,
  }),
  {
    renderer: {
      // marked-terminal renders a text token's raw text; in tight list items that token carries
      // inline tokens (code spans, emphasis, links) that must be rendered too
      text(token) {
        if ('tokens' in token && token.tokens && token.tokens.length > 0) return this.parser.parseInline(token.tokens);
        return false;
      },
    },
  },
);

/** Renders a complete Markdown text for the terminal, without the trailing blank lines. */
export function renderMarkdown(source: string): string {
  if (source.trim() === '') return '';
  let out: string;
  try {
    out = marked.parse(source, { async: false });
  } catch {
    // never lose the agent's text over a renderer problem
    return stripAnsi(source);
  }
  return out.replace(/\s+$/, '');
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Markdown of a message that is still streaming, rendered incrementally: the text is cut at
 * blank lines outside fenced code, blocks before the last cut are rendered once and kept, only
 * the tail is rendered again on each update. A long stream so costs O(length) parse work in
 * total instead of O(length²). A text that is not an extension of the previous one (replaced
 * content) starts over.
 */
export class StreamingMarkdown {
  private source = '';
  /** source offset up to which blocks are settled */
  private settledEnd = 0;
  /** offset of the first line not yet scanned for cuts */
  private scanPos = 0;
  private inFence: string | undefined;
  private readonly settled: string[] = [];
  private tailSource: string | undefined;
  private tailOut = '';
  /** Block renders done and the source characters they parsed (to check the incremental behaviour). */
  renders = 0;
  parsedChars = 0;

  /** Returns the rendered blocks for `text` (settled ones are the same strings as before). */
  update(text: string): readonly string[] {
    if (!text.startsWith(this.source.slice(0, this.scanPos))) this.reset();
    this.source = text;
    let cut = -1;
    let pos = this.scanPos;
    for (;;) {
      const nl = text.indexOf('\n', pos);
      if (nl < 0) break;
      const line = text.slice(pos, nl);
      // the fence's first character (` or ~): a fence closes only with its own kind
      const mark = FENCE.exec(line)?.[1]?.charAt(0);
      if (mark) {
        if (this.inFence === undefined) this.inFence = mark;
        else if (this.inFence === mark) this.inFence = undefined;
      } else if (this.inFence === undefined && line.trim() === '') {
        cut = nl + 1;
      }
      pos = nl + 1;
    }
    this.scanPos = pos;
    if (cut > this.settledEnd) {
      const block = renderMarkdown(text.slice(this.settledEnd, cut));
      this.renders++;
      this.parsedChars += cut - this.settledEnd;
      if (block) this.settled.push(block);
      this.settledEnd = cut;
    }
    const tail = text.slice(this.settledEnd);
    if (tail !== this.tailSource) {
      this.tailSource = tail;
      this.tailOut = renderMarkdown(tail);
      this.renders++;
      this.parsedChars += tail.length;
    }
    return this.tailOut ? [...this.settled, this.tailOut] : [...this.settled];
  }

  private reset(): void {
    this.settledEnd = 0;
    this.scanPos = 0;
    this.inFence = undefined;
    this.settled.length = 0;
    this.tailSource = undefined;
    this.tailOut = '';
  }
}
