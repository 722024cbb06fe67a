// A proxy component (acp-kit conduct) that redacts secrets (API-key-like tokens) from every
// session/update and permission request on its way to the editor: message text, tool input and
// output, titles, in the neutral model
// (the same code runs in a v1 and a v2 chain). Agents stream text in chunks that may cut a secret
// in two, so message and thought chunks are held back to the last whitespace and sent on whole words.
//   acp-kit conduct -- node examples/redact-secrets-component.mjs -- acp-kit agent
//   acp-kit conduct --component examples/redact-secrets-component.mjs -- acp-kit agent
import { defineComponent, runComponentIfMain } from 'acp-kit/proxy';

const SECRET = new RegExp(process.env.SECRET_PATTERN ?? '\\b(?:sk|ghp|xox[bp])-[A-Za-z0-9_-]{6,}', 'g');
const CHUNKS = new Set(['agent_message_chunk', 'agent_thought_chunk']);

/** `value` with the secrets in every string inside it replaced. */
function redact(value) {
  if (typeof value === 'string') return value.replace(SECRET, '[REDACTED]');
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v)]));
  }
  return value;
}

/** Per session: the text chunk held back (its update, with the text not sent yet). */
const held = new Map();

/** Sends what is held for `sessionId`, redacted. */
function flush(sessionId, next) {
  const h = held.get(sessionId);
  held.delete(sessionId);
  if (h && h.update.content.text) next({ sessionId, update: redact(h.update) });
}

const redactSecrets = defineComponent({
  onUpdate({ sessionId, update }, next) {
    const h = held.get(sessionId);
    const isText = CHUNKS.has(update.sessionUpdate) && update.content?.type === 'text';
    if (
      !isText ||
      (h && (h.update.sessionUpdate !== update.sessionUpdate || h.update.messageId !== update.messageId))
    ) {
      flush(sessionId, next);
    }
    if (!isText) return next({ sessionId, update: redact(update) });
    const text = (held.get(sessionId)?.update.content.text ?? '') + update.content.text;
    // everything up to the last whitespace is whole words: safe to redact and send
    const cut = Math.max(text.lastIndexOf(' '), text.lastIndexOf('\n')) + 1;
    if (cut > 0)
      next({ sessionId, update: redact({ ...update, content: { ...update.content, text: text.slice(0, cut) } }) });
    held.set(sessionId, { update: { ...update, content: { ...update.content, text: text.slice(cut) } } });
  },
  toClient: {
    // a permission request shows the tool call's input: the user approves it without the secret
    'session/request_permission': (params, next) => next(redact(params)),
  },
  async onPrompt(req, next, ctx) {
    const answer = await next(req);
    // the end of the turn (v1) ends the last message: send what is held before the answer
    flush(req.sessionId, (u) => ctx.sendUpdate(u.sessionId, u.update));
    return answer;
  },
});

export default redactSecrets;
runComponentIfMain(import.meta.url, redactSecrets);
