import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newObjectId, resolvePortalKey, signPortalLink, newPortalLinkId } from '../../libs/core/src/index';
import { createStore, type DroppableStore } from '../../libs/store/src/index';
import { databaseName } from '../../libs/runtime/src/services';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import { TestDnsServer } from '../support/dns-server';
import { validateEInvoices } from '../support/einvoice-kit';
import { MailCatcherClient } from '../support/mail-catcher';
import { api, eventually, logLineOf, PG_URL, startTestMesh, type TestMesh } from '../support/mesh';

const SELLER_VAT = 'DE136695976';
const BUYER_VAT = 'DE812345673';
const COOKIE = 'paymesh_portal_refresh';
const CNAME_TARGET = 'checkout.paymesh.example';
/** Code requests one address may make per window in this mesh (several flows below use buyer A). */
const CODES_PER_ADDRESS = 8;

/**
 * The buyer portal end to end: sign-in by an e-mailed code read from the mail catcher (real SMTP),
 * the session, the buyer's documents with their PDF and XRechnung downloads, refresh-cookie rotation
 * with reuse detection, logout, and magic links made by the Admin API and exchanged once.
 */
describe('buyer portal (mesh)', () => {
  let mesh: TestMesh;
  let A: BootstrapResult;
  let catcher: MailCatcherClient;
  let store: DroppableStore;
  let dir: string;
  let dns: TestDnsServer;
  const adm = (p: string) => `${mesh.adminBaseUrl}${p}`;
  const pub = (p: string) => `${mesh.publicBaseUrl}${p}`;
  const admin = (method: string, p: string, body?: unknown) =>
    api(method, adm(p), { token: A.apiKey, ...(body !== undefined ? { body } : {}) });
  const portal = (method: string, p: string, opts: { token?: string; body?: unknown; cookie?: string } = {}) =>
    api(method, pub(p), {
      ...(opts.token ? { token: opts.token } : {}),
      ...(opts.body !== undefined ? { body: opts.body } : {}),
      ...(opts.cookie ? { headers: { cookie: `${COOKIE}=${opts.cookie}` } } : {}),
    });
  const file = async (p: string, token: string) => {
    const res = await fetch(pub(p), { headers: { authorization: `Bearer ${token}` } });
    return {
      status: res.status,
      type: res.headers.get('content-type') ?? '',
      bytes: Buffer.from(await res.arrayBuffer()),
    };
  };
  const refreshCookieOf = (headers: Headers): { value: string; attributes: string } => {
    const line = headers.getSetCookie().find((c) => c.startsWith(`${COOKIE}=`));
    if (!line) throw new Error('no refresh cookie set');
    const [pair, ...attrs] = line.split(';');
    return { value: pair!.slice(COOKIE.length + 1), attributes: attrs.join(';') };
  };

  const address = { street: 'Marktplatz 5', city: 'München', postalCode: '80331', country: 'DE' };
  async function client(email: string, withPeppol = true): Promise<string> {
    const res = await admin('POST', '/clients', {
      name: 'Käufer AG',
      email,
      address,
      taxInfo: {
        taxId: { plaintext: BUYER_VAT },
        taxIdType: 'vat',
        taxCountry: 'DE',
        ...(withPeppol
          ? { peppolRoutingAddress: { schemeId: '9930', value: { plaintext: BUYER_VAT }, confirmedByBuyer: true } }
          : {}),
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  }
  async function draft(clientId: string): Promise<string> {
    const res = await admin('POST', '/invoices', {
      siteId: A.siteId,
      clientId,
      currency: 'EUR',
      paymentTermsDays: 14,
      items: [
        { description: 'Consulting, March', quantity: 3, unitPrice: 30000, amountType: 'net', itemType: 'service' },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  }
  async function issued(clientId: string): Promise<{ id: string; number: string }> {
    const id = await draft(clientId);
    const res = await admin('POST', `/invoices/${id}/issue`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { id, number: res.body.number as string };
  }

  const tenant = () => ({ organizationId: A.organizationId });
  /** Asks for a code and reads it from the mail catcher (the newest message to the address). */
  async function otp(email: string): Promise<string> {
    const before = (await catcher.to(email)).length;
    const res = await portal('POST', '/portal/auth/request-otp', { body: { email, ...tenant() } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const messages = await eventually(async () => {
      const got = await catcher.to(email);
      return got.length > before ? got : undefined;
    }, 20_000);
    const m = /code is (\d{6})/.exec(messages[0]!.text);
    if (!m) throw new Error(`no code in: ${messages[0]!.text}`);
    return m[1]!;
  }
  async function signIn(email: string): Promise<{ token: string; cookie: string }> {
    const code = await otp(email);
    const res = await portal('POST', '/portal/auth/verify-otp', { body: { email, code, ...tenant() } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { token: res.body.token as string, cookie: refreshCookieOf(res.headers).value };
  }

  // Buyer A: an issued invoice, a draft, a voided invoice (so a credit note), an invoice without a Peppol address.
  const buyerA = `erika-${newObjectId()}@example.test`;
  const buyerB = `max-${newObjectId()}@example.test`;
  let invoiceA: { id: string; number: string };
  let draftA: string;
  let voidedA: string;
  let creditNoteA: string;
  let noPeppolA: string;
  let invoiceB: { id: string; number: string };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-mesh-'));
    dns = new TestDnsServer();
    const resolver = await dns.start();
    mesh = await startTestMesh({
      env: {
        EMAIL_POLL_INTERVAL_MS: '100',
        PORTAL_OTP_REQUESTS_PER_EMAIL: String(CODES_PER_ADDRESS),
        DNS_RESOLVERS: resolver,
        CUSTOM_DOMAIN_CNAME_TARGET: CNAME_TARGET,
      },
    });
    const url = mesh.sandboxUrls['sandbox-mail'];
    if (!url) throw new Error('the mail catcher did not start with the mesh');
    catcher = new MailCatcherClient(url);
    A = await mesh.bootstrap();
    store = await createStore({ url: PG_URL, database: databaseName(mesh.namespace, 'gateway-public') });
    expect(
      (await admin('PUT', '/organizations/settings/tax', { homeCountry: 'DE', vatId: SELLER_VAT, viesEnabled: false }))
        .status,
    ).toBe(200);
    const settings = await admin('PUT', '/organizations/settings/invoicing', {
      companyName: 'Muster Software GmbH',
      companyAddress: { street: 'Hauptstraße 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
      companyEmail: 'billing@muster.example',
      companyPhone: '+49 30 1234567',
      bankIBAN: { plaintext: 'DE89370400440532013000' },
      eInvoice: {
        enabled: true,
        allowedFormats: ['xrechnung', 'peppol', 'zugferd'],
        strictValidation: true,
        sellerPeppolRoutingAddress: { schemeId: '9930', value: { plaintext: SELLER_VAT } },
      },
    });
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);
    // The address is written in another case on the client: buyers are matched case-insensitively.
    const a = await client(buyerA.toUpperCase());
    invoiceA = await issued(a);
    draftA = await draft(a);
    voidedA = (await issued(a)).id;
    const voided = await admin('POST', `/invoices/${voidedA}/void`, { reason: 'wrong order' });
    expect(voided.status, JSON.stringify(voided.body)).toBe(200);
    creditNoteA = voided.body.creditNoteIds[0] as string;
    noPeppolA = (await issued(await client(buyerA, false))).id;
    invoiceB = await issued(await client(buyerB));
  });
  afterAll(async () => {
    await store?.close();
    await mesh?.dispose();
    await dns?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('sends no code while the organization has the portal off, answering as for anyone', async () => {
    const res = await portal('POST', '/portal/auth/request-otp', { body: { email: buyerA, ...tenant() } });
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
    expect(await catcher.to(buyerA)).toEqual([]);
    // And the Admin API refuses a magic link for the same reason.
    const link = await admin('POST', '/organizations/settings/portal/magic-links', { email: buyerA });
    expect(link.status, JSON.stringify(link.body)).toBe(403);
    expect(link.body.error).toContain('turned off for this organization');

    const on = await admin('PUT', '/organizations/settings/portal', { enabled: true });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    // Magic links are on by default: the spec's four conditions decide, no extra switch to find.
    expect(on.body).toEqual({
      enabled: true,
      magicLinksEnabled: true,
      eInvoiceFormats: ['xrechnung', 'peppol', 'zugferd'],
      proformaPreviewsEnabled: false,
    });
  });

  it('answers an unknown address exactly as a known one and sends it nothing', async () => {
    const unknown = `nobody-${newObjectId()}@example.test`;
    const known = await portal('POST', '/portal/auth/request-otp', { body: { email: buyerB, ...tenant() } });
    const res = await portal('POST', '/portal/auth/request-otp', { body: { email: unknown, ...tenant() } });
    expect(res.status).toBe(known.status);
    expect(res.body).toEqual(known.body);
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
    expect(await catcher.to(unknown)).toEqual([]);
    // The known one got its code.
    await eventually(async () => (await catcher.to(buyerB)).length > 0 || undefined, 20_000);
  });

  it('refuses bad input with 400 and an unknown organization the same way as an unknown address', async () => {
    for (const body of [
      {},
      { email: 'not-an-address', ...tenant() },
      { email: buyerA },
      { email: buyerA, organizationId: 'x' },
      { email: buyerA, ...tenant(), extra: 1 },
    ]) {
      const res = await portal('POST', '/portal/auth/request-otp', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(typeof res.body.error).toBe('string');
    }
    const other = await portal('POST', '/portal/auth/request-otp', {
      body: { email: `x-${newObjectId()}@example.test`, organizationId: newObjectId() },
    });
    expect(other.status).toBe(202);
  });

  let session: { token: string; cookie: string };
  it('signs in with the e-mailed code, lists the documents and downloads a PDF and an XRechnung', async () => {
    session = await signIn(buyerA);
    const me = await portal('GET', '/portal/session', { token: session.token });
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.body).toEqual({ email: buyerA, hasSubscriptions: false });

    const docs = await portal('GET', '/portal/documents', { token: session.token });
    expect(docs.status, JSON.stringify(docs.body)).toBe(200);
    const ids = docs.body.items.map((d: { id: string; type: string }) => `${d.type}:${d.id}`);
    // Draft and issued invoices and the credit note; never the voided invoice, never another buyer's.
    expect(new Set(ids)).toEqual(
      new Set([`invoice:${invoiceA.id}`, `invoice:${draftA}`, `invoice:${noPeppolA}`, `credit-note:${creditNoteA}`]),
    );
    expect(docs.body).toMatchObject({ total: 4, page: 1, limit: 20 });
    const issuedItem = docs.body.items.find((d: { id: string }) => d.id === invoiceA.id);
    expect(issuedItem).toMatchObject({
      type: 'invoice',
      number: invoiceA.number,
      status: 'issued',
      currency: 'EUR',
      pdfAvailable: true,
      eInvoiceFormats: ['xrechnung', 'peppol', 'zugferd'],
    });
    expect(issuedItem.total).toBeGreaterThan(0);
    expect(docs.body.items.find((d: { id: string }) => d.id === draftA)).toMatchObject({
      status: 'draft',
      number: expect.stringMatching(/^PROFORMA-/),
      eInvoiceFormats: [],
    });
    const paged = await portal('GET', '/portal/documents?page=2&limit=3', { token: session.token });
    expect(paged.body).toMatchObject({ total: 4, page: 2, limit: 3 });
    expect(paged.body.items).toHaveLength(1);
    expect((await portal('GET', '/portal/documents?limit=101', { token: session.token })).status).toBe(400);

    const pdf = await file(`/portal/documents/${invoiceA.id}/pdf`, session.token);
    expect(pdf.status, pdf.bytes.toString().slice(0, 300)).toBe(200);
    expect(pdf.type).toBe('application/pdf');
    expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const proforma = await file(`/portal/documents/${draftA}/pdf?type=invoice`, session.token);
    expect(proforma.status).toBe(200);
    expect(proforma.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const note = await file(`/portal/documents/${creditNoteA}/pdf?type=credit-note`, session.token);
    expect(note.status).toBe(200);
    expect(note.bytes.subarray(0, 5).toString()).toBe('%PDF-');

    const xml = await file(`/portal/documents/${invoiceA.id}/einvoice?format=xrechnung`, session.token);
    expect(xml.status, xml.bytes.toString()).toBe(200);
    expect(xml.type).toMatch(/^application\/xml/);
    const path = join(dir, 'portal-xrechnung.xml');
    await writeFile(path, xml.bytes);
    const verdicts = await validateEInvoices('xrechnung-ubl', [path]);
    expect(verdicts.map((r) => r.valid)).toEqual([true]);
  });

  it('answers e-invoice refusals with the spec codes and keeps other buyers’ documents out of reach (404)', async () => {
    const readiness = await portal('GET', `/portal/documents/${noPeppolA}/einvoice?format=peppol`, {
      token: session.token,
    });
    expect(readiness.status, JSON.stringify(readiness.body)).toBe(422);
    expect(readiness.body.error).toContain('peppol');
    expect(
      (await portal('GET', `/portal/documents/${draftA}/einvoice?format=xrechnung`, { token: session.token })).status,
    ).toBe(409);
    // Credit notes are PDF-only: no invoice by that id.
    expect(
      (await portal('GET', `/portal/documents/${creditNoteA}/einvoice?format=xrechnung`, { token: session.token }))
        .status,
    ).toBe(404);
    expect(
      (await portal('GET', `/portal/documents/${invoiceA.id}/einvoice?format=pdf`, { token: session.token })).status,
    ).toBe(400);
    // Turned off for portal downloads only: 403.
    expect((await admin('PUT', '/organizations/settings/portal', { eInvoiceFormats: ['peppol'] })).status).toBe(200);
    const off = await portal('GET', `/portal/documents/${invoiceA.id}/einvoice?format=xrechnung`, {
      token: session.token,
    });
    expect(off.status, JSON.stringify(off.body)).toBe(403);
    const listed = await portal('GET', '/portal/documents', { token: session.token });
    expect(listed.body.items.find((d: { id: string }) => d.id === invoiceA.id).eInvoiceFormats).toEqual(['peppol']);
    expect(
      (await admin('PUT', '/organizations/settings/portal', { eInvoiceFormats: ['xrechnung', 'peppol', 'zugferd'] }))
        .status,
    ).toBe(200);

    for (const p of [
      `/portal/documents/${invoiceB.id}/pdf`,
      `/portal/documents/${invoiceB.id}/einvoice?format=xrechnung`,
      `/portal/documents/${voidedA}/pdf`,
      `/portal/documents/${invoiceA.id}/pdf?type=credit-note`,
    ]) {
      const res = await portal('GET', p, { token: session.token });
      expect(res.status, p).toBe(404);
    }
  });

  it('rotates the refresh cookie and ends the whole sign-in when a rotated cookie comes back', async () => {
    const first = await portal('POST', '/portal/auth/refresh', { cookie: session.cookie });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const rotated = refreshCookieOf(first.headers);
    expect(rotated.value).not.toBe(session.cookie);
    expect(rotated.attributes).toMatch(/HttpOnly/i);
    expect(rotated.attributes).toMatch(/Secure/i);
    expect(rotated.attributes).toMatch(/SameSite=Strict/i);
    expect(rotated.attributes).toMatch(/Path=\/api\/v1\/portal\/auth(;|$)/);
    const fresh = first.body.token as string;
    expect(fresh).not.toBe(session.token);
    expect((await portal('GET', '/portal/session', { token: fresh })).status).toBe(200);

    // The old cookie again: reuse. Every session token of the sign-in stops working.
    const reuse = await portal('POST', '/portal/auth/refresh', { cookie: session.cookie });
    expect(reuse.status).toBe(401);
    expect((await portal('GET', '/portal/session', { token: fresh })).status).toBe(401);
    expect((await portal('GET', '/portal/session', { token: session.token })).status).toBe(401);
    expect((await portal('POST', '/portal/auth/refresh', { cookie: rotated.value })).status).toBe(401);
    expect((await portal('POST', '/portal/auth/refresh')).status).toBe(401);
  });

  it('logs out: the cookie is cleared and the token and cookie stop working', async () => {
    const s = await signIn(buyerA);
    const out = await portal('POST', '/portal/auth/logout', { token: s.token, cookie: s.cookie });
    expect(out.status).toBe(204);
    const cleared = out.headers.getSetCookie().find((c) => c.startsWith(`${COOKIE}=`));
    expect(cleared).toMatch(/Expires=Thu, 01 Jan 1970/);
    expect((await portal('GET', '/portal/session', { token: s.token })).status).toBe(401);
    expect((await portal('POST', '/portal/auth/refresh', { cookie: s.cookie })).status).toBe(401);
  });

  it('kills a code after 5 tries: the 6th is refused even with the right code', async () => {
    const code = await otp(buyerA);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      const res = await portal('POST', '/portal/auth/verify-otp', {
        body: { email: buyerA, code: wrong, ...tenant() },
      });
      expect(res.status).toBe(401);
    }
    const right = await portal('POST', '/portal/auth/verify-otp', { body: { email: buyerA, code, ...tenant() } });
    expect(right.status).toBe(401);
  });

  it('refuses an expired code, and a used one', async () => {
    const code = await otp(buyerA);
    // Time passes: the stored code's expiry moves into the past.
    const codes = store.collection<{
      id: string;
      version: number;
      organizationId: string;
      email: string;
      expiresAt: string;
      createdAt: string;
    }>('portal_otp_codes');
    const latest = await codes.findOne(
      { organizationId: A.organizationId, email: buyerA },
      { sort: { createdAt: -1 } },
    );
    if (!latest) throw new Error('no stored code');
    expect(JSON.stringify(latest)).not.toContain(code);
    await codes.update(latest.id, ({ id: _i, version: _v, ...rest }) => ({
      ...rest,
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    }));
    expect(
      (await portal('POST', '/portal/auth/verify-otp', { body: { email: buyerA, code, ...tenant() } })).status,
    ).toBe(401);

    const next = await otp(buyerA);
    expect(
      (await portal('POST', '/portal/auth/verify-otp', { body: { email: buyerA, code: next, ...tenant() } })).status,
    ).toBe(200);
    expect(
      (await portal('POST', '/portal/auth/verify-otp', { body: { email: buyerA, code: next, ...tenant() } })).status,
    ).toBe(401);
  });

  it('limits code requests per address (known or not) with 429 and Retry-After', async () => {
    const address = `flood-${newObjectId()}@example.test`;
    for (let i = 0; i < CODES_PER_ADDRESS; i++)
      expect((await portal('POST', '/portal/auth/request-otp', { body: { email: address, ...tenant() } })).status).toBe(
        202,
      );
    const res = await portal('POST', '/portal/auth/request-otp', { body: { email: address, ...tenant() } });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  describe("sign-in with the spec's bodies ({email}, {email, code}): the organization from the page", () => {
    const buyerC = `clara-${newObjectId()}@example.test`;
    let invoiceC: { id: string; number: string };
    let other: BootstrapResult;
    let otherInvoice: string;
    const otherAdmin = (method: string, p: string, body?: unknown) =>
      api(method, adm(p), { token: other.apiKey, ...(body !== undefined ? { body } : {}) });

    beforeAll(async () => {
      invoiceC = await issued(await client(buyerC));
      // The same address is a buyer of a second organization with the portal on: it must never get a session there from A's pages.
      other = await mesh.bootstrap();
      expect((await otherAdmin('PUT', '/organizations/settings/tax', { homeCountry: 'DE' })).status).toBe(200);
      expect((await otherAdmin('PUT', '/organizations/settings/portal', { enabled: true })).status).toBe(200);
      const c = await otherAdmin('POST', '/clients', { name: 'Clara Buyer', email: buyerC, address });
      expect(c.status, JSON.stringify(c.body)).toBe(201);
      const d = await otherAdmin('POST', '/invoices', {
        siteId: other.siteId,
        clientId: c.body.id,
        currency: 'EUR',
        items: [{ description: 'Other shop', quantity: 1, unitPrice: 11900, amountType: 'gross', itemType: 'service' }],
      });
      expect(d.status, JSON.stringify(d.body)).toBe(201);
      otherInvoice = d.body.id as string;
    });

    /** request-otp and verify-otp with the spec's bodies and the given headers; the session's document ids. */
    async function signInWith(email: string, headers: Record<string, string>): Promise<string[]> {
      const before = (await catcher.to(email)).length;
      const asked = await api('POST', pub('/portal/auth/request-otp'), { body: { email }, headers });
      expect(asked.status, JSON.stringify(asked.body)).toBe(202);
      const messages = await eventually(async () => {
        const got = await catcher.to(email);
        return got.length > before ? got : undefined;
      }, 20_000);
      const code = /code is (\d{6})/.exec(messages[0]!.text)![1]!;
      const verified = await api('POST', pub('/portal/auth/verify-otp'), { body: { email, code }, headers });
      expect(verified.status, JSON.stringify(verified.body)).toBe(200);
      expect(verified.body).toEqual({ token: expect.any(String), expiresAt: expect.any(String) });
      const docs = await portal('GET', '/portal/documents', { token: verified.body.token as string });
      expect(docs.status).toBe(200);
      return (docs.body.items as { id: string }[]).map((d) => d.id);
    }

    it("takes the organization from the portal page's address (/portal/<organizationId>)", async () => {
      const page = `${mesh.publicBaseUrl.replace(/\/api\/v1$/, '')}/portal/${A.organizationId}`;
      expect(await signInWith(buyerC, { referer: page })).toEqual([invoiceC.id]);
    });

    it("takes it from the page's host: a site's frontend domain only that organization lists, or a verified custom domain", async () => {
      expect((await admin('PUT', `/sites/${A.siteId}`, { frontendDomains: ['portal-a.example'] })).status).toBe(200);
      expect(await signInWith(buyerC, { origin: 'https://portal-a.example' })).toEqual([invoiceC.id]);

      const domain = await admin('POST', '/domains', { hostname: 'kunden.portal-a.example' });
      expect(domain.status, JSON.stringify(domain.body)).toBe(201);
      // Unverified, the name proves nothing: 400.
      const unverified = await api('POST', pub('/portal/auth/request-otp'), {
        body: { email: buyerC },
        headers: { origin: 'https://kunden.portal-a.example' },
      });
      expect(unverified.status).toBe(400);
      dns.zone.set('kunden.portal-a.example', { cname: `${CNAME_TARGET}.` });
      expect((await admin('GET', '/domains/verify-cname?domain=kunden.portal-a.example')).body.verified).toBe(true);
      expect(await signInWith(buyerC, { origin: 'https://kunden.portal-a.example' })).toEqual([invoiceC.id]);
      // The other organization's own page signs the same address in there, to its documents only.
      const otherPage = `${mesh.publicBaseUrl.replace(/\/api\/v1$/, '')}/portal/${other.organizationId}`;
      expect(await signInWith(buyerC, { referer: otherPage })).toEqual([otherInvoice]);
    });

    it('answers 400 in the envelope when the organization cannot be told, and never picks one by the e-mail', async () => {
      // Both organizations list the host: ambiguous. No hint at all: unknown. The address exists in both.
      expect(
        (await otherAdmin('PUT', `/sites/${other.siteId}`, { frontendDomains: ['portal-a.example'] })).status,
      ).toBe(200);
      const cases: Record<string, string>[] = [
        { origin: 'https://portal-a.example' },
        {},
        { origin: 'https://unknown.example' },
        { referer: 'https://unknown.example/portal/' },
      ];
      for (const headers of cases) {
        for (const [path, body] of [
          ['/portal/auth/request-otp', { email: buyerC }],
          ['/portal/auth/verify-otp', { email: buyerC, code: '123456' }],
        ] as const) {
          const res = await api('POST', pub(path), { body, headers });
          expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(400);
          expect(res.body).toEqual({ error: expect.stringMatching(/^organizationId: /) });
          expect(res.headers.get('x-request-id')).toBeTruthy();
        }
      }
      // organizationId is still taken as before, and wins over the page.
      const page = `${mesh.publicBaseUrl.replace(/\/api\/v1$/, '')}/portal/${other.organizationId}`;
      const res = await api('POST', pub('/portal/auth/verify-otp'), {
        body: { email: buyerC, code: '000000', organizationId: A.organizationId },
        headers: { referer: page },
      });
      expect(res.status).toBe(401);
    });
  });

  describe('magic links', () => {
    it("work as soon as the spec's four conditions hold (deployment portal and magic links, organization portal, something visible), with the spec's body", async () => {
      // Only the organization's portal switch was turned on (above); nothing else is needed.
      const made = await admin('POST', '/organizations/settings/portal/magic-links', { email: buyerA });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect(made.body).toEqual({
        url: expect.stringMatching(/\/portal\/magic-link#token=pml1\./),
        expiresAt: expect.any(String),
        ttlMinutes: 60,
      });
      const token = (made.body.url as string).split('#token=')[1]!;
      const signedIn = await portal('POST', '/portal/auth/magic-link', { body: { token } });
      expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
      expect(signedIn.body).toEqual({ token: expect.any(String), expiresAt: expect.any(String) });
    });

    it('are refused while the organization has turned magic links off, and for an e-mail with nothing to see', async () => {
      expect((await admin('PUT', '/organizations/settings/portal', { magicLinksEnabled: false })).status).toBe(200);
      const off = await admin('POST', '/organizations/settings/portal/magic-links', { email: buyerA });
      expect(off.status, JSON.stringify(off.body)).toBe(403);
      expect(off.body).toMatchObject({
        error: expect.stringContaining('magic links are turned off for this organization'),
        code: 'PORTAL_MAGIC_LINKS_DISABLED',
      });
      expect((await admin('PUT', '/organizations/settings/portal', { magicLinksEnabled: true })).status).toBe(200);
      const nobody = await admin('POST', '/organizations/settings/portal/magic-links', {
        email: `nobody-${newObjectId()}@example.test`,
      });
      expect(nobody.status, JSON.stringify(nobody.body)).toBe(422);
      expect((await admin('POST', '/organizations/settings/portal/magic-links', { email: 'nope' })).status).toBe(400);
      expect(
        (await admin('POST', '/organizations/settings/portal/magic-links', { email: buyerA, ttlMinutes: 0 })).status,
      ).toBe(400);
    });

    it('are made by the Admin API, exchanged once, and a replay gets 401', async () => {
      const made = await admin('POST', '/organizations/settings/portal/magic-links', {
        email: buyerA.toUpperCase(),
        ttlMinutes: 10,
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect(made.body.ttlMinutes).toBe(10);
      expect(made.body.url).toMatch(/\/portal\/magic-link#token=pml1\./);
      const expiresIn = new Date(made.body.expiresAt).getTime() - Date.now();
      expect(expiresIn).toBeGreaterThan(8 * 60_000);
      expect(expiresIn).toBeLessThanOrEqual(10 * 60_000);
      const token = (made.body.url as string).split('#token=')[1]!;

      const exchanged = await portal('POST', '/portal/auth/magic-link', { body: { token } });
      expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
      expect(Object.keys(exchanged.body).sort()).toEqual(['expiresAt', 'token']);
      refreshCookieOf(exchanged.headers);
      const me = await portal('GET', '/portal/session', { token: exchanged.body.token });
      expect(me.body).toEqual({ email: buyerA, hasSubscriptions: false });

      const replay = await portal('POST', '/portal/auth/magic-link', { body: { token } });
      expect(replay.status).toBe(401);
      expect(replay.body.error).toContain('already used');
    });

    it('cap the lifetime to the system default (60 minutes here)', async () => {
      const made = await admin('POST', '/organizations/settings/portal/magic-links', {
        email: buyerA,
        ttlMinutes: 100_000,
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect(made.body.ttlMinutes).toBe(60);
      const omitted = await admin('POST', '/organizations/settings/portal/magic-links', { email: buyerA });
      expect(omitted.body.ttlMinutes).toBe(60);
    });

    it('refuse tampered, expired and malformed tokens with 401', async () => {
      const made = await admin('POST', '/organizations/settings/portal/magic-links', { email: buyerA });
      const token = (made.body.url as string).split('#token=')[1]!;
      const [p, payload, sig] = token.split('.') as [string, string, string];
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const forged = Buffer.from(JSON.stringify({ ...claims, e: buyerB })).toString('base64url');
      expect(
        (await portal('POST', '/portal/auth/magic-link', { body: { token: `${p}.${forged}.${sig}` } })).status,
      ).toBe(401);
      for (const bad of ['', 'garbage', `${p}.${payload}`, `${token}x`]) {
        const res = await portal('POST', '/portal/auth/magic-link', { body: { token: bad } });
        expect([400, 401], bad).toContain(res.status);
      }
      expect((await portal('POST', '/portal/auth/magic-link', { body: { token: 'garbage' } })).status).toBe(401);
      // A link that expired: signed with the deployment's key (derived from its keyring, as both gateways do).
      const key = resolvePortalKey({ NODE_ENV: 'test', PAYMESH_DEV_DEFAULTS: true }, 'PORTAL_LINK_SECRET', undefined);
      const expired = signPortalLink(key, {
        organizationId: A.organizationId,
        mode: 'live',
        email: buyerA,
        expiresAt: new Date(Date.now() - 1000),
        linkId: newPortalLinkId(),
      });
      const res = await portal('POST', '/portal/auth/magic-link', { body: { token: expired } });
      expect(res.status).toBe(401);
      expect(res.body.error).toContain('expired');
      // The same key signs a link the gateway accepts (so the refusal above is the expiry).
      const live = signPortalLink(key, {
        organizationId: A.organizationId,
        mode: 'live',
        email: buyerA,
        expiresAt: new Date(Date.now() + 60_000),
        linkId: newPortalLinkId(),
      });
      expect((await portal('POST', '/portal/auth/magic-link', { body: { token: live } })).status).toBe(200);
    });

    it('stop working when the organization turns magic links off', async () => {
      const made = await admin('POST', '/organizations/settings/portal/magic-links', { email: buyerA });
      expect(made.status).toBe(201);
      expect((await admin('PUT', '/organizations/settings/portal', { magicLinksEnabled: false })).status).toBe(200);
      const token = (made.body.url as string).split('#token=')[1]!;
      expect((await portal('POST', '/portal/auth/magic-link', { body: { token } })).status).toBe(401);
      expect((await admin('PUT', '/organizations/settings/portal', { magicLinksEnabled: true })).status).toBe(200);
    });
  });

  it('subscription routes validate their input and pass the recurring service through', async () => {
    const s = await (async () => {
      const made = await admin('POST', '/organizations/settings/portal/magic-links', { email: buyerA });
      const res = await portal('POST', '/portal/auth/magic-link', {
        body: { token: (made.body.url as string).split('#token=')[1]! },
      });
      return res.body.token as string;
    })();
    expect((await portal('GET', '/portal/subscriptions?limit=0', { token: s })).status).toBe(400);
    expect((await portal('GET', '/portal/subscriptions/nope/upcoming', { token: s })).status).toBe(400);
    expect((await portal('GET', `/portal/subscriptions/${newObjectId()}/upcoming?count=0`, { token: s })).status).toBe(
      400,
    );
    expect(
      (await portal('POST', `/portal/subscriptions/${newObjectId()}/cancel`, { token: s, body: { reason: 42 } }))
        .status,
    ).toBe(400);
    const list = await portal('GET', '/portal/subscriptions', { token: s });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ subscriptions: [], total: 0, page: 1, limit: 20 });
  });

  it('answers 401 on every portal data route without a valid token, and a portal turned off ends sessions', async () => {
    const id = newObjectId();
    const routes: [string, string][] = [
      ['GET', '/portal/session'],
      ['GET', '/portal/documents'],
      ['GET', `/portal/documents/${id}/pdf`],
      ['GET', `/portal/documents/${id}/einvoice?format=xrechnung`],
      ['GET', '/portal/subscriptions'],
      ['GET', `/portal/subscriptions/${id}/upcoming?count=3`],
      ['GET', `/portal/subscriptions/${id}/upcoming/u1/proforma/pdf`],
      ['POST', `/portal/subscriptions/${id}/cancel`],
    ];
    for (const [method, p] of routes) {
      for (const token of [undefined, 'not-a-session-token-at-all-0000000000']) {
        const res = await portal(method, p, {
          ...(token ? { token } : {}),
          ...(method === 'POST' ? { body: {} } : {}),
        });
        expect(res.status, `${method} ${p}`).toBe(401);
        expect(typeof res.body.error).toBe('string');
        expect(res.headers.get('x-request-id')).toBeTruthy();
      }
    }
    const s = await signIn(buyerB);
    expect(
      (await portal('GET', '/portal/documents', { token: s.token })).body.items.map((d: { id: string }) => d.id),
    ).toEqual([invoiceB.id]);
    expect((await admin('PUT', '/organizations/settings/portal', { enabled: false })).status).toBe(200);
    expect((await portal('GET', '/portal/session', { token: s.token })).status).toBe(401);
  });
});
