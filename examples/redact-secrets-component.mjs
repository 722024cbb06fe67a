// A proxy component (acp-kit conduct) that redacts secrets (API-key-like tokens) from the text of
// every session/update on its way to the editor, in the neutral model (v1 and v2 alike).
//   acp-kit conduct -- node examples/redact-secrets-component.mjs -- acp-kit agent
import { defineComponent, runComponent } from 'acp-kit/proxy';

const SECRET = new RegExp(process.env.SECRET_PATTERN ?? '\\b(?:sk|ghp|xox[bp])-[A-Za-z0-9_-]{6,}', 'g');

/** A content block with its text redacted (other blocks as they are). */
function redact(block) {
  return block && block.type === 'text' ? { ...block, text: block.text.replace(SECRET, '[REDACTED]') } : block;
}

runComponent(
  defineComponent({
    onUpdate({ sessionId, update }, next) {
      if ('content' in update && update.content && !Array.isArray(update.content)) {
        next({ sessionId, update: { ...update, content: redact(update.content) } });
      } else next({ sessionId, update });
    },
  }),
);
