import { z } from 'zod';
import { clientCreate, idempotencyKey, clientUpdate, type billingRpc, type RpcInput } from '@paymesh/contracts';
import type { Principal } from '../../domain/principal';
import { client, clientHistoryPage, clientPage } from '../responses/clients';
import { resource } from '../route-table';
import { actorOf, billingJson, toBilling } from './billing-rpc';
import type { ForwardContext } from './json-rpc';
import { idParams, pageQuery } from './common';

/** Clients: scope `client:<action>`; search and history are `client:execute`. */
const clients = resource({ tag: 'Clients', scopePrefix: 'client' });

/** Compliance values (tax ID, Peppol address value) are returned in plaintext only to holders of client:execute. */
const includeTaxInfo = (p: Principal) => p.scopes.has('client:execute');

type ListMethod = 'listClients' | 'searchClients';
/** What a client list hands billing besides what the caller may see. */
type ListQuery<K extends ListMethod> = Omit<RpcInput<typeof billingRpc, K>, 'includeTaxInfo'>;

/** Handler of a client list: the checked query, and whether the caller may see compliance values. */
const withTaxInfo =
  <K extends ListMethod>(method: K) =>
  async (ctx: ForwardContext<unknown, unknown, ListQuery<K>>) =>
    billingJson(ctx.deps, ctx.org, method, {
      body: { ...ctx.query, includeTaxInfo: includeTaxInfo(ctx.principal) },
    });

const searchQuery = pageQuery(20).extend({
  q: z.string().trim().min(1).max(200).describe('words of name or e-mail, or an exact tax ID'),
});

/** `Idempotency-Key` of a create: a retry with the same key and body answers the client created. */
const createHeaders = z
  .object({
    'idempotency-key': idempotencyKey
      .optional()
      .describe(
        'Makes the create safe to retry: the same key with the same body answers the client the first request created (201); with another body 409 IDEMPOTENCY_KEY_REUSED. Unique per organization and data mode.',
      ),
  })
  .passthrough();

const updateBody = clientUpdate.refine((b) => Object.keys(b).length > 0, 'body must change at least one field');

export const clientRoutes = [
  clients({
    method: 'GET',
    path: '/clients',
    operationId: 'listClients',
    response: clientPage,
    summary: 'List clients, newest first (page, limit: default 20, at most 100)',
    query: pageQuery(20),
    handler: withTaxInfo('listClients'),
  }),
  clients({
    method: 'GET',
    path: '/clients/search',
    operationId: 'searchClients',
    action: 'execute',
    response: clientPage,
    summary: 'Full-text search over name and e-mail words (any word; more matched words rank first) and exact tax IDs',
    query: searchQuery,
    handler: withTaxInfo('searchClients'),
  }),
  clients({
    method: 'GET',
    path: '/clients/:id',
    operationId: 'getClient',
    response: client,
    summary: 'Get a client',
    params: idParams,
    async handler({ deps, org, principal, params }) {
      return billingJson(deps, org, 'getClient', {
        id: params.id,
        body: { includeTaxInfo: includeTaxInfo(principal) },
      });
    },
  }),
  clients({
    method: 'POST',
    path: '/clients',
    operationId: 'createClient',
    response: client,
    summary:
      'Create a client (taxInfo values are stored encrypted; Peppol schemes 9930, 0088, 0204 with their rules); an Idempotency-Key makes it safe to retry',
    errors: [409],
    body: clientCreate,
    headers: createHeaders,
    async handler({ deps, org, principal, body, req }) {
      const key = (req.headers as z.infer<typeof createHeaders>)['idempotency-key'];
      return billingJson(deps, org, 'createClient', {
        body: {
          client: body,
          includeTaxInfo: includeTaxInfo(principal),
          ...(key !== undefined ? { idempotencyKey: key } : {}),
        },
        actor: actorOf(principal),
      });
    },
  }),
  clients({
    method: 'PUT',
    path: '/clients/:id',
    operationId: 'updateClient',
    response: client,
    errors: [409],
    summary:
      'Update a client (merge: fields present change, null clears; taxInfo merges field by field); 409 on a concurrent change',
    params: idParams,
    body: updateBody,
    async handler({ deps, org, principal, params, body }) {
      return billingJson(deps, org, 'updateClient', {
        id: params.id,
        body: { client: body, includeTaxInfo: includeTaxInfo(principal) },
        actor: actorOf(principal),
      });
    },
  }),
  clients({
    method: 'DELETE',
    path: '/clients/:id',
    operationId: 'deleteClient',
    response: null,
    summary:
      'Delete a client (invoices keep their buyer snapshot; the history stays readable); 409 DOCUMENT_RETAINED while it has issued invoices or credit notes within the retention period (§ 147 AO)',
    params: idParams,
    errors: [409],
    async handler({ deps, org, principal, params }) {
      await billingJson(deps, org, 'deleteClient', { id: params.id, actor: actorOf(principal) });
      return undefined;
    },
  }),
  clients({
    method: 'GET',
    path: '/clients/:id/history',
    operationId: 'getClientHistory',
    action: 'execute',
    response: clientHistoryPage,
    summary: 'Who changed what and when, oldest first (secret values only as changed); kept after a delete',
    params: idParams,
    query: pageQuery(20),
    handler: toBilling.byIdQuery('getClientHistory'),
  }),
];
