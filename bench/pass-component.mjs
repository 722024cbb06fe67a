// A proxy component that forwards everything unchanged (no handlers): the hop cost
// bench/conduct.mjs measures, as a program (node bench/pass-component.mjs) and in process (its default export).
import { defineComponent, runComponentIfMain } from 'acp-kit/proxy';

const passThrough = defineComponent({});

export default passThrough;
runComponentIfMain(import.meta.url, passThrough);
