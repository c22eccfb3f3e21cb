import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import type { AttemptOutcome } from '../domain/delivery';
import { hostAllowListed, type TargetAllowList } from '@paymesh/core';
import { checkLiteralHost, parseTargetUrl, permittedAddresses } from '../domain/target';

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

type Resolver = (
  hostname: string,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolver: Resolver = (hostname, callback) => dnsLookup(hostname, { all: true }, callback);

/**
 * A `lookup` for net/tls connect that resolves the host once, keeps only public (or allow-listed)
 * addresses and hands exactly those to the socket: the connection goes to an address that was
 * checked, so a DNS answer that changes between check and connect (rebinding) cannot reach a
 * private address. A host name on the allow-list is trusted with whatever it resolves to.
 */
export function guardedLookup(allowed: TargetAllowList, resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, (err, resolved) => {
      if (err) {
        callback(err, options.all ? [] : '', 0);
        return;
      }
      const family =
        options.family === 4 || options.family === 'IPv4'
          ? 4
          : options.family === 6 || options.family === 'IPv6'
            ? 6
            : 0;
      const candidates = family ? resolved.filter((a) => a.family === family) : resolved;
      const check = hostAllowListed(allowed, hostname)
        ? ({ ok: true, value: candidates } as const)
        : permittedAddresses(hostname, candidates, allowed);
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

/**
 * Removes IP addresses from an error text: merchants read delivery errors, and the address a
 * name resolved to inside our network is not theirs to learn.
 */
export function withoutAddresses(text: string): string {
  return text
    .replace(/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b/g, '<address>')
    .replace(/\[?(?<![0-9a-z])(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}(?![0-9a-z])\]?(?::\d{1,5})?/gi, '<address>');
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
        ('code' in e &&
          (e.code === 'UND_ERR_HEADERS_TIMEOUT' ||
            e.code === 'UND_ERR_CONNECT_TIMEOUT' ||
            e.code === 'UND_ERR_BODY_TIMEOUT'))),
  );
  if (timedOut) return { error: `timeout after ${timeoutMs} ms`, refused: false };
  const parts = chain
    .filter((e): e is Error => e instanceof Error)
    .map((e) => ('code' in e && typeof e.code === 'string' ? `${e.code}: ${e.message}` : e.message));
  return {
    error: withoutAddresses(`network error: ${parts.join(' <- ') || String(err)}`).slice(0, 500),
    refused: false,
  };
}

/** How far undici's coarse timers may be off; see HttpIpnSender's constructor. */
const UNDICI_TIMER_SLACK_MS = 1_000;

/** Options of {@link HttpIpnSender}. */
export interface HttpIpnSenderOptions {
  /** Whole-request timeout (connect, headers and body). */
  timeoutMs: number;
  /**
   * Targets the operator allows although not public (IPN_ALLOWED_TARGETS, e.g. a local receiver);
   * every other loopback, private, link-local, metadata, CGNAT, NAT64 or reserved target is refused.
   */
  allowedTargets: TargetAllowList;
  /** DNS resolver used by the guard (tests inject one). */
  resolve?: Resolver;
}

/**
 * Sends IPN POSTs with undici: no redirects are followed (a 3xx is a failed attempt), the whole
 * request is bounded by a timeout, and in every mode only public or allow-listed addresses are
 * contacted (IP literals checked up front, host names at connect time through the pinned lookup).
 */
export class HttpIpnSender implements IpnSender {
  private readonly agent: Agent;
  private readonly opts: HttpIpnSenderOptions;

  constructor(opts: HttpIpnSenderOptions) {
    this.opts = opts;
    // The whole-request deadline is the AbortSignal in send(), a precise timer. undici's own
    // timeouts run on a coarse shared clock (ticks of about half a second) and could cut a
    // receiver off before the time it was promised, so they only back it up.
    const backstopMs = opts.timeoutMs + UNDICI_TIMER_SLACK_MS;
    this.agent = new Agent({
      connect: {
        timeout: backstopMs,
        lookup: guardedLookup(opts.allowedTargets, opts.resolve),
      },
      headersTimeout: backstopMs,
      bodyTimeout: backstopMs,
    });
  }

  async send(req: IpnRequest): Promise<AttemptOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const parsed = parseTargetUrl(req.url);
    if (!parsed.ok) return { httpStatus: 0, error: `target refused: ${parsed.reason}`, durationMs: 0, refused: true };
    const literal = checkLiteralHost(parsed.value, this.opts.allowedTargets);
    if (literal && !literal.ok)
      return { httpStatus: 0, error: `target refused: ${literal.reason}`, durationMs: 0, refused: true };
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
      const error = ok
        ? ''
        : status >= 300 && status <= 399
          ? `HTTP ${status} (redirects are not followed)`
          : `HTTP ${status}`;
      return { httpStatus: status, error, durationMs: elapsed(), refused: false };
    } catch (err) {
      return { httpStatus: 0, ...describeError(err, this.opts.timeoutMs), durationMs: elapsed() };
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
