import { render } from 'preact';
import { App } from './components/App.js';

// the page's entry (bundled by scripts/bundle.mjs); each component lives in components/<Name>.tsx
const root = document.getElementById('app');
if (!root) throw new Error('inspector page: the HTML has no #app element');
render(<App />, root);
