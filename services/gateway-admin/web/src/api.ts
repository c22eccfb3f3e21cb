import createClient from 'openapi-fetch';
import type { components, paths } from '../../../../test/support/admin-api.gen';

export type { components, paths };
export type Role = 'Admin' | 'Editor' | 'Viewer';

/** An answer other than 2xx, with the API's `{"error": "..."}` message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function messageOf(error: unknown, status: number): string {
  if (typeof error === 'object' && error !== null && 'error' in error && typeof error.error === 'string')
    return error.error;
  return `HTTP ${status}`;
}

/** The data of a typed call, or an ApiError with the answer's message. */
export function must<T>(res: { data?: T; error?: unknown; response: Response }): T {
  if (res.data === undefined || !res.response.ok)
    throw new ApiError(res.response.status, messageOf(res.error, res.response.status));
  return res.data;
}

/** Like {@link must} for answers without a body (204). */
export function mustOk(res: { error?: unknown; response: Response }): void {
  if (!res.response.ok) throw new ApiError(res.response.status, messageOf(res.error, res.response.status));
}

/** The access token lives here, in memory only (never in storage): a reload renews it through the refresh cookie. */
let accessToken: string | null = null;
/** Renews the access token (set by the session module); false when the session is gone. */
let renew: () => Promise<boolean> = async () => false;

export function setAccessToken(token: string | null): void {
  accessToken = token;
}

export function onUnauthorized(fn: () => Promise<boolean>): void {
  renew = fn;
}

function withToken(req: Request): Request {
  const out = new Request(req);
  if (accessToken) out.headers.set('authorization', `Bearer ${accessToken}`);
  return out;
}

/**
 * fetch of the signed-in client: sends the access token and, when the API answers 401 (the
 * token expired or was refused), renews it once through the refresh cookie and repeats the call.
 */
async function authedFetch(req: Request): Promise<Response> {
  const again = req.clone();
  const first = await fetch(withToken(req));
  if (first.status !== 401) return first;
  if (!(await renew())) return first;
  return fetch(withToken(again));
}

/** The Admin API, typed from its OpenAPI document: a changed route breaks the dashboard's type check. */
export const api = createClient<paths>({ baseUrl: location.origin, fetch: authedFetch, credentials: 'same-origin' });

/** The sign-in routes (no access token; the refresh cookie goes along). */
export const authApi = createClient<paths>({ baseUrl: location.origin, credentials: 'same-origin' });

/** The file name a download answer names (`Content-Disposition`), else `fallback`. */
function fileNameOf(res: Response, fallback: string): string {
  return /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? fallback;
}

/**
 * Downloads a file answer of the Admin API (which needs the access token, so a plain link would
 * not do): reads it as it arrives, reporting the bytes received, then hands it to the browser to save.
 */
export async function downloadFile(
  path: string,
  init: { method?: 'GET' | 'POST'; body?: unknown; fallbackName: string; onBytes?: (received: number) => void },
): Promise<void> {
  const req = new Request(`${location.origin}${path}`, {
    method: init.method ?? 'GET',
    credentials: 'same-origin',
    ...(init.body !== undefined
      ? { body: JSON.stringify(init.body), headers: { 'content-type': 'application/json' } }
      : {}),
  });
  const res = await authedFetch(req);
  if (!res.ok || !res.body) {
    const error: unknown = await res.json().catch(() => null);
    throw new ApiError(res.status, messageOf(error, res.status));
  }
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let received = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    received += value.length;
    init.onBytes?.(received);
  }
  saveAs(
    new Blob(parts, { type: res.headers.get('content-type') ?? 'application/zip' }),
    fileNameOf(res, init.fallbackName),
  );
}

/** Hands a file to the browser to save under `name`. */
function saveAs(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  // The browser has taken the file once the click's task ran.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * Saves the file of a typed call read as a blob (`parseAs: 'blob'`) under the name its
 * Content-Disposition gives (quoted or not), else `fallback`; another answer throws an ApiError.
 */
export function saveBlobAnswer(res: { data?: unknown; error?: unknown; response: Response }, fallback: string): void {
  if (!res.response.ok || !(res.data instanceof Blob))
    throw new ApiError(res.response.status, messageOf(res.error, res.response.status));
  const name = /filename="?([^";]+)"?/.exec(res.response.headers.get('content-disposition') ?? '')?.[1] ?? fallback;
  saveAs(res.data, name);
}
