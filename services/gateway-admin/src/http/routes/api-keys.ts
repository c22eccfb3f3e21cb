import { z } from 'zod';
import { name, timestamp } from '@paymesh/http';
import { issueApiKey } from '../../app/api-keys';
import { deleteApiKey } from '../../app/delete-api-key';
import { listApiKeys, ownedApiKey, type KeyOwner } from '../../app/owned-api-key';
import { revokeApiKey } from '../../app/revoke-api-key';
import { rotateApiKey } from '../../app/rotate-api-key';
import { updateApiKey } from '../../app/update-api-key';
import type { Grantor } from '../../domain/grants';
import type { Principal } from '../../domain/principal';
import { ALL_SCOPES, nonEmpty, ROLES } from '../../domain/scopes';
import type { ApiKeyDoc } from '../../store/collections';
import { apiKey, apiKeyPage, apiKeyWithToken } from '../responses/api-keys';
import { type AnyRoute, type OrgScope, resource } from '../route-table';
import { objectId, pageOf, pageQuery } from './common';

const scope = z.enum(nonEmpty(ALL_SCOPES), {
  errorMap: (issue, ctx) => ({
    message: issue.code === 'invalid_enum_value' ? `unknown scope ${JSON.stringify(ctx.data)}` : ctx.defaultError,
  }),
});
const scopes = z.array(scope).min(1, 'must name at least one scope').max(ALL_SCOPES.length);
const role = z.enum(ROLES);

const createBody = z
  .object({
    name: name(200),
    /** Defaults to the caller's mode; a test-mode caller may only create test keys. */
    mode: z.enum(['live', 'test']).optional(),
    scopes,
    /** Defaults to the caller's role; never above it. */
    role: role.optional(),
    expiresAt: timestamp.optional(),
  })
  .strict();

const updateBody = z
  .object({ name: name(200).optional(), scopes: scopes.optional(), role: role.optional() })
  .strict()
  .refine((b) => b.name !== undefined || b.scopes !== undefined || b.role !== undefined, {
    message: 'give at least one of name, scopes, role',
  });

/** The API shape of a key: never the secret or its hash. */
export function apiKeyView(k: ApiKeyDoc) {
  return {
    id: k.id,
    keyId: k.keyId,
    kind: k.kind,
    organizationId: k.organizationId,
    name: k.name,
    mode: k.mode,
    role: k.role,
    scopes: k.scopes,
    status: k.status,
    /** The non-secret head of the token, to recognise a key. */
    prefix: `sk_${k.mode}_${k.keyId}`,
    createdAt: k.createdAt,
    updatedAt: k.updatedAt,
    lastUsedAt: k.lastUsedAt,
    revokedAt: k.revokedAt,
    expiresAt: k.expiresAt,
  };
}

const grantorOf = (p: Principal): Grantor => ({ role: p.role, scopes: p.scopes, mode: p.mode });

interface Family {
  base: string;
  tag: string;
  /** Operation name of the family, in operationIds (`listOrganizationApiKeys`, `rotateSystemApiKey`). */
  opName: string;
  audience: 'organization' | 'system';
  kind: 'organization' | 'system';
  params: z.ZodTypeAny;
  idParams: z.ZodTypeAny;
  owner(org: OrgScope): KeyOwner;
}

