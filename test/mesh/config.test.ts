import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from 'nats';
import { EventTap } from '../support/event-tap';
import { api, eventually, startTestMesh, NATS_URL, type TestMesh } from '../support/mesh';
import { TestDnsServer } from '../support/dns-server';

type BootstrapResult = Awaited<ReturnType<TestMesh['bootstrap']>>;

const CNAME_TARGET = 'checkout.paymesh.example';
const IBAN = 'DE89370400440532013000';

const layout = (prefix: string) => ({
  prefix,
  periodType: 'calendar',
  periodGranularity: 'year_month',
  fiscalYearStartMonth: 1,
  fiscalYearLabelMode: 'end_year',
  periodSeparator: 'dash',
  infix: '',
  sequenceDigits: 5,
  suffix: '',
  resetPolicy: 'calendar_year',
  startNumber: 1,
});

const fullInvoicing = {
  enabled: true,
  autoGenerateInvoice: true,
  companyName: 'ACME GmbH',
  companyAddress: { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
  companyEmail: 'billing@acme.example',
  companyPhone: '+49 30 1234567',
  bankIBAN: { plaintext: 'DE89 3704 0044 0532 0130 00' },
  eInvoice: {
    enabled: true,
    allowedFormats: ['xrechnung', 'zugferd'],
    strictValidation: false,
    sellerPeppolRoutingAddress: { schemeId: '0088', value: { plaintext: '4000001000005' } },
  },
  autoPaymentLinkExpiresInHours: 72,
  invoiceNumberLayout: layout('RE'),
  creditNoteNumberLayout: layout('GS'),
};

describe('merchant configuration over the Admin API', () => {
  let mesh: TestMesh;
  let dns: TestDnsServer;
  let nc: NatsConnection;
  let a: BootstrapResult;
  let b: BootstrapResult;
  let admin: string;
  let rotated: EventTap;
  let licence: EventTap;

  beforeAll(async () => {
    dns = new TestDnsServer();
    const resolver = await dns.start();
    mesh = await startTestMesh({ env: { DNS_RESOLVERS: resolver, CUSTOM_DOMAIN_CNAME_TARGET: CNAME_TARGET } });
    nc = await connect({ servers: NATS_URL });
    rotated = new EventTap(nc, `${mesh.namespace}.checkout.site.secret_rotated`).start();
    licence = new EventTap(nc, `${mesh.namespace}.identity.organization.license_changed`).start();
    [a, b] = [await mesh.bootstrap(), await mesh.bootstrap()];
    admin = mesh.adminBaseUrl;
  });

  afterAll(async () => {
    await nc?.close();
    await mesh?.dispose();
    await dns?.stop();
  });

  const as = (boot: BootstrapResult) => ({
    get: (path: string) => api('GET', `${admin}${path}`, { token: boot.apiKey }),
    put: (path: string, body: unknown) => api('PUT', `${admin}${path}`, { token: boot.apiKey, body }),
    post: (path: string, body?: unknown) =>
      api('POST', `${admin}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) }),
    del: (path: string) => api('DELETE', `${admin}${path}`, { token: boot.apiKey }),
  });

  it('done when: create a site, rotate its secret, set invoicing settings and read them back; a second org sees none of it', async () => {
    const A = as(a);
    const B = as(b);
    const site = await A.post('/sites', {
      name: 'Config shop',
      url: 'https://config.example',
      frontendDomains: ['config.example'],
    });
    expect(site.status).toBe(201);
    const oldSecret: string = site.body.webhookSigningSecret;

    const rot = await A.post(`/sites/${site.body.id}/webhook-secret/regenerate`);
    expect(rot.status).toBe(200);
    expect(rot.body.webhookSigningSecret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(rot.body.webhookSigningSecret).not.toBe(oldSecret);
    expect(rot.body.webhookSigningSecretHint).toBe(`…${rot.body.webhookSigningSecret.slice(-4)}`);
    const after = await A.get(`/sites/${site.body.id}`);
    expect(after.body.webhookSigningSecret).toBeUndefined();
    expect(after.body.webhookSigningSecretHint).toBe(rot.body.webhookSigningSecretHint);
    const ev = await eventually(() => rotated.events.find((e) => e.data.siteId === site.body.id));
    expect(ev.data).toMatchObject({
      organizationId: a.organizationId,
      mode: 'live',
      secretHint: rot.body.webhookSigningSecretHint,
    });
    expect(JSON.stringify(ev)).not.toContain(rot.body.webhookSigningSecret);

    const put = await A.put('/organizations/settings/invoicing', fullInvoicing);
    expect(put.status).toBe(200);
    const got = await A.get('/organizations/settings/invoicing');
    expect(got.status).toBe(200);
    const { bankIBAN: _iban, ...rest } = fullInvoicing;
    expect(got.body).toMatchObject(rest);
    expect(got.body.bankIBAN).toEqual({ masked: 'DE89 **** **** **** **30 00' });
    expect(JSON.stringify(got.body)).not.toContain('0532013000');
    expect(got.body.updatedAt).toEqual(expect.any(String));
    expect(put.body).toEqual(got.body);

    const bSites = await B.get('/sites');
    expect(bSites.body.items.map((s: { id: string }) => s.id)).toEqual([b.siteId]);
    expect((await B.get(`/sites/${site.body.id}`)).status).toBe(404);
    const bSettings = await B.get('/organizations/settings/invoicing');
    expect(bSettings.body).toMatchObject({
      enabled: false,
      companyName: null,
      bankIBAN: null,
      autoPaymentLinkExpiresInHours: 336,
      updatedAt: null,
    });
    expect(bSettings.body.invoiceNumberLayout.prefix).toBe('INV');
  });

  it('updates a site partially and soft-deletes it (404 afterwards, gone from the list)', async () => {
    const A = as(a);
    const site = await A.post('/sites', { name: 'Temp', url: 'https://temp.example' });
    const upd = await A.put(`/sites/${site.body.id}`, { frontendDomains: ['Temp.Example', 'www.temp.example'] });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({
      name: 'Temp',
      url: 'https://temp.example/',
      frontendDomains: ['temp.example', 'www.temp.example'],
    });
    expect((await A.put(`/sites/${site.body.id}`, {})).status).toBe(400);
    const bad = await A.put(`/sites/${site.body.id}`, { url: 'not a url' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/url/);

    const del = await A.del(`/sites/${site.body.id}`);
    expect(del.status).toBe(204);
    expect((await A.get(`/sites/${site.body.id}`)).status).toBe(404);
    expect((await A.del(`/sites/${site.body.id}`)).status).toBe(404);
    expect((await A.post(`/sites/${site.body.id}/webhook-secret/regenerate`)).status).toBe(404);
    expect((await A.get(`/sites/${site.body.id}/settings/invoicing`)).status).toBe(404);
    const list = await A.get('/sites?limit=100');
    expect(list.body.items.map((s: { id: string }) => s.id)).not.toContain(site.body.id);
  });

  it('registers, CNAME-verifies (against a local DNS server) and deletes a custom domain; a duplicate host name is 409', async () => {
    const A = as(a);
    const B = as(b);
    const created = await A.post('/domains', { hostname: 'Pay.Config.Example', siteId: a.siteId });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      hostname: 'pay.config.example',
      siteId: a.siteId,
      verified: false,
      cnameTarget: CNAME_TARGET,
    });

    const dup = await B.post('/domains', { hostname: 'pay.config.example' });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatch(/already registered/);

    const unverified = await A.get('/domains/verify-cname?domain=pay.config.example');
    expect(unverified.status).toBe(200);
    expect(unverified.body).toMatchObject({ verified: false, foundCnames: [] });
    expect(unverified.body.reason).toMatch(/does not exist/);

    dns.zone.set('pay.config.example', { cname: `${CNAME_TARGET}.` });
    const verified = await A.get('/domains/verify-cname?domain=pay.config.example');
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({
      hostname: 'pay.config.example',
      verified: true,
      expectedCname: CNAME_TARGET,
      foundCnames: [CNAME_TARGET],
      reason: null,
    });
    expect(dns.queries).toContain('pay.config.example');
    const listed = await A.get(`/domains?siteId=${a.siteId}`);
    expect(listed.body.items).toEqual([
      expect.objectContaining({ id: created.body.id, verified: true, verifiedAt: verified.body.checkedAt }),
    ]);

    expect((await A.get('/domains/verify-cname')).status).toBe(400);
    expect((await A.post('/domains', { hostname: '*.config.example' })).status).toBe(400);
    expect((await A.post('/domains', { hostname: 'x.config.example', siteId: b.siteId })).status).toBe(404);

    expect((await A.del(`/domains/${created.body.id}`)).status).toBe(204);
    expect((await A.get(`/domains/${created.body.id}`)).status).toBe(404);
    const reuse = await B.post('/domains', { hostname: 'pay.config.example' });
    expect(reuse.status).toBe(201);
  });

  it('puts paymentUrl on the verified custom domain routed to the site (its own first, then organization-wide), else on the default checkout host', async () => {
    const A = as(a);
    const site = await A.post('/sites', { name: 'Routed shop', url: 'https://routed.example' });
    expect(site.status, JSON.stringify(site.body)).toBe(201);
    const checkout = async (siteId: string) => {
      const res = await A.post(`/checkouts/${siteId}/create`, {
        amount: 1000,
        currency: 'EUR',
        externalReference: `route-${Date.now()}`,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as { paymentUrl: string; sessionPublicId: string };
    };
    const defaultHost = new URL(mesh.publicBaseUrl).host;
    const hostOf = (url: string) => new URL(url).host;
    const verify = async (hostname: string) => {
      dns.zone.set(hostname, { cname: `${CNAME_TARGET}.` });
      expect((await A.get(`/domains/verify-cname?domain=${hostname}`)).body.verified).toBe(true);
    };

    const plain = await checkout(site.body.id);
    expect(hostOf(plain.paymentUrl)).toBe(defaultHost);
    expect(plain.paymentUrl).toBe(`${new URL(mesh.publicBaseUrl).origin}/c/${plain.sessionPublicId}`);

    // An organization-wide domain counts once it is verified.
    const orgWide = await A.post('/domains', { hostname: 'all.routed.example' });
    expect(orgWide.status).toBe(201);
    expect(hostOf((await checkout(site.body.id)).paymentUrl)).toBe(defaultHost);
    await verify('all.routed.example');
    const onOrgDomain = await checkout(site.body.id);
    expect(onOrgDomain.paymentUrl).toBe(`http://all.routed.example/c/${onOrgDomain.sessionPublicId}`);

    // The site's own domain wins; another site's domain never counts for this one.
    const own = await A.post('/domains', { hostname: 'pay.routed.example', siteId: site.body.id });
    const others = await A.post('/domains', { hostname: 'other.routed.example', siteId: a.siteId });
    await verify('pay.routed.example');
    await verify('other.routed.example');
    const onOwn = await checkout(site.body.id);
    expect(onOwn.paymentUrl).toBe(`http://pay.routed.example/c/${onOwn.sessionPublicId}`);
    expect(hostOf((await checkout(a.siteId)).paymentUrl)).toBe('other.routed.example');
    // The hosted page on that host may use the session (its origin is a verified domain of the site).
    const view = await api('GET', `${mesh.publicBaseUrl}/checkouts/${onOwn.sessionPublicId}`, {
      headers: { origin: 'http://pay.routed.example' },
    });
    expect(view.status, JSON.stringify(view.body)).toBe(200);
    // Organization B's checkouts stay on the default host.
    const bCheckout = await as(b).post(`/checkouts/${b.siteId}/create`, {
      amount: 1000,
      currency: 'EUR',
      externalReference: 'route-b',
    });
    expect(hostOf(bCheckout.body.paymentUrl)).toBe(defaultHost);

    for (const d of [orgWide, own, others]) expect((await A.del(`/domains/${d.body.id}`)).status).toBe(204);
    expect(hostOf((await checkout(site.body.id)).paymentUrl)).toBe(defaultHost);
  });

  it("isolates tenants: org B's key gets 404 for org A's sites, domains and site settings", async () => {
    const A = as(a);
    const B = as(b);
    const domain = await A.post('/domains', { hostname: 'iso.config.example', siteId: a.siteId });
    expect(domain.status).toBe(201);
    const checks = [
      await B.get(`/sites/${a.siteId}`),
      await B.put(`/sites/${a.siteId}`, { name: 'hijacked' }),
      await B.del(`/sites/${a.siteId}`),
      await B.post(`/sites/${a.siteId}/webhook-secret/regenerate`),
      await B.get(`/sites/${a.siteId}/settings/invoicing`),
      await B.put(`/sites/${a.siteId}/settings/invoicing`, { invoicePrefix: 'EVIL' }),
      await B.get(`/domains/${domain.body.id}`),
      await B.del(`/domains/${domain.body.id}`),
      await B.get('/domains/verify-cname?domain=iso.config.example'),
    ];
    expect(checks.map((r) => r.status)).toEqual(Array(checks.length).fill(404));
    expect((await B.get('/domains?limit=100')).body.items.map((d: { id: string }) => d.id)).not.toContain(
      domain.body.id,
    );
    const site = await A.get(`/sites/${a.siteId}`);
    expect(site.body.name).toBe('Demo shop');
    expect((await A.get(`/domains/${domain.body.id}`)).status).toBe(200);
    expect((await A.get(`/sites/${a.siteId}/settings/invoicing`)).body.invoicePrefix).toBeNull();
  });

  it('rejects bad settings input with 400 naming the field and stores nothing', async () => {
    const A = as(a);
    const before = (await A.get('/organizations/settings/invoicing')).body;
    const cases: [unknown, RegExp][] = [
      [{ enabled: 'yes' }, /enabled/],
      [{ invoiceNumberLayout: { periodType: 'weekly' } }, /invoiceNumberLayout[./]periodType/],
      [{ eInvoice: { allowedFormats: ['pdf'] } }, /eInvoice[./]allowedFormats/],
      [{ companyAddress: { street: 'x', city: 'y', country: 'DE' } }, /companyAddress[./]postalCode/],
      [{ companyAddress: { street: 'x', city: 'y', postalCode: '1', country: 'QQ' } }, /companyAddress\.country/],
      [{ bankIBAN: { plaintext: 'DE89370400440532013001' } }, /bankIBAN\.plaintext/],
      [{ autoPaymentLinkExpiresInHours: 3121 }, /autoPaymentLinkExpiresInHours/],
      [{ companyName: 'Changed', surprise: true }, /surprise/],
      [
        { companyName: 'Changed', creditNoteNumberLayout: { periodType: 'none' } },
        /creditNoteNumberLayout\.resetPolicy/,
      ],
    ];
    for (const [body, field] of cases) {
      const res = await A.put('/organizations/settings/invoicing', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, JSON.stringify(body)).toMatch(field);
    }
    expect((await A.get('/organizations/settings/invoicing')).body).toEqual(before);

    const taxBefore = (await A.get('/organizations/settings/tax')).body;
    for (const [body, field] of [
      [{ rounding: { level: 'per_invoice' } }, /rounding[./]level/],
      [{ ossEnabled: true, homeCountry: null }, /homeCountry/],
      [{ priceMode: 1 }, /priceMode/],
    ] as [unknown, RegExp][]) {
      const res = await A.put('/organizations/settings/tax', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatch(field);
    }
    expect((await A.get('/organizations/settings/tax')).body).toEqual(taxBefore);
    const portal = await A.put('/organizations/settings/portal', { enabled: 'on' });
    expect(portal.status).toBe(400);
    expect(portal.body.error).toMatch(/enabled/);
  });

  it('merges partial invoicing updates and clears with null', async () => {
    const A = as(a);
    const cur = (await A.get('/organizations/settings/invoicing')).body;
    const res = await A.put('/organizations/settings/invoicing', {
      invoiceNumberLayout: { prefix: 'R' },
      bankIBAN: null,
      eInvoice: { strictValidation: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.invoiceNumberLayout).toEqual({ ...cur.invoiceNumberLayout, prefix: 'R' });
    expect(res.body.eInvoice).toEqual({ ...cur.eInvoice, strictValidation: true });
    expect(res.body.bankIBAN).toBeNull();
    expect(res.body.companyName).toBe(cur.companyName);
    expect(
      (await A.put('/organizations/settings/invoicing', { bankIBAN: { plaintext: IBAN } })).body.bankIBAN.masked,
    ).toBe('DE89 **** **** **** **30 00');
  });

  it('lets an Editor key with organization:execute write invoicing settings (the spec names Admin only for tax), but not the payout IBAN', async () => {
    const key = await api('POST', `${admin}/organizations/${a.organizationId}/api-keys`, {
      token: a.apiKey,
      body: { name: 'invoicing editor', role: 'Editor', scopes: ['organization:execute'] },
    });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    const editor = (path: string, body: unknown) =>
      api('PUT', `${admin}${path}`, { token: key.body.token as string, body });
    const before = (await as(a).get('/organizations/settings/invoicing')).body;
    const ok = await editor('/organizations/settings/invoicing', {
      companyName: 'ACME Editor GmbH',
      autoPaymentLinkExpiresInHours: 48,
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({
      companyName: 'ACME Editor GmbH',
      autoPaymentLinkExpiresInHours: 48,
      bankIBAN: before.bankIBAN,
    });
    for (const bankIBAN of [{ plaintext: 'DE02120300000000202051' }, null]) {
      const refused = await editor('/organizations/settings/invoicing', { companyName: 'Not written', bankIBAN });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ error: expect.stringMatching(/Admin.*bankIBAN/) });
      expect(refused.headers.get('x-request-id')).toBeTruthy();
    }
    expect((await as(a).get('/organizations/settings/invoicing')).body).toMatchObject({
      companyName: 'ACME Editor GmbH',
      bankIBAN: before.bankIBAN,
    });
    // Tax settings stay Admin, as the spec's scope table says.
    expect((await editor('/organizations/settings/tax', { viesEnabled: true })).status).toBe(403);
  });

  it('overrides site prefixes and inherits the rest from the organization layouts', async () => {
    const A = as(a);
    const org = (await A.get('/organizations/settings/invoicing')).body;
    const put = await A.put(`/sites/${a.siteId}/settings/invoicing`, { invoicePrefix: 'SHOP' });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      siteId: a.siteId,
      invoicePrefix: 'SHOP',
      creditNotePrefix: null,
      effective: { invoicePrefix: 'SHOP', creditNotePrefix: org.creditNoteNumberLayout.prefix },
    });
    expect((await A.get(`/sites/${a.siteId}/settings/invoicing`)).body).toEqual(put.body);
    const bad = await A.put(`/sites/${a.siteId}/settings/invoicing`, { creditNotePrefix: 'SHOP' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/creditNotePrefix/);
    const cleared = await A.put(`/sites/${a.siteId}/settings/invoicing`, { invoicePrefix: null });
    expect(cleared.body).toMatchObject({
      invoicePrefix: null,
      effective: { invoicePrefix: org.invoiceNumberLayout.prefix },
    });
  });

  it('reads and writes tax settings and reports the OSS threshold from an empty ledger', async () => {
    const A = as(a);
    const defaults = await A.get('/organizations/settings/tax');
    expect(defaults.body).toEqual({
      homeCountry: null,
      ossEnabled: false,
      iossEnabled: false,
      viesEnabled: false,
      vatId: null,
      priceMode: 'gross',
      rounding: { level: 'per_line', method: 'half_up' },
      updatedAt: null,
    });
    const put = await A.put('/organizations/settings/tax', {
      homeCountry: 'de',
      ossEnabled: true,
      viesEnabled: true,
      rounding: { level: 'per_document' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      homeCountry: 'DE',
      ossEnabled: true,
      iossEnabled: false,
      viesEnabled: true,
      rounding: { level: 'per_document', method: 'half_up' },
    });
    expect((await A.get('/organizations/settings/tax')).body).toEqual(put.body);
    expect((await as(b).get('/organizations/settings/tax')).body.ossEnabled).toBe(false);

    const oss = await A.get('/organizations/settings/tax/oss-threshold-status');
    expect(oss.status).toBe(200);
    expect(oss.body).toEqual({
      year: new Date().getUTCFullYear(),
      currency: 'EUR',
      threshold: 1_000_000,
      currentTotal: 0,
      exceeded: false,
      unconvertedEntries: 0,
    });
    expect((await A.get('/organizations/settings/tax/oss-threshold-status?year=1999')).status).toBe(400);
  });

  it('switches the buyer portal flags', async () => {
    const A = as(a);
    const formats = { eInvoiceFormats: ['xrechnung', 'peppol', 'zugferd'], proformaPreviewsEnabled: false };
    // The portal is off until enabled; magic links are on unless the organization turns them off.
    expect((await A.get('/organizations/settings/portal')).body).toEqual({
      enabled: false,
      magicLinksEnabled: true,
      ...formats,
    });
    expect((await A.put('/organizations/settings/portal', { enabled: true })).body).toEqual({
      enabled: true,
      magicLinksEnabled: true,
      ...formats,
    });
    expect((await A.put('/organizations/settings/portal', { magicLinksEnabled: false })).body).toEqual({
      enabled: true,
      magicLinksEnabled: false,
      ...formats,
    });
    expect((await A.put('/organizations/settings/portal', { magicLinksEnabled: true })).body).toEqual({
      enabled: true,
      magicLinksEnabled: true,
      ...formats,
    });
    expect((await A.put('/organizations/settings/portal', { eInvoiceFormats: ['xrechnung'] })).body).toEqual({
      enabled: true,
      magicLinksEnabled: true,
      eInvoiceFormats: ['xrechnung'],
      proformaPreviewsEnabled: false,
    });
    expect((await A.put('/organizations/settings/portal', { eInvoiceFormats: ['pdf'] })).status).toBe(400);
    expect((await as(b).get('/organizations/settings/portal')).body).toEqual({
      enabled: false,
      magicLinksEnabled: true,
      ...formats,
    });
  });

  it('sets the licence with a system key and publishes identity.organization.license_changed', async () => {
    const A = as(a);
    // A buyer-facing checkout of this merchant, to watch the licence take effect on the Main Backend.
    const checkout = await A.post(`/checkouts/${a.siteId}/create`, {
      amount: 500,
      currency: 'EUR',
      email: 'buyer@example.com',
      externalReference: 'licence-check',
      returnUrl: 'https://shop.example/ok',
      cancelUrl: 'https://shop.example/cancel',
    });
    expect(checkout.status).toBe(200);
    const publicView = () => api('GET', `${mesh.publicBaseUrl}/checkouts/${checkout.body.sessionPublicId}`);
    expect((await publicView()).status).toBe(200);
    expect((await A.get('/organizations/license')).body).toMatchObject({
      organizationId: a.organizationId,
      licenseState: 'ACTIVE',
    });
    const path = `${admin}/system/organizations/${a.organizationId}/license`;
    expect((await api('PUT', path, { token: a.apiKey, body: { licenseState: 'BLOCKED' } })).status).toBe(403);
    expect((await api('PUT', path, { token: mesh.systemApiKey, body: { licenseState: 'SUSPENDED' } })).status).toBe(
      400,
    );
    const res = await api('PUT', path, { token: mesh.systemApiKey, body: { licenseState: 'BLOCKED' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ organizationId: a.organizationId, licenseState: 'BLOCKED' });
    expect((await A.get('/organizations/license')).body.licenseState).toBe('BLOCKED');
    const ev = await eventually(() => licence.events.find((e) => e.data.organizationId === a.organizationId));
    expect(ev.data).toEqual({
      organizationId: a.organizationId,
      licenseState: 'BLOCKED',
      previousLicenseState: 'ACTIVE',
    });
    // checkout learns the licence from the event and refuses buyers of a blocked merchant
    const blocked = await eventually(async () => {
      const r = await publicView();
      return r.status === 403 ? r : undefined;
    });
    expect(blocked.body).toMatchObject({ code: 'LICENSE_BLOCKED' });
    const same = await api('PUT', path, { token: mesh.systemApiKey, body: { licenseState: 'BLOCKED' } });
    expect(same.status).toBe(200);
    const unknown = await api('PUT', `${admin}/system/organizations/${'0'.repeat(24)}/license`, {
      token: mesh.systemApiKey,
      body: { licenseState: 'ACTIVE' },
    });
    expect(unknown.status).toBe(404);
    await api('PUT', path, { token: mesh.systemApiKey, body: { licenseState: 'ACTIVE' } });
    await eventually(() => licence.events.filter((e) => e.data.organizationId === a.organizationId).length === 2);
    expect((await as(b).get('/organizations/license')).body.licenseState).toBe('ACTIVE');
    await eventually(async () => (await publicView()).status === 200);
  });

  it('documents every new route in the OpenAPI description', async () => {
    const doc = await api('GET', `${admin}/docs/json`);
    expect(doc.status).toBe(200);
    const paths = Object.keys(doc.body.paths);
    for (const p of [
      '/api/v1/sites/{id}/webhook-secret/regenerate',
      '/api/v1/sites/{id}/settings/invoicing',
      '/api/v1/domains',
      '/api/v1/domains/verify-cname',
      '/api/v1/organizations/settings/invoicing',
      '/api/v1/organizations/settings/tax',
      '/api/v1/organizations/settings/tax/oss-threshold-status',
      '/api/v1/organizations/settings/portal',
      '/api/v1/organizations/license',
      '/api/v1/system/organizations/{orgId}/license',
    ]) {
      expect(paths, p).toContain(p);
    }
  });
});
