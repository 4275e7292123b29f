// Errors the API answers with: an HTTP status and the body `{message, code}` (design.md).

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** Extra response headers (Retry-After ...). */
  readonly headers: Record<string, string>;
  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

export const badRequest = (message: string, code = 'invalid_request'): ApiError =>
  new ApiError(400, code, message);

export const notFound = (message: string, code = 'not_found'): ApiError => new ApiError(404, code, message);
