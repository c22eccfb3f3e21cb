/**
 * VIES fault codes (the SOAP fault strings, which the REST API returns as `errorWrappers[].error`),
 * with the HTTP status this sandbox answers them with. The REST contract allows 400 and 500 bodies
 * of shape `{actionSucceed:false, errorWrappers}`, and the live service also sends that body with a
 * 200 for member-state faults, so a client has to look at the body whatever the status.
 */
export const FAULTS = {
  INVALID_INPUT: { status: 400, message: 'The provided CountryCode is invalid or the VAT number is empty' },
  INVALID_REQUESTER_INFO: { status: 400, message: 'The requester VAT number is invalid' },
  SERVICE_UNAVAILABLE: {
    status: 500,
    message: 'An error was encountered either at the network level or the Web application level, try again later',
  },
  MS_UNAVAILABLE: { status: 200, message: 'The application at the Member State is not replying or not available' },
  TIMEOUT: {
    status: 500,
    message: 'The application did not receive a reply within the allocated time period, try again later',
  },
  VAT_BLOCKED: { status: 400, message: 'The VAT number is blocked for checks' },
  IP_BLOCKED: { status: 400, message: 'The IP address of the requester is blocked' },
  GLOBAL_MAX_CONCURRENT_REQ: {
    status: 500,
    message: 'The maximum number of concurrent requests has been reached; re-submit your request later',
  },
  GLOBAL_MAX_CONCURRENT_REQ_TIME: {
    status: 500,
    message: 'The maximum number of requests per time unit has been reached; re-submit your request later',
  },
  MS_MAX_CONCURRENT_REQ: {
    status: 200,
    message:
      'The maximum number of concurrent requests for this Member State has been reached; re-submit your request later',
  },
  MS_MAX_CONCURRENT_REQ_TIME: {
    status: 200,
    message:
      'The maximum number of requests per time unit for this Member State has been reached; re-submit your request later',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type FaultCode = keyof typeof FAULTS;
export const FAULT_CODES = Object.keys(FAULTS) as [FaultCode, ...FaultCode[]];

/** The REST API's error body (`CommonResponse`). */
export interface CommonResponse {
  actionSucceed: false;
  errorWrappers: { error: FaultCode; message: string }[];
}

export function faultBody(code: FaultCode): CommonResponse {
  return { actionSucceed: false, errorWrappers: [{ error: code, message: FAULTS[code].message }] };
}

/** Thrown by request handling; the server turns it into the fault's status and body. */
export class ViesFault extends Error {
  constructor(readonly code: FaultCode) {
    super(code);
    this.name = 'ViesFault';
  }
}
