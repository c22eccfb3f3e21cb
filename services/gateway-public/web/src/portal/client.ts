/** A portal API answer: status, parsed JSON body (or a file), the error text and the request's ID. */
export interface PortalAnswer<T> {
  status: number;
  ok: boolean;
  body: T;
  error: string;
  /** `requestId` of an error body, else the X-Request-ID header: what support asks for. */
  requestId: string;
  blob?: Blob;
  filename?: string;
}

interface TokenAnswer {
  token: string;
  expiresAt: string;
}

type Method = 'GET' | 'POST';

/**
 * The portal's Main Backend client. The session token lives in this object only (never in storage
 * or the address bar); the HTTP-only refresh cookie (path /api/v1/portal/auth) is the browser's.
 * A 401 on a signed-in call renews the token once through `POST portal/auth/refresh` and retries;
 * when that fails too, `onEnded` is called.
 */
export class PortalClient {
  private token = '';
  /** One refresh at a time: parallel 401s wait for the same renewal. */
  private refreshing: Promise<boolean> | undefined;

  constructor(
    private readonly base: URL,
    private readonly onEnded: () => void,
  ) {}

  /** Drops the in-memory session token. */
  forget(): void {
    this.token = '';
  }

  get signedIn(): boolean {
    return this.token !== '';
  }

  private async raw(
    method: Method,
    path: string,
    body: unknown,
    withToken: boolean,
    asFile = false,
  ): Promise<PortalAnswer<unknown>> {
    const headers: Record<string, string> = { accept: asFile ? '*/*' : 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (withToken && this.token) headers.authorization = `Bearer ${this.token}`;
    let res: Response;
    try {
      res = await fetch(new URL(path, this.base), {
        method,
        headers,
        // Same origin only: the refresh cookie travels to the auth routes it is scoped to.
        credentials: 'same-origin',
        cache: 'no-store',
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch {
      return { status: 0, ok: false, body: {}, error: '', requestId: '' };
    }
    const headerId = res.headers.get('x-request-id') ?? '';
    if (asFile && res.ok) {
      const disposition = res.headers.get('content-disposition') ?? '';
      const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? '';
      return {
        status: res.status,
        ok: true,
        body: {},
        error: '',
        requestId: headerId,
        blob: await res.blob(),
        filename,
      };
    }
    let parsed: unknown = {};
    try {
      parsed = res.status === 204 ? {} : await res.json();
    } catch {
      parsed = {};
    }
    const out = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as {
      error?: unknown;
      requestId?: unknown;
    };
    return {
      status: res.status,
      ok: res.ok,
      body: out,
      error: typeof out.error === 'string' ? out.error : '',
      requestId: typeof out.requestId === 'string' ? out.requestId : headerId,
    };
  }

  /** Renews the session token from the refresh cookie (the cookie is rotated by the server). */
  private refresh(): Promise<boolean> {
    this.refreshing ??= this.raw('POST', 'portal/auth/refresh', undefined, false)
      .then((res) => {
        const token = (res.body as Partial<TokenAnswer>).token;
        this.token = res.ok && typeof token === 'string' ? token : '';
        return this.token !== '';
      })
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
  }

  /** A signed-in call: on a 401, one refresh and one retry; a second failure ends the session. */
  private async authed<T>(method: Method, path: string, body?: unknown, asFile = false): Promise<PortalAnswer<T>> {
    const sent = this.token;
    let res = await this.raw(method, path, body, true, asFile);
    if (res.status === 401) {
      // Another call may already have renewed the token this one was sent with.
      const renewed = this.token !== '' && this.token !== sent ? true : await this.refresh();
      if (renewed) res = await this.raw(method, path, body, true, asFile);
      if (res.status === 401) {
        this.token = '';
        this.onEnded();
      }
    }
    return res as PortalAnswer<T>;
  }

  get<T>(path: string): Promise<PortalAnswer<T>> {
    return this.authed<T>('GET', path);
  }

  /** POSTs to the sign-in routes go without a token; every other POST is a signed-in call. */
  post<T>(path: string, body: unknown): Promise<PortalAnswer<T>> {
    return path.startsWith('portal/auth/')
      ? (this.raw('POST', path, body, false) as Promise<PortalAnswer<T>>)
      : this.authed<T>('POST', path, body);
  }

  file(path: string): Promise<PortalAnswer<unknown>> {
    return this.authed('GET', path, undefined, true);
  }

  /** verify-otp or magic-link: keeps the session token of a successful answer. */
  async signIn(path: string, body: unknown): Promise<PortalAnswer<TokenAnswer>> {
    const res = (await this.raw('POST', path, body, false)) as PortalAnswer<TokenAnswer>;
    if (res.ok && typeof res.body.token === 'string') this.token = res.body.token;
    return res;
  }

  /** After a reload: a session token from the refresh cookie, if the browser still has one. */
  resume(): Promise<boolean> {
    return this.refresh();
  }

  /** Ends the sign-in on the server (token and refresh cookie) and forgets the token. */
  async logout(): Promise<PortalAnswer<unknown>> {
    const res = await this.raw('POST', 'portal/auth/logout', undefined, true);
    if (res.ok) this.token = '';
    return res;
  }
}
