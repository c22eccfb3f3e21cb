/** An error answer in the provider's format: `{error: {message, type, code, errors[], request_id}}`. */
export type ErrorType = 'invalid_api_usage' | 'invalid_state' | 'validation_failed' | 'gocardless';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    message: string,
    readonly reason: string,
    readonly field?: string,
    readonly links?: Record<string, string>,
  ) {
    super(message);
  }

  body(requestId: string) {
    return {
      error: {
        message: this.message,
        type: this.type,
        code: this.status,
        documentation_url: `https://developer.gocardless.com/api-reference#${this.reason}`,
        request_id: requestId,
        errors: [
          {
            reason: this.reason,
            message: this.message,
            ...(this.field ? { field: this.field } : {}),
            ...(this.links ? { links: this.links } : {}),
          },
        ],
      },
    };
  }
}

export const validationFailed = (message: string, field: string) =>
  new ApiError(422, 'validation_failed', message, 'invalid', field);
export const invalidState = (message: string, reason: string) => new ApiError(422, 'invalid_state', message, reason);
export const notFound = (message: string) => new ApiError(404, 'invalid_api_usage', message, 'resource_not_found');
export const unauthorized = () =>
  new ApiError(
    401,
    'invalid_api_usage',
    "The access token you've used is not a valid sandbox API access token",
    'unauthorized',
  );
