import type { AnySessionUpdate } from '@acp-kit/protocol';

/** Longest session title the agent derives (characters, before the ellipsis). */
export const MAX_TITLE_CHARS = 60;

/**
 * A session title from the first prompt's text (ACP-ALL-INFO-01): one line, whitespace collapsed,
 * cut at a word boundary to at most {@link MAX_TITLE_CHARS} characters plus `…`. `undefined` when
 * the prompt has no text to name it by (e.g. only an image).
 */
export function titleFromPrompt(text: string): string | undefined {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line === '') return undefined;
  if (line.length <= MAX_TITLE_CHARS) return line;
  const cut = line.slice(0, MAX_TITLE_CHARS);
  const space = cut.lastIndexOf(' ');
  // a word boundary only when it keeps most of the text (one long word is cut inside)
  return `${(space >= MAX_TITLE_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** True when stored history already named the session (a restored session keeps its title). */
export function historyHasTitle(history: readonly AnySessionUpdate[]): boolean {
  return history.some((u) => u.sessionUpdate === 'session_info_update' && typeof u.title === 'string');
}
