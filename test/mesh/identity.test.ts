import { randomBytes } from 'node:crypto';
import { request, type IncomingHttpHeaders } from 'node:http';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../../services/gateway-admin/src/http/routes';
import type { AnyRoute } from '../../services/gateway-admin/src/http/route-table';
import { ORGANIZATION_SCOPES, SYSTEM_SCOPES } from '../../services/gateway-admin/src/domain/scopes';
import { api, startTestMesh, type TestMesh } from '../support/mesh';
import { SoftAuthenticator } from '../support/webauthn';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';

const RP_ID = 'dashboard.test';
const ORIGIN = 'https://dashboard.test';
const PER_MINUTE = 5;
/** Loopback address outside the suite's allow-list, so its requests are rate limited. */
const LIMITED_IP = '127.0.0.2';

const hex24 = () => randomBytes(12).toString('hex');
const TOKEN_RE = (mode: 'live' | 'test') => new RegExp(`^sk_${mode}_[a-z0-9]{16}\\.[A-Za-z0-9_-]{43}$`);

/** GET from another loopback source address (fetch cannot choose its source address). */
function getFrom(
  ip: string,
  url: string,
  token?: string,
  method = 'GET',
  body?: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: any }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    };
    const req = request(url, { method, localAddress: ip, headers }, (res) => {
      let data = '';
      res.on('data', (c: Buffer) => (data += c.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data ? JSON.parse(data) : undefined }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

function cookieValue(headers: Headers, name: string): string | undefined {
  for (const c of headers.getSetCookie()) {
    const [pair] = c.split(';');
    const [k, v] = (pair ?? '').split('=');
    if (k === name) return v;
  }
  return undefined;
}

describe('identity and access control (Admin API)', () => {
  let mesh: TestMesh;
  let A: BootstrapResult;
  let B: BootstrapResult;
  const adm = (path: string) => `${mesh.adminBaseUrl}${path}`;
  const keys = (org: string, rest = '') => adm(`/organizations/${org}/api-keys${rest}`);

  beforeAll(async () => {
    mesh = await startTestMesh({
      env: {
        RATE_LIMIT_PER_MINUTE: String(PER_MINUTE),
        RATE_LIMIT_ALLOWLIST: '127.0.0.1,::1',
        WEBAUTHN_RP_ID: RP_ID,
        WEBAUTHN_ORIGINS: ORIGIN,
      },
    });
    A = await mesh.bootstrap();
    B = await mesh.bootstrap();
  });

  afterAll(async () => {
    await mesh?.dispose();
  });

  /** Creates an organization key with the bootstrap (full-scope Admin) key of `org`. */
  async function orgKey(org: BootstrapResult, body: Record<string, unknown>) {
    const res = await api('POST', keys(org.organizationId), {
      token: org.apiKey,
      body: { name: `k-${hex24()}`, ...body },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; keyId: string; token: string; mode: string; role: string; scopes: string[] };
  }

  async function systemKey(body: Record<string, unknown>) {
    const res = await api('POST', adm('/system/api-keys'), {
      token: mesh.systemApiKey,
      body: { name: `s-${hex24()}`, ...body },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; keyId: string; token: string };
  }

  describe('organization API keys', () => {
    it('creates a key whose token is shown once and works with exactly its scopes and role', async () => {
      const k = await orgKey(A, { mode: 'live', scopes: ['site:read'], role: 'Viewer' });
      expect(k.token).toMatch(TOKEN_RE('live'));
      expect(k.token.startsWith(`sk_live_${k.keyId}.`)).toBe(true);
      expect(k).toMatchObject({
        mode: 'live',
        role: 'Viewer',
        scopes: ['site:read'],
        status: 'active',
        organizationId: A.organizationId,
        prefix: `sk_live_${k.keyId}`,
      });
      expect(k).not.toHaveProperty('secretHash');

      const sites = await api('GET', adm('/sites'), { token: k.token });
      expect(sites.status).toBe(200);
      expect(sites.body.items.map((s: { id: string }) => s.id)).toContain(A.siteId);
      const write = await api('POST', adm('/sites'), { token: k.token, body: { name: 'x', url: 'https://x.example' } });
      expect(write.status).toBe(403);
      expect(write.body.error).toMatch(/missing scope site:create/);

      const one = await api('GET', keys(A.organizationId, `/${k.id}`), { token: A.apiKey });
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ id: k.id, keyId: k.keyId, name: expect.any(String) });
      expect(one.body).not.toHaveProperty('token');
      const list = await api('GET', `${keys(A.organizationId)}?limit=100`, { token: A.apiKey });
      expect(list.status).toBe(200);
      expect(list.body.items.map((i: { id: string }) => i.id)).toContain(k.id);
      expect(list.body.items.every((i: { organizationId: string }) => i.organizationId === A.organizationId)).toBe(
        true,
      );
      const raw = JSON.stringify([one.body, list.body]);
      expect(raw).not.toMatch(/secretHash|"token"/);
      expect(raw).not.toContain(k.token.split('.')[1]);
    });

    it('updates name, scopes and role; the key then answers by its new rights', async () => {
      const k = await orgKey(A, { scopes: ['site:read'], role: 'Viewer' });
      const upd = await api('PUT', keys(A.organizationId, `/${k.id}`), {
        token: A.apiKey,
        body: { name: 'renamed', scopes: ['site:read', 'site:create'] },
      });
      expect(upd.status).toBe(200);
      expect(upd.body).toMatchObject({ name: 'renamed', scopes: ['site:read', 'site:create'], role: 'Viewer' });
      const viewerWrite = await api('POST', adm('/sites'), {
        token: k.token,
        body: { name: 'x', url: 'https://x.example' },
      });
      expect(viewerWrite.status).toBe(403);
      expect(viewerWrite.body.error).toMatch(/role Editor required/);
      expect(
        (await api('PUT', keys(A.organizationId, `/${k.id}`), { token: A.apiKey, body: { role: 'Editor' } })).status,
      ).toBe(200);
      const editorWrite = await api('POST', adm('/sites'), {
        token: k.token,
        body: { name: 'by editor key', url: 'https://editor.example' },
      });
      expect(editorWrite.status).toBe(201);
    });

    it('rotates: same key ID, new secret; the old secret is refused at once', async () => {
      const k = await orgKey(A, { scopes: ['site:read'] });
      const rot = await api('POST', keys(A.organizationId, `/${k.id}/rotate`), { token: A.apiKey });
      expect(rot.status).toBe(200);
      expect(rot.body.keyId).toBe(k.keyId);
      expect(rot.body.token).toMatch(TOKEN_RE('live'));
      expect(rot.body.token).not.toBe(k.token);
      expect(rot.body.token.startsWith(`sk_live_${k.keyId}.`)).toBe(true);
      const old = await api('GET', adm('/sites'), { token: k.token });
      expect(old.status).toBe(401);
      expect(typeof old.body.error).toBe('string');
      expect((await api('GET', adm('/sites'), { token: rot.body.token })).status).toBe(200);
    });

    it('revokes (idempotently): the key gets 401, stays listed as revoked, and cannot be rotated', async () => {
      const k = await orgKey(A, { scopes: ['site:read'] });
      const rev = await api('POST', keys(A.organizationId, `/${k.id}/revoke`), { token: A.apiKey });
      expect(rev.status).toBe(200);
      expect(rev.body).toMatchObject({ status: 'revoked', revokedAt: expect.any(String) });
      expect((await api('GET', adm('/sites'), { token: k.token })).status).toBe(401);
      expect((await api('POST', keys(A.organizationId, `/${k.id}/revoke`), { token: A.apiKey })).status).toBe(200);
      const rot = await api('POST', keys(A.organizationId, `/${k.id}/rotate`), { token: A.apiKey });
      expect(rot.status).toBe(409);
      expect((await api('GET', keys(A.organizationId, `/${k.id}`), { token: A.apiKey })).body.status).toBe('revoked');
    });

    it('deletes: 204, then 404 and 401', async () => {
      const k = await orgKey(A, { scopes: ['site:read'] });
      const del = await api('DELETE', keys(A.organizationId, `/${k.id}`), { token: A.apiKey });
      expect(del.status).toBe(204);
      expect((await api('GET', keys(A.organizationId, `/${k.id}`), { token: A.apiKey })).status).toBe(404);
      expect((await api('GET', adm('/sites'), { token: k.token })).status).toBe(401);
      expect((await api('DELETE', keys(A.organizationId, `/${k.id}`), { token: A.apiKey })).status).toBe(404);
    });

    it('never lets a key grant more than it holds, nor a rotation hand out a stronger key', async () => {
      const limited = await orgKey(A, {
        scopes: ['api_key:read', 'api_key:create', 'api_key:execute', 'site:read'],
        role: 'Admin',
      });
      const before = (await api('GET', `${keys(A.organizationId)}?limit=100`, { token: A.apiKey })).body.total;
      const wider = await api('POST', keys(A.organizationId), {
        token: limited.token,
        body: { name: 'wider', scopes: ['site:read', 'invoice:create'] },
      });
      expect(wider.status).toBe(403);
      expect(wider.body.error).toMatch(/invoice:create/);
      const narrow = await api('POST', keys(A.organizationId), {
        token: limited.token,
        body: { name: 'narrow', scopes: ['site:read'] },
      });
      expect(narrow.status).toBe(201);
      expect(narrow.body.role).toBe('Admin');
      const full = (await api('GET', `${keys(A.organizationId)}?limit=100`, { token: A.apiKey })).body.items.find(
        (i: { scopes: string[]; id: string }) => i.scopes.length === ORGANIZATION_SCOPES.length && i.id !== limited.id,
      );
      const steal = await api('POST', keys(A.organizationId, `/${full.id}/rotate`), { token: limited.token });
      expect(steal.status).toBe(403);
      expect((await api('GET', `${keys(A.organizationId)}?limit=100`, { token: A.apiKey })).body.total).toBe(
        before + 1,
      );
    });

    it('refuses X-Organization-ID with an organization key (400) and a foreign :orgId (404)', async () => {
      const withHeader = await api('GET', adm('/sites'), {
        token: A.apiKey,
        headers: { 'x-organization-id': A.organizationId },
      });
      expect(withHeader.status).toBe(400);
      expect(withHeader.body.error).toMatch(/X-Organization-ID must not be sent with an organization API key/);
      expect((await api('GET', keys(hex24()), { token: A.apiKey })).status).toBe(404);
      expect((await api('GET', keys('not-an-id'), { token: A.apiKey })).status).toBe(404);
    });
  });

  describe('no escalation through keys or members', () => {
    it('lets neither a narrow nor a test-mode key manage stronger or live keys', async () => {
      const narrow = await orgKey(A, {
        scopes: ['api_key:read', 'api_key:update', 'api_key:delete', 'api_key:execute'],
      });
      const strong = await orgKey(A, { scopes: ['site:read', 'site:create'] });
      for (const [method, path] of [
        ['POST', `/${strong.id}/revoke`],
        ['DELETE', `/${strong.id}`],
      ] as const) {
        const res = await api(method, `${keys(A.organizationId)}${path}`, { token: narrow.token });
        expect(res.status, `${method} ${path}`).toBe(403);
      }
      expect(
        (await api('PUT', `${keys(A.organizationId)}/${strong.id}`, { token: narrow.token, body: { name: 'renamed' } }))
          .status,
      ).toBe(403);
      const testFull = await orgKey(A, {
        mode: 'test',
        scopes: (await api('GET', `${keys(A.organizationId)}/${strong.id}`, { token: A.apiKey })).body.scopes.concat([
          'api_key:delete',
          'api_key:execute',
        ]),
      });
      expect(
        (await api('POST', `${keys(A.organizationId)}/${strong.id}/revoke`, { token: testFull.token })).status,
      ).toBe(403);
      // The keys still work.
      expect((await api('GET', adm('/sites'), { token: strong.token })).status).toBe(200);
    });

    it('lets only a live caller holding every scope of a role hand out dashboard membership with it', async () => {
      const narrow = await orgKey(A, { scopes: ['organization:read', 'organization:update'] });
      const email = `escalate-${hex24()}@attacker.example`;
      const viaNarrow = await api('POST', adm(`/organizations/${A.organizationId}/members`), {
        token: narrow.token,
        body: { email, role: 'Admin' },
      });
      expect(viaNarrow.status).toBe(403);
      expect(viaNarrow.body.enrollmentToken).toBeUndefined();
      const testKey = await orgKey(A, { mode: 'test', scopes: ['organization:read', 'organization:update'] });
      expect(
        (
          await api('POST', adm(`/organizations/${A.organizationId}/members`), {
            token: testKey.token,
            body: { email, role: 'Viewer' },
          })
        ).status,
      ).toBe(403);
      const members = (await api('GET', adm(`/organizations/${A.organizationId}/members`), { token: A.apiKey })).body
        .items as { email: string }[];
      expect(members.map((m) => m.email)).not.toContain(email);
    });

    it('does not attach an account enrolled through another organization (e-mail ownership is unproven)', async () => {
      const email = `victim-${hex24()}@victim.example`;
      const inA = await api('POST', adm(`/organizations/${A.organizationId}/members`), {
        token: A.apiKey,
        body: { email, role: 'Viewer' },
      });
      expect(inA.status).toBe(201);
      expect(inA.body.enrollmentToken).toEqual(expect.any(String));
      const inB = await api('POST', adm(`/organizations/${B.organizationId}/members`), {
        token: B.apiKey,
        body: { email, role: 'Admin' },
      });
      expect(inB.status).toBe(409);
      expect(inB.body).toMatchObject({ code: 'USER_EXISTS_ELSEWHERE' });
      const membersB = (await api('GET', adm(`/organizations/${B.organizationId}/members`), { token: B.apiKey })).body
        .items as { email: string }[];
      expect(membersB.map((m) => m.email)).not.toContain(email);
    });
  });

  describe('system API keys', () => {
    it('are managed under /system/api-keys by system keys only, and list system keys only', async () => {
      const s = await systemKey({ scopes: ['system:read'], role: 'Viewer' });
      expect(s.token).toMatch(TOKEN_RE('live'));
      const list = await api('GET', `${adm('/system/api-keys')}?limit=100`, { token: mesh.systemApiKey });
      expect(list.status).toBe(200);
      expect(list.body.items.map((i: { id: string }) => i.id)).toContain(s.id);
      expect(
        list.body.items.every(
          (i: { kind: string; organizationId: null }) => i.kind === 'system' && i.organizationId === null,
        ),
      ).toBe(true);
      expect(JSON.stringify(list.body)).not.toMatch(/secretHash/);
      const byOrgKey = await api('GET', adm('/system/api-keys'), { token: A.apiKey });
      expect(byOrgKey.status).toBe(403);
      // Organization keys are not reachable through the system family, nor system keys through an organization.
      const orgKeyId = (await api('GET', keys(A.organizationId), { token: A.apiKey })).body.items[0].id;
      expect((await api('GET', adm(`/system/api-keys/${orgKeyId}`), { token: mesh.systemApiKey })).status).toBe(404);
      expect((await api('GET', keys(A.organizationId, `/${s.id}`), { token: A.apiKey })).status).toBe(404);

      const rot = await api('POST', adm(`/system/api-keys/${s.id}/rotate`), { token: mesh.systemApiKey });
      expect(rot.status).toBe(200);
      expect((await api('GET', adm('/system/api-keys'), { token: s.token })).status).toBe(401);
      expect((await api('GET', adm(`/system/api-keys/${s.id}`), { token: rot.body.token })).status).toBe(403); // Viewer system key lacks api_key:read
      expect(
        (await api('POST', adm(`/system/api-keys/${s.id}/revoke`), { token: mesh.systemApiKey })).body.status,
      ).toBe('revoked');
    });

    it('refuse to change the configuration-managed root key', async () => {
      const keyId = mesh.systemApiKey.split('.')[0]!.replace('sk_live_', '');
      const root = (
        await api('GET', `${adm('/system/api-keys')}?limit=100`, { token: mesh.systemApiKey })
      ).body.items.find((i: { keyId: string }) => i.keyId === keyId);
      expect(root).toBeDefined();
      expect((await api('POST', adm(`/system/api-keys/${root.id}/revoke`), { token: mesh.systemApiKey })).status).toBe(
        409,
      );
      expect((await api('GET', adm('/system/api-keys'), { token: mesh.systemApiKey })).status).toBe(200);
    });
  });

  describe('test and live data are separate', () => {
    it('a sk_test_ key sees only test data and live keys never see it', async () => {
      const t = await orgKey(A, { mode: 'test', scopes: [...ORGANIZATION_SCOPES], role: 'Admin' });
      expect(t.token).toMatch(TOKEN_RE('test'));
      expect(t.mode).toBe('test');
      const site = await api('POST', adm('/sites'), {
        token: t.token,
        body: { name: 'Test shop', url: 'https://test-shop.example' },
      });
      expect(site.status).toBe(201);
      expect(site.body.testMode).toBe(true);

      const liveList = await api('GET', `${adm('/sites')}?limit=100`, { token: A.apiKey });
      expect(liveList.body.items.map((s: { id: string }) => s.id)).not.toContain(site.body.id);
      expect((await api('GET', adm(`/sites/${site.body.id}`), { token: A.apiKey })).status).toBe(404);

      const testList = await api('GET', `${adm('/sites')}?limit=100`, { token: t.token });
      expect(testList.body.items.map((s: { id: string }) => s.id)).toEqual([site.body.id]);
      expect((await api('GET', adm(`/sites/${A.siteId}`), { token: t.token })).status).toBe(404);
      expect((await api('GET', adm(`/sites/${site.body.id}`), { token: t.token })).status).toBe(200);

      // A test key cannot mint a live key.
      const live = await api('POST', keys(A.organizationId), {
        token: t.token,
        body: { name: 'escalate', mode: 'live', scopes: ['site:read'] },
      });
      expect(live.status).toBe(403);
      const defaulted = await api('POST', keys(A.organizationId), {
        token: t.token,
        body: { name: 'test by default', scopes: ['site:read'] },
      });
      expect(defaulted.status).toBe(201);
      expect(defaulted.body.token).toMatch(TOKEN_RE('test'));
    });
  });

  describe('tenant isolation', () => {
    it("gives organization A 404 for every operation on organization B's keys and sites", async () => {
      const bKey = await orgKey(B, { scopes: ['site:read'] });
      const attempts: [string, string, unknown?][] = [
        ['GET', `/${bKey.id}`],
        ['PUT', `/${bKey.id}`, { name: 'pwned' }],
        ['DELETE', `/${bKey.id}`],
        ['POST', `/${bKey.id}/revoke`],
        ['POST', `/${bKey.id}/rotate`],
      ];
      for (const [method, rest, body] of attempts) {
        // through B's organization path ...
        const viaB = await api(method, keys(B.organizationId, rest), { token: A.apiKey, ...(body ? { body } : {}) });
        expect(viaB.status, `${method} B/${rest}`).toBe(404);
        // ... and through A's own path with B's key id
        const viaA = await api(method, keys(A.organizationId, rest), { token: A.apiKey, ...(body ? { body } : {}) });
        expect(viaA.status, `${method} A/${rest}`).toBe(404);
      }
      expect((await api('GET', keys(B.organizationId), { token: A.apiKey })).status).toBe(404);
      expect(
        (await api('POST', keys(B.organizationId), { token: A.apiKey, body: { name: 'x', scopes: ['site:read'] } }))
          .status,
      ).toBe(404);
      // B's key is untouched and still works.
      const still = await api('GET', keys(B.organizationId, `/${bKey.id}`), { token: B.apiKey });
      expect(still.body.status).toBe('active');
      expect(still.body.name).not.toBe('pwned');
      expect((await api('GET', adm('/sites'), { token: bKey.token })).status).toBe(200);
      // Sites
      const site = await api('GET', adm(`/sites/${B.siteId}`), { token: A.apiKey });
      expect(site.status).toBe(404);
      expect(JSON.stringify(site.body)).not.toContain(B.organizationId);
      expect((await api('GET', adm(`/organizations/${B.organizationId}/members`), { token: A.apiKey })).status).toBe(
        404,
      );
    });
  });

  describe('every route of the table enforces authentication, scope and role', () => {
    it('answers 401 without a token, 403 without the scope and 403 below the minimum role', async () => {
      const routes: AnyRoute[] = allRoutes({ DEFAULT_LICENSE_STATE: 'ACTIVE' });
      expect(routes.length).toBeGreaterThan(15);
      const [orgNoScope1, orgNoScope2, orgViewer] = [
        await orgKey(A, { scopes: ['vies:read'], role: 'Admin' }),
        await orgKey(A, { scopes: ['vies:execute'], role: 'Admin' }),
        await orgKey(A, { scopes: [...ORGANIZATION_SCOPES], role: 'Viewer' }),
      ];
      const [sysNoScope1, sysNoScope2, sysViewer] = [
        await systemKey({ scopes: ['vies:read'], role: 'Admin' }),
        await systemKey({ scopes: ['vies:execute'], role: 'Admin' }),
        await systemKey({ scopes: [...SYSTEM_SCOPES], role: 'Viewer' }),
      ];
      for (const r of routes) {
        const path = r.path.replace(/:orgId/g, A.organizationId).replace(/:(\w+)/g, () => hex24());
        const label = `${r.method} ${r.path}`;
        const sys = r.audience === 'system';
        const none = await api(r.method, adm(path));
        expect(none.status, `${label} without token`).toBe(401);
        expect(typeof none.body.error, label).toBe('string');

        const noScope = sys
          ? r.scope === 'vies:read'
            ? sysNoScope2
            : sysNoScope1
          : r.scope === 'vies:read'
            ? orgNoScope2
            : orgNoScope1;
        const denied = await api(r.method, adm(path), { token: noScope.token });
        expect(denied.status, `${label} without ${r.scope}`).toBe(403);
        expect(denied.body.error, label).toBe(`missing scope ${r.scope}`);

        const viewer = sys ? sysViewer : orgViewer;
        const asViewer = await api(r.method, adm(path), { token: viewer.token });
        if (r.role === 'Viewer') {
          expect([401, 403], `${label} as Viewer`).not.toContain(asViewer.status);
        } else {
          expect(asViewer.status, `${label} as Viewer`).toBe(403);
          expect(asViewer.body.error, label).toBe(`role ${r.role} required`);
        }
      }
    });
  });

  describe('versioning and API description', () => {
    it('answers /v1/* exactly like /api/v1/*', async () => {
      const alias = (p: string) => adm(p).replace('/api/v1', '/v1');
      const a = await api('GET', keys(A.organizationId, '?limit=100'), { token: A.apiKey });
      const b = await api('GET', alias(`/organizations/${A.organizationId}/api-keys?limit=100`), { token: A.apiKey });
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      expect(b.body).toEqual(a.body);
      expect((await api('GET', alias('/sites'))).status).toBe(401);
      expect((await api('GET', alias(`/sites/${B.siteId}`), { token: A.apiKey })).status).toBe(404);
    });

    it('serves the docs page and an OpenAPI document naming every route with its scope and role', async () => {
      const root = mesh.adminBaseUrl.replace(/\/api\/v1$/, '');
      const page = await fetch(`${mesh.adminBaseUrl}/docs/index.html`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(await page.text()).toMatch(/swagger-ui/i);
      const init = await fetch(`${mesh.adminBaseUrl}/docs/static/swagger-initializer.js`);
      expect(init.status).toBe(200);
      expect(await init.text()).toMatch(/SwaggerUIBundle/);
      const doc = await api('GET', `${mesh.adminBaseUrl}/docs/json`);
      expect(doc.status).toBe(200);
      for (const r of allRoutes({ DEFAULT_LICENSE_STATE: 'ACTIVE' })) {
        const p = `/api/v1${r.path.replace(/:(\w+)/g, '{$1}')}`;
        const op = doc.body.paths[p]?.[r.method.toLowerCase()];
        expect(op, `${r.method} ${p} documented`).toBeDefined();
        expect(op.description, p).toContain(`\`${r.scope}\``);
        expect(op.description, p).toContain(`role ${r.role}`);
      }
      expect(Object.keys(doc.body.paths).some((p) => p.startsWith('/v1/'))).toBe(false);
      expect(doc.body.paths['/api/v1/auth']?.post).toBeDefined();
      expect((await fetch(`${root}/v1/docs/json`)).status).toBe(404);
    });
  });

  describe('bad input', () => {
    it('rejects wrong types, unknown enums, missing and unknown fields with 400 naming the field, writing nothing', async () => {
      const before = (await api('GET', keys(A.organizationId), { token: A.apiKey })).body.total;
      const cases: [unknown, RegExp][] = [
        [{ name: 'x', scopes: ['nope:read'] }, /body\.scopes\.0: unknown scope "nope:read"/],
        [{ name: 'x', scopes: 'site:read' }, /body\.scopes: Expected array/],
        [{ scopes: ['site:read'] }, /body\.name: Required/],
        [{ name: 'x', scopes: ['site:read'], mode: 'prod' }, /body\.mode: /],
        [{ name: 'x', scopes: ['site:read'], role: 'Owner' }, /body\.role: /],
        [{ name: 'x', scopes: [] }, /body\.scopes: must name at least one scope/],
        [{ name: 'x', scopes: ['site:read'], expiresAt: 'tomorrow' }, /body\.expiresAt: /],
        [
          { name: 'x', scopes: ['site:read'], expiresAt: '2001-01-01T00:00:00Z' },
          /body\.expiresAt: must be in the future/,
        ],
        [{ name: 'x', scopes: ['system:read'] }, /body\.scopes: not allowed for organization keys/],
        [{ name: 'x', scopes: ['site:read'], secret: 'mine' }, /body: Unrecognized key/],
      ];
      for (const [body, msg] of cases) {
        const res = await api('POST', keys(A.organizationId), { token: A.apiKey, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error, JSON.stringify(body)).toMatch(msg);
      }
      const badQuery = await api('GET', `${keys(A.organizationId)}?limit=1000`, { token: A.apiKey });
      expect(badQuery.status).toBe(400);
      expect(badQuery.body.error).toMatch(/querystring\.limit/);
      const badId = await api('GET', keys(A.organizationId, '/xyz'), { token: A.apiKey });
      expect(badId.status).toBe(400);
      expect(badId.body.error).toMatch(/params\.id/);
      expect((await api('GET', keys(A.organizationId), { token: A.apiKey })).body.total).toBe(before);
    });

    it('answers unknown routes with a 404 envelope and duplicates with 409', async () => {
      const unknown = await api('GET', adm('/no/such/route'), { token: A.apiKey });
      expect(unknown.status).toBe(404);
      expect(typeof unknown.body.error).toBe('string');
      const email = `dup-${hex24()}@merchant.example`;
      const members = adm(`/organizations/${A.organizationId}/members`);
      const first = await api('POST', members, { token: A.apiKey, body: { email, role: 'Editor' } });
      expect(first.status).toBe(201);
      expect(first.body.enrollmentToken).toEqual(expect.any(String));
      const again = await api('POST', members, {
        token: A.apiKey,
        body: { email: email.toUpperCase(), role: 'Viewer' },
      });
      expect(again.status).toBe(409);
      expect(again.body.error).toMatch(/already a member/);
      const list = await api('GET', `${members}?limit=100`, { token: A.apiKey });
      expect(list.body.items.filter((m: { email: string }) => m.email === email)).toEqual([
        expect.objectContaining({ role: 'Editor' }),
      ]);
      const bad = await api('POST', members, { token: A.apiKey, body: { email: 'not-an-email', role: 'Editor' } });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/body\.email/);
    });
  });

  describe('dashboard sessions with WebAuthn', () => {
    const auth = (p: string) => adm(`/auth${p}`);

    async function register(email: string, enrollmentToken: string, authn = new SoftAuthenticator(RP_ID, ORIGIN)) {
      const start = await api('POST', auth(''), { body: { email, enrollmentToken } });
      expect(start.status, JSON.stringify(start.body)).toBe(200);
      expect(start.body.flow).toBe('registration');
      expect(start.body.options.rp.id).toBe(RP_ID);
      const done = await api('POST', auth('/authenticate-complete'), {
        body: { challengeId: start.body.challengeId, response: authn.attest(start.body.options) },
      });
      return { start, done, authn };
    }

    async function signIn(email: string, authn: SoftAuthenticator) {
      const start = await api('POST', auth(''), { body: { email } });
      expect(start.status).toBe(200);
      expect(start.body.flow).toBe('authentication');
      const done = await api('POST', auth('/authenticate-complete'), {
        body: { challengeId: start.body.challengeId, response: authn.assert(start.body.options) },
      });
      return { start, done };
    }

    it('registers a first credential with the enrollment token, signs in with it, and uses the JWT with role and organization', async () => {
      const email = `owner-${hex24()}@merchant.example`;
      const org = await api('POST', adm('/system/organizations'), {
        token: mesh.systemApiKey,
        body: { name: 'Passkey Shop', admin: { email, name: 'Owner' } },
      });
      expect(org.status).toBe(201);
      const orgId = org.body.organization.id as string;
      const enrollmentToken = org.body.admin.enrollmentToken as string;
      expect(enrollmentToken).toEqual(expect.any(String));

      // Without the enrollment token there is nothing to register, and a wrong one is refused.
      expect((await api('POST', auth(''), { body: { email, enrollmentToken: 'wrong' } })).status).toBe(401);

      const { start, done, authn } = await register(email, enrollmentToken);
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(done.body).toMatchObject({
        tokenType: 'Bearer',
        expiresIn: 900,
        user: { email },
        organizations: [{ id: orgId, role: 'Admin' }],
      });
      const refresh = cookieValue(done.headers, 'paymesh_refresh');
      expect(refresh).toBeTruthy();
      const setCookie = done.headers.getSetCookie().find((c) => c.startsWith('paymesh_refresh='))!;
      expect(setCookie).toMatch(/HttpOnly/i);
      expect(setCookie).toMatch(/SameSite=Strict/i);
      expect(JSON.stringify(done.body)).not.toContain(refresh!);

      // The challenge is single use, and the enrollment token is spent.
      const replay = await api('POST', auth('/authenticate-complete'), {
        body: { challengeId: start.body.challengeId, response: authn.attest(start.body.options) },
      });
      expect(replay.status).toBe(401);
      expect((await api('POST', auth(''), { body: { email, enrollmentToken } })).status).toBe(401);

      const jwt = done.body.accessToken as string;
      const check = await api('GET', auth('/login/check'), { token: jwt });
      expect(check.status).toBe(200);
      expect(check.body).toMatchObject({
        authenticated: true,
        user: { email },
        organizations: [{ id: orgId, role: 'Admin' }],
      });
      const checkSelected = await api('GET', auth('/login/check'), {
        token: jwt,
        headers: { cookie: `selectedOrganization=${orgId}` },
      });
      expect(checkSelected.body).toMatchObject({ selectedOrganization: orgId, role: 'Admin' });
      const checkStale = await api('GET', auth('/login/check'), {
        token: jwt,
        headers: { cookie: `selectedOrganization=${A.organizationId}` },
      });
      expect(checkStale.status).toBe(200);
      expect(checkStale.body).toMatchObject({ selectedOrganization: null, role: null });

      // Organization from the route's :orgId ...
      const members = await api('GET', adm(`/organizations/${orgId}/members`), { token: jwt });
      expect(members.status).toBe(200);
      expect(members.body.items).toEqual([expect.objectContaining({ email, role: 'Admin' })]);
      // ... else from the selectedOrganization cookie.
      const noOrg = await api('GET', adm('/sites'), { token: jwt });
      expect(noOrg.status).toBe(400);
      expect(noOrg.body.error).toMatch(/no organization selected/);
      const sites = await api('GET', adm('/sites'), {
        token: jwt,
        headers: { cookie: `selectedOrganization=${orgId}` },
      });
      expect(sites.status).toBe(200);
      const created = await api('POST', adm('/sites'), {
        token: jwt,
        headers: { cookie: `selectedOrganization=${orgId}` },
        body: { name: 'Dash shop', url: 'https://dash.example' },
      });
      expect(created.status).toBe(201);
      expect(created.body.organizationId).toBe(orgId);
      // Not a member of A: 404 either way.
      expect((await api('GET', adm(`/organizations/${A.organizationId}/members`), { token: jwt })).status).toBe(404);
      expect(
        (
          await api('GET', adm('/sites'), {
            token: jwt,
            headers: { cookie: `selectedOrganization=${A.organizationId}` },
          })
        ).status,
      ).toBe(404);
      const key = await api('POST', adm(`/organizations/${orgId}/api-keys`), {
        token: jwt,
        body: { name: 'from dashboard', scopes: ['site:read'] },
      });
      expect(key.status).toBe(201);
      expect(key.body).toMatchObject({ role: 'Admin', mode: 'live' });

      // Sign in again with the registered credential (authentication ceremony).
      const again = await signIn(email, authn);
      expect(again.start.body.options.allowCredentials).toEqual([expect.objectContaining({ id: authn.id })]);
      expect(again.done.status, JSON.stringify(again.done.body)).toBe(200);
      expect((await api('GET', auth('/login/check'), { token: again.done.body.accessToken })).status).toBe(200);

      // A forged assertion (another key pair claiming the same credential ID) and a foreign origin fail.
      const impostor = new SoftAuthenticator(RP_ID, ORIGIN);
      Object.defineProperty(impostor, 'credentialId', { value: authn.credentialId });
      expect((await signIn(email, impostor)).done.status).toBe(401);
      const s = await api('POST', auth(''), { body: { email } });
      const phished = await api('POST', auth('/authenticate-complete'), {
        body: {
          challengeId: s.body.challengeId,
          response: authn.assert(s.body.options, { origin: 'https://evil.example' }),
        },
      });
      expect(phished.status).toBe(401);
    });

    it('answers unknown e-mails like known ones and fails their completion', async () => {
      const ghost = `ghost-${hex24()}@nowhere.example`;
      const start = await api('POST', auth(''), { body: { email: ghost } });
      expect(start.status).toBe(200);
      expect(start.body.flow).toBe('authentication');
      expect(start.body.options.allowCredentials).toHaveLength(1);
      const again = await api('POST', auth(''), { body: { email: ghost } });
      expect(again.body.options.allowCredentials).toEqual(start.body.options.allowCredentials);
      const authn = new SoftAuthenticator(RP_ID, ORIGIN);
      const done = await api('POST', auth('/authenticate-complete'), {
        body: { challengeId: start.body.challengeId, response: authn.assert(start.body.options) },
      });
      expect(done.status).toBe(401);
      const bad = await api('POST', auth(''), { body: { email: 'nope' } });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/body\.email/);
    });

    it('refreshes with the rotating HTTP-only cookie, ends the session on reuse, and logs out', async () => {
      const email = `refresh-${hex24()}@merchant.example`;
      const added = await api('POST', adm(`/organizations/${A.organizationId}/members`), {
        token: A.apiKey,
        body: { email, role: 'Editor' },
      });
      expect(added.status).toBe(201);
      const { done } = await register(email, added.body.enrollmentToken);
      expect(done.status).toBe(200);
      const c1 = cookieValue(done.headers, 'paymesh_refresh')!;

      expect((await api('POST', auth('/refresh-token'))).status).toBe(401);
      const r1 = await api('POST', auth('/refresh-token'), { headers: { cookie: `paymesh_refresh=${c1}` } });
      expect(r1.status).toBe(200);
      expect(r1.body).toMatchObject({ tokenType: 'Bearer', expiresIn: 900, accessToken: expect.any(String) });
      const c2 = cookieValue(r1.headers, 'paymesh_refresh')!;
      expect(c2).toBeTruthy();
      expect(c2).not.toBe(c1);
      expect((await api('GET', auth('/login/check'), { token: r1.body.accessToken })).status).toBe(200);

      // Someone who knows only the session id (a guessed or random secret) can neither refresh nor end it.
      const forged = `${c2.split('.')[0]}.${'A'.repeat(43)}`;
      expect(
        (await api('POST', auth('/refresh-token'), { headers: { cookie: `paymesh_refresh=${forged}` } })).status,
      ).toBe(401);
      expect((await api('POST', auth('/logout'), { headers: { cookie: `paymesh_refresh=${forged}` } })).status).toBe(
        204,
      );
      expect((await api('GET', auth('/login/check'), { token: r1.body.accessToken })).status).toBe(200);

      // Replaying the swapped cookie ends the session: every token of it stops working.
      expect((await api('POST', auth('/refresh-token'), { headers: { cookie: `paymesh_refresh=${c1}` } })).status).toBe(
        401,
      );
      expect((await api('POST', auth('/refresh-token'), { headers: { cookie: `paymesh_refresh=${c2}` } })).status).toBe(
        401,
      );
      expect((await api('GET', auth('/login/check'), { token: r1.body.accessToken })).status).toBe(401);

      // A fresh sign-in, then logout.
      const authn2 = new SoftAuthenticator(RP_ID, ORIGIN);
      const email2 = `logout-${hex24()}@merchant.example`;
      const added2 = await api('POST', adm(`/organizations/${A.organizationId}/members`), {
        token: A.apiKey,
        body: { email: email2, role: 'Editor' },
      });
      const reg = await register(email2, added2.body.enrollmentToken, authn2);
      const jwt = reg.done.body.accessToken as string;
      const cookie = cookieValue(reg.done.headers, 'paymesh_refresh')!;
      const out = await api('POST', auth('/logout'), { token: jwt, headers: { cookie: `paymesh_refresh=${cookie}` } });
      expect(out.status).toBe(204);
      expect(out.headers.getSetCookie().some((c) => c.startsWith('paymesh_refresh=;'))).toBe(true);
      expect((await api('GET', auth('/login/check'), { token: jwt })).status).toBe(401);
      expect(
        (await api('POST', auth('/refresh-token'), { headers: { cookie: `paymesh_refresh=${cookie}` } })).status,
      ).toBe(401);
    });

    it('gives a Viewer member read-only scopes', async () => {
      const email = `viewer-${hex24()}@merchant.example`;
      const added = await api('POST', adm(`/organizations/${A.organizationId}/members`), {
        token: A.apiKey,
        body: { email, role: 'Viewer' },
      });
      const { done } = await register(email, added.body.enrollmentToken);
      expect(done.status).toBe(200);
      const jwt = done.body.accessToken as string;
      const cookie = { cookie: `selectedOrganization=${A.organizationId}` };
      expect((await api('GET', adm('/sites'), { token: jwt, headers: cookie })).status).toBe(200);
      const write = await api('POST', adm('/sites'), {
        token: jwt,
        headers: cookie,
        body: { name: 'v', url: 'https://v.example' },
      });
      expect(write.status).toBe(403);
      expect(write.body.error).toBe('missing scope site:create');
      expect((await api('GET', adm(`/organizations/${A.organizationId}/api-keys`), { token: jwt })).status).toBe(403);
      // Promoted to Admin, the same token is allowed at once (role comes from the membership).
      const userId = added.body.userId as string;
      expect(
        (
          await api('PUT', adm(`/organizations/${A.organizationId}/members/${userId}`), {
            token: A.apiKey,
            body: { role: 'Admin' },
          })
        ).status,
      ).toBe(200);
      expect((await api('GET', adm(`/organizations/${A.organizationId}/api-keys`), { token: jwt })).status).toBe(200);
    });
  });

  describe('rate limits', () => {
    it('answers the request over the per-minute cap with 429 and Retry-After on both gateways, per client', async () => {
      const limitedKey = await orgKey(A, { scopes: ['site:read'] });
      const otherKey = await orgKey(A, { scopes: ['site:read'] });
      for (let i = 0; i < PER_MINUTE; i++) expect((await getFrom(LIMITED_IP, adm('/sites'))).status).toBe(401);
      const anon = await getFrom(LIMITED_IP, adm('/sites'));
      expect(anon.status).toBe(429);
      expect(Number(anon.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(anon.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(anon.body).toEqual({ error: expect.stringMatching(/rate limit exceeded/) });

      // An authenticated caller is counted per key, not per address.
      for (let i = 0; i < PER_MINUTE; i++)
        expect((await getFrom(LIMITED_IP, adm('/sites'), limitedKey.token)).status).toBe(200);
      const keyed = await getFrom(LIMITED_IP, adm('/sites'), limitedKey.token);
      expect(keyed.status).toBe(429);
      expect(keyed.headers['retry-after']).toBeDefined();
      expect((await getFrom(LIMITED_IP, adm('/sites'), otherKey.token)).status).toBe(200);

      // Health endpoints are exempt.
      const root = mesh.adminBaseUrl.replace(/\/api\/v1$/, '');
      for (let i = 0; i < PER_MINUTE + 2; i++) expect((await getFrom(LIMITED_IP, `${root}/health`)).status).toBe(200);

      // The Main Backend limits too.
      for (let i = 0; i < PER_MINUTE; i++)
        expect((await getFrom(LIMITED_IP, `${mesh.publicBaseUrl}/nothing-here`)).status).toBe(404);
      const pub = await getFrom(LIMITED_IP, `${mesh.publicBaseUrl}/nothing-here`);
      expect(pub.status).toBe(429);
      expect(Number(pub.headers['retry-after'])).toBeGreaterThan(0);
      expect(pub.body.error).toMatch(/rate limit exceeded/);
      // Provider webhooks are authenticated per provider and are not limited per address: a
      // provider's burst of deliveries must never be turned away with 429.
      const hook = await getFrom(
        LIMITED_IP,
        `${mesh.publicRootUrl}/hooks/provider_a/${'0'.repeat(24)}`,
        undefined,
        'POST',
        '{"id":"evt_1"}',
      );
      expect(hook.status).toBe(400);

      // The allow-listed address is never limited.
      for (let i = 0; i < PER_MINUTE + 2; i++)
        expect((await api('GET', adm('/sites'), { token: limitedKey.token })).status).toBe(200);
    });

    it('keeps the counters in Redis, so they survive a gateway restart', async () => {
      const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
      try {
        const keysInRedis = await redis.keys(`${mesh.namespace}:gateway-admin:rl:*`);
        expect(keysInRedis.some((k) => k.endsWith(`60s:ip:${LIMITED_IP}`))).toBe(true);
        expect(keysInRedis.some((k) => k.endsWith(`300s:ip:${LIMITED_IP}`))).toBe(true);
        expect((await redis.keys(`${mesh.namespace}:gateway-public:rl:*`)).length).toBeGreaterThan(0);
      } finally {
        redis.disconnect();
      }
      await mesh.restart('gateway-admin');
      const after = await getFrom(LIMITED_IP, adm('/sites'));
      expect(after.status).toBe(429);
      expect(after.headers['retry-after']).toBeDefined();
    });
  });
});
