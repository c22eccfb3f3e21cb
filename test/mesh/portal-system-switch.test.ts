import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newObjectId, newPortalLinkId, resolvePortalKey, signPortalLink } from '../../libs/core/src/index';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import { MailCatcherClient } from '../support/mail-catcher';
import { api, eventually, logLineOf, startTestMesh, type TestMesh } from '../support/mesh';

/**
 * A deployment with the buyer portal turned off (PORTAL_ENABLED=false): the organization's own
 * switches and a buyer with documents do not matter; no code is sent, no magic link is made or
 * accepted.
 */
describe('buyer portal turned off for the deployment (mesh)', () => {
  let mesh: TestMesh;
  let A: BootstrapResult;
  let catcher: MailCatcherClient;
  const buyer = `erika-${newObjectId()}@example.test`;
  const admin = (method: string, p: string, body?: unknown) =>
    api(method, `${mesh.adminBaseUrl}${p}`, { token: A.apiKey, ...(body !== undefined ? { body } : {}) });

  beforeAll(async () => {
    mesh = await startTestMesh({ env: { PORTAL_ENABLED: 'false' } });
    const url = mesh.sandboxUrls['sandbox-mail'];
    if (!url) throw new Error('the mail catcher did not start with the mesh');
    catcher = new MailCatcherClient(url);
    A = await mesh.bootstrap();
    expect((await admin('PUT', '/organizations/settings/tax', { homeCountry: 'DE' })).status).toBe(200);
    expect(
      (await admin('PUT', '/organizations/settings/portal', { enabled: true, magicLinksEnabled: true })).status,
    ).toBe(200);
    const client = await admin('POST', '/clients', {
      name: 'Erika Buyer',
      email: buyer,
      address: { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
    });
    expect(client.status, JSON.stringify(client.body)).toBe(201);
    const draft = await admin('POST', '/invoices', {
      siteId: A.siteId,
      clientId: client.body.id,
      currency: 'EUR',
      items: [{ description: 'Consulting', quantity: 1, unitPrice: 11900, amountType: 'gross', itemType: 'service' }],
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
  });
  afterAll(async () => {
    await mesh?.dispose();
  });

  it('refuses to make a magic link (403 PORTAL_DISABLED)', async () => {
    const res = await admin('POST', '/organizations/settings/portal/magic-links', { email: buyer });
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(res.body.error).toContain('PORTAL_ENABLED');
  });

  it('answers request-otp as always but sends nothing', async () => {
    const res = await api('POST', `${mesh.publicBaseUrl}/portal/auth/request-otp`, {
      body: { email: buyer, organizationId: A.organizationId },
    });
    expect(res.status).toBe(202);
    const requestId = res.headers.get('x-request-id') ?? '';
    await eventually(() =>
      logLineOf(
        mesh,
        'gateway-public',
        requestId,
        (l) => l.msg === 'portal code requested for an address without portal access; nothing sent',
      ),
    );
    expect(await catcher.to(buyer)).toEqual([]);
  });

  it('refuses a correctly signed magic link with 401', async () => {
    const key = resolvePortalKey({ NODE_ENV: 'test', PAYMESH_DEV_DEFAULTS: true }, 'PORTAL_LINK_SECRET', undefined);
    const token = signPortalLink(key, {
      organizationId: A.organizationId,
      mode: 'live',
      email: buyer,
      expiresAt: new Date(Date.now() + 60_000),
      linkId: newPortalLinkId(),
    });
    const res = await api('POST', `${mesh.publicBaseUrl}/portal/auth/magic-link`, { body: { token } });
    expect(res.status).toBe(401);
  });
});
