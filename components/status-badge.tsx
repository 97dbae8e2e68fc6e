const STATUS_TONE: Record<string, string> = {
  RUNNING: 'ok',
  STARTING: 'warn',
  PENDING: 'warn',
  RECOVERING: 'warn',
  STOPPING: 'warn',
  STOPPED: 'muted',
  FAILED: 'bad',
  /** A run only: its worker died while its job was asked to stop (lib/server/job-lifecycle.ts). */
  LOST: 'bad',
};

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge ${STATUS_TONE[status] ?? 'muted'}`}>{status}</span>;
}

const GUARANTEE_TONE: Record<string, string> = { 'exactly-once': 'ok', 'at-least-once': 'warn', 'at-most-once': 'bad' };

export function GuaranteeBadge({ guarantee }: { guarantee: string | null }) {
  if (!guarantee) return <span className="badge muted">not validated</span>;
  return <span className={`badge ${GUARANTEE_TONE[guarantee] ?? 'muted'}`}>{guarantee}</span>;
}
