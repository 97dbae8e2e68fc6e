/**
 * The browser's way to the API: same-origin fetch with the session cookie, JSON in and out, and
 * the API's `{error: {code, message, details}}` turned into an ApiError whose message is the
 * API's own (it says what to do next), so components show it as it is.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** A body that is JSON text already (its numbers as the user wrote them: JSON.parse would round a 64-bit id). */
export class JsonText {
  constructor(readonly text: string) {}
}

export async function apiFetch<T>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  const body = init.body instanceof JsonText ? init.body.text : init.body === undefined ? undefined : JSON.stringify(init.body);
  const res = await fetch(path, {
    method: init.method ?? 'GET',
    headers: body === undefined ? undefined : { 'content-type': 'application/json' },
    body,
    credentials: 'same-origin',
    signal: init.signal,
    cache: 'no-store',
  });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    throw new ApiError(res.status, 'BAD_RESPONSE', `The server answered ${res.status} with something that is not JSON; check the server log.`);
  }
  if (!res.ok) {
    const err = (json as { error?: { code?: string; message?: string; details?: unknown } } | undefined)?.error;
    throw new ApiError(res.status, err?.code ?? 'HTTP_' + res.status, err?.message ?? `Request failed with HTTP ${res.status}.`, err?.details);
  }
  return json as T;
}

/** The message to show for any thrown value. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
