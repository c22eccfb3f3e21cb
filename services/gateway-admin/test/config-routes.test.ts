import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createLogger, newObjectId, systemClock } from '@paymesh/core';
import { createStore, type DroppableStore, TEST_PG_URL } from '@paymesh/store';
import { Committer } from '@paymesh/bus';
import type { EventMap } from '@paymesh/contracts';
import { buildAdminServer } from '../src/http/server';
import type { Clients } from '../src/clients';
import { unreachableClients } from './unreachable-clients';
import { siteRoutes } from '../src/http/routes/sites';
import { domainRoutes } from '../src/http/routes/domains';
import { organizationSettingsRoutes } from '../src/http/routes/organization-settings';
import { licenseRoutes } from '../src/http/routes/license';
import { createApiKey } from '../src/app/api-keys';
import { collections, ORGANIZATIONS, type OrganizationDoc } from '../src/store/collections';
import { ORGANIZATION_SCOPES, type Role, type Scope } from '../src/domain/scopes';
import type { AdminDeps } from '../src/app/deps';

const PG_URL = TEST_PG_URL;

/**
 * Role and scope enforcement of the configuration routes. The backends are unreachable on purpose:
 * a request that passes enforcement and validation ends in 503, one that does not gets 401/403/400.
 */
describe('configuration routes: roles and scopes', () => {
  let store: DroppableStore;
  let clients: Clients;
  let app: FastifyInstance;
  const orgId = newObjectId();
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    store = await createStore({ url: PG_URL, database: `gw_admin_test_${randomBytes(5).toString('hex')}` });
    for (const c of collections) await store.ensureCollection(c);
    const now = new Date().toISOString();
    await store
      .collection<OrganizationDoc>(ORGANIZATIONS)
      .insert({ id: orgId, name: 'Org', licenseState: 'ACTIVE', createdAt: now, updatedAt: now });
    clients = unreachableClients();
    const logger = createLogger({ service: 'gateway-admin-test', level: 'silent' });
    const deps: AdminDeps = {
      store,
      outbox: new Committer<EventMap>({ store }),
      clock: systemClock,
      logger,
      clients,
      auth: {
        jwtKey: new TextEncoder().encode('config-routes-test-jwt-key-0123456789'),
        accessTokenTtlSeconds: 900,
        refreshTokenTtlSeconds: 3600,
        challengeTtlSeconds: 300,
        enrollmentTtlSeconds: 3600,
        rpId: 'localhost',
        rpName: 'Paymesh',
        origins: ['http://localhost'],
        cookieSecure: false,
      },
    };
    const mk = async (name: string, role: Role, scopes: readonly Scope[]) => {
      keys[name] = (
        await createApiKey(deps, {
          kind: 'organization',
          organizationId: orgId,
          name,
          mode: 'live',
          role,
          scopes: [...scopes],
          expiresAt: null,
        })
      ).token;
    };
    await mk('viewer', 'Viewer', ORGANIZATION_SCOPES);
    await mk('editor', 'Editor', ORGANIZATION_SCOPES);
    await mk('admin', 'Admin', ORGANIZATION_SCOPES);
    await mk(
      'adminNoOrgScopes',
      'Admin',
      ORGANIZATION_SCOPES.filter(
        (s) => !s.startsWith('organization:') && !s.startsWith('site:') && !s.startsWith('domain:'),
      ),
    );
    app = await buildAdminServer({
      deps,
      routes: [...siteRoutes, ...domainRoutes, ...organizationSettingsRoutes, ...licenseRoutes],
      logger,
      docs: false,
      bodyLimit: 1024 * 1024,
      healthChecks: () => [],
    });
  });

  afterAll(async () => {
    await app?.close();
    clients?.close();
    await store?.dropDatabase();
    await store?.close();
  });

  const site = newObjectId();
  const domain = newObjectId();
  const cases: {
    method: 'GET' | 'PUT' | 'POST' | 'DELETE';
    url: string;
    body?: Record<string, unknown>;
    minRole: Role;
  }[] = [
    { method: 'GET', url: '/api/v1/sites', minRole: 'Viewer' },
    { method: 'PUT', url: `/api/v1/sites/${site}`, body: { name: 'x' }, minRole: 'Editor' },
    { method: 'DELETE', url: `/api/v1/sites/${site}`, minRole: 'Admin' },
    { method: 'POST', url: `/api/v1/sites/${site}/webhook-secret/regenerate`, minRole: 'Editor' },
    { method: 'GET', url: `/api/v1/sites/${site}/settings/invoicing`, minRole: 'Viewer' },
    { method: 'PUT', url: `/api/v1/sites/${site}/settings/invoicing`, body: { invoicePrefix: 'S' }, minRole: 'Editor' },
    { method: 'GET', url: '/api/v1/domains', minRole: 'Viewer' },
    { method: 'GET', url: `/api/v1/domains/${domain}`, minRole: 'Viewer' },
    { method: 'POST', url: '/api/v1/domains', body: { hostname: 'pay.shop.example' }, minRole: 'Admin' },
    { method: 'DELETE', url: `/api/v1/domains/${domain}`, minRole: 'Admin' },
    { method: 'GET', url: '/api/v1/domains/verify-cname?domain=pay.shop.example', minRole: 'Editor' },
    { method: 'GET', url: '/api/v1/organizations/settings/invoicing', minRole: 'Viewer' },
    // The spec names Admin only for tax settings: Editors write invoicing settings, except the payout IBAN.
    { method: 'PUT', url: '/api/v1/organizations/settings/invoicing', body: { enabled: true }, minRole: 'Editor' },
    {
      method: 'PUT',
      url: '/api/v1/organizations/settings/invoicing',
      body: { enabled: true, bankIBAN: { plaintext: 'DE89370400440532013000' } },
      minRole: 'Admin',
    },
    { method: 'PUT', url: '/api/v1/organizations/settings/invoicing', body: { bankIBAN: null }, minRole: 'Admin' },
    { method: 'GET', url: '/api/v1/organizations/settings/tax', minRole: 'Viewer' },
    { method: 'PUT', url: '/api/v1/organizations/settings/tax', body: { viesEnabled: true }, minRole: 'Admin' },
    { method: 'GET', url: '/api/v1/organizations/settings/tax/oss-threshold-status', minRole: 'Viewer' },
    { method: 'GET', url: '/api/v1/organizations/settings/portal', minRole: 'Viewer' },
    { method: 'PUT', url: '/api/v1/organizations/settings/portal', body: { enabled: true }, minRole: 'Admin' },
  ];
  const rank: Record<Role, number> = { Viewer: 1, Editor: 2, Admin: 3 };

  it.each(cases)('$method $url needs role $minRole and its scope', async ({ method, url, body, minRole }) => {
    const send = (token: string | undefined) =>
      app.inject({
        method,
        url,
        headers: token ? { authorization: `Bearer ${token}` } : {},
        ...(body ? { payload: body } : {}),
      });
    expect((await send(undefined)).statusCode).toBe(401);
    for (const role of ['Viewer', 'Editor', 'Admin'] as Role[]) {
      const res = await send(keys[role.toLowerCase()]);
      // Allowed requests reach the (unreachable) backend: 503; refused ones are 403 before that.
      expect(res.statusCode, `${role}: ${res.body}`).toBe(rank[role] >= rank[minRole] ? 503 : 403);
    }
    const noScope = await send(keys.adminNoOrgScopes);
    expect(noScope.statusCode).toBe(403);
    expect(noScope.json().error).toMatch(/missing scope/);
  });

  it('lets only system keys set the licence', async () => {
    const res = await app.inject({
      method: 'PUT',
      url: `/api/v1/system/organizations/${orgId}/license`,
      headers: { authorization: `Bearer ${keys.admin}` },
      payload: { licenseState: 'BLOCKED' },
    });
    expect(res.statusCode).toBe(403);
    const lic = await app.inject({
      method: 'GET',
      url: '/api/v1/organizations/license',
      headers: { authorization: `Bearer ${keys.viewer}` },
    });
    expect(lic.statusCode).toBe(200);
    expect(lic.json()).toMatchObject({ organizationId: orgId, licenseState: 'ACTIVE' });
  });

  it('rejects a bad body before any backend is asked (400 naming the field)', async () => {
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/organizations/settings/invoicing',
      headers: { authorization: `Bearer ${keys.admin}` },
      payload: { invoiceNumberLayout: { sequenceDigits: 'five' } },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/invoiceNumberLayout.sequenceDigits/);
  });
});
