import { randomBytes } from 'node:crypto';
import { type FaultCode, ViesFault } from './faults';
import { type Company, MASKING_COUNTRIES, SEED_COMPANIES, VIES_COUNTRY_CODES } from './seed';
import { TEST_COMPANY, TEST_NUMBERS } from './test-numbers';

/** Body of `/check-vat-number` and `/check-vat-test-service` (the REST `CheckVatRequest`). */
export interface CheckVatRequest {
  countryCode?: unknown;
  vatNumber?: unknown;
  requesterMemberStateCode?: unknown;
  requesterNumber?: unknown;
  traderName?: unknown;
  traderStreet?: unknown;
  traderPostalCode?: unknown;
  traderCity?: unknown;
  traderCompanyType?: unknown;
}

/** The REST `CheckVatResponse`. Empty strings where the service has nothing to say, as the live one. */
export interface CheckVatResponse {
  countryCode: string;
  vatNumber: string;
  requestDate: string;
  valid: boolean;
  requestIdentifier: string;
  name: string;
  address: string;
  traderName: string;
  traderStreet: string;
  traderPostalCode: string;
  traderCity: string;
  traderCompanyType: string;
  traderNameMatch: 'NOT_PROCESSED';
  traderStreetMatch: 'NOT_PROCESSED';
  traderPostalCodeMatch: 'NOT_PROCESSED';
  traderCityMatch: 'NOT_PROCESSED';
  traderCompanyTypeMatch: 'NOT_PROCESSED';
}

export type Endpoint = 'check-vat-number' | 'check-vat-test-service';

export interface LoggedRequest {
  at: string;
  endpoint: Endpoint;
  countryCode: string;
  vatNumber: string;
  requester: string | null;
  /** `valid`, `invalid` or the fault code answered. */
  outcome: string;
}

/** `up`: normal; `down`: every check answers `error`; `slow`: every check waits `delayMs` first. */
export interface Outage {
  mode: 'up' | 'down' | 'slow';
  delayMs: number;
  error: FaultCode;
  /** Member states affected (null: all). */
  countryCodes: string[] | null;
}

const MASK = '---';
const VALID_TEST_NUMBER = '100';
const LOG_LIMIT = 10_000;
const VAT_NUMBER = /^[0-9A-Za-z+*.]{2,12}$/;
const COUNTRY = /^[A-Z]{2}$/;

const keyOf = (countryCode: string, vatNumber: string): string => `${countryCode}${vatNumber.toUpperCase()}`;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const healthy = (): Outage => ({ mode: 'up', delayMs: 0, error: 'SERVICE_UNAVAILABLE', countryCodes: null });

/** State of one sandbox process: the register, the outage switch and the request log. */
export class ViesSandbox {
  private readonly registry = new Map<string, Company>();
  private readonly counts = new Map<string, number>();
  private readonly log: LoggedRequest[] = [];
  private outageState: Outage = healthy();

  constructor(private readonly now: () => Date = () => new Date()) {
    this.reset();
  }

  /** Back to the seeded register, no outage, an empty request log. */
  reset(): void {
    this.registry.clear();
    for (const c of SEED_COMPANIES) this.registry.set(keyOf(c.countryCode, c.vatNumber), { ...c });
    this.counts.clear();
    this.log.length = 0;
    this.outageState = healthy();
  }

  register(company: Company): Company {
    const entry = { ...company, vatNumber: company.vatNumber.toUpperCase() };
    this.registry.set(keyOf(entry.countryCode, entry.vatNumber), entry);
    return entry;
  }

  deregister(countryCode: string, vatNumber: string): boolean {
    return this.registry.delete(keyOf(countryCode, vatNumber));
  }

  registered(): Company[] {
    return [...this.registry.values()];
  }

  get outage(): Outage {
    return { ...this.outageState };
  }

  setOutage(outage: Outage): void {
    this.outageState = { ...outage };
  }

  /** Whether the outage switch affects a member state's checks. */
  affects(countryCode: string): boolean {
    const o = this.outageState;
    return o.mode !== 'up' && (o.countryCodes === null || o.countryCodes.includes(countryCode));
  }

  /** How long to hold a check of this member state before answering. */
  delayFor(countryCode: string): number {
    return this.outageState.mode === 'slow' && this.affects(countryCode) ? this.outageState.delayMs : 0;
  }

  requests(vatId?: string): { total: number; counts: Record<string, number>; data: LoggedRequest[] } {
    const data = vatId
      ? this.log.filter((r) => keyOf(r.countryCode, r.vatNumber) === vatId.toUpperCase())
      : [...this.log];
    const counts = Object.fromEntries([...this.counts].filter(([k]) => !vatId || k === vatId.toUpperCase()));
    return { total: data.length, counts, data };
  }

  /**
   * `/check-vat-number`: the test numbers first, then the outage switch, the requester and the
   * register. Throws ViesFault for a fault answer.
   */
  checkVatNumber(body: CheckVatRequest): CheckVatResponse {
    const { countryCode, vatNumber } = this.input('check-vat-number', body);
    return this.logged('check-vat-number', body, () => {
      const test = TEST_NUMBERS[vatNumber];
      if (test) return this.testAnswer(body, test);
      if (this.outageState.mode === 'down' && this.affects(countryCode)) throw new ViesFault(this.outageState.error);
      const requestIdentifier = this.requesterIdentifier(body);
      const company = this.registry.get(keyOf(countryCode, vatNumber));
      const masked = MASKING_COUNTRIES.has(countryCode);
      return this.answer(
        body,
        company !== undefined,
        requestIdentifier,
        company && !masked ? company : { name: MASK, address: MASK },
      );
    });
  }

