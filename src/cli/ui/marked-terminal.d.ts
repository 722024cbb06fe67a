// marked-terminal ships no types; this declares only the part the chat uses.
declare module 'marked-terminal' {
  import type { MarkedExtension } from 'marked';

  /** Styling functions take the rendered text and return it styled (chalk-like). */
  type Style = (text: string) => string;

  export interface MarkedTerminalOptions {
    code?: Style;
    blockquote?: Style;
    html?: Style;
    heading?: Style;
    firstHeading?: Style;
    hr?: Style;
    listitem?: Style;
    table?: Style;
    paragraph?: Style;
    strong?: Style;
    em?: Style;
    codespan?: Style;
    del?: Style;
    link?: Style;
    href?: Style;
    text?: Style;
    unescape?: boolean;
    emoji?: boolean;
    width?: number;
    showSectionPrefix?: boolean;
    reflowText?: boolean;
    tab?: number | string;
  }

  /** Options passed on to cli-highlight for fenced code. */
  export interface HighlightOptions {
    language?: string;
    ignoreIllegals?: boolean;
  }

  export function markedTerminal(options?: MarkedTerminalOptions, highlightOptions?: HighlightOptions): MarkedExtension;
}
