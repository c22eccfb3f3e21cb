/** An error answer in the provider's format: `{name, message, debug_id, details[]}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorName: string,
    message: string,
    readonly issue?: string,
    readonly field?: string,
  ) {
    super(message);
  }

  get body() {
    return {
      name: this.errorName,
      message: this.message,
      debug_id: Math.random().toString(16).slice(2, 15),
      ...(this.issue
        ? { details: [{ issue: this.issue, ...(this.field ? { field: this.field } : {}), description: this.message }] }
        : {}),
    };
  }
}

export const unprocessable = (issue: string, message: string, field?: string) =>
  new ApiError(422, 'UNPROCESSABLE_ENTITY', message, issue, field);
export const invalidRequest = (issue: string, message: string, field?: string) =>
  new ApiError(400, 'INVALID_REQUEST', message, issue, field);
export const notFound = (message: string) => new ApiError(404, 'RESOURCE_NOT_FOUND', message, 'INVALID_RESOURCE_ID');
export const unauthorized = () =>
  new ApiError(
    401,
    'AUTHENTICATION_FAILURE',
    'Authentication failed due to invalid authentication credentials or a missing Authorization header.',
  );
