/**
 * Next's start-up hook: the API validates every draft and preview on its event loop, and the SQL
 * parser's first parse in a process builds its prediction cache (about a second). It is paid
 * here, at server start, rather than by the first user who types a query.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { warmUpSparkParser } = await import('@/lib/engine');
  warmUpSparkParser();
}
