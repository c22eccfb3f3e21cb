import type { Logger } from '@paymesh/core';
import {
  BrokenCircuitError,
  circuitBreaker,
  ConsecutiveBreaker,
  ExponentialBackoff,
  handleWhen,
  retry,
  TaskCancelledError,
  timeout,
  TimeoutStrategy,
  type CircuitBreakerPolicy,
} from 'cockatiel';
import { z } from 'zod';
import { CLIENT_FAULTS, isMemberStateOutage, isRetryable, isServiceOutage, ViesFaultError } from './faults';

export interface ViesClientOptions {
  /** Base URL of the REST API, e.g. https://ec.europa.eu/taxation_customs/vies/rest-api */
  baseUrl: string;
  /** Time one check may take, retries included. */
  deadlineMs: number;
  /** How long a breaker stays open after an outage before one check may try again. */
  breakerMs: number;
  logger: Logger;
  /** Tries per check while VIES answers with a retryable fault (first try included). */
  maxAttempts?: number;
}

export interface ViesCheckRequest {
  countryCode: string;
  vatNumber: string;
  /** The asking business (the merchant); VIES then issues a consultation number. */
  requester?: { countryCode: string; vatNumber: string };
}

/** A VIES answer as received; empty strings (nothing to say) become null, `---` (withheld) is kept. */
export interface ViesAnswer {
  countryCode: string;
  vatNumber: string;
  valid: boolean;
  requestDate: string;
  requestIdentifier: string | null;
  name: string | null;
  address: string | null;
}

export type ViesOutcome = { ok: true; answer: ViesAnswer } | { ok: false; error: string };

/** What the VAT ID checker needs from VIES; never throws. */
export interface ViesPort {
  check(request: ViesCheckRequest): Promise<ViesOutcome>;
}

const checkResponse = z.object({
  countryCode: z.string(),
  vatNumber: z.string(),
  requestDate: z.string(),
  valid: z.boolean(),
  requestIdentifier: z.string().optional(),
  name: z.string().optional(),
  address: z.string().optional(),
});

const commonResponse = z.object({
  actionSucceed: z.literal(false).optional(),
  errorWrappers: z.array(z.object({ error: z.string() })).min(1),
});

const orNull = (s: string | undefined): string | null => (s === undefined || s.trim() === '' ? null : s);

/**
 * Client of the VIES on-the-Web REST API (`POST /check-vat-number`). Each check has one deadline
 * for all its tries; busy/unavailable faults are retried with backoff inside it. Two kinds of
 * circuit breaker keep a failing VIES from slowing callers: an outage of the service (or a missed
 * deadline, or no connection) opens the breaker for every check, a member state's fault
 * (MS_UNAVAILABLE, TIMEOUT, MS_MAX_CONCURRENT_REQ…) only that member state's. While a breaker is open
 * checks answer CIRCUIT_OPEN at once; after `breakerMs` one check tries VIES again.
 */
export class ViesClient implements ViesPort {
  private readonly service: CircuitBreakerPolicy;
  private readonly memberStates = new Map<string, CircuitBreakerPolicy>();

  constructor(private readonly opts: ViesClientOptions) {
    this.service = this.breaker(
      (e) => e instanceof TaskCancelledError || (e instanceof ViesFaultError && isServiceOutage(e.code)),
    );
  }

  async check(request: ViesCheckRequest): Promise<ViesOutcome> {
    const retrying = retry(
      handleWhen((e) => e instanceof ViesFaultError && isRetryable(e.code)),
      {
        maxAttempts: (this.opts.maxAttempts ?? 3) - 1,
        backoff: new ExponentialBackoff({ initialDelay: 100, maxDelay: 500 }),
      },
    );
    const deadline = timeout(this.opts.deadlineMs, TimeoutStrategy.Aggressive);
    const started = Date.now();
    let lastFault: string | undefined;
    const attempt = async (signal: AbortSignal): Promise<ViesAnswer> => {
      try {
        return await this.once(request, signal);
      } catch (err) {
        if (err instanceof ViesFaultError) lastFault = err.code;
        throw err;
      }
    };
    try {
      const answer = await this.service.execute(() =>
        this.memberState(request.countryCode).execute(() =>
          deadline.execute(({ signal }) => retrying.execute(({ signal: s }) => attempt(s), signal)),
        ),
      );
      return { ok: true, answer };
    } catch (err) {
      // A deadline that ran out while retrying a fault reports the fault.
      const error = err instanceof TaskCancelledError && lastFault !== undefined ? lastFault : faultCode(err);
      const log = { countryCode: request.countryCode, error, ms: Date.now() - started };
      if (error === CLIENT_FAULTS.circuitOpen) this.opts.logger.debug(log, 'VIES check skipped: breaker open');
      else this.opts.logger.warn(log, 'VIES check failed');
      return { ok: false, error };
    }
  }

  private memberState(countryCode: string): CircuitBreakerPolicy {
    let b = this.memberStates.get(countryCode);
    if (!b) {
      b = this.breaker((e) => e instanceof ViesFaultError && isMemberStateOutage(e.code));
      this.memberStates.set(countryCode, b);
    }
    return b;
  }

  private breaker(handles: (e: Error) => boolean): CircuitBreakerPolicy {
    return circuitBreaker(handleWhen(handles), {
      halfOpenAfter: this.opts.breakerMs,
      breaker: new ConsecutiveBreaker(1),
    });
  }

  /** One HTTP exchange: the answer, or a ViesFaultError. */
  private async once(request: ViesCheckRequest, signal: AbortSignal): Promise<ViesAnswer> {
    let res: Response;
    try {
      res = await fetch(`${this.opts.baseUrl}/check-vat-number`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          countryCode: request.countryCode,
          vatNumber: request.vatNumber,
          ...(request.requester
            ? { requesterMemberStateCode: request.requester.countryCode, requesterNumber: request.requester.vatNumber }
            : {}),
        }),
        signal,
      });
    } catch (err) {
      if (signal.aborted) throw err;
      throw new ViesFaultError(CLIENT_FAULTS.network);
    }
    let body: unknown;
    try {
      body = await res.json();
    } catch (err) {
      if (signal.aborted) throw err;
      throw new ViesFaultError(CLIENT_FAULTS.badResponse);
    }
    // A fault may come with 200 as well as 400 or 500: the body decides.
    const fault = commonResponse.safeParse(body);
    if (fault.success) throw new ViesFaultError(fault.data.errorWrappers[0]?.error ?? CLIENT_FAULTS.badResponse);
    const ok = checkResponse.safeParse(body);
    if (res.status !== 200 || !ok.success) throw new ViesFaultError(CLIENT_FAULTS.badResponse);
    const a = ok.data;
    return {
      countryCode: a.countryCode,
      vatNumber: a.vatNumber,
      valid: a.valid,
      requestDate: a.requestDate,
      requestIdentifier: orNull(a.requestIdentifier),
      name: orNull(a.name),
      address: orNull(a.address),
    };
  }
}

function faultCode(err: unknown): string {
  if (err instanceof ViesFaultError) return err.code;
  if (err instanceof BrokenCircuitError) return CLIENT_FAULTS.circuitOpen;
  if (err instanceof TaskCancelledError) return CLIENT_FAULTS.deadline;
  return CLIENT_FAULTS.network;
}
