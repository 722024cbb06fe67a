// A proxy component (acp-kit conduct) that adds a system note before every prompt, in the neutral
// model: the same code runs in a v1 and a v2 chain. Its definition is the default export (an
// in-process component); run directly, it serves stdio as a program.
//   acp-kit conduct -- node examples/system-note-component.mjs -- acp-kit agent
//   acp-kit conduct --component examples/system-note-component.mjs -- acp-kit agent
import { defineComponent, runComponentIfMain } from 'acp-kit/proxy';

const NOTE = process.env.SYSTEM_NOTE ?? 'System note: answer briefly.';

const systemNote = defineComponent({
  onPrompt(req, next) {
    return next({ ...req, prompt: [{ type: 'text', text: NOTE }, ...req.prompt] });
  },
});

export default systemNote;
runComponentIfMain(import.meta.url, systemNote);
