/**
 * Test support: wait for a condition, never for a fixed time. A test that sleeps and then asserts
 * passes or fails with the machine's load; one that polls a condition is as fast as the code and
 * as patient as a loaded machine needs.
 *
 * `fn` is polled every `intervalMs` until it returns a truthy value, which `waitFor` returns. A
 * throw counts as "not yet" (the database or the process is not up yet); after `timeoutMs` the
 * wait fails naming `what` and the last value or error seen. The timeout catches a hang, not
 * slowness: keep it generous.
 */
export async function waitFor<T>(
  what: string,
  fn: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 45_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${String(last)})`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
