import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import type { AttemptOutcome } from '../domain/delivery';
import { checkLiteralHost, parseTargetUrl, publicAddresses } from '../domain/target';

/** One IPN POST to make. */
export interface IpnRequest {
  url: string;
  /** The exact bytes to send (the signature covers them). */
  body: string;
  headers: Record<string, string>;
}

/** Makes IPN POSTs; the delivery engine depends on this port, tests may replace it. */
export interface IpnSender {
  send(req: IpnRequest): Promise<AttemptOutcome>;
  close(): Promise<void>;
}

/** Raised inside the guarded lookup; recognised in the error chain to report a refused target. */
export class TargetRefusedError extends Error {
  readonly code = 'IPN_TARGET_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefusedError';
  }
}

type Resolver = (hostname: string, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: Resolver = (hostname, callback) => dnsLookup(hostname, { all: true }, callback);

/**
 * A `lookup` for net/tls connect that resolves the host once, keeps only public addresses and
 * hands exactly those to the socket: the connection goes to an address that was checked, so a
 * DNS answer that changes between check and connect (rebinding) cannot reach a private address.
 */
export function guardedLookup(resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, (err, resolved) => {
      if (err) {
        callback(err, options.all ? [] : '', 0);
        return;
      }
      const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
      const check = publicAddresses(hostname, family ? resolved.filter((a) => a.family === family) : resolved);
      if (!check.ok) {
        callback(new TargetRefusedError(check.reason), options.all ? [] : '', 0);
        return;
      }
      const [first] = check.value;
      if (options.all) callback(null, check.value);
      else if (first) callback(null, first.address, first.family);
    });
  };
}

function errorChain(err: unknown): unknown[] {
  const chain: unknown[] = [];
  let cur: unknown = err;
  while (cur && chain.length < 8) {
    chain.push(cur);
    cur = cur instanceof Error ? cur.cause : undefined;
  }
  return chain;
}

function describeError(err: unknown, timeoutMs: number): { error: string; refused: boolean } {
  const chain = errorChain(err);
  const refused = chain.find((e): e is TargetRefusedError => e instanceof TargetRefusedError);
  if (refused) return { error: `target refused: ${refused.message}`, refused: true };
  const timedOut = chain.some(
    (e) =>
      e instanceof Error &&
      (e.name === 'TimeoutError' ||
        e.name === 'AbortError' ||
        ('code' in e && (e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT'))),
  );
  if (timedOut) return { error: `timeout after ${timeoutMs} ms`, refused: false };
  const parts = chain
    .filter((e): e is Error => e instanceof Error)
    .map((e) => ('code' in e && typeof e.code === 'string' ? `${e.code}: ${e.message}` : e.message));
  return { error: `network error: ${parts.join(' <- ') || String(err)}`.slice(0, 500), refused: false };
}

/** Options of {@link HttpIpnSender}. */
export interface HttpIpnSenderOptions {
  /** Whole-request timeout (connect, headers and body). */
  timeoutMs: number;
  /** Development mode: allow loopback/private targets (no SSRF guard). */
  allowPrivateTargets: boolean;
  /** DNS resolver used by the guard (tests inject one). */
  resolve?: Resolver;
}

/**
 * Sends IPN POSTs with undici: no redirects are followed (a 3xx is a failed attempt), the whole
 * request is bounded by a timeout, and outside development mode only public addresses are
 * contacted (IP literals checked up front, host names at connect time through the pinned lookup).
 */
export class HttpIpnSender implements IpnSender {
  private readonly agent: Agent;
  private readonly opts: HttpIpnSenderOptions;

  constructor(opts: HttpIpnSenderOptions) {
    this.opts = opts;
    this.agent = new Agent({
      connect: {
        timeout: opts.timeoutMs,
        ...(opts.allowPrivateTargets ? {} : { lookup: guardedLookup(opts.resolve) }),
      },
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
    });
  }

  async send(req: IpnRequest): Promise<AttemptOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const parsed = parseTargetUrl(req.url);
    if (!parsed.ok) return { httpStatus: 0, error: `target refused: ${parsed.reason}`, durationMs: 0, refused: true };
    if (!this.opts.allowPrivateTargets) {
      const literal = checkLiteralHost(parsed.value);
      if (literal && !literal.ok) return { httpStatus: 0, error: `target refused: ${literal.reason}`, durationMs: 0, refused: true };
    }
    try {
      const res = await request(parsed.value, {
        method: 'POST',
        headers: req.headers,
        body: req.body,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      // The answer's body is not used; read a little of it so the connection can be reused.
      await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      const status = res.statusCode;
      const ok = status >= 200 && status <= 299;
      const error = ok ? '' : status >= 300 && status <= 399 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
      return { httpStatus: status, error, durationMs: elapsed(), refused: false };
    } catch (err) {
      return { httpStatus: 0, ...describeError(err, this.opts.timeoutMs), durationMs: elapsed() };
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
