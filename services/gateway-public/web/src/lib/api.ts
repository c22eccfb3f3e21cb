/** A Main Backend answer: the status, the parsed JSON body and the request's ID. */
export interface ApiAnswer<T> {
  status: number;
  ok: boolean;
  body: T;
  /** `requestId` of an error body, else the X-Request-ID header: what support asks for. */
  requestId: string;
}

export interface ApiError {
  error?: string;
  code?: string;
  requestId?: string;
}

/**
 * Calls the Main Backend relative to the page (`../api/v1/` from `/c/<id>`), so the page works
 * on any host and under any path prefix that serves it.
 */
export function apiBase(pageUrl: string): URL {
  return new URL('../api/v1/', pageUrl);
}

export async function call<T>(
  base: URL,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<ApiAnswer<T & ApiError>> {
  const init: RequestInit = { method, headers: { accept: 'application/json' }, credentials: 'omit', cache: 'no-store' };
  if (body !== undefined) {
    init.headers = { accept: 'application/json', 'content-type': 'application/json' };
    init.body = JSON.stringify(body);
  }
  if (signal) init.signal = signal;
  const res = await fetch(new URL(path, base), init);
  let parsed: unknown = {};
  try {
    parsed = await res.json();
  } catch {
    parsed = {};
  }
  const out = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as T & ApiError;
  return {
    status: res.status,
    ok: res.ok,
    body: out,
    requestId: out.requestId ?? res.headers.get('x-request-id') ?? '',
  };
}
