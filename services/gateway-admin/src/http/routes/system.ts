import { ForbiddenError } from '@paymesh/core';
import { z } from 'zod';
import { email, name, text } from '@paymesh/http';
import { createOrganization } from '../../app/create-organization';
import { organizationCreated } from '../responses/system';
import { resource } from '../route-table';

const system = resource({ tag: 'System', scopePrefix: 'system', audience: 'system' });

const createOrgBody = z
  .object({
    name: name(200),
    admin: z.object({ email, name: text(200).default('') }).strict(),
    licenseState: z.enum(['ACTIVE', 'BLOCKED', 'NOT_ACTIVATED']).optional(),
    /** Issue a full-scope organization API key together with the organization. */
    apiKey: z
      .object({ name: name(200).default('bootstrap'), mode: z.enum(['live', 'test']).default('live') })
      .strict()
      .optional(),
  })
  .strict();

export function systemRoutes(defaultLicense: 'ACTIVE' | 'BLOCKED' | 'NOT_ACTIVATED') {
  return [
    system({
      method: 'POST',
      action: 'execute',
      path: '/system/organizations',
      operationId: 'createOrganization',
      response: organizationCreated,
      errors: [409],
      role: 'Admin',
      summary: 'Create an organization with its first Admin user (and optionally an organization API key)',
      body: createOrgBody,
      status: 201,
      async handler({ deps, body, principal }) {
        if (principal.mode === 'test' && body.apiKey && body.apiKey.mode !== 'test') {
          throw new ForbiddenError('a test-mode system key may only issue test keys');
        }
        const res = await createOrganization(deps, {
          name: body.name,
          licenseState: body.licenseState ?? defaultLicense,
          admin: { email: body.admin.email, name: body.admin.name },
          ...(body.apiKey ? { apiKey: body.apiKey } : {}),
        });
        return {
          organization: {
            id: res.organization.id,
            name: res.organization.name,
            licenseState: res.organization.licenseState,
            createdAt: res.organization.createdAt,
          },
          admin: {
            id: res.admin.id,
            email: res.admin.email,
            role: 'Admin' as const,
            ...(res.enrollmentToken ? { enrollmentToken: res.enrollmentToken } : {}),
          },
          ...(res.apiKey
            ? {
                apiKey: {
                  id: res.apiKey.key.id,
                  keyId: res.apiKey.key.keyId,
                  name: res.apiKey.key.name,
                  mode: res.apiKey.key.mode,
                  scopes: res.apiKey.key.scopes,
                  token: res.apiKey.token,
                },
              }
            : {}),
        };
      },
    }),
  ];
}
