// First-run setup against a running mesh: organization, Admin user, site, full-scope API key
// (and a provider record for each sandbox that is running). Used by `pnpm bootstrap` and tests.
import { randomBytes } from 'node:crypto';

async function call(method, url, token, body, extraHeaders = {}) {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}), ...extraHeaders },
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
 * @param {{adminBaseUrl: string, publicBaseUrl: string, systemApiKey: string, name?: string, email?: string, mode?: 'live'|'test', extras?: (ctx) => Promise<object>}} o
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
  };
  if (o.extras) Object.assign(out, await o.extras({ ...out, call }));
  return out;
}
