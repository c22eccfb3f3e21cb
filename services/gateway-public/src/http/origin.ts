import { ForbiddenError } from '@paymesh/core';

type Headers = Record<string, string | string[] | undefined>;

const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/** `scheme://host[:port]` of an http(s) URL, or undefined when it is not one. */
function httpOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where a buyer-facing request comes from: `Origin`, else the origin of `Referer`.
 * - neither header: a server-to-server call, allowed (returns '');
 * - the main frontend: allowed (returns '');
 * - an unreadable value (`Origin: null`, a non-http Referer): 403;
 * - any other origin: returned, for checkout to match against the site's frontend domains.
 */
export function browserOriginFor(headers: Headers, mainFrontendOrigin: string): string {
  const origin = first(headers.origin);
  const referer = first(headers.referer);
  const raw = origin !== undefined && origin !== '' ? origin : referer;
  if (raw === undefined || raw === '') return '';
  const parsed = httpOrigin(raw);
  if (!parsed) throw new ForbiddenError('origin not allowed');
  return parsed === mainFrontendOrigin ? '' : parsed;
}
