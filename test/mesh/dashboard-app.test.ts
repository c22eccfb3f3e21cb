import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HTTPRequest, Page } from 'puppeteer-core';
import { verifyIpn } from '../../libs/contracts/src/ipn-signature';
import {
  inPage,
  innerText,
  isShown,
  launchBrowser,
  pageWithAuthenticator as authenticatorPage,
  seriousA11yViolations,
  type TestBrowser,
} from '../support/browser';
import { inviteMember, waitForHeading } from '../support/dashboard';
import { TestDnsServer } from '../support/dns-server';
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
  const dns = new TestDnsServer();
  const CNAME_TARGET = 'checkout.paymesh.example';
  /** The payment made through the hosted page (provider_a sandbox). */
  let hostedId: string;
  let receiverUrl: string;
  let admin: Page;
  let dashboard: string;
  let origin: string;
  const eur = (minor: number) =>
    new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'EUR' }).format(minor / 100);

  /** A page with its own cookies and a virtual platform authenticator that verifies the user. */
  const pageWithAuthenticator = () => authenticatorPage(browser);
  const heading = (page: Page, text: string) => waitForHeading(browser, page, text);

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
    const resolver = await dns.start();
    mesh = await startTestMesh({
      env: {
        IPN_BACKOFF_BASE_MS: '500',
        IPN_TIMEOUT_MS: '2000',
        DNS_RESOLVERS: resolver,
        CUSTOM_DOMAIN_CNAME_TARGET: CNAME_TARGET,
      },
    });
    boot = await mesh.bootstrap();
    dashboard = mesh.dashboardUrl;
    origin = new URL(dashboard).origin;
    browser = await launchBrowser('dashboard-app');
  });

  afterAll(async () => {
    await browser?.close();
    await mesh?.dispose();
    await receiver.stop();
    await dns.stop();
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
    hostedId = id;
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

  /** Replaces the value of a text field (React sees the typing). */
  async function retype(page: Page, selector: string, value: string): Promise<void> {
    await page.focus(selector);
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyA');
    await page.keyboard.up('Control');
    await page.keyboard.press('Backspace');
    await page.type(selector, value);
  }

  /** axe-core on a screen at 768 px and wide, with a screenshot of each. */
  async function checkScreen(page: Page, name: string): Promise<void> {
    await page.setViewport({ width: 768, height: 1000 });
    await noSeriousViolations(page, `${name}-768`);
    await page.setViewport({ width: 1280, height: 900 });
    await noSeriousViolations(page, name);
  }

  const previewBrand = (page: Page) =>
    inPage<string>(page, `document.querySelector('[data-testid="brand-preview"]')?.dataset.brand ?? ''`);
  const previewPayColour = (page: Page) =>
    inPage<string>(page, `getComputedStyle(document.querySelector('[data-testid="preview-pay"]')).backgroundColor`);

  it('a site is created with every field the API takes, its signing secret shown once; an edit changes the live preview and the site', async () => {
    await admin.goto(`${dashboard}settings/sites`);
    await heading(admin, 'Sites');
    await admin.type('#new-site-name', 'Second shop');
    await admin.type('#new-site-url', 'https://second.shop.example');
    await admin.type('#new-site-domains', 'second.shop.example\nwww.second.shop.example');
    await admin.type('#new-site-logo', 'https://cdn.shop.example/logo.png');
    await admin.type('#new-site-color', '#ffd60a');
    await admin.select('#new-site-vat', 'none');
    await admin.click('#new-site button[type="submit"]');
    await admin.waitForSelector('[data-testid="signing-secret"]');
    expect(await innerText(admin, '[data-testid="signing-secret"]')).toMatch(/^whsec_/);
    const created = (await adminApi('GET', '/sites?limit=100')).body.items.find(
      (x: { name: string }) => x.name === 'Second shop',
    );
    expect(created).toMatchObject({
      url: 'https://second.shop.example/',
      frontendDomains: ['second.shop.example', 'www.second.shop.example'],
      branding: { logo: 'https://cdn.shop.example/logo.png', primaryColor: '#ffd60a' },
      checkoutSettings: { vatIdValidation: 'none' },
    });
    await checkScreen(admin, 'sites');

    await admin.goto(`${dashboard}settings/sites/${created.id}`);
    await heading(admin, 'Site Second shop');
    await admin.waitForSelector('[data-testid="brand-preview"]');
    expect(await previewBrand(admin)).toBe('#ffd60a');
    // The logo itself, as the hosted page shows it (the policy lets https images in).
    expect(await inPage<string>(admin, `document.querySelector('[data-testid="brand-preview"] img').src`)).toBe(
      'https://cdn.shop.example/logo.png',
    );
    // A light colour gets dark text on the hosted page's button, as on the hosted page.
    expect(
      await inPage<string>(admin, `getComputedStyle(document.querySelector('[data-testid="preview-pay"]')).color`),
    ).toBe('rgb(0, 0, 0)');
    // The preview follows the typing, before anything is saved.
    await retype(admin, '#site-form-color', '#0f5132');
    await admin.waitForFunction(`document.querySelector('[data-testid="brand-preview"]').dataset.brand === '#0f5132'`);
    expect(await previewPayColour(admin)).toBe('rgb(15, 81, 50)');
    expect((await adminApi('GET', `/sites/${created.id}`)).body.branding.primaryColor).toBe('#ffd60a');
    await retype(admin, '#site-form-name', 'Second shop EU');
    await admin.click('#site-form button[type="submit"]');
    await admin.waitForSelector('#site [role="status"]');
    const saved = (await adminApi('GET', `/sites/${created.id}`)).body;
    expect(saved.name).toBe('Second shop EU');
    expect(saved.branding.primaryColor).toBe('#0f5132');
    await admin.reload();
    await heading(admin, 'Site Second shop EU');
    await admin.waitForSelector('[data-testid="brand-preview"]');
    expect(await previewPayColour(admin)).toBe('rgb(15, 81, 50)');
    await checkScreen(admin, 'site');

    // The IPN signing secret is rotated here and shown once.
    await admin.click('#signing button');
    await admin.waitForSelector('#signing [data-testid="signing-secret"]');
    const rotated = await innerText(admin, '#signing [data-testid="signing-secret"]');
    expect(rotated).toMatch(/^whsec_/);
    expect((await adminApi('GET', `/sites/${created.id}`)).body.webhookSigningSecretHint).toContain(rotated.slice(-4));
    await admin.reload();
    await heading(admin, 'Site Second shop EU');
    expect(await admin.$('[data-testid="signing-secret"]')).toBeNull();
  });

  it('custom domains show their verification state; an Admin adds, checks and removes one', async () => {
    await admin.goto(`${dashboard}settings/domains`);
    await heading(admin, 'Custom domains');
    await admin.type('#domain-hostname', 'pay.shop.example');
    await admin.click('#add-domain button[type="submit"]');
    await admin.waitForFunction(
      `document.querySelector('[data-testid="domains"]')?.innerText.includes('pay.shop.example')`,
    );
    expect(await innerText(admin, '[data-testid="domains"] tbody')).toContain('Not verified');
    await checkScreen(admin, 'domains');
    // Not pointed at the checkout host yet: the check says why.
    await admin.click('button[aria-label="Check now: pay.shop.example"]');
    await admin.waitForSelector('[data-testid="domain-check"]');
    expect(await innerText(admin, '[data-testid="domain-check"]')).toContain(CNAME_TARGET);
    dns.zone.set('pay.shop.example', { cname: `${CNAME_TARGET}.` });
    await admin.click('button[aria-label="Check now: pay.shop.example"]');
    await admin.waitForFunction(
      `document.querySelector('[data-testid="domains"] tbody')?.innerText.includes('Verified') && !document.querySelector('[data-testid="domains"] tbody').innerText.includes('Not verified')`,
    );
    expect((await adminApi('GET', '/domains')).body.items[0]).toMatchObject({
      hostname: 'pay.shop.example',
      verified: true,
    });
    await admin.click('button[aria-label="Remove pay.shop.example"]');
    await admin.waitForSelector('#domains p.muted');
    expect((await adminApi('GET', '/domains')).body.items).toEqual([]);
  });

  it('the provider form of each type is built from the schema the API validates with; an Admin adds and disables a provider', async () => {
    await admin.goto(`${dashboard}settings/providers`);
    await heading(admin, 'Payment providers');
    await admin.waitForSelector('#provider-type');
    const schemas = (await adminApi('GET', '/providers/types')).body.items as {
      type: string;
      credentials: { properties: Record<string, { enum?: string[] }>; required: string[] };
    }[];
    for (const { type, credentials } of schemas) {
      await admin.select('#provider-type', type);
      const fields = await inPage<string[]>(
        admin,
        `[...document.querySelectorAll('#add-provider-form input[id^="cred-"], #add-provider-form select[id^="cred-"]')].map((e) => e.tagName + ':' + e.id.slice(5) + ':' + e.required)`,
      );
      expect(fields, type).toEqual(
        Object.entries(credentials.properties).map(
          ([name, spec]) =>
            `${spec.enum ? 'SELECT' : 'INPUT'}:${name}:${!spec.enum && credentials.required.includes(name)}`,
        ),
      );
    }
    await admin.select('#provider-type', 'provider_c');
    expect(
      await inPage<string[]>(admin, `[...document.querySelectorAll('#cred-environment option')].map((o) => o.value)`),
    ).toEqual(['', 'sandbox', 'live']);
    await checkScreen(admin, 'providers');

    await admin.select('#provider-type', 'provider_a');
    await admin.type('#provider-name', 'Cards EU');
    await admin.type('#cred-secretKey', 'sk_live_dashboardform1');
    await admin.type('#cred-webhookSecret', 'whsec_dashboardformsecret01');
    await admin.click('#add-provider-form button[type="submit"]');
    await admin.waitForFunction(`document.querySelector('[data-testid="providers"]')?.innerText.includes('Cards EU')`);
    const record = (await adminApi('GET', '/providers?limit=100')).body.items.find(
      (p: { name: string }) => p.name === 'Cards EU',
    );
    expect(record).toMatchObject({ type: 'provider_a', enabled: true });
    await admin.click('button[aria-label="Disable Cards EU"]');
    await admin.waitForSelector('button[aria-label="Enable Cards EU"]');
    expect((await adminApi('GET', `/providers/${record.id}`)).body.enabled).toBe(false);
  });

  it('an API key created with scopes, role and expiry works with curl at once, its secret is never shown again; rotate and revoke', async () => {
    await admin.goto(`${dashboard}settings/api-keys`);
    await heading(admin, 'API keys');
    await admin.type('#key-name', 'shop backend');
    await admin.select('#key-role', 'Editor');
    await admin.select('#key-expiry', '30');
    // Read everything, and create checkouts.
    await admin.click('#api-keys fieldset.scopes button:nth-of-type(2)');
    await admin.click('#scope-checkout-create');
    await admin.click('#api-keys button[type="submit"]');
    await admin.waitForSelector('[data-testid="api-key-secret"]');
    const token = await innerText(admin, '[data-testid="api-key-secret"]');
    expect(token).toMatch(/^sk_live_/);
    await checkScreen(admin, 'api-keys');
    const curl = (t: string, method = 'GET', path = '/sites', body?: unknown) =>
      api(method, `${mesh.adminBaseUrl}${path}`, { token: t, ...(body !== undefined ? { body } : {}) });
    expect((await curl(token)).status).toBe(200);
    expect((await curl(token, 'POST', '/sites', { name: 'x', url: 'https://x.example' })).status).toBe(403);
    const key = (await adminApi('GET', `/organizations/${boot.organizationId}/api-keys`)).body.items.find(
      (k: { name: string }) => k.name === 'shop backend',
    );
    expect(key.role).toBe('Editor');
    expect(key.scopes).toContain('checkout:create');
    expect(key.scopes).not.toContain('site:create');
    const days = (Date.parse(key.expiresAt) - Date.now()) / 86_400_000;
    expect(Math.round(days)).toBe(30);

    await admin.reload();
    await heading(admin, 'API keys');
    await admin.waitForSelector('[data-testid="api-keys"] tbody tr');
    expect(await innerText(admin, '[data-testid="api-keys"]')).toContain('shop backend');
    expect(await admin.$('[data-testid="api-key-secret"]')).toBeNull();
    expect(await admin.evaluate('document.body.innerHTML')).not.toContain(token.split('.')[1]);

    await admin.click('button[aria-label="Rotate shop backend"]');
    await admin.waitForSelector('[data-testid="api-key-secret"]');
    const rotated = await innerText(admin, '[data-testid="api-key-secret"]');
    expect(rotated).not.toBe(token);
    expect((await curl(token)).status).toBe(401);
    expect((await curl(rotated)).status).toBe(200);
    await admin.click('button[aria-label="Revoke shop backend"]');
    await admin.waitForFunction(`!document.querySelector('button[aria-label="Revoke shop backend"]')`);
    expect((await curl(rotated)).status).toBe(401);
  });

  it('the organization screen shows the licence; test data is a switch away and kept apart from live data', async () => {
    await admin.goto(`${dashboard}settings`);
    await heading(admin, 'Settings');
    await admin.waitForSelector('[data-testid="license"]');
    expect(await innerText(admin, '[data-testid="license"]')).toContain('Active');
    await checkScreen(admin, 'organization');
    await admin.select('#data-mode', 'test');
    await admin.waitForSelector('[data-testid="test-mode"]');
    await admin.goto(`${dashboard}settings/sites`);
    await heading(admin, 'Sites');
    await admin.waitForSelector('[data-testid="sites"], #sites p.muted');
    expect(await admin.$('[data-testid="sites"]')).toBeNull();
    await admin.type('#new-site-name', 'Test shop');
    await admin.type('#new-site-url', 'https://test.shop.example');
    await admin.click('#new-site button[type="submit"]');
    await admin.waitForFunction(`document.querySelector('[data-testid="sites"]')?.innerText.includes('Test shop')`);
    // Only the test site: the live ones are not test data.
    expect(await innerText(admin, '[data-testid="sites"] tbody')).not.toContain('Second shop');
    const live = (await adminApi('GET', '/sites?limit=100')).body.items.map((x: { name: string }) => x.name);
    expect(live).not.toContain('Test shop');
    await admin.goto(`${dashboard}settings`);
    await admin.waitForSelector('#data-mode');
    await admin.select('#data-mode', 'live');
    await admin.waitForFunction(`!document.querySelector('[data-testid="test-mode"]')`);
    await admin.goto(`${dashboard}settings/sites`);
    await admin.waitForFunction(`document.querySelector('[data-testid="sites"]')?.innerText.includes('Second shop')`);
    expect(await innerText(admin, '[data-testid="sites"] tbody')).not.toContain('Test shop');
  });

  it("an Admin decides a dispute on the payment page by the spec's rules: lost keeps it disputed and puts a hold on the buyer", async () => {
    const tx = (await adminApi('GET', `/transactions/${hostedId}`)).body;
    const sandbox = mesh.sandboxUrls['sandbox-provider-a']!;
    const sandboxCall = async (method: string, path: string, form?: Record<string, string>) => {
      const res = await fetch(`${sandbox}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${boot.providers!.provider_a!.secretKey}`,
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: form ? new URLSearchParams(form).toString() : undefined,
      });
      return (await res.json()) as any;
    };
    const intent = await sandboxCall('GET', `/v1/payment_intents/${tx.providerPaymentId}`);
    const dispute = await sandboxCall('POST', `/_sandbox/charges/${intent.latest_charge}/dispute`, {
      reason: 'fraudulent',
    });
    await eventually(async () => (await adminApi('GET', `/transactions/${hostedId}`)).body.status === 4, 20_000);
    await admin.goto(`${dashboard}payments/${hostedId}`);
    await admin.waitForSelector('#chargebacks form');
    expect(await innerText(admin, '#chargebacks')).toContain('Open');
    await checkScreen(admin, 'dispute');
    await admin.select(`[id="cb-${dispute.id}-status"]`, 'lost');
    await admin.type(`[id="cb-${dispute.id}-reason"]`, 'no evidence to submit');
    await admin.click('#chargebacks form button[type="submit"]');
    await admin.waitForFunction(`!document.querySelector('#chargebacks form')`, { timeout: 20_000 });
    expect(await innerText(admin, '#chargebacks')).toContain('Lost');
    const after = (await adminApi('GET', `/transactions/${hostedId}`)).body;
    expect(after.status).toBe(4);
    expect(after.chargebacks[0]).toMatchObject({
      id: dispute.id,
      status: 'lost',
      decidedBy: expect.stringMatching(/^user:/),
    });
    expect((await adminApi('GET', `/customer-holds?transactionId=${hostedId}`)).body.items).toHaveLength(1);
    await admin.goto(`${dashboard}holds`);
    await admin.waitForFunction(`document.querySelector('main')?.innerText.includes('hosted@example.com')`);
  });

  it("in German the screens have German labels, and amounts and dates follow the locale and the organization's time zone", async () => {
    const zone = 'America/New_York';
    const set = await adminApi('PUT', '/organizations/settings/invoicing', { timeZone: zone });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const tx = (await adminApi('GET', '/transactions?limit=100')).body.items.find(
      (x: { externalReference: string }) => x.externalReference === 'order-ipn',
    );
    await admin.goto(`${dashboard}settings`);
    await heading(admin, 'Settings');
    await admin.select('#language', 'de');
    await heading(admin, 'Einstellungen');
    expect(await inPage<string>(admin, 'document.documentElement.lang')).toBe('de');
    expect(await innerText(admin, 'nav.side')).toContain('Übersicht');
    await admin.goto(`${dashboard}payments/${tx.id}`);
    await heading(admin, 'Zahlung');
    await admin.waitForSelector('[data-testid="tx-created"]');
    expect(await innerText(admin, '[data-testid="tx-amount"]')).toBe(
      new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(49.9),
    );
    expect(await innerText(admin, '[data-testid="tx-created"]')).toBe(
      new Intl.DateTimeFormat('de-DE', { dateStyle: 'medium', timeStyle: 'medium', timeZone: zone }).format(
        new Date(tx.createdAt),
      ),
    );
    for (const [path, title, name] of [
      ['settings/sites', 'Websites', 'de-sites'],
      ['settings/domains', 'Eigene Domains', 'de-domains'],
      ['settings/providers', 'Zahlungsanbieter', 'de-providers'],
      ['settings/api-keys', 'API-Schlüssel', 'de-api-keys'],
    ] as const) {
      await admin.goto(`${dashboard}${path}`);
      await heading(admin, title);
      await noSeriousViolations(admin, name);
    }
    await admin.select('#language', 'en');
    await heading(admin, 'API keys');
  });

  it('the audit trail names the dashboard user for the key created and the signing secret rotated here, shows no secret, and the document check passes', async () => {
    await admin.goto(`${dashboard}audit`);
    await heading(admin, 'Audit trail');
    await admin.waitForFunction(
      `document.querySelector('table')?.textContent.includes('createOrganizationApiKey') && document.querySelector('table')?.textContent.includes('rotateSiteWebhookSecret')`,
      { timeout: 20_000 },
    );
    const trail = await innerText(admin, 'table');
    expect(trail).toContain(`user: ${boot.adminEmail}`);
    expect(trail).not.toMatch(/whsec_[A-Za-z0-9]/);
    expect(trail).not.toMatch(/sk_(live|test)_[0-9a-f]{24}\.[A-Za-z0-9_-]{10,}/);
    await admin.click('#integrity button');
    await admin.waitForSelector('[data-testid="integrity-result"]');
    expect(await innerText(admin, '[data-testid="integrity-result"]')).toMatch(/^Intact: /);
    await noSeriousViolations(admin, 'audit');
  });

  it('an Admin invites a Viewer, who signs in with the link and sees no write action', async () => {
    const { page: viewer, link } = await inviteMember(browser, admin, dashboard, {
      email: 'viewer@merchant.example',
      name: 'Vera Viewer',
      role: 'Viewer',
    });
    expect(link.startsWith(`${dashboard}enroll#`)).toBe(true);
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
    expect(await viewer.$('#inv-email')).toBeNull();
    expect(await innerText(viewer, '#members')).toContain('viewer@merchant.example');
    expect(await viewer.$('a[href="/app/settings/api-keys"]')).toBeNull();
    await browser.screenshot(viewer, 'viewer-settings');
    // None of the settings screens offers a write action: no form, no button in a table.
    const site = (await adminApi('GET', '/sites?limit=100')).body.items[0];
    for (const [path, ready] of [
      ['settings/sites', '[data-testid="sites"] tbody tr'],
      [`settings/sites/${site.id}`, '[data-testid="brand-preview"]'],
      ['settings/domains', '#domains'],
      ['settings/providers', '[data-testid="providers"] tbody tr'],
    ] as const) {
      await viewer.goto(`${dashboard}${path}`);
      await viewer.waitForSelector(ready);
      expect(
        await inPage<number>(
          viewer,
          `document.querySelectorAll('main form, main table button, main section button').length`,
        ),
        path,
      ).toBe(0);
    }
    await browser.screenshot(viewer, 'viewer-site');
    await viewer.goto(`${dashboard}settings/api-keys`);
    await viewer.waitForSelector('main');
    expect(await viewer.$('#key-name')).toBeNull();
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
