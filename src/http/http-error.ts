/** An error that already knows its HTTP status; raised by the HTTP layer itself (auth, parsing). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
  }
}

export const unauthorized = (message: string) => new HttpError(401, message, { "www-authenticate": 'Bearer realm="atrium"' });
