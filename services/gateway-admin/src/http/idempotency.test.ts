import { describe, expect, it } from 'vitest';
import type { Scope } from '../domain/scopes';
import type { Principal } from '../domain/principal';
import { errorStatuses } from './responses/envelope';
import {
  adminKeyPath,
  adminKeyScope,
  isKeyedRow,
  keyedOperations,
  UNKEYED_POSTS,
  withIdempotencyAnswers,
} from './idempotency';
import { allRoutes } from './routes';

const routes = allRoutes({ DEFAULT_LICENSE_STATE: 'ACTIVE' });
const scopes = new Set<Scope>();

describe('which Admin rows take Idempotency-Key', () => {
  it('every POST row that creates or changes something; the exceptions name existing POST rows', () => {
    const posts = routes.filter((r) => r.method === 'POST');
    for (const id of Object.keys(UNKEYED_POSTS))
      expect(
        posts.map((r) => r.operationId),
        id,
      ).toContain(id);
    const keyed = posts.filter(isKeyedRow).map((r) => r.operationId);
    expect(keyed.length + Object.keys(UNKEYED_POSTS).length).toBe(posts.length);
    expect(keyed).toEqual(
      expect.arrayContaining([
        'createCheckout',
        'createSite',
        'createManualTransaction',
        'createInvoice',
        'issueInvoice',
        'createInvoicePaymentCheckout',
        'importData',
        'createOrganization',
      ]),
    );
    expect(routes.filter((r) => r.method !== 'POST').some(isKeyedRow)).toBe(false);
    expect(keyedOperations(routes)).toEqual(new Set(keyed));
  });

  it('no keyed row answers a file (a stream cannot be kept)', () => {
    expect(routes.filter((r) => isKeyedRow(r) && r.file).map((r) => r.operationId)).toEqual([]);
  });

  it('a keyed row documents 409 (key reused or in progress); other rows stay as they are', () => {
    const site = withIdempotencyAnswers(routes.find((r) => r.operationId === 'createSite')!);
    expect(errorStatuses(site)).toContain(409);
    const preview = routes.find((r) => r.operationId === 'previewInvoiceTax')!;
    expect(withIdempotencyAnswers(preview)).toBe(preview);
    const checkout = routes.find((r) => r.operationId === 'createCheckout')!;
    expect(withIdempotencyAnswers(checkout).errors?.filter((s) => s === 409)).toHaveLength(1);
  });
});

describe('whose key it is', () => {
  const orgKey = (keyId: string): Principal => ({
    kind: 'organization_key',
    keyId,
    organizationId: 'o1',
    mode: 'live',
    role: 'Admin',
    scopes,
  });
  const org = { organizationId: 'o1', mode: 'live' as const };

  it('the API key or dashboard user, the organization and the mode', () => {
    const a = adminKeyScope({ principal: orgKey('k1'), orgScope: org });
    expect(a).toBe('key:k1|org:o1|live');
    expect(adminKeyScope({ principal: orgKey('k2'), orgScope: org })).not.toBe(a);
    expect(adminKeyScope({ principal: orgKey('k1'), orgScope: { ...org, mode: 'test' } })).not.toBe(a);
    const system: Principal = { kind: 'system_key', keyId: 'sys', mode: 'live', role: 'Admin', scopes };
    expect(adminKeyScope({ principal: system, orgScope: org })).not.toBe(
      adminKeyScope({ principal: system, orgScope: { ...org, organizationId: 'o2' } }),
    );
    expect(adminKeyScope({ principal: system, orgScope: undefined })).toBe('key:sys|system|live');
    const user: Principal = {
      kind: 'user',
      userId: 'u1',
      sessionId: 's1',
      organizationId: 'o1',
      mode: 'live',
      role: 'Editor',
      scopes,
    };
    expect(adminKeyScope({ principal: user, orgScope: org })).toBe('user:u1|org:o1|live');
  });

  it('is asked only after authentication', () => {
    expect(() => adminKeyScope({ principal: undefined, orgScope: undefined })).toThrow(/authentication/);
  });

  it('the /v1 alias names the same route as /api/v1', () => {
    expect(adminKeyPath({ url: '/v1/checkouts/abc/create?x=1' })).toBe('/api/v1/checkouts/abc/create');
    expect(adminKeyPath({ url: '/api/v1/sites' })).toBe('/api/v1/sites');
  });
});
