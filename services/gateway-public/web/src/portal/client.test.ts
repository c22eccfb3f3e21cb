import { afterEach, describe, expect, it, vi } from 'vitest';
import { PortalClient } from './client';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'x-request-id': `req-${status}` },
  });

/** A fake Main Backend: session tokens valid while listed in `valid`; refresh hands out the next one. */
function backend(opts: { refreshOk: boolean }) {
  const valid = new Set<string>();
  const calls: string[] = [];
  let n = 0;
  const fetch = vi.fn(async (url: URL | string, init?: RequestInit) => {
    const path = new URL(String(url)).pathname;
    const auth = (init?.headers as Record<string, string> | undefined)?.authorization ?? '';
    calls.push(`${init?.method ?? 'GET'} ${path}${auth ? ' (bearer)' : ''}`);
    if (path.endsWith('/portal/auth/verify-otp')) {
      const token = `t${++n}`;
      valid.add(token);
      return json(200, { token, expiresAt: '' });
    }
    if (path.endsWith('/portal/auth/refresh')) {
      if (!opts.refreshOk) return json(401, { error: 'refresh cookie invalid', requestId: 'req-refresh' });
      const token = `t${++n}`;
      valid.add(token);
      return json(200, { token, expiresAt: '' });
    }
    return valid.has(auth.replace(/^Bearer /, ''))
      ? json(200, { ok: true })
      : json(401, { error: 'expired', requestId: 'req-401' });
  });
  return { valid, calls, fetch };
}

afterEach(() => vi.unstubAllGlobals());

describe('portal client', () => {
  it('renews an expired session token once through the refresh cookie and retries; parallel calls share the renewal', async () => {
    const b = backend({ refreshOk: true });
    vi.stubGlobal('fetch', b.fetch);
    const ended = vi.fn();
    const client = new PortalClient(new URL('http://portal.test/api/v1/'), ended);
    expect((await client.signIn('portal/auth/verify-otp', { code: '1' })).ok).toBe(true);
    b.valid.clear(); // the token expires
    const [a, c] = await Promise.all([client.get('portal/documents'), client.get('portal/subscriptions')]);
    expect([a.status, c.status]).toEqual([200, 200]);
    expect(b.calls.filter((x) => x.endsWith('/portal/auth/refresh'))).toHaveLength(1);
    expect(ended).not.toHaveBeenCalled();
  });

  it('ends the session when the refresh fails too, keeping the requestId of the answer', async () => {
    const b = backend({ refreshOk: false });
    vi.stubGlobal('fetch', b.fetch);
    const ended = vi.fn();
    const client = new PortalClient(new URL('http://portal.test/api/v1/'), ended);
    await client.signIn('portal/auth/verify-otp', { code: '1' });
    b.valid.clear();
    const res = await client.get('portal/documents');
    expect(res.status).toBe(401);
    expect(res.requestId).toBe('req-401');
    expect(ended).toHaveBeenCalledTimes(1);
    expect(client.signedIn).toBe(false);
    // One refresh, no retry loop.
    expect(b.calls).toEqual([
      'POST /api/v1/portal/auth/verify-otp',
      'GET /api/v1/portal/documents (bearer)',
      'POST /api/v1/portal/auth/refresh',
    ]);
  });

  it('sends the sign-in routes without a token', async () => {
    const b = backend({ refreshOk: true });
    vi.stubGlobal('fetch', b.fetch);
    const client = new PortalClient(new URL('http://portal.test/api/v1/'), () => undefined);
    await client.signIn('portal/auth/verify-otp', { code: '1' });
    await client.post('portal/auth/request-otp', { email: 'a@b.test' });
    expect(b.calls.at(-1)).toBe('POST /api/v1/portal/auth/request-otp');
  });
});
