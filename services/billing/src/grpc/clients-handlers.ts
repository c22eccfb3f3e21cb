import {
  clientCreateRequest,
  clientHistoryQuery,
  clientListQuery,
  clientReadOptions,
  clientSearchQuery,
  clientUpdateRequest,
} from '@paymesh/contracts';
import type { billing } from '@paymesh/proto';
import type { BillingDeps } from '../app/deps';
import { actorOrSystem } from '../app/client-history-log';
import { clientHistory } from '../app/client-history';
import { createClient } from '../app/create-client';
import { deleteClient } from '../app/delete-client';
import { getClient, listClients } from '../app/read-clients';
import { searchClients } from '../app/search-clients';
import { updateClient } from '../app/update-client';
import { bodyOf, idOf, jsonUnary, orgKeyOf } from './json';

/** gRPC handlers of the client RPCs. */
export function clientsHandlers(
  deps: BillingDeps,
): Pick<
  billing.BillingServiceServer,
  'listClients' | 'searchClients' | 'getClient' | 'createClient' | 'updateClient' | 'deleteClient' | 'getClientHistory'
> {
  return {
    listClients: jsonUnary(deps.logger, 'billing/ListClients', async (req) =>
      listClients(deps, orgKeyOf(req), bodyOf(req, clientListQuery)),
    ),
    searchClients: jsonUnary(deps.logger, 'billing/SearchClients', async (req) =>
      searchClients(deps, orgKeyOf(req), bodyOf(req, clientSearchQuery)),
    ),
    getClient: jsonUnary(deps.logger, 'billing/GetClient', async (req) => {
      const key = orgKeyOf(req);
      const id = idOf(req);
      return getClient(deps, key, id, bodyOf(req, clientReadOptions).includeTaxInfo);
    }),
    createClient: jsonUnary(deps.logger, 'billing/CreateClient', async (req) => {
      const key = orgKeyOf(req);
      const body = bodyOf(req, clientCreateRequest);
      return createClient(deps, key, body.client, actorOrSystem(req.actor), body.includeTaxInfo, body.idempotencyKey);
    }),
    updateClient: jsonUnary(deps.logger, 'billing/UpdateClient', async (req) => {
      const key = orgKeyOf(req);
      const id = idOf(req);
      const body = bodyOf(req, clientUpdateRequest);
      return updateClient(deps, key, id, body.client, actorOrSystem(req.actor), body.includeTaxInfo);
    }),
    deleteClient: jsonUnary(deps.logger, 'billing/DeleteClient', async (req) => {
      const key = orgKeyOf(req);
      return deleteClient(deps, key, idOf(req), actorOrSystem(req.actor));
    }),
    getClientHistory: jsonUnary(deps.logger, 'billing/GetClientHistory', async (req) => {
      const key = orgKeyOf(req);
      const id = idOf(req);
      return clientHistory(deps, key, id, bodyOf(req, clientHistoryQuery));
    }),
  };
}
