/**
 * Why a VIES check gave no answer. VIES's own fault codes (INVALID_INPUT, MS_UNAVAILABLE, …) pass
 * through as they are; these are the client's own.
 */
export const CLIENT_FAULTS = {
  /** No answer within VIES_DEADLINE_MS (retries included). */
  deadline: 'DEADLINE_EXCEEDED',
  /** VIES could not be reached (connection refused or reset, DNS). */
  network: 'NETWORK_ERROR',
  /** An answer that is neither a check result nor a VIES fault. */
  badResponse: 'BAD_RESPONSE',
  /** VIES failed moments ago (see the circuit breaker); not asked again yet. */
  circuitOpen: 'CIRCUIT_OPEN',
} as const;

/** Faults worth another try within the deadline (VIES's busy and unavailable answers). */
const RETRYABLE: ReadonlySet<string> = new Set([
  'SERVICE_UNAVAILABLE',
  'MS_UNAVAILABLE',
  'TIMEOUT',
  'SERVER_BUSY',
  'GLOBAL_MAX_CONCURRENT_REQ',
  'GLOBAL_MAX_CONCURRENT_REQ_TIME',
  'MS_MAX_CONCURRENT_REQ',
  'MS_MAX_CONCURRENT_REQ_TIME',
]);

/** Faults of one member state's register: they open that member state's breaker only. */
const MEMBER_STATE: ReadonlySet<string> = new Set([
  'MS_UNAVAILABLE',
  'TIMEOUT',
  'MS_MAX_CONCURRENT_REQ',
  'MS_MAX_CONCURRENT_REQ_TIME',
]);

/**
 * Faults that say nothing about VIES's health (bad input, a blocked number, an unknown requester):
 * they never open a breaker.
 */
const REQUEST_SPECIFIC: ReadonlySet<string> = new Set(['INVALID_INPUT', 'INVALID_REQUESTER_INFO', 'VAT_BLOCKED']);

export const isRetryable = (code: string): boolean => RETRYABLE.has(code);
export const isMemberStateOutage = (code: string): boolean => MEMBER_STATE.has(code);
/** Faults that mean VIES as a whole is unavailable to us (also IP_BLOCKED and unknown codes). */
export const isServiceOutage = (code: string): boolean => !MEMBER_STATE.has(code) && !REQUEST_SPECIFIC.has(code);

/** A check that ended without a result; `code` is a VIES fault code or one of CLIENT_FAULTS. */
export class ViesFaultError extends Error {
  constructor(readonly code: string) {
    super(`VIES: ${code}`);
    this.name = 'ViesFaultError';
  }
}
