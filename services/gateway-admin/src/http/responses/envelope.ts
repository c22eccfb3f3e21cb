import type { AnyRoute } from '../route-table';

export const ERROR_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: 'Invalid input: a field, query parameter, path parameter or X-Organization-ID is missing or malformed (the message names it)',
  401: 'Missing, invalid, expired or revoked credentials',
  403: 'Missing scope, too low a role, or a key of the wrong kind or mode',
  404: 'Not found, or not visible to this organization and mode',
  409: 'Conflict with the current state (duplicate, state that no longer allows the change); coded conflicts carry `code` and `requestId`',
  422: 'A precondition of another service failed',
  429: 'Rate limit exceeded; see the Retry-After header',
  503: 'A service this answer needs cannot answer right now (coded, e.g. `TAX_UNAVAILABLE`); nothing was changed, retry later',
};

/**
 * The error statuses a row documents: every route authenticates (401), authorizes (403), validates
 * (400) and is rate limited (429); routes that resolve an organization or an ID in the path can
 * answer 404; conflicts and failed preconditions are named per row.
 */
export function errorStatuses(def: Pick<AnyRoute, 'audience' | 'path' | 'errors'>): number[] {
  const resolves = def.audience === 'organization' || def.path.includes(':');
  const statuses: number[] = [400, 401, 403, ...(resolves ? [404] : []), ...(def.errors ?? []), 429];
  return [...new Set(statuses)].sort((a, b) => a - b);
}
