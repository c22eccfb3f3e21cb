import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyIpn } from '../../libs/contracts/src/ipn-signature';
import { ROOT } from '../../deploy/local/supervisor.mjs';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import { inPage, innerText, isShown, launchBrowser, seriousA11yViolations, type TestBrowser } from '../support/browser';
import { IpnReceiver } from '../support/ipn-receiver';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';

const MESSAGES_DIR = join(ROOT, 'services', 'gateway-public', 'web', 'messages');
const en = JSON.parse(readFileSync(join(MESSAGES_DIR, 'en.json'), 'utf8')) as Record<string, string>;
const de = JSON.parse(readFileSync(join(MESSAGES_DIR, 'de.json'), 'utf8')) as Record<string, string>;
/** The VIES sandbox's register (sandboxes/vies/README.md). */
const FR_VALID = 'FR47759777570';

const eur = (minor: number, locale = 'en') =>
  new Intl.NumberFormat(locale, { style: 'currency', currency: 'EUR' }).format(minor / 100);

/**
 * The hosted checkout page in Chromium against the whole mesh: gateway-public serves the page at
 * the checkout's paymentUrl, the buyer fills it, pays in the provider_a sandbox's pay page, comes
 * back, and lands on the merchant's returnUrl; the merchant's receiver gets the IPN. Screenshots
 * of each step go to .run/artifacts/hosted-checkout/.
 */