  /** `/check-vat-test-service`: only the official test numbers; any other number is SERVICE_UNAVAILABLE. */
  checkVatTestService(body: CheckVatRequest): CheckVatResponse {
    const { vatNumber } = this.input('check-vat-test-service', body);
    return this.logged('check-vat-test-service', body, () => {
      const test = TEST_NUMBERS[vatNumber];
      if (!test) throw new ViesFault('SERVICE_UNAVAILABLE');
      return this.testAnswer(body, test);
    });
  }

  /** `/check-status`: availability of the service and of each member state's register. */
  status(): {
    vow: { available: boolean };
    countries: { countryCode: string; availability: 'Available' | 'Unavailable' }[];
  } {
    const globalDown = this.outageState.mode === 'down' && this.outageState.countryCodes === null;
    return {
      vow: { available: !globalDown },
      countries: [...VIES_COUNTRY_CODES].map((countryCode) => ({
        countryCode,
        availability: this.outageState.mode === 'down' && this.affects(countryCode) ? 'Unavailable' : 'Available',
      })),
    };
  }

  private input(endpoint: Endpoint, body: CheckVatRequest): { countryCode: string; vatNumber: string } {
    const countryCode = str(body.countryCode);
    const vatNumber = str(body.vatNumber);
    if (!COUNTRY.test(countryCode) || !VIES_COUNTRY_CODES.has(countryCode) || !VAT_NUMBER.test(vatNumber)) {
      this.record(endpoint, body, 'INVALID_INPUT');
      throw new ViesFault('INVALID_INPUT');
    }
    return { countryCode, vatNumber: vatNumber.toUpperCase() };
  }

  private logged(endpoint: Endpoint, body: CheckVatRequest, answer: () => CheckVatResponse): CheckVatResponse {
    try {
      const res = answer();
      this.record(endpoint, body, res.valid ? 'valid' : 'invalid');
      return res;
    } catch (err) {
      if (err instanceof ViesFault) this.record(endpoint, body, err.code);
      throw err;
    }
  }

  private record(endpoint: Endpoint, body: CheckVatRequest, outcome: string): void {
    const countryCode = str(body.countryCode);
    const vatNumber = str(body.vatNumber).toUpperCase();
    const requester = str(body.requesterMemberStateCode) + str(body.requesterNumber);
    const key = keyOf(countryCode, vatNumber);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    this.log.push({
      at: this.now().toISOString(),
      endpoint,
      countryCode,
      vatNumber,
      requester: requester || null,
      outcome,
    });
    if (this.log.length > LOG_LIMIT) this.log.shift();
  }

  private testAnswer(body: CheckVatRequest, test: { valid: boolean } | { fault: FaultCode }): CheckVatResponse {
    if ('fault' in test) throw new ViesFault(test.fault);
    const requestIdentifier = this.hasRequester(body) ? newRequestIdentifier() : '';
    return this.answer(body, test.valid, requestIdentifier, test.valid ? TEST_COMPANY : { name: MASK, address: MASK });
  }

  private hasRequester(body: CheckVatRequest): boolean {
    return str(body.requesterMemberStateCode) !== '' || str(body.requesterNumber) !== '';
  }

  /**
   * A consultation number only when the requester identifies itself, and only for a requester
   * whose own VAT number is registered (or the valid test number); otherwise INVALID_REQUESTER_INFO.
   */
  private requesterIdentifier(body: CheckVatRequest): string {
    if (!this.hasRequester(body)) return '';
    const cc = str(body.requesterMemberStateCode);
    const number = str(body.requesterNumber).toUpperCase();
    const known =
      VIES_COUNTRY_CODES.has(cc) &&
      VAT_NUMBER.test(number) &&
      (this.registry.has(keyOf(cc, number)) || number === VALID_TEST_NUMBER);
    if (!known) throw new ViesFault('INVALID_REQUESTER_INFO');
    return newRequestIdentifier();
  }

  private answer(
    body: CheckVatRequest,
    valid: boolean,
    requestIdentifier: string,
    who: { name: string; address: string },
  ): CheckVatResponse {
    return {
      countryCode: str(body.countryCode),
      vatNumber: str(body.vatNumber),
      requestDate: this.now().toISOString(),
      valid,
      requestIdentifier,
      name: who.name,
      address: who.address,
      traderName: str(body.traderName),
      traderStreet: str(body.traderStreet),
      traderPostalCode: str(body.traderPostalCode),
      traderCity: str(body.traderCity),
      traderCompanyType: str(body.traderCompanyType),
      traderNameMatch: 'NOT_PROCESSED',
      traderStreetMatch: 'NOT_PROCESSED',
      traderPostalCodeMatch: 'NOT_PROCESSED',
      traderCityMatch: 'NOT_PROCESSED',
      traderCompanyTypeMatch: 'NOT_PROCESSED',
    };
  }
}

/** A consultation number in the live service's style: `WAPI` and 12 letters and digits. */
function newRequestIdentifier(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return `WAPI${[...randomBytes(12)].map((b) => alphabet[b % alphabet.length]).join('')}`;
}
