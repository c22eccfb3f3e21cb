import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HTTPRequest, Page } from 'puppeteer-core';
import { verifyIpn } from '../../libs/contracts/src/ipn-signature';
import { innerText, isShown, launchBrowser, seriousA11yViolations, type TestBrowser } from '../support/browser';
import { IpnReceiver } from '../support/ipn-receiver';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';

/**
 * The merchant dashboard in Chromium against the whole mesh: passkey enrollment and sign-in
 * through Chromium's virtual authenticator (DevTools protocol), the overview's sums, a payment's
 * IPN attempts and "Send IPN again" (a second correctly signed IPN at the merchant's receiver),
 * what a Viewer may not do, token renewal after a 401, a reused refresh cookie, sign-out, and
 * axe-core on every screen. Screenshots go to .run/artifacts/dashboard-app/.
 */
describe('merchant dashboard in Chromium', () => {
  let mesh: TestMesh;
  let browser: TestBrowser;
  let boot: Awaited<ReturnType<TestMesh['bootstrap']>>;
  const receiver = new IpnReceiver();
  let receiverUrl: string;
  let admin: Page;
  let dashboard: string;
  let origin: string;
  const eur = (minor: number) =>
    new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'EUR' }).format(minor / 100);

  /** A page with its own cookies and a virtual platform authenticator that verifies the user. */
  async function pageWithAuthenticator(): Promise<Page> {
    const page = await browser.page({ width: 1280, height: 900 });
    page.on('pageerror', (err) => console.error(`page error: ${String(err)}`));
    page.on('console', (m) => m.type() === 'error' && console.error(`page console: ${m.text()}`));
    const cdp = await page.createCDPSession();
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    return page;
  }

  /** Waits for the screen whose main heading holds `text`; on a timeout the error says what the page shows. */
  const heading = (page: Page, text: string) =>
    page
      .waitForFunction(`document.querySelector('h1')?.textContent?.includes(${JSON.stringify(text)})`, {
        timeout: 20_000,
      })
      .catch(async (err: unknown) => {
        await browser.screenshot(page, 'failed');
        const shown = await page.evaluate('document.body.innerText + " @ " + location.href');
        throw new Error(`no heading "${text}" (${String(err)}); the page shows: ${String(shown)}`);
      });

  async function noSeriousViolations(page: Page, name: string): Promise<void> {
    await browser.screenshot(page, name);
    expect(await seriousA11yViolations(page), name).toEqual([]);
  }

  const adminApi = (method: string, path: string, body?: unknown) =>
    api(method, `${mesh.adminBaseUrl}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });

  /** A bank transfer recorded by hand: initiated, then (optionally) marked paid, which announces it by IPN. */
  async function manualPayment(amount: number, opts: { paid: boolean; ipn?: boolean; reference: string }) {
    const created = await adminApi('POST', '/transactions/manual', {
      siteId: boot.siteId,
      amount,
      currency: 'EUR',
      status: -1,
      reason: 'bank transfer',
      externalReference: opts.reference,
      email: 'buyer@example.com',
      ...(opts.ipn ? { ipnUrl: `${receiverUrl}/ipn/${opts.reference}` } : {}),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    if (opts.paid) {
      const paid = await adminApi('PUT', `/transactions/${created.body.id}`, {
        status: 1,
        reason: 'transfer received',
      });
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    }
    return created.body.id as string;
  }

  beforeAll(async () => {
    receiverUrl = await receiver.start();
    mesh = await startTestMesh({ env: { IPN_BACKOFF_BASE_MS: '500', IPN_TIMEOUT_MS: '2000' } });
    boot = await mesh.bootstrap();
    dashboard = mesh.dashboardUrl;
    origin = new URL(dashboard).origin;
    browser = await launchBrowser('dashboard-app');
  });

  afterAll(async () => {
    await browser?.close();
    await mesh?.dispose();
    await receiver.stop();
  });

  it('the bootstrap prints a dashboard on a host name and an enrollment link; the app is served with a strict CSP', async () => {
    expect(new URL(dashboard).hostname).toBe('localhost');
    expect(boot.enrollmentLink).toMatch(new RegExp(`^${dashboard}enroll#`));
    const shell = await fetch(dashboard);
    expect(shell.status).toBe(200);
    const csp = shell.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await shell.text();
    const script = /src="(\/app\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeTruthy();
    const asset = await fetch(`${origin}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${origin}/`, { redirect: 'manual' })).headers.get('location')).toBe('/app/');
  });

  it('a new Admin registers a passkey from the enrollment link and is signed in', async () => {
    admin = await pageWithAuthenticator();
    await admin.goto(boot.enrollmentLink as string);
    await heading(admin, 'Set up your passkey');
    await noSeriousViolations(admin, 'enroll');
    await admin.click('main button');
    await heading(admin, 'Overview');
    // The spent token left the address bar.
    expect(new URL(admin.url()).hash).toBe('');
    expect(await innerText(admin, '[data-testid="role"]')).toContain('Admin');
  });

  it('the overview shows the sum of the payments, as figures and a chart', async () => {
    await manualPayment(1000, { paid: true, reference: 'order-a' });
    await manualPayment(2490, { paid: true, reference: 'order-b' });
    await manualPayment(700, { paid: false, reference: 'order-c' });
    // A reload signs in again through the refresh cookie (the access token lives in memory only).
    await admin.reload();
    await heading(admin, 'Overview');
    await admin.waitForSelector('[data-testid="gross-EUR"]');
    expect(await innerText(admin, '[data-testid="gross-EUR"]')).toBe(eur(3490));
    expect(await isShown(admin, '#chart canvas')).toBe(true);
    expect(await innerText(admin, '#recent')).toContain('order-c');
    await noSeriousViolations(admin, 'overview');
  });

  it('a checkout created in the dashboard is paid on the hosted page and shows on the overview and in the payments', async () => {
    await admin.goto(`${dashboard}checkouts`);
    await heading(admin, 'Checkouts');
    await admin.type('#co-amount', '19.90');
    await admin.type('#co-item', 'T-shirt');
    await admin.type('#co-reference', 'order-hosted');
    await admin.type('#co-returnUrl', `${receiverUrl}/thanks/{transactionId}`);
    await admin.type('#co-ipnUrl', `${receiverUrl}/ipn/order-hosted`);
    await admin.click('#create-checkout button[type="submit"]');
    await admin.waitForSelector('[data-testid="payment-url"]');
    const paymentUrl = await innerText(admin, '[data-testid="payment-url"]');
    expect(paymentUrl).toMatch(/\/c\/cs_/);
    await noSeriousViolations(admin, 'checkout-created');

    const buyer = await browser.page({ width: 1024, height: 900 });
    await buyer.goto(paymentUrl, { waitUntil: 'domcontentloaded' });
    await buyer.waitForSelector('#pay-form:not([hidden])');
    await buyer.type('#name', 'Hosted Buyer');
    await buyer.type('#email', 'hosted@example.com');
    await buyer.type('#line1', 'Hauptstr. 1');
    await buyer.type('#postalCode', '10115');
    await buyer.type('#city', 'Berlin');
    await buyer.select('#country', 'DE');
    await buyer.click('input[name="provider"][value="provider_a"]');
    await Promise.all([buyer.waitForNavigation({ waitUntil: 'domcontentloaded' }), buyer.click('#pay-button')]);
    await Promise.all([buyer.waitForNavigation({ waitUntil: 'domcontentloaded' }), buyer.click('button.pay')]);
    const landed = await eventually(
      () => (buyer.url().startsWith(`${receiverUrl}/thanks/`) ? buyer.url() : undefined),
      30_000,
    );
    const id = landed.slice(`${receiverUrl}/thanks/`.length);
    await buyer.close();
    const paid = (await adminApi('GET', `/transactions/${id}`)).body;
    expect(paid.status).toBe(1);

    await admin.goto(dashboard);
    await admin.waitForSelector('[data-testid="gross-EUR"]');
    expect(await innerText(admin, '[data-testid="gross-EUR"]')).toBe(eur(3490 + paid.amount));
    expect(await innerText(admin, '#recent')).toContain('order-hosted');
    // Usable from 768 px wide.
    await admin.setViewport({ width: 768, height: 1000 });
    await noSeriousViolations(admin, 'overview-768');
    await admin.setViewport({ width: 1280, height: 900 });
    await admin.goto(`${dashboard}payments/${id}`);
    await admin.waitForSelector('[data-testid="ipn-attempts"] tbody tr');
    expect(await innerText(admin, '#billing')).toContain('Hosted Buyer');
    expect(await innerText(admin, '#summary')).toContain('provider_a');
  });

  it('a payment page shows its IPN attempts, and "Send IPN again" makes the receiver get a second correctly signed IPN', async () => {
    const id = await manualPayment(4990, { paid: true, ipn: true, reference: 'order-ipn' });
    await eventually(() => receiver.at('/ipn/order-ipn').length === 1, 20_000);
    await admin.goto(`${dashboard}payments/${id}`);
    await admin.waitForSelector('[data-testid="ipn-attempts"] tbody tr');
    expect(await innerText(admin, '[data-testid="ipn-attempts"] tbody')).toContain('200');
    expect(await innerText(admin, '[data-testid="tx-amount"]')).toBe(eur(4990));
    await noSeriousViolations(admin, 'payment');

    await admin.click('[data-testid="send-ipn-again"]');
    await eventually(() => receiver.at('/ipn/order-ipn').length === 2, 20_000);
    const [first, second] = receiver.at('/ipn/order-ipn');
    const check = verifyIpn(boot.webhookSigningSecret, second!.headers, second!.rawBody);
    expect(check.valid, JSON.stringify(check)).toBe(true);
    expect(JSON.parse(second!.rawBody.toString())).toEqual({ id, externalReference: 'order-ipn', status: 1 });
    expect(second!.rawBody.equals(first!.rawBody)).toBe(true);
    // The page follows the new round: attempt 2, marked with who asked.
    await admin.waitForFunction(`document.querySelectorAll('[data-testid="ipn-attempts"] tbody tr').length === 2`, {
      timeout: 20_000,
    });
    expect(await innerText(admin, '[data-testid="ipn-attempts"] tbody')).toContain(boot.adminEmail);
  });

  it('the payments list pages on the server, and a 401 renews the access token and repeats the call', async () => {
    let refused = 0;
    const refuseOnce = (req: HTTPRequest) => {
      if (refused === 0 && req.url().includes('/api/v1/transactions?')) {
        refused++;
        void req.respond({
          status: 401,
          contentType: 'application/json',
          body: '{"error":"invalid or expired access token"}',
        });
      } else void req.continue();
    };
    await admin.setRequestInterception(true);
    admin.on('request', refuseOnce);
    try {
      await admin.goto(`${dashboard}payments`);
      await admin.waitForSelector('[data-testid="transactions"] tbody tr', { timeout: 20_000 });
    } finally {
      admin.off('request', refuseOnce);
      await admin.setRequestInterception(false);
    }
    expect(refused).toBe(1);
    expect(await innerText(admin, '[data-testid="transactions"]')).toContain('order-ipn');
    expect(await innerText(admin, '.pager')).toContain('(5');
    // Search by the merchant's reference, then by the buyer's e-mail address.
    await admin.type('#f-q', 'order-b');
    await admin.click('form.filters button[type="submit"]');
    await admin.waitForFunction(`document.querySelector('.pager')?.textContent.includes('(1 ')`, { timeout: 20_000 });
    expect(await innerText(admin, '[data-testid="transactions"] tbody')).toContain('order-b');
    await admin.goto(`${dashboard}payments?q=${encodeURIComponent('HOSTED@example.com')}`);
    await admin.waitForFunction(`document.querySelector('.pager')?.textContent.includes('(1 ')`, { timeout: 20_000 });
    expect(await innerText(admin, '[data-testid="transactions"] tbody')).toContain('order-hosted');
    await noSeriousViolations(admin, 'payments');
    for (const [path, title, name] of [
      ['checkouts', 'Checkouts', 'checkouts'],
      ['holds', 'Customer risk holds', 'holds'],
    ] as const) {
      await admin.goto(`${dashboard}${path}`);
      await heading(admin, title);
      await noSeriousViolations(admin, name);
    }
  });

  it('an API key created in the settings works at once, and its secret is not shown again', async () => {
    await admin.goto(`${dashboard}settings`);
    await heading(admin, 'Settings');
    await admin.type('#key-name', 'shop backend');
    await admin.click('#api-keys button[type="submit"]');
    await admin.waitForSelector('[data-testid="api-key-secret"]');
    const token = await innerText(admin, '[data-testid="api-key-secret"]');
    expect(token).toMatch(/^sk_live_/);
    expect((await api('GET', `${mesh.adminBaseUrl}/sites`, { token })).status).toBe(200);
    await noSeriousViolations(admin, 'settings');
    await admin.reload();
    await heading(admin, 'Settings');
    await admin.waitForSelector('[data-testid="api-keys"] tbody tr');
    expect(await innerText(admin, '[data-testid="api-keys"]')).toContain('shop backend');
    expect(await admin.$('[data-testid="api-key-secret"]')).toBeNull();
    expect(await admin.evaluate('document.body.innerHTML')).not.toContain(token.split('.')[1]);

    // The site's IPN signing secret is rotated here and shown once; the provider records are listed.
    expect(await innerText(admin, '#providers')).toContain('provider_a');
    await admin.click('#sites tbody button');
    await admin.waitForSelector('[data-testid="signing-secret"]');
    const rotated = await innerText(admin, '[data-testid="signing-secret"]');
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(boot.webhookSigningSecret);

    // The audit trail names this user (by e-mail) for the key created and the secret rotated here,
    // with no secret in it; the check of issued documents passes.
    await admin.goto(`${dashboard}audit`);
    await heading(admin, 'Audit trail');
    await admin.waitForFunction(
      `document.querySelector('table')?.textContent.includes('createOrganizationApiKey') && document.querySelector('table')?.textContent.includes('rotateSiteWebhookSecret')`,
      { timeout: 20_000 },
    );
    const trail = await innerText(admin, 'table');
    expect(trail).toContain(`user: ${boot.adminEmail}`);
    expect(trail).not.toContain(token.split('.')[1]);
    expect(trail).not.toContain(rotated);
    await admin.click('#integrity-heading + button');
    await admin.waitForSelector('[data-testid="integrity-result"]');
    expect(await innerText(admin, '[data-testid="integrity-result"]')).toMatch(/^Intact: /);
    await noSeriousViolations(admin, 'audit');
    await admin.goto(`${dashboard}settings`);
    await heading(admin, 'Settings');
  });

  it('an Admin invites a Viewer, who signs in with the link and sees no write action', async () => {
    await admin.type('#inv-email', 'viewer@merchant.example');
    await admin.type('#inv-name', 'Vera Viewer');
    await admin.select('#inv-role', 'Viewer');
    await admin.click('#members button[type="submit"]');
    await admin.waitForSelector('[data-testid="enrollment-link"]');
    const link = await innerText(admin, '[data-testid="enrollment-link"]');
    expect(link.startsWith(`${dashboard}enroll#`)).toBe(true);
    const viewer = await pageWithAuthenticator();
    await viewer.goto(link);
    await heading(viewer, 'Set up your passkey');
    await viewer.click('main button');
    await heading(viewer, 'Overview');
    expect(await innerText(viewer, '[data-testid="role"]')).toContain('Viewer');
    const tx = (await adminApi('GET', '/transactions?limit=100')).body.items.find(
      (t: { externalReference: string }) => t.externalReference === 'order-ipn',
    );
    await viewer.goto(`${dashboard}payments/${tx.id}`);
    await viewer.waitForSelector('[data-testid="ipn-attempts"]');
    expect(await viewer.$('[data-testid="send-ipn-again"]')).toBeNull();
    await viewer.goto(`${dashboard}checkouts`);
    await heading(viewer, 'Checkouts');
    expect(await viewer.$('#create-checkout')).toBeNull();
    await viewer.goto(`${dashboard}settings`);
    await viewer.waitForSelector('#members tbody tr');
    expect(await viewer.$('#api-keys')).toBeNull();
    expect(await viewer.$('#inv-email')).toBeNull();
    expect(await innerText(viewer, '#members')).toContain('viewer@merchant.example');
    await browser.screenshot(viewer, 'viewer-checkouts');
    await viewer.close();
  });

  it('a reused refresh cookie ends the session and the app says so; a passkey signs in again; sign-out ends it', async () => {
    const cookie = (await admin.cookies()).find((c) => c.name === 'paymesh_refresh');
    expect(cookie?.httpOnly).toBe(true);
    // Someone else uses the cookie first (it rotates): the browser's copy is now a reused one.
    const stolen = await api('POST', `${mesh.adminBaseUrl}/auth/refresh-token`, {
      headers: { cookie: `paymesh_refresh=${cookie!.value}` },
    });
    expect(stolen.status).toBe(200);
    await admin.reload();
    await admin.waitForSelector('[data-testid="signed-out-notice"]', { timeout: 20_000 });
    expect(await innerText(admin, '[data-testid="signed-out-notice"]')).toContain('Your session has ended');
    await noSeriousViolations(admin, 'signed-out');
    // The thief's session ended too.
    const after = await api('POST', `${mesh.adminBaseUrl}/auth/refresh-token`, {
      headers: {
        cookie: stolen.headers
          .getSetCookie()
          .map((c) => c.split(';')[0])
          .join('; '),
      },
    });
    expect(after.status).toBe(401);

    await admin.type('#email', boot.adminEmail);
    await admin.click('main button[type="submit"]');
    // Signed in again, on the screen the member was on.
    await admin.waitForSelector('[data-testid="role"]', { timeout: 20_000 });
    await heading(admin, 'Settings');
    await admin.click('header button.secondary');
    await admin.waitForSelector('[data-testid="signed-out-notice"]');
    expect(await innerText(admin, '[data-testid="signed-out-notice"]')).toBe('You are signed out.');
    await admin.reload();
    await heading(admin, 'Sign in to Paymesh');
    expect((await admin.cookies()).find((c) => c.name === 'paymesh_refresh')).toBeUndefined();
  });

  it('cookie-authenticated routes refuse cross-site requests', async () => {
    const res = await api('POST', `${mesh.adminBaseUrl}/auth/refresh-token`, {
      headers: { origin: 'https://evil.example', cookie: 'paymesh_refresh=x' },
    });
    expect(res.status).toBe(403);
    const site = await api('POST', `${mesh.adminBaseUrl}/auth/logout`, { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(site.status).toBe(403);
  });
});
