'use client';
/**
 * The alerts page's client side: firing alerts, resolved history, the rules (admins may enable,
 * disable and delete them) and the create-rule form. Server data arrives prefetched; react-query
 * keeps it fresh by polling, and every write goes through the API (which checks the role).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { AlertRuleView, AlertView } from '@/lib/server/alerts/alert-view';
import { apiFetch, ApiError, errorMessage } from './api-client';
import { defaultParams, fieldsOf, KIND_OPTIONS, ruleParamsText, ruleRequestBody, type RuleFormValues, type RuleKind } from './alert-rule-form';
import { useHydrated } from './use-hydrated';
import { roleAllows, useMe } from './use-me';
import { actorName } from '@/lib/server/actor';
import { formatDateTime } from './format';
import { TableScroll } from './table-scroll';

const keys = { alerts: () => ['alerts', 'list'] as const, rules: () => ['alerts', 'rules'] as const };
const kindLabel = (k: string) => KIND_OPTIONS.find((o) => o.kind === k)?.label ?? k;

/** Firing alerts get an Acknowledge button (operators) or who acknowledged them. */
function AlertsTable({ label, alerts, onAcknowledge }: { label: string; alerts: AlertView[]; onAcknowledge?: (a: AlertView) => void }) {
  if (!alerts.length) return <p className="muted-text">None.</p>;
  const firing = alerts.some((a) => a.state === 'FIRING');
  return (
    <TableScroll label={label}>
      <table className="data" aria-label={label}>
        <thead>
          <tr>
            <th>State</th>
            <th>Job</th>
            <th>Rule</th>
            <th>Message</th>
            <th>Fired</th>
            <th>Resolved</th>
            {firing && <th>Acknowledged</th>}
          </tr>
        </thead>
        <tbody>
          {alerts.map((a) => (
            <tr key={a.id}>
              <td>
                <span className={`badge ${a.state === 'FIRING' ? 'bad' : 'ok'}`}>{a.state}</span>
              </td>
              <td>{a.jobId ? <a href={`/jobs/${a.jobId}`}>{a.jobName ?? a.jobId}</a> : 'all jobs'}</td>
              <td>
                {a.ruleName ?? '(deleted rule)'}
                <div className="muted-text small">{kindLabel(a.kind)}</div>
              </td>
              <td className="wrap-cell">{a.message}</td>
              <td className="small">{formatDateTime(a.firedAt)}</td>
              <td className="small">{a.resolvedAt ? formatDateTime(a.resolvedAt) : '—'}</td>
              {firing && (
                <td className="small">
                  {a.acknowledgedBy ? (
                    <>
                      by {actorName(a.acknowledgedBy)}
                      <div className="muted-text">{formatDateTime(a.acknowledgedAt)}</div>
                    </>
                  ) : onAcknowledge ? (
                    <button type="button" onClick={() => onAcknowledge(a)} aria-label={`Acknowledge the alert on ${a.jobName ?? 'all jobs'}: ${a.message}`}>
                      Acknowledge
                    </button>
                  ) : (
                    'not yet'
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

function RuleForm({ jobs, onCreated }: { jobs: { id: string; name: string }[]; onCreated: () => void }) {
  const [v, setV] = useState<RuleFormValues>({ name: '', kind: 'state-growth', jobId: '', params: defaultParams('state-growth'), webhookUrl: '', webhookSecret: '' });
  const create = useMutation({ mutationFn: () => apiFetch<AlertRuleView>('/api/alert-rules', { method: 'POST', body: ruleRequestBody(v) }), onSuccess: onCreated });
  const hydrated = useHydrated();
  const issues = create.error instanceof ApiError ? ((create.error.details as { issues?: { path: string; message: string }[] })?.issues ?? []) : [];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Create alert rule">
      <fieldset className="plain" disabled={!hydrated}>
        <div className="form-grid">
          <label>
            Rule name
            <input value={v.name} required onChange={(e) => setV({ ...v, name: e.target.value })} />
          </label>
          <label>
            Kind
            <select value={v.kind} onChange={(e) => setV({ ...v, kind: e.target.value as RuleKind, params: defaultParams(e.target.value as RuleKind) })}>
              {KIND_OPTIONS.map((o) => (
                <option key={o.kind} value={o.kind}>
                  {o.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Job
            <select value={v.jobId} onChange={(e) => setV({ ...v, jobId: e.target.value })}>
              <option value="">All jobs (global)</option>
              {jobs.map((j) => (
                <option key={j.id} value={j.id}>
                  {j.name}
                </option>
              ))}
            </select>
          </label>
          {fieldsOf(v.kind).map((f) => (
            <label key={f.name}>
              {f.label}
              <input inputMode="numeric" value={v.params[f.name] ?? ''} onChange={(e) => setV({ ...v, params: { ...v.params, [f.name]: e.target.value } })} />
              {f.hint ? <span className="muted-text small">{f.hint}</span> : null}
            </label>
          ))}
          <label>
            Webhook URL (optional)
            <input type="url" value={v.webhookUrl} onChange={(e) => setV({ ...v, webhookUrl: e.target.value })} placeholder="https://hooks.example.com/weir" />
          </label>
          <label>
            Webhook secret
            <input type="password" value={v.webhookSecret} onChange={(e) => setV({ ...v, webhookSecret: e.target.value })} autoComplete="off" />
          </label>
        </div>
        {create.error ? (
          <div className="error-box" role="alert">
            {errorMessage(create.error)}
            {issues.length ? (
              <ul>
                {issues.map((i) => (
                  <li key={i.path}>
                    {i.path}: {i.message}
                  </li>
                ))}
              </ul>
            ) : null}
          </div>
        ) : null}
        <p>
          <button type="submit" className="primary" disabled={create.isPending}>
            Create rule
          </button>
        </p>
      </fieldset>
    </form>
  );
}

export function AlertsPanel(props: { initialAlerts: AlertView[]; initialRules: AlertRuleView[]; jobs: { id: string; name: string }[] }) {
  const qc = useQueryClient();
  const me = useMe().data;
  const isAdmin = roleAllows(me?.role, 'admin');
  const alerts = useQuery({ queryKey: keys.alerts(), queryFn: async () => (await apiFetch<{ items: AlertView[] }>('/api/alerts?limit=200')).items, initialData: props.initialAlerts, refetchInterval: 3000 });
  const rules = useQuery({ queryKey: keys.rules(), queryFn: async () => (await apiFetch<{ items: AlertRuleView[] }>('/api/alert-rules')).items, initialData: props.initialRules });
  const refresh = () => void qc.invalidateQueries({ queryKey: ['alerts'] });
  const toggle = useMutation({ mutationFn: (r: AlertRuleView) => apiFetch(`/api/alert-rules/${r.id}`, { method: 'PUT', body: { enabled: !r.enabled } }), onSuccess: refresh });
  const remove = useMutation({ mutationFn: (r: AlertRuleView) => apiFetch(`/api/alert-rules/${r.id}`, { method: 'DELETE' }), onSuccess: refresh });
  const acknowledge = useMutation({ mutationFn: (a: AlertView) => apiFetch<AlertView>(`/api/alerts/${a.id}/acknowledge`, { method: 'POST' }), onSuccess: refresh });
  const canAcknowledge = roleAllows(me?.role, 'operator');
  const jobName = (id: string | null) => (id ? (props.jobs.find((j) => j.id === id)?.name ?? id) : 'All jobs (global)');
  const firing = alerts.data.filter((a) => a.state === 'FIRING');
  const resolved = alerts.data.filter((a) => a.state === 'RESOLVED');
  return (
    <>
      <section className="panel" aria-labelledby="firing-h">
        <h2 id="firing-h">Firing ({firing.length})</h2>
        <AlertsTable label="Firing alerts" alerts={firing} onAcknowledge={canAcknowledge ? (a) => acknowledge.mutate(a) : undefined} />
        {acknowledge.error ? (
          <div className="error-box" role="alert">
            Could not acknowledge: {errorMessage(acknowledge.error)}
          </div>
        ) : null}
      </section>
      <section className="panel" aria-labelledby="history-h">
        <h2 id="history-h">Resolved (history)</h2>
        <AlertsTable label="Resolved alerts" alerts={resolved} />
      </section>
      <section className="panel" aria-labelledby="rules-h">
        <h2 id="rules-h">Rules</h2>
        {rules.data.length === 0 ? (
          <p className="muted-text">No rules yet. Start with a global “State growing” rule: unbounded state is a slow leak with correct output.</p>
        ) : (
          <TableScroll label="Alert rules">
            <table className="data" aria-label="Alert rules">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Kind</th>
                  <th>Job</th>
                  <th>Params</th>
                  <th>Webhook</th>
                  <th>Enabled</th>
                  {isAdmin ? <th>Actions</th> : null}
                </tr>
              </thead>
              <tbody>
                {rules.data.map((r) => (
                  <tr key={r.id}>
                    <td>{r.name}</td>
                    <td>{kindLabel(r.kind)}</td>
                    <td>{jobName(r.jobId)}</td>
                    <td className="wrap-cell">
                      {ruleParamsText(r.kind, r.params)}
                    </td>
                    <td className="small wrap-cell">{r.webhookUrl ?? '—'}</td>
                    <td>{r.enabled ? 'yes' : 'no'}</td>
                    {isAdmin ? (
                      <td className="actions">
                        <button type="button" onClick={() => toggle.mutate(r)}>
                          {r.enabled ? 'Disable' : 'Enable'}
                        </button>
                        <button type="button" className="danger" onClick={() => remove.mutate(r)} aria-label={`Delete rule ${r.name}`}>
                          Delete
                        </button>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
        {toggle.error || remove.error ? (
          <div className="error-box" role="alert">
            {errorMessage(toggle.error ?? remove.error)}
          </div>
        ) : null}
      </section>
      <section className="panel" aria-labelledby="new-rule-h">
        <h2 id="new-rule-h">New rule</h2>
        {isAdmin ? <RuleForm jobs={props.jobs} onCreated={refresh} /> : <p className="muted-text">Creating rules needs the admin role{me ? '' : ': sign in first'}.</p>}
      </section>
    </>
  );
}
