import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errorStatuses } from './responses/envelope';
import { responseSchemas } from './openapi';
import { resource, successStatus, type AnyRoute } from './route-table';
import { allRoutes } from './routes';

const handler = async () => undefined;
const body = z.object({ id: z.string() });

describe('resource rows', () => {
  const things = resource({ tag: 'Things', scopePrefix: 'provider' });

  it('derive scope, role, audience, tag and status from the method', () => {
    const rows = [
      things({
        method: 'GET',
        path: '/things',
        operationId: 'listThings',
        summary: 's',
        response: body,
        handler: async () => ({ id: 'x' }),
      }),
      things({
        method: 'POST',
        path: '/things',
        operationId: 'createThing',
        summary: 's',
        response: body,
        handler: async () => ({ id: 'x' }),
      }),
      things({
        method: 'PUT',
        path: '/things/:id',
        operationId: 'updateThing',
        summary: 's',
        response: body,
        handler: async () => ({ id: 'x' }),
      }),
      things({
        method: 'DELETE',
        path: '/things/:id',
        operationId: 'deleteThing',
        summary: 's',
        response: null,
        handler,
      }),
    ];
    expect(rows.map((r) => [r.scope, r.role, r.audience, r.tag, successStatus(r)])).toEqual([
      ['provider:read', 'Viewer', 'organization', 'Things', 200],
      ['provider:create', 'Editor', 'organization', 'Things', 201],
      ['provider:update', 'Editor', 'organization', 'Things', 200],
      ['provider:delete', 'Admin', 'organization', 'Things', 204],
    ]);
  });

  it('take the action, write role, role and status a row or resource names', () => {
    const adminWrites = resource({ tag: 'T', scopePrefix: 'provider', writeRole: 'Admin', audience: 'system' });
    const toggle = adminWrites({
      method: 'PUT',
      path: '/t/:id/toggle',
      action: 'execute',
      operationId: 'toggle',
      summary: 's',
      response: body,
      handler: async () => ({ id: 'x' }),
    });
    expect([toggle.scope, toggle.role, toggle.audience]).toEqual(['provider:execute', 'Admin', 'system']);
    const read = adminWrites({
      method: 'GET',
      path: '/t',
      operationId: 'list',
      summary: 's',
      response: body,
      handler: async () => ({ id: 'x' }),
    });
    expect(read.role).toBe('Viewer');
    const verify = things({
      method: 'GET',
      path: '/t/verify',
      action: 'execute',
      role: 'Editor',
      operationId: 'v',
      summary: 's',
      response: body,
      handler: async () => ({ id: 'x' }),
    });
    expect([verify.scope, verify.role]).toEqual(['provider:execute', 'Editor']);
    const created200 = things({
      method: 'POST',
      path: '/t',
      status: 200,
      operationId: 'c',
      summary: 's',
      response: body,
      handler: async () => ({ id: 'x' }),
    });
    expect(successStatus(created200)).toBe(200);
  });

  it('refuses a scope the specification does not have, when the table is built', () => {
    const domains = resource({ tag: 'Domains', scopePrefix: 'domain' });
    expect(() =>
      domains({
        method: 'PUT',
        path: '/domains/:id',
        operationId: 'u',
        summary: 's',
        response: body,
        handler: async () => ({ id: 'x' }),
      }),
    ).toThrow('PUT /domains/:id: domain:update is not a scope of the specification');
  });
});

describe('documented answers', () => {
  const routes = allRoutes({ DEFAULT_LICENSE_STATE: 'ACTIVE' });

  it('every row has a unique camelCase operationId and a success status that matches its body', () => {
    const ids = routes.map((r) => r.operationId);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of routes) expect(() => responseSchemas(r), `${r.method} ${r.path}`).not.toThrow();
  });

  it('a 204 row without a body is refused, as is a body on 204', () => {
    const row = (over: Partial<AnyRoute>): AnyRoute => ({
      method: 'DELETE',
      path: '/x/:id',
      scope: 'site:delete',
      role: 'Admin',
      audience: 'organization',
      tag: 'X',
      summary: 's',
      operationId: 'x',
      response: null,
      handler,
      ...over,
    });
    expect(Object.keys(responseSchemas(row({})))).toEqual(['204', '400', '401', '403', '404', '429']);
    expect(() => responseSchemas(row({ status: 200 }))).toThrow(/204/);
    expect(() => responseSchemas(row({ status: 204, response: body }))).toThrow(/204/);
  });

  it('documents 404 where an organization or a path ID is resolved, and the conflicts a row names', () => {
    expect(errorStatuses({ audience: 'system', path: '/system/organizations' })).toEqual([400, 401, 403, 429]);
    expect(errorStatuses({ audience: 'system', path: '/system/api-keys/:id', errors: [409] })).toEqual([
      400, 401, 403, 404, 409, 429,
    ]);
    expect(errorStatuses({ audience: 'organization', path: '/sites' })).toEqual([400, 401, 403, 404, 429]);
  });

  it('sites and providers keep the scopes and roles of the specification', () => {
    const of = (prefix: string) =>
      routes
        .filter((r) => r.path.startsWith(prefix))
        .map((r) => `${r.method} ${r.path} ${r.scope} ${r.role} ${successStatus(r)}`);
    expect(of('/sites')).toEqual([
      'GET /sites site:read Viewer 200',
      'GET /sites/:id site:read Viewer 200',
      'POST /sites site:create Editor 201',
      'PUT /sites/:id site:update Editor 200',
      'DELETE /sites/:id site:delete Admin 204',
      'POST /sites/:id/webhook-secret/regenerate site:update Editor 200',
      'GET /sites/:id/settings/invoicing site:read Viewer 200',
      'PUT /sites/:id/settings/invoicing site:update Editor 200',
    ]);
    expect(of('/providers')).toEqual([
      'GET /providers provider:read Viewer 200',
      'GET /providers/types provider:read Viewer 200',
      'GET /providers/:id provider:read Viewer 200',
      'POST /providers provider:create Admin 201',
      'DELETE /providers/:id provider:delete Admin 200',
      'PUT /providers/:id/toggle provider:execute Admin 200',
    ]);
  });
});
