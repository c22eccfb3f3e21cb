import type { billing } from '@paymesh/proto';
import type { BillingDeps } from '../app/deps';
import { actorOrSystem } from '../app/client-history-log';
import { clientHistory } from '../app/client-history';
import { createClient } from '../app/create-client';
import { deleteClient } from '../app/delete-client';
import { getClient, listClients } from '../app/read-clients';
import { searchClients } from '../app/search-clients';
import { updateClient } from '../app/update-client';
import { billingEdge, idOf, orgKeyOf } from './json';

/** gRPC handlers of the client RPCs. */
export function clientsHandlers(
  deps: BillingDeps,
): Pick<
  billing.BillingServiceServer,
  'listClients' | 'searchClients' | 'getClient' | 'createClient' | 'updateClient' | 'deleteClient' | 'getClientHistory'
> {
  const rpc = billingEdge(deps.logger);
  return {
    listClients: rpc.json('listClients', async (query, req) => listClients(deps, orgKeyOf(req), query)),
    searchClients: rpc.json('searchClients', async (query, req) => searchClients(deps, orgKeyOf(req), query)),
    getClient: rpc.json('getClient', async (options, req) =>
      getClient(deps, orgKeyOf(req), idOf(req), options.includeTaxInfo),
    ),
    createClient: rpc.json('createClient', async (body, req) =>
      createClient(
        deps,
        orgKeyOf(req),
        body.client,
        actorOrSystem(req.actor),
        body.includeTaxInfo,
        body.idempotencyKey,
      ),
    ),
    updateClient: rpc.json('updateClient', async (body, req) =>
      updateClient(deps, orgKeyOf(req), idOf(req), body.client, actorOrSystem(req.actor), body.includeTaxInfo),
    ),
    deleteClient: rpc.json('deleteClient', async (_body, req) =>
      deleteClient(deps, orgKeyOf(req), idOf(req), actorOrSystem(req.actor)),
    ),
    getClientHistory: rpc.json('getClientHistory', async (query, req) =>
      clientHistory(deps, orgKeyOf(req), idOf(req), query),
    ),
  };
}
