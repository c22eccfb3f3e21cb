import type { FaultCode } from './faults';

/**
 * The fixed outcomes of the official VIES test service (`/check-vat-test-service`): the VAT
 * number alone decides, whatever the country code. Any other number answers SERVICE_UNAVAILABLE.
 * This sandbox also answers them on `/check-vat-number`.
 */
export const TEST_NUMBERS: Readonly<Record<string, { valid: boolean } | { fault: FaultCode }>> = {
  '100': { valid: true },
  '200': { valid: false },
  '201': { fault: 'INVALID_INPUT' },
  '202': { fault: 'INVALID_REQUESTER_INFO' },
  '300': { fault: 'SERVICE_UNAVAILABLE' },
  '301': { fault: 'MS_UNAVAILABLE' },
  '302': { fault: 'TIMEOUT' },
  '400': { fault: 'VAT_BLOCKED' },
  '401': { fault: 'IP_BLOCKED' },
  '500': { fault: 'GLOBAL_MAX_CONCURRENT_REQ' },
  '501': { fault: 'GLOBAL_MAX_CONCURRENT_REQ_TIME' },
  '600': { fault: 'MS_MAX_CONCURRENT_REQ' },
  '601': { fault: 'MS_MAX_CONCURRENT_REQ_TIME' },
};

/** Name and address the test service gives a valid test number. */
export const TEST_COMPANY = { name: 'VIES TEST SERVICE COMPANY', address: 'TEST STREET 1\n1000 TEST CITY' };