describe('hosted checkout page (Chromium)', () => {
  let mesh: TestMesh;
  let boot: BootstrapResult;
  let browser: TestBrowser;
  let admin: string;
  let pub: string;
  let shop: string;
  const merchant = new IpnReceiver();
  let n = 0;
  /** Page errors (CSP violations, script errors) per page, checked after each scenario. */
  const pageErrors = new Map<Page, string[]>();

  const adminCall = (method: string, path: string, body?: unknown) =>
    api(method, `${admin}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });

  async function createCheckout(
    extra: Record<string, unknown> = {},
  ): Promise<{ id: string; sessionPublicId: string; paymentUrl: string }> {
    const res = await adminCall('POST', `/checkouts/${boot.siteId}/create`, {
      amount: 11900,
      currency: 'EUR',
      externalReference: `hosted-${++n}`,
      items: [{ name: 'Pro plan', quantity: 1, unitPrice: 11900, itemType: 'digital_service' }],
      returnUrl: `${shop}/shop/thanks/{transactionId}`,
      cancelUrl: `${shop}/shop/cancelled/{transactionId}`,
      ...extra,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  }

  async function open(
    url: string,
    opts: { width?: number; height?: number; acceptLanguage?: string } = {},
  ): Promise<Page> {
    const page = await browser.page(opts);
    const errors: string[] = [];
    pageErrors.set(page, errors);
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !/Failed to load resource/.test(msg.text())) errors.push(msg.text());
    });
    page.on('pageerror', (err) => errors.push(String(err)));
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    return page;
  }

  const textOf = innerText;
  const visible = isShown;
  const waitText = (page: Page, selector: string, want: (text: string) => boolean, timeoutMs = 15_000) =>
    eventually(async () => {
      const got = await innerText(page, selector).catch(() => '');
      return want(got) ? got : undefined;
    }, timeoutMs);

  async function expectAccessible(page: Page): Promise<void> {
    expect(await seriousA11yViolations(page)).toEqual([]);
  }

  const preview = async (sessionPublicId: string, billingAddress: Record<string, string>) => {
    const res = await api('POST', `${pub}/checkouts/${sessionPublicId}/tax-preview`, { body: { billingAddress } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { totalTax: number; totalGross: number; totalNet: number };
  };

  async function fillAddress(
    page: Page,
    a: { name: string; email: string; country: string; postalCode?: string; vatId?: string },
  ): Promise<void> {
    await page.waitForSelector('#pay-form:not([hidden])');
    await page.type('#name', a.name);
    await page.type('#email', a.email);
    await page.type('#line1', 'Hauptstr. 1');
    if (a.postalCode) await page.type('#postalCode', a.postalCode);
    await page.type('#city', 'Berlin');
    await page.select('#country', a.country);
    if (a.vatId) await page.type('#vatId', a.vatId);
  }

  beforeAll(async () => {
    shop = await merchant.start();
    mesh = await startTestMesh();
    admin = mesh.adminBaseUrl;
    pub = mesh.publicBaseUrl;
    boot = await mesh.bootstrap();
    for (const patch of [{ homeCountry: 'DE' }, { ossEnabled: true }, { viesEnabled: true }]) {
      const res = await adminCall('PUT', '/organizations/settings/tax', patch);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const site = await adminCall('PUT', `/sites/${boot.siteId}`, { checkoutSettings: { vatIdValidation: 'vies' } });
    expect(site.status, JSON.stringify(site.body)).toBe(200);
    browser = await launchBrowser('hosted-checkout');
  });

  afterAll(async () => {
    await browser?.close();
    await mesh?.dispose();
    await merchant.stop();
  });

  it('is served by gateway-public at the paymentUrl with a strict CSP, security headers and immutable hashed assets', async () => {
    const { paymentUrl, sessionPublicId } = await createCheckout();
    expect(paymentUrl).toBe(`${mesh.publicRootUrl}/c/${sessionPublicId}`);
    const res = await fetch(paymentUrl, { headers: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const html = await res.text();
    expect(html).toContain('<html lang="de">');
    expect(html).not.toMatch(/<script(?![^>]*(type="module" src=|type="application\/json"))/);
    expect(html).not.toMatch(/\sstyle=/);
    const script = /src="\.\.\/assets\/(checkout-[A-Z0-9]+\.js)"/.exec(html)?.[1];
    expect(script).toBeTruthy();
    const asset = await fetch(`${mesh.publicRootUrl}/assets/${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect(asset.headers.get('content-encoding')).toBe('gzip');
    expect((await fetch(`${paymentUrl}?lang=en`)).status).toBe(200);
    expect(await (await fetch(`${paymentUrl}?lang=en`)).text()).toContain('<html lang="en">');
  });

  it('a buyer pays by card: the VAT line follows the country, the sandbox takes the payment, the buyer lands on the returnUrl and the merchant gets the IPN', async () => {
    const { paymentUrl, sessionPublicId } = await createCheckout({ ipnUrl: `${shop}/ipn/card` });
    const page = await open(paymentUrl);
    await page.waitForSelector('#pay-form:not([hidden])');
    expect(await textOf(page, '#items')).toContain('Pro plan');
    expect(await textOf(page, '#total')).toBe(eur(11900));
    await browser.screenshot(page, 'card-1-opened');
    await expectAccessible(page);

    // Keyboard order: the form from top to bottom, one stop for the provider group, then Pay.
    await page.waitForFunction("document.activeElement && document.activeElement.id === 'name'");
    const order: string[] = [];
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      order.push(
        await inPage<string>(
          page,
          "(() => { const a = document.activeElement; return a && a.name === 'provider' ? 'provider:' + a.value : (a ? a.id : ''); })()",
        ),
      );
    }
    const offered = (await api('GET', `${pub}/checkouts/${sessionPublicId}`)).body.providers as string[];
    expect(offered).toEqual(expect.arrayContaining(['provider_a', 'provider_b', 'provider_c', 'provider_d']));
    // The first offered method is preselected: the group's one tab stop.
    expect(order).toEqual([
      'email',
      'line1',
      'postalCode',
      'city',
      'country',
      'vatId',
      `provider:${offered[0]}`,
      'pay-button',
    ]);

    await fillAddress(page, { name: 'Erika Buyer', email: 'erika@example.com', country: 'DE', postalCode: '10115' });
    const inDE = await preview(sessionPublicId, { country: 'DE', postcode: '10115' });
    const inNL = await preview(sessionPublicId, { country: 'NL', postcode: '10115' });
    expect(inNL.totalTax).not.toBe(inDE.totalTax);
    await waitText(page, '#tax', (t) => t === eur(inDE.totalTax));
    expect(await textOf(page, '#tax-label')).toContain('19');
    await browser.screenshot(page, 'card-2-germany');
    await page.select('#country', 'NL');
    await waitText(page, '#tax', (t) => t === eur(inNL.totalTax));
    expect(await textOf(page, '#tax-label')).toContain('21');
    expect(await textOf(page, '#total')).toBe(eur(inNL.totalGross));
    expect(await textOf(page, '#pay-button')).toBe(en.pay!.replace('{amount}', eur(inNL.totalGross)));
    await browser.screenshot(page, 'card-3-netherlands');

    await page.click('input[name="provider"][value="provider_a"]');
    await page.focus('#pay-button');
    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.keyboard.press('Enter')]);
    expect(page.url()).toMatch(new RegExp(`^${mesh.sandboxUrls['sandbox-provider-a']}/pay/pi_`));
    expect(await inPage<number>(page, "Number(document.querySelector('.amount').dataset.amount)")).toBe(
      inNL.totalGross,
    );
    await browser.screenshot(page, 'card-4-provider-page');

    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('button.pay')]);
    expect(page.url()).toMatch(new RegExp(`^${paymentUrl}\\?transactionId=[0-9a-f]{24}$`));
    await browser.screenshot(page, 'card-5-returned');
    const landed = await eventually(
      () => (page.url().startsWith(`${shop}/shop/thanks/`) ? page.url() : undefined),
      30_000,
    );
    const transactionId = landed.slice(`${shop}/shop/thanks/`.length);
    expect(transactionId).toMatch(/^[0-9a-f]{24}$/);
    await browser.screenshot(page, 'card-6-merchant-return');

    const status = await api('GET', `${pub}/transactions/${transactionId}/status`);
    expect(status.body).toMatchObject({ status: 1, amount: inNL.totalGross, currency: 'EUR', returnUrl: landed });
    const ipns = await eventually(
      () => (merchant.at('/ipn/card').length ? merchant.at('/ipn/card') : undefined),
      20_000,
    );
    expect(JSON.parse(ipns[0]!.rawBody.toString())).toEqual({
      id: transactionId,
      externalReference: `hosted-${n}`,
      status: 1,
    });
    expect(verifyIpn(boot.webhookSigningSecret, ipns[0]!.headers, ipns[0]!.rawBody, 300).valid).toBe(true);
    expect(pageErrors.get(page)).toEqual([]);
  });

  it('a declined card shows the failure with another attempt; the second attempt pays and lands on the returnUrl', async () => {
    const { paymentUrl } = await createCheckout({ ipnUrl: `${shop}/ipn/retry` });
    const page = await open(paymentUrl);
    await fillAddress(page, { name: 'Retry Buyer', email: 'retry@example.com', country: 'DE' });
    await page.click('input[name="provider"][value="provider_a"]');
    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#pay-button')]);
    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('button.decline')]);
    await waitText(page, '#result-title', (t) => t === en['result.failed'], 30_000);
    const firstId = new URL(page.url()).searchParams.get('transactionId')!;
    const first = (await api('GET', `${pub}/transactions/${firstId}/status`)).body;
    expect(first.status).toBe(2);
    // What the attempt charged, not the session's preview.
    expect(await textOf(page, '#total')).toBe(eur(first.amount));
    expect(await visible(page, '#tax')).toBe(false);
    // The way out goes to the cancelUrl; the buyer tries again instead.
    expect(await inPage<string>(page, "document.querySelector('#result-actions a').href")).toBe(
      `${shop}/shop/cancelled/${firstId}`,
    );
    await browser.screenshot(page, 'declined');
    await expectAccessible(page);
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'domcontentloaded' }),
      page.click('#result-actions button'),
    ]);
    expect(page.url()).toBe(paymentUrl);
    await fillAddress(page, { name: 'Retry Buyer', email: 'retry@example.com', country: 'DE' });
    await page.click('input[name="provider"][value="provider_a"]');
    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#pay-button')]);
    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('button.pay')]);
    const landed = await eventually(
      () => (page.url().startsWith(`${shop}/shop/thanks/`) ? page.url() : undefined),
      30_000,
    );
    const secondId = landed.slice(`${shop}/shop/thanks/`.length);
    expect(secondId).not.toBe(firstId);
    expect((await api('GET', `${pub}/transactions/${secondId}/status`)).body.status).toBe(1);
    await eventually(
      () => merchant.at('/ipn/retry').some((r) => JSON.parse(r.rawBody.toString()).status === 1),
      20_000,
    );
    expect(merchant.at('/ipn/retry').map((r) => JSON.parse(r.rawBody.toString()))).toEqual(
      expect.arrayContaining([
        { id: firstId, externalReference: `hosted-${n}`, status: 2 },
        { id: secondId, externalReference: `hosted-${n}`, status: 1 },
      ]),
    );
    expect(pageErrors.get(page)).toEqual([]);
  });

  it('back from the provider with the back button, the buyer picks another method: the first payment is canceled, the second starts', async () => {
    const { paymentUrl, id: checkoutId } = await createCheckout();
    const page = await open(paymentUrl);
    await fillAddress(page, { name: 'Switch Buyer', email: 'switch@example.com', country: 'DE' });
    await page.click('input[name="provider"][value="provider_a"]');
    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#pay-button')]);
    expect(page.url()).toMatch(/\/pay\/pi_/);
    await page.goBack({ waitUntil: 'domcontentloaded' });
    expect(page.url()).toBe(paymentUrl);
    await page.waitForSelector('#pay-form:not([hidden])');
    // The address is still there (restored page) or entered again (reloaded page).
    if ((await inPage<string>(page, "document.querySelector('#email').value")) === '') {
      await fillAddress(page, { name: 'Switch Buyer', email: 'switch@example.com', country: 'DE' });
    }
    await page.waitForFunction("!document.querySelector('#pay-button').disabled");
    await page.click('input[name="provider"][value="provider_b"]');
    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#pay-button')]);
    expect(page.url().startsWith(mesh.sandboxUrls['sandbox-provider-b']!)).toBe(true);
    const txs = (await adminCall('GET', `/checkouts/${checkoutId}`)).body.transactions as {
      id: string;
      status: number;
    }[];
    expect(txs.map((t) => t.status).sort()).toEqual([-2, 0]);
    const open0 = txs.find((t) => t.status === 0)!;
    expect((await adminCall('GET', `/transactions/${open0.id}`)).body.providerType).toBe('provider_b');
    expect(pageErrors.get(page)).toEqual([]);
  });

  it('direct debit: the billing request flow sets up the mandate, the page marks the transaction pending and returns the buyer', async () => {
    const { paymentUrl } = await createCheckout();
    const page = await open(paymentUrl);
    await fillAddress(page, { name: 'Debit Buyer', email: 'debit@example.com', country: 'DE' });
    await page.click('input[name="provider"][value="provider_c"]');
    const created = page.waitForResponse((r) => r.url().endsWith('/billing-requests/create'));
    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#pay-button')]);
    expect((await created).status()).toBe(200);
    expect(page.url()).toMatch(new RegExp(`^${mesh.sandboxUrls['sandbox-provider-c']}/flow/BRF`));
    await browser.screenshot(page, 'direct-debit-mandate');
    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('button[type="submit"]')]);
    const landed = await eventually(
      () => (page.url().startsWith(`${shop}/shop/thanks/`) ? page.url() : undefined),
      30_000,
    );
    const transactionId = landed.slice(`${shop}/shop/thanks/`.length);
    const record = (await adminCall('GET', `/transactions/${transactionId}`)).body;
    expect(record).toMatchObject({ status: 0, subState: 'pending_provider', providerType: 'provider_c' });
    expect(pageErrors.get(page)).toEqual([]);
  });

  it('a business buyer with a VIES-valid VAT ID sees 0 VAT and the reverse-charge note (360 px wide)', async () => {
    const { paymentUrl, sessionPublicId } = await createCheckout();
    const page = await open(paymentUrl, { width: 360, height: 740 });
    await fillAddress(page, {
      name: 'Société Exemple',
      email: 'compta@example.fr',
      country: 'FR',
      postalCode: '75001',
    });
    const consumer = await preview(sessionPublicId, { country: 'FR', postcode: '75001' });
    expect(consumer.totalTax).toBeGreaterThan(0);
    await waitText(page, '#tax', (t) => t === eur(consumer.totalTax));
    expect(await textOf(page, '#tax-note')).not.toBe(en.reverseCharge);

    await page.type('#vatId', FR_VALID);
    await waitText(
      page,
      '#vat-status',
      (t) => t.startsWith(en.vatValidNoName!.replace('.', '')) || t.startsWith(en.vatValid!.split('{')[0]!),
    );
    await waitText(page, '#tax', (t) => t === eur(0));
    expect(await textOf(page, '#tax-note')).toBe(en.reverseCharge);
    expect(await visible(page, '#tax-note')).toBe(true);
    expect(await textOf(page, '#total')).toBe(eur(11900));
    // Nothing wider than the phone's screen.
    expect(await inPage<number>(page, 'document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await browser.screenshot(page, 'reverse-charge-360px');
    await expectAccessible(page);
    expect(pageErrors.get(page)).toEqual([]);
  });

  it('a buyer with an open dispute sees the block message with the requestId of the 409', async () => {
    const email = 'disputed@example.com';
    const provider = boot.providers!.provider_a!;
    const sandbox = mesh.sandboxUrls['sandbox-provider-a']!;
    const sandboxCall = async (path: string, form: Record<string, string>) => {
      const res = await fetch(`${sandbox}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${provider.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
      return (await res.json()) as Record<string, any>;
    };
    // An earlier payment of this buyer, disputed at the provider.
    const earlier = await createCheckout({ email });
    const tx = await api('POST', `${pub}/transactions/create`, {
      body: {
        sessionPublicId: earlier.sessionPublicId,
        providerId: provider.id,
        billingAddress: { name: 'D Buyer', email, line1: 'x', city: 'Berlin', postalCode: '10115', country: 'DE' },
      },
    });
    expect(tx.status, JSON.stringify(tx.body)).toBe(200);
    const pi = (await adminCall('GET', `/transactions/${tx.body.transactionId}`)).body.providerPaymentId as string;
    const paid = await sandboxCall(`/v1/payment_intents/${pi}/confirm`, { payment_method: 'pm_card_visa' });
    await eventually(
      async () => (await api('GET', `${pub}/transactions/${tx.body.transactionId}/status`)).body.status === 1,
      20_000,
    );
    await sandboxCall(`/_sandbox/charges/${paid.latest_charge as string}/dispute`, { reason: 'fraudulent' });
    await eventually(
      async () => (await api('GET', `${pub}/transactions/${tx.body.transactionId}/status`)).body.status === 4,
      20_000,
    );

    // A new checkout that does not name the buyer: the buyer types the e-mail on the page.
    const { paymentUrl } = await createCheckout();
    const page = await open(paymentUrl);
    await fillAddress(page, { name: 'D Buyer', email, country: 'DE' });
    const refused = page.waitForResponse((r) => r.url().includes('/handoff') && r.request().method() === 'POST');
    await page.click('#pay-button');
    const answer = await refused;
    expect(answer.status()).toBe(409);
    const body = (await answer.json()) as { code: string; requestId: string };
    expect(body.code).toBe('CHECKOUT_BLOCKED_BY_DISPUTE');
    expect(body.requestId).toBe(answer.headers()['x-request-id']);
    await waitText(page, '#notice-text', (t) => t === en.blocked);
    expect(await textOf(page, '#notice-ref')).toBe(en.reference!.replace('{requestId}', body.requestId));
    expect(await visible(page, '#pay-form')).toBe(false);
    expect(page.url()).toBe(paymentUrl);
    await browser.screenshot(page, 'blocked-buyer');
    await expectAccessible(page);
  });

  it('an expired checkout says so, in German for a German browser', async () => {
    const { paymentUrl, sessionPublicId } = await createCheckout({
      expiresAt: new Date(Date.now() + 1500).toISOString(),
    });
    await eventually(
      async () => (await api('GET', `${pub}/checkouts/${sessionPublicId}`)).body.status === 'expired',
      10_000,
    );
    const page = await open(paymentUrl, { acceptLanguage: 'de-DE,de;q=0.9' });
    await waitText(page, '#notice-text', (t) => t === de.expired);
    expect(await inPage<string>(page, 'document.documentElement.lang')).toBe('de');
    expect(await visible(page, '#pay-form')).toBe(false);
    // Amounts in the German format.
    expect(await textOf(page, '#total')).toBe(eur(11900, 'de'));
    await browser.screenshot(page, 'expired-de');
    await expectAccessible(page);
    expect(pageErrors.get(page)).toEqual([]);
  });
});
