// A proxy component (acp-kit conduct) that adds a system note before every prompt, in the neutral
// model: the same code runs in a v1 and a v2 chain.
//   acp-kit conduct -- node examples/system-note-component.mjs -- acp-kit agent
import { defineComponent, runComponent } from 'acp-kit/proxy';

const NOTE = process.env.SYSTEM_NOTE ?? 'System note: answer briefly.';

runComponent(
  defineComponent({
    onPrompt(req, next) {
      return next({ ...req, prompt: [{ type: 'text', text: NOTE }, ...req.prompt] });
    },
  }),
);
