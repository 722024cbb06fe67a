// A proxy component that forwards everything unchanged (runComponent with no handlers): the hop cost
// bench/conduct.mjs measures.
import { defineComponent, runComponent } from 'acp-kit/proxy';

runComponent(defineComponent({}));
