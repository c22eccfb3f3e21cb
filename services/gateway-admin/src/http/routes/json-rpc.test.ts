import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { billingRpc, emptyBody, jsonRpc as rpc } from '@paymesh/contracts';
import type { AdminDeps } from '../../app/deps';
import type { Principal } from '../../domain/principal';
import type { OrgScope } from '../route-table';
import { unreachableClients } from '../../../test/unreachable-clients';
import { forwarders, jsonRpc, type EnvelopeArgs, type ForwardContext, type JsonCall } from './json-rpc';

const thing = z.object({ id: z.string(), name: z.string() });
const thingsRpc = {
  getThing: rpc(emptyBody, thing),
  listThings: rpc(z.object({ page: z.number() }), z.object({ items: z.array(thing) })),
  findThing: rpc(z.object({ id: z.string() }), thing),
  renameThing: rpc(z.object({ name: z.string() }), thing),
};
type Things = typeof thingsRpc;

const org: OrgScope = { organizationId: '0123456789abcdef01234567', mode: 'test' };
const principal: Principal = {
  kind: 'organization_key',
  keyId: 'k1',
  organizationId: org.organizationId,
  mode: 'test',
  role: 'Admin',
  scopes: new Set(),
};

/** A call that records what it was given and answers a fixed thing. */
function recording() {
  const sent: { method: string; args: EnvelopeArgs<Things[keyof Things]> }[] = [];
  const call: JsonCall<Things> = async (_deps, _org, method, args) => {
    sent.push({ method, args });
    return thingsRpc[method].answer.parse(method === 'listThings' ? { items: [] } : { id: 't1', name: 'n' });
  };
  return { sent, to: forwarders(call) };
}

function context<P, B, Q>(params: P, body: B, query: Q): ForwardContext<P, B, Q> {
  return { deps: {} as AdminDeps, org, principal, params, body, query };
}

describe('forwarders', () => {
  it('hand the path id, the body or the query, and who acts, to the named RPC', async () => {
    const { sent, to } = recording();
    const ctx = context({ id: 'a1' }, { name: 'new' }, { page: 2 });
    await to.bare('getThing')(ctx);
    await to.byId('getThing')(ctx);
    await to.byIdActing('getThing')(ctx);
    await to.idInBody('findThing')(ctx);
    await to.query('listThings')(ctx);
    await to.byIdQuery('listThings')(ctx);
    await to.body('renameThing')(ctx);
    await to.bodyActing('renameThing')(ctx);
    await to.byIdBody('renameThing')(ctx);
    await to.byIdBodyActing('renameThing')(ctx);
    expect(sent).toEqual([
      { method: 'getThing', args: {} },
      { method: 'getThing', args: { id: 'a1' } },
      { method: 'getThing', args: { id: 'a1', actor: 'api_key:k1' } },
      { method: 'findThing', args: { body: { id: 'a1' } } },
      { method: 'listThings', args: { body: { page: 2 } } },
      { method: 'listThings', args: { id: 'a1', body: { page: 2 } } },
      { method: 'renameThing', args: { body: { name: 'new' } } },
      { method: 'renameThing', args: { body: { name: 'new' }, actor: 'api_key:k1' } },
      { method: 'renameThing', args: { id: 'a1', body: { name: 'new' } } },
      { method: 'renameThing', args: { id: 'a1', body: { name: 'new' }, actor: 'api_key:k1' } },
    ]);
  });

  it('take only the methods their input fits', () => {
    const { to } = recording();
    // @ts-expect-error renameThing needs a body: the path's id alone does not make one
    expect(typeof to.byId('renameThing')).toBe('function');
    // @ts-expect-error listThings takes a page, not an id
    expect(typeof to.idInBody('listThings')).toBe('function');
  });

  it('answer what the RPC answers', async () => {
    const { to } = recording();
    await expect(to.byId('getThing')(context({ id: 'a1' }, undefined, undefined))).resolves.toEqual({
      id: 't1',
      name: 'n',
    });
  });
});

describe('jsonRpc', () => {
  it('makes the caller of a service once per set of clients, and names the service in failures', async () => {
    let picked = 0;
    const call = jsonRpc(
      'billing',
      (c) => {
        picked += 1;
        return c.billing;
      },
      billingRpc,
    );
    const a = unreachableClients();
    const b = unreachableClients();
    try {
      const depsA = { clients: a } as AdminDeps;
      await expect(call(depsA, org, 'getInvoice', { id: 'i1' })).rejects.toThrow(/billing/);
      await expect(call(depsA, org, 'getInvoice', { id: 'i1' })).rejects.toThrow(/billing/);
      expect(picked).toBe(1);
      await expect(call({ clients: b } as AdminDeps, org, 'getInvoice', { id: 'i1' })).rejects.toThrow(/billing/);
      expect(picked).toBe(2);
    } finally {
      a.close();
      b.close();
    }
  });
});
