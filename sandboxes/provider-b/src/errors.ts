/** An error answer in the provider's format: `{status, title, detail, field?, _links}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    detail: string,
    readonly field?: string,
  ) {
    super(detail);
  }

  get body() {
    return {
      status: this.status,
      title: this.title,
      detail: this.message,
      ...(this.field ? { field: this.field } : {}),
      _links: { documentation: { href: 'https://docs.mollie.com/overview/handling-errors', type: 'text/html' } },
    };
  }
}

export const unprocessable = (detail: string, field?: string) =>
  new ApiError(422, 'Unprocessable Entity', detail, field);
export const notFound = (detail: string) => new ApiError(404, 'Not Found', detail);
export const unauthorized = () =>
  new ApiError(401, 'Unauthorized Request', 'Missing authentication, or failed to authenticate');
