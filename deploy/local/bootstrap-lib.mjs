// First-run setup against a running mesh: organization, Admin user, site, full-scope API key
// (and a provider record for each sandbox that is running). Used by `pnpm bootstrap` and tests.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

async function call(method, url, token, body, extraHeaders = {}) {
  const res = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...extraHeaders,
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) throw new Error(`${method} ${url} -> ${res.status}: ${text}`);
  return json;
}

/**
 * Creates a provider_a record for the merchant when the provider_a sandbox runs. The secret key is a
 * fresh sandbox account in the merchant key's mode; without a webhook secret the platform registers
 * its webhook endpoint at the sandbox and returns the secret once.
 */
async function sandboxProviderA(adminBaseUrl, apiKey, mode) {
  const secretKey = `sk_${mode}_${randomBytes(12).toString('hex')}`;
  const provider = await call('POST', `${adminBaseUrl}/providers`, apiKey, {
    type: 'provider_a',
    name: 'Sandbox cards',
    credentials: { secretKey },
  });
  return { id: provider.id, webhookSecret: provider.webhookSecret, secretKey };
}

/**
 * Creates a provider_b record for the merchant when the provider_b sandbox runs: a fresh sandbox
 * account (`<mode>_…` API key). The webhook URL travels with each payment, so nothing is registered.
 */
async function sandboxProviderB(adminBaseUrl, apiKey, mode) {
  const key = `${mode}_${randomBytes(15).toString('hex')}`;
  const provider = await call('POST', `${adminBaseUrl}/providers`, apiKey, {
    type: 'provider_b',
    name: 'Sandbox redirect payments',
    credentials: { apiKey: key },
  });
  return { id: provider.id, apiKey: key };
}

/**
 * Creates a provider_c record for the merchant when the provider_c sandbox runs: a fresh sandbox
 * account (`<live|sandbox>_…` access token) and a webhook secret, then sets the record's webhook
 * URL and that secret as the account's endpoint (what a merchant does in the provider's dashboard).
 */
async function sandboxProviderC(adminBaseUrl, apiKey, mode, sandboxUrl) {
  const environment = mode === 'live' ? 'live' : 'sandbox';
  const accessToken = `${environment}_${randomBytes(15).toString('hex')}`;
  const webhookSecret = randomBytes(24).toString('hex');
  const provider = await call('POST', `${adminBaseUrl}/providers`, apiKey, {
    type: 'provider_c',
    name: 'Sandbox direct debit',
    credentials: { accessToken, webhookSecret, environment },
  });
  await call('PUT', `${sandboxUrl}/_sandbox/webhook_endpoint`, accessToken, {
    url: provider.webhookUrl,
    secret: webhookSecret,
  });
  return { id: provider.id, accessToken, webhookSecret };
}

/**
 * Creates a provider_d record for the merchant when the provider_d sandbox runs: a fresh sandbox app
 * (client id and secret). No webhook id is given, so the platform registers its webhook endpoint.
 */
async function sandboxProviderD(adminBaseUrl, apiKey, mode) {
  const clientId = `Ac${randomBytes(12).toString('hex')}`;
  const clientSecret = `EK${randomBytes(20).toString('hex')}`;
  const provider = await call('POST', `${adminBaseUrl}/providers`, apiKey, {
    type: 'provider_d',
    name: 'Sandbox wallet',
    credentials: { clientId, clientSecret, environment: mode === 'live' ? 'live' : 'sandbox' },
  });
  return { id: provider.id, clientId, clientSecret };
}

/**
 * The walk-through organization's settings (`pnpm bootstrap`): a German seller with OSS and VIES,
 * and checkouts invoiced automatically once paid. Tests that need such a merchant use the same.
 * The seller's VAT ID (BT-31), contact telephone (BT-42) and e-mail (BT-43) are what XRechnung needs
 * beside the address and IBAN, so its invoices pass the e-invoice validators in every format.
 */