/** The seven key operations for one family (organization keys or system keys). */
function keyRoutes(f: Family): AnyRoute[] {
  const what = f.kind === 'system' ? 'system API key' : 'organization API key';
  // Every key operation needs the Admin role, reads included (a key list is a map of the account's access).
  const keys = resource({ tag: f.tag, scopePrefix: 'api_key', audience: f.audience, writeRole: 'Admin' });
  return [
    keys({
      method: 'GET',
      role: 'Admin',
      path: f.base,
      operationId: `list${f.opName}s`,
      response: apiKeyPage,
      summary: `List ${what}s (paged; secrets are never returned)`,
      params: f.params,
      query: pageQuery(20),
      async handler({ deps, org, query }) {
        const res = await listApiKeys(deps, f.owner(org), query.page, query.limit);
        return pageOf(res, apiKeyView);
      },
    }),
    keys({
      method: 'GET',
      role: 'Admin',
      path: `${f.base}/:id`,
      operationId: `get${f.opName}`,
      response: apiKey,
      summary: `Get a ${what}`,
      params: f.idParams,
      async handler({ deps, org, params }) {
        return apiKeyView(await ownedApiKey(deps, f.owner(org), params.id));
      },
    }),
    keys({
      method: 'POST',
      path: f.base,
      operationId: `create${f.opName}`,
      response: apiKeyWithToken,
      summary: `Create a ${what}; the full token (sk_<mode>_<keyId>.<secret>) is in this response only`,
      params: f.params,
      body: createBody,
      async handler({ deps, org, principal, body }) {
        const owner = f.owner(org);
        const created = await issueApiKey(deps, grantorOf(principal), {
          kind: f.kind,
          organizationId: owner.kind === 'organization' ? owner.organizationId : null,
          name: body.name,
          mode: body.mode ?? principal.mode,
          scopes: body.scopes,
          role: body.role,
          expiresAt: body.expiresAt ? new Date(body.expiresAt).toISOString() : null,
        });
        return { ...apiKeyView(created.key), token: created.token };
      },
    }),
    keys({
      method: 'PUT',
      path: `${f.base}/:id`,
      operationId: `update${f.opName}`,
      response: apiKey,
      errors: [409],
      summary: `Rename a ${what} or change its scopes and role`,
      params: f.idParams,
      body: updateBody,
      async handler({ deps, org, principal, params, body }) {
        return apiKeyView(await updateApiKey(deps, grantorOf(principal), f.owner(org), params.id, body));
      },
    }),
    keys({
      method: 'DELETE',
      path: `${f.base}/:id`,
      operationId: `delete${f.opName}`,
      response: null,
      errors: [409],
      summary: `Delete a ${what}`,
      params: f.idParams,
      async handler({ deps, org, params, principal }) {
        await deleteApiKey(deps, grantorOf(principal), f.owner(org), params.id);
      },
    }),
    keys({
      method: 'POST',
      action: 'execute',
      path: `${f.base}/:id/revoke`,
      operationId: `revoke${f.opName}`,
      response: apiKey,
      errors: [409],
      summary: `Revoke a ${what} (idempotent; it answers 401 from then on)`,
      params: f.idParams,
      async handler({ deps, org, params, principal }) {
        return apiKeyView(await revokeApiKey(deps, grantorOf(principal), f.owner(org), params.id));
      },
    }),
    keys({
      method: 'POST',
      action: 'execute',
      path: `${f.base}/:id/rotate`,
      operationId: `rotate${f.opName}`,
      response: apiKeyWithToken,
      errors: [409],
      summary: `Rotate a ${what}: new secret, same key ID; the old secret stops working at once; the new token is in this response only`,
      params: f.idParams,
      async handler({ deps, org, principal, params }) {
        const rotated = await rotateApiKey(deps, grantorOf(principal), f.owner(org), params.id);
        return { ...apiKeyView(rotated.key), token: rotated.token };
      },
    }),
  ];
}

export const organizationApiKeyRoutes = keyRoutes({
  base: '/organizations/:orgId/api-keys',
  tag: 'API keys',
  opName: 'OrganizationApiKey',
  audience: 'organization',
  kind: 'organization',
  params: z.object({ orgId: objectId('orgId') }),
  idParams: z.object({ orgId: objectId('orgId'), id: objectId('id') }),
  owner: (org) => ({ kind: 'organization', organizationId: org.organizationId }),
});

export const systemApiKeyRoutes = keyRoutes({
  base: '/system/api-keys',
  tag: 'System',
  opName: 'SystemApiKey',
  audience: 'system',
  kind: 'system',
  params: z.object({}),
  idParams: z.object({ id: objectId('id') }),
  owner: () => ({ kind: 'system' }),
});
