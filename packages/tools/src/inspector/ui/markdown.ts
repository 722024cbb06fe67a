import { Marked, type Tokens } from 'marked';

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const SAFE_URL = /^(https?:|mailto:)/i;

/**
 * Markdown for agent text, made inert: raw HTML in the text is shown as text, links keep only
 * http(s)/mailto targets (and never send a referrer), images become links (nothing is loaded).
 * The page's CSP forbids inline script as a second line of defence.
 */
const md = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(token.text);
    },
    link(this: { parser: { parseInline(t: Tokens.Generic[]): string } }, token: Tokens.Link): string {
      const text = this.parser.parseInline(token.tokens);
      if (!SAFE_URL.test(token.href)) return text;
      return `<a href="${escapeHtml(token.href)}" rel="noreferrer noopener" target="_blank">${text}</a>`;
    },
    image(token: Tokens.Image): string {
      return `<span class="md-image">[image: ${escapeHtml(token.text || token.href)}]</span>`;
    },
  },
});

/** Markdown to inert HTML (see the renderer above). */
export function renderMarkdown(text: string): string {
  return md.parse(text, { async: false });
}