export const WALKTHROUGH_TAX_PATCHES = [
  { homeCountry: 'DE' },
  { ossEnabled: true },
  { viesEnabled: true },
  { vatId: 'DE136695976' },
];
export const WALKTHROUGH_INVOICING = {
  enabled: true,
  autoGenerateInvoice: true,
  companyName: 'Demo Shop GmbH',
  companyAddress: { street: 'Hauptstraße 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
  companyEmail: 'billing@demo-shop.example',
  companyPhone: '+49 30 1234567',
  bankIBAN: { plaintext: 'DE89370400440532013000' },
  eInvoice: { enabled: true, allowedFormats: ['xrechnung', 'peppol', 'zugferd'], strictValidation: true },
};

/**
 * Applies the walk-through settings to an organization (tax, invoicing, buyer portal with magic
 * links); answers the buyer portal's address. A refusal throws.
 * @param {{adminBaseUrl: string, publicBaseUrl: string, apiKey: string, organizationId: string}} o
 */
export async function applyWalkthrough(o) {
  for (const patch of WALKTHROUGH_TAX_PATCHES)
    await call('PUT', `${o.adminBaseUrl}/organizations/settings/tax`, o.apiKey, patch);
  await call('PUT', `${o.adminBaseUrl}/organizations/settings/invoicing`, o.apiKey, WALKTHROUGH_INVOICING);
  await call('PUT', `${o.adminBaseUrl}/organizations/settings/portal`, o.apiKey, {
    enabled: true,
    magicLinksEnabled: true,
  });
  return { portalUrl: `${o.publicBaseUrl.replace(/\/api\/v1$/, '')}/portal/${o.organizationId}` };
}

/**
 * The dashboard's enrollment screen for a new member: e-mail and one-time token in the fragment
 * (never sent to a server, kept out of logs and Referer).
 * @param {string} dashboardUrl the dashboard's address, e.g. http://localhost:8080/app/
 */
export function enrollmentLink(dashboardUrl, email, token) {
  const base = dashboardUrl.endsWith('/') ? dashboardUrl : `${dashboardUrl}/`;
  return `${base}enroll#${new URLSearchParams({ email, token }).toString()}`;
}

/**
 * @param {{adminBaseUrl: string, dashboardUrl?: string, publicBaseUrl: string, systemApiKey: string, name?: string, email?: string, mode?: 'live'|'test', providerASandboxUrl?: string, providerBSandboxUrl?: string, providerCSandboxUrl?: string, providerDSandboxUrl?: string, extras?: (ctx) => Promise<object>}} o
 */
export async function bootstrap(o) {
  const suffix = randomBytes(3).toString('hex');
  const org = await call('POST', `${o.adminBaseUrl}/system/organizations`, o.systemApiKey, {
    name: o.name ?? `Demo Merchant ${suffix}`,
    admin: { email: o.email ?? `admin+${suffix}@merchant.example`, name: 'Merchant Admin' },
    apiKey: { name: 'bootstrap', mode: o.mode ?? 'live' },
  });
  const apiKey = org.apiKey.token;
  const site = await call('POST', `${o.adminBaseUrl}/sites`, apiKey, {
    name: 'Demo shop',
    url: 'https://shop.example',
    frontendDomains: ['shop.example'],
  });
  const out = {
    organizationId: org.organization.id,
    siteId: site.id,
    apiKey,
    webhookSigningSecret: site.webhookSigningSecret,
    adminBaseUrl: o.adminBaseUrl,
    publicBaseUrl: o.publicBaseUrl,
    adminEmail: org.admin.email,
    ...(org.admin.enrollmentToken ? { adminEnrollmentToken: org.admin.enrollmentToken } : {}),
  };
  if (o.dashboardUrl) {
    out.dashboardUrl = o.dashboardUrl;
    if (org.admin.enrollmentToken)
      out.enrollmentLink = enrollmentLink(o.dashboardUrl, org.admin.email, org.admin.enrollmentToken);
  }
  if (o.providerASandboxUrl) {
    out.providers = { ...out.providers, provider_a: await sandboxProviderA(o.adminBaseUrl, apiKey, o.mode ?? 'live') };
  }
  if (o.providerBSandboxUrl) {
    out.providers = { ...out.providers, provider_b: await sandboxProviderB(o.adminBaseUrl, apiKey, o.mode ?? 'live') };
  }
  if (o.providerCSandboxUrl) {
    out.providers = {
      ...out.providers,
      provider_c: await sandboxProviderC(o.adminBaseUrl, apiKey, o.mode ?? 'live', o.providerCSandboxUrl),
    };
  }
  if (o.providerDSandboxUrl) {
    out.providers = { ...out.providers, provider_d: await sandboxProviderD(o.adminBaseUrl, apiKey, o.mode ?? 'live') };
  }
  if (o.extras) Object.assign(out, await o.extras({ ...out, call }));
  return out;
}

/**
 * What a newcomer can check VAT IDs with on the running VIES sandbox: its URLs, the registered
 * numbers (valid through the Main Backend's /vat/validate) and the official test numbers.
 */
export async function viesSandboxInfo(url) {
  const { TEST_NUMBERS, REST_BASE_PATH } = createRequire(import.meta.url)('../../sandboxes/vies/dist/main.js');
  const res = await fetch(`${url}/_sandbox/vat-numbers`, { signal: AbortSignal.timeout(1500) });
  if (!res.ok) throw new Error(`VIES sandbox ${url}: ${res.status}`);
  const registered = (await res.json()).data;
  return {
    sandboxUrl: url,
    restApi: `${url}${REST_BASE_PATH}`,
    registered: registered.map((c) => ({ vatId: `${c.countryCode}${c.vatNumber}`, name: c.name })),
    testNumbers: Object.fromEntries(
      Object.entries(TEST_NUMBERS).map(([n, o]) => [n, 'fault' in o ? o.fault : o.valid ? 'valid' : 'invalid']),
    ),
    note:
      'Registered numbers are valid through POST /api/v1/vat/validate; other well-formed numbers are invalid. ' +
      'Test numbers go to the sandbox directly: POST <restApi>/check-vat-number {"countryCode":"DE","vatNumber":"301"}. ' +
      'Controls: POST /_sandbox/outage {"mode":"down"|"slow"|"up"}, POST /_sandbox/vat-numbers, GET /_sandbox/requests, POST /_sandbox/reset.',
  };
}

/**
 * Where the e-mail the mesh sends can be read: the mail catcher's web view, its JSON API and the
 * SMTP port the services send to.
 */
export function mailSandboxInfo(url, smtpPort) {
  return {
    webUrl: `${url}/`,
    messagesApi: `${url}/_sandbox/messages`,
    ...(smtpPort ? { smtp: `127.0.0.1:${smtpPort}` } : {}),
    hint: 'Invoice and credit-note e-mail (POST /invoices/{id}/send-email) lands here. Controls: POST /_sandbox/reset, POST /_sandbox/refuse {"count":1} (next message refused with 451, to watch a retry).',
  };
}
