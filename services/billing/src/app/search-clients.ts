import type { ClientPage, ClientSearchQuery } from '@paymesh/contracts';
import { normalizeTaxId } from '../domain/client';
import { CLIENT_TEXT_FIELDS } from '../store/collections';
import { TAX_ID_DIGEST, viewOf } from './client-codec';
import { clientsOf } from './client-store';
import type { BillingDeps, OrgKey } from './deps';

/**
 * Full-text search: whole words of name and e-mail (any word matches; more matched words rank
 * higher), and exact tax IDs: the whole query, normalized like stored tax IDs, is digested under
 * every key of the ring and looked up among the stored digests, so no tax ID is stored in clear.
 */
export async function searchClients(deps: BillingDeps, key: OrgKey, query: ClientSearchQuery): Promise<ClientPage> {
  const digests = deps.secrets.digests(normalizeTaxId(query.q), TAX_ID_DIGEST);
  // Digests first: the store reads at most 16 words of a query.
  const text = `${digests.join(' ')} ${query.q}`;
  const page = await clientsOf(deps).search(
    { organizationId: key.organizationId, mode: key.mode },
    { text, fields: CLIENT_TEXT_FIELDS },
    { page: query.page, limit: query.limit },
  );
  return {
    items: page.items.map((doc) => viewOf(deps, key, doc, query.includeTaxInfo)),
    total: page.total,
    page: page.page,
    limit: page.limit,
  };
}
