/**
 * The inspector serves captures, which can hold secrets: nothing without the token, no CORS, a
 * strict CSP, loopback only. Plain HTTP (no browser) against an in-process server.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, startInspector, type InspectorHandle } from '../src/inspector/index.js';
import { httpGet } from '../../../test/support/http.js';

const capture = fileURLToPath(new URL('../../../test/fixtures/proxy-captures/v2-clean.ndjson', import.meta.url));

const get = httpGet;

/** Every route the page uses (relative to /<token>/). */
const ROUTES = [
  '',
  'app.js',
  'app.css',
  'api/sources',
  'api/diff?a=c0&b=c0',
  'api/s/c0/rows',
  'api/s/c0/frame/1',
  'api/s/c0/sessions',
  'api/s/c0/sessions?upto=3',
  'api/s/c0/latency',
  'api/s/c0/violations',
  'api/s/c0/search?q=hi',
  'api/s/c0/events',
];

describe('inspector security', () => {
  let h: InspectorHandle;
  beforeAll(async () => {
    h = await startInspector({ captures: [capture], listLive: false });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('binds 127.0.0.1 and prints a URL with a 128-bit random token', () => {
    expect(h.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{22}\/$/);
    expect(h.url).toContain(`/${h.token}/`);
  });

  it('with the token every route answers 200, with the CSP and without CORS headers', async () => {
    for (const route of ROUTES) {
      const r = await get(h.port, `/${h.token}/${route}`, { origin: 'http://evil.example' });
      expect(r.status, route).toBe(200);
      expect(r.headers['content-security-policy'], route).toBe(CONTENT_SECURITY_POLICY);
      expect(
        Object.keys(r.headers).filter((k) => k.startsWith('access-control-')),
        route,
      ).toEqual([]);
    }
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
  });

  it('without the token every route answers 401, with a wrong token 403, and nothing of the capture leaks', async () => {
    const wrong = h.token.slice(0, -1) + (h.token.endsWith('A') ? 'B' : 'A');
    for (const route of ROUTES) {
      const none = await get(h.port, `/${route}`);
      // a route's first segment stands where the token belongs: no token = 401 at "/", 403 elsewhere
      expect([401, 403], route).toContain(none.status);
      expect(none.body, route).not.toContain('session/prompt');
      const bad = await get(h.port, `/${wrong}/${route}`);
      expect(bad.status, route).toBe(403);
      expect(bad.body, route).not.toContain('session/prompt');
      expect(bad.headers['content-type'], route).toMatch(/^text\/plain/);
    }
    expect((await get(h.port, '/')).status).toBe(401);
    expect((await get(h.port, `/?token=${h.token}`)).status).toBe(401);
    expect((await get(h.port, '/favicon.ico')).status).toBe(403);
  });

  it('a request naming another host (DNS rebinding) is refused even with the token', async () => {
    const r = await get(h.port, `/${h.token}/api/sources`, { host: `evil.example:${h.port}` });
    expect(r.status).toBe(403);
    expect(r.body).not.toContain('v2-clean');
  });

  it('the inspector is read-only: other methods answer 405', async () => {
    const r = await get(h.port, `/${h.token}/api/sources`, {}, 'POST');
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('GET, HEAD');
  });
});
