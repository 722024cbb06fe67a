import { render } from 'preact';
import { App } from './components/App.js';

// the page's entry (bundled by scripts/bundle.mjs); each component lives in components/<Name>.tsx
const root = document.getElementById('app');
if (!root) throw new Error('inspector page: the HTML has no #app element');
// the first render in a task of its own: evaluating the bundle (its libraries set up their tables)
// is one task already
setTimeout(() => render(<App />, root), 0);
// the first toLocaleString sets up the browser's number formatting (10+ ms of CPU): here it is a task
// of its own, not part of the session view's first render (its token counts use it)
setTimeout(() => (0).toLocaleString(), 0);
