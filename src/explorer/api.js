// @ts-check
// The explorer's one way to read the public API.

export class ApiError extends Error {
  constructor(message, code, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

export async function getJson(path) {
  let response;
  try {
    response = await fetch(path, { headers: { accept: 'application/json' } });
  } catch {
    throw new ApiError('The Ferry API is unreachable. Check your connection, then retry.', null, 0);
  }
  let body = null;
  try {
    body = await response.json();
  } catch {}
  if (!response.ok) {
    const message =
      response.status === 429
        ? 'Too many requests for now: wait a minute, then retry.'
        : (body?.error ?? `The API answered HTTP ${response.status}.`);
    throw new ApiError(message, body?.code ?? null, response.status);
  }
  return body;
}
