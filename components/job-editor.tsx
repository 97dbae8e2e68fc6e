'use client';
/**
 * New and edit job. The form is checked live (debounced) against POST /api/jobs/draft-check:
 * errors land on their field (SQL errors at their line and column in the editor), the explain
 * and the output modes' legality update as the query changes, and the exactly-once audit is
 * shown next to the deploy button, so nobody deploys without seeing the guarantee they get.
 * Deploy = POST /api/jobs then POST /api/jobs/:id/start; editing = PUT /api/jobs/:id.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useEffect, useMemo, useState } from 'react';
import type { ConnectorCatalog } from '@/lib/server/connector-catalog';
import type { DraftCheck } from '@/lib/server/presenters/job-draft-presenter';
import { PreviewPanel } from './preview-panel';
import type { RestartCheck } from '@/lib/server/services/job-service';
import { apiFetch, ApiError, errorMessage } from './api-client';
import { ContractAudit } from './contract-audit';
import { ExplainPanel } from './explain-panel';
import { Field } from './field';
import {
  addedSourceName,
  addedStaticTable,
  controlsAfterRemoval,
  EMPTY_FORM,
  EMPTY_SOURCE,
  formControlOf,
  issueText,
  issueWhere,
  restartPolicyFromForm,
  sourcePath,
  specFromForm,
  type FormControl,
  type FormIssue,
  type JobForm,
  type OptionLabel,
  type PositionedIssue,
  type SourceField,
  type SourceForm,
  type StaticTableField,
  type StaticTableForm,
} from './job-form';
import { OptionFields } from './option-fields';
import { retypedOptionsJson } from './option-values';
import { ModeAdviceView, OutputModePicker } from './output-mode-picker';
import { queryKeys } from './query-keys';
import { SourcePanel } from './source-panel';
import { SqlEditor } from './sql-editor';
import { StaticTablesPanel } from './static-table-panel';
import { formatBytes } from './format';
import { MAX_SQL_BYTES } from '@/lib/engine/query/sql-limits';
import { useHydrated } from './use-hydrated';
import { roleAllows, useMe } from './use-me';

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

export function JobEditor({ mode, jobId, initial, connectors }: { mode: 'new' | 'edit'; jobId?: string; initial?: JobForm; connectors: ConnectorCatalog }) {
  const router = useRouter();
  const me = useMe();
  const hydrated = useHydrated();
  const [form, setForm] = useState<JobForm>(initial ?? EMPTY_FORM);
  // The controls the user has changed: a new job's empty fields are not errors until touched
  // (the Validation panel lists them as still to fill in). An edited job shows everything.
  const [touched, setTouched] = useState<ReadonlySet<FormControl>>(() => new Set());
  const touch = (k: FormControl) => setTouched((t) => (t.has(k) ? t : new Set([...t, k])));
  const set = <K extends Exclude<keyof JobForm, 'sources' | 'staticTables' | 'keep'>>(k: K, v: JobForm[K]) => {
    touch(k);
    setForm((f) => ({ ...f, [k]: v }));
  };
  const setSource = (i: number, field: SourceField, patch: Partial<SourceForm>) => {
    touch(`sources.${i}.${field}`);
    setForm((f) => ({ ...f, sources: f.sources.map((s, j) => (j === i ? { ...s, ...patch } : s)) }));
  };
  // A new source gets a name no other source has (FROM reads each by its name).
  const addSource = () => setForm((f) => ({ ...f, sources: [...f.sources, { ...EMPTY_SOURCE, name: addedSourceName(f.sources) }] }));
  const removeSource = (i: number) => {
    setForm((f) => ({ ...f, sources: f.sources.filter((_, j) => j !== i) }));
    // The sources after it move up one: so do the fields the user touched.
    setTouched((t) => controlsAfterRemoval(t, 'sources', i));
  };
  const setStaticTable = (i: number, field: StaticTableField, patch: Partial<StaticTableForm>) => {
    touch(`staticTables.${i}.${field}`);
    setForm((f) => ({ ...f, staticTables: f.staticTables.map((t, j) => (j === i ? { ...t, ...patch } : t)) }));
  };
  const addStaticTable = () => setForm((f) => ({ ...f, staticTables: [...f.staticTables, addedStaticTable(f)] }));
  const removeStaticTable = (i: number) => {
    setForm((f) => ({ ...f, staticTables: f.staticTables.filter((_, j) => j !== i) }));
    setTouched((t) => controlsAfterRemoval(t, 'staticTables', i));
  };
  const { spec, issues: specIssues } = useMemo(() => specFromForm(form), [form]);
  const restart = useMemo(() => restartPolicyFromForm(form), [form]);
  // Over the limit, the query is not sent to be checked (the API would refuse the whole body):
  // the Query field says so itself.
  const sqlBytes = useMemo(() => new TextEncoder().encode(form.sql).length, [form.sql]);
  const sqlTooLong = sqlBytes > MAX_SQL_BYTES;
  const sizeIssues: FormIssue[] = sqlTooLong
    ? [{ path: 'sql', message: `The query is ${formatBytes(sqlBytes)}; a query may be at most ${formatBytes(MAX_SQL_BYTES)}. Shorten it: put long lists of values in a static table and join with it.` }]
    : [];
  const formIssues = [...specIssues, ...restart.issues, ...sizeIssues];
  const specText = useDebounced(JSON.stringify(spec), 350);

  const check = useQuery({
    queryKey: queryKeys.draft(specText, mode === 'edit' ? jobId : undefined),
    // An edit is also checked against the job's checkpoint: the verdict a save would get.
    queryFn: ({ signal }) =>
      apiFetch<DraftCheck & { restartCheck?: RestartCheck | null }>('/api/jobs/draft-check', {
        method: 'POST',
        body: { spec: JSON.parse(specText), ...(mode === 'edit' && jobId ? { jobId } : {}) },
        signal,
      }),
    placeholderData: (prev) => prev,
    staleTime: 60_000,
    enabled: !sqlTooLong,
  });
  const stale = !sqlTooLong && (specText !== JSON.stringify(spec) || check.isFetching);
  const allErrors: PositionedIssue[] = [...formIssues, ...(check.data?.errors ?? [])];
  // Shown as an error: an issue of a control the user touched, or of no control (the output mode
  // follows from the query, so its legality always shows).
  const shown = (e: FormIssue) => {
    const control = formControlOf(e.path);
    return mode === 'edit' || !control || control === 'outputMode' || touched.has(control);
  };
  const errors = allErrors.filter(shown);
  const untouched = allErrors.filter((e) => !shown(e));
  const warnings = check.data?.warnings ?? [];
  const at = (prefix: string) => errors.filter((e) => e.path === prefix || e.path.startsWith(prefix + '.'));
  const sqlErrors = errors.filter((e) => e.path === 'sql');
  const claimed = new Set(['name', 'sql', 'outputMode', 'source', 'sources', 'staticTables', 'multipleWatermarkPolicy', 'sink', 'trigger', 'checkpointLocation', 'stateStore', 'restartPolicy']);
  const unplaced = errors.filter((e) => !claimed.has(e.path.split('.')[0]));
  const sinkConnector = connectors.sinks.find((c) => c.type === form.sinkType);
  const optionLabel: OptionLabel = (side, option, index) =>
    (side === 'source' ? connectors.sources.find((c) => c.type === form.sources[index]?.type) : sinkConnector)?.fields.find((f) => f.name === option)?.label;

  const save = useMutation({
    mutationFn: async (start: boolean) => {
      const body = { spec, description: form.description || null, restartPolicy: restart.policy };
      if (mode === 'edit' && jobId) {
        await apiFetch(`/api/jobs/${jobId}`, { method: 'PUT', body });
        return jobId;
      }
      const created = await apiFetch<{ job: { id: string } }>('/api/jobs', { method: 'POST', body });
      if (start) await apiFetch(`/api/jobs/${created.job.id}/start`, { method: 'POST' });
      return created.job.id;
    },
    onSuccess: (id) => {
      router.push(`/jobs/${id}`);
      router.refresh();
    },
  });

  // The second way out of an incompatible change: the edited spec as a new job, on a new checkpoint.
  const [copyName, setCopyName] = useState(`${form.name}-2`);
  const saveAsNew = useMutation({
    mutationFn: async () => {
      const { checkpointLocation: _old, ...rest } = spec as Record<string, unknown>;
      const body = { spec: { ...rest, name: copyName }, description: form.description || null, restartPolicy: restart.policy };
      return (await apiFetch<{ job: { id: string } }>('/api/jobs', { method: 'POST', body })).job.id;
    },
    onSuccess: (id) => {
      router.push(`/jobs/${id}`);
      router.refresh();
    },
  });
  const restartCheck = mode === 'edit' && !stale ? check.data?.restartCheck : undefined;
  const refusedOnSave = save.error instanceof ApiError && save.error.code === 'INCOMPATIBLE_QUERY_CHANGE';
  const incompatible = restartCheck?.compatible === false || refusedOnSave;

  const canSave = roleAllows(me.data?.role, 'admin');
  const valid = !!check.data?.ok && formIssues.length === 0 && !stale;
  // Why Preview (and Deploy) cannot run yet, in the form's words: next to the button, not a guess.
  const toFill = [...new Set([...errors, ...untouched].map((e) => issueWhere({ ...e, line: undefined }, optionLabel)))];
  const previewBlocked = valid
    ? null
    : sqlTooLong
      ? 'The query is over its size limit.'
      : stale || !check.data
        ? 'Checking the spec…'
        : toFill.length > 0
          ? `Needs a valid spec first: ${toFill.join(', ')}.`
          : 'Needs a valid spec first (see Validation).';
  // The engine previews a query over one source (query-preview.ts): said before the click, not after.
  const severalSources = form.sources.length > 1 ? 'A preview feeds one source, and this job reads several: save it without starting and run it over test data instead.' : null;
  const saveErrors = save.error instanceof ApiError ? ((save.error.details as { errors?: FormIssue[] } | undefined)?.errors ?? []) : [];

  return (
    <form
      aria-label={mode === 'new' ? 'New job' : 'Edit job'}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(mode === 'new');
      }}
    >
      {/* Disabled until hydrated: typing before React takes over the inputs would be lost. */}
      <fieldset className="plain editor-layout" disabled={!hydrated}>
        <div>
          <section className="panel" aria-label="Job">
            <h2>Job</h2>
            <div className="form-grid">
              <Field label="Name" issues={at('name')}>
                <input value={form.name} onChange={(e) => set('name', e.target.value)} required disabled={mode === 'edit'} />
              </Field>
              <Field label="Description" issues={[]}>
                <input value={form.description} onChange={(e) => set('description', e.target.value)} />
              </Field>
            </div>
          </section>

          <section className="panel" aria-label="Query" data-control="sql">
            <h2>Query</h2>
            <SqlEditor value={form.sql} onChange={(v) => set('sql', v)} problems={sqlErrors} describedBy="sql-problems" completion={check.data?.completion} />
            <div id="sql-problems" aria-live="polite">
              {sqlErrors.map((e, i) => (
                <p key={i} className="field-error" role="alert">
                  {e.line ? `Line ${e.line}, column ${e.column}: ` : ''}
                  {issueText(e)}
                </p>
              ))}
              {/* Only a query that compiled has operators: without them nothing was analysed. */}
              {check.data && sqlErrors.length === 0 && !stale && (check.data.operators.length > 0 ? <p className="small muted-text">The query analyses.</p> : <p className="small muted-text">The query is analysed once the source&apos;s schema is valid.</p>)}
            </div>
          </section>

          {form.sources.map((source, i) => (
            <SourcePanel
              key={i}
              source={source}
              index={i}
              count={form.sources.length}
              path={sourcePath(form, i)}
              connectors={connectors.sources}
              issuesAt={at}
              onChange={(field, patch) => setSource(i, field, patch)}
              onRemove={() => removeSource(i)}
            />
          ))}
          {/* Not a named region: "Source" would then match it as well as the source panel. */}
          <div className="panel">
            <div className="actions">
              <button type="button" onClick={addSource}>
                Add source
              </button>
              <span className="small muted-text">
                {form.sources.length === 1 ? 'A query over several streams (a join, a UNION ALL) reads each by its table name.' : `${form.sources.length} sources: the SQL reads each by its table name.`}
              </span>
            </div>
            {form.sources.length > 1 && (
              <div className="form-grid">
                <Field
                  label="Watermark of several sources"
                  control="multipleWatermarkPolicy"
                  issues={at('multipleWatermarkPolicy')}
                  hint="Spark's multipleWatermarkPolicy: min waits for the slowest source (no late data dropped that another source still sends), max follows the fastest. Recorded in the checkpoint when the job first starts; a later change is ignored."
                >
                  <select value={form.multipleWatermarkPolicy} onChange={(e) => set('multipleWatermarkPolicy', e.target.value as JobForm['multipleWatermarkPolicy'])}>
                    <option value="min">min: the slowest source (the default)</option>
                    <option value="max">max: the fastest source</option>
                  </select>
                </Field>
              </div>
            )}
          </div>

          <StaticTablesPanel tables={form.staticTables} issuesAt={at} onChange={setStaticTable} onAdd={addStaticTable} onRemove={removeStaticTable} />

          <section className="panel" aria-label="Sink">
            <h2>Sink</h2>
            <div className="form-grid">
              <Field label="Sink type" control="sinkType" issues={at('sink.type')}>
                <select
                  value={form.sinkType}
                  onChange={(e) => {
                    const t = e.target.value;
                    touch('sinkType');
                    setForm((f) => ({ ...f, sinkType: t, sinkOptionsJson: retypedOptionsJson(f.sinkOptionsJson, connectors.sinks.find((c) => c.type === t)?.fields) }));
                  }}
                >
                  {connectors.sinks.map((c) => (
                    <option key={c.type}>{c.type}</option>
                  ))}
                </select>
              </Field>
              <OptionFields label="sink" path="sink.options" connector={sinkConnector} json={form.sinkOptionsJson} onJson={(v) => set('sinkOptionsJson', v)} issues={at('sink.options')} />
            </div>
          </section>

          <section className="panel" aria-label="Trigger and checkpoint">
            <h2>Trigger and checkpoint</h2>
            <div className="form-grid">
              <Field
                label="Trigger"
                issues={at('trigger.type')}
                hint={form.triggerType === 'processing-time' ? 'A batch every interval.' : form.triggerType === 'available-now' ? 'What the source holds now, in batches, then stop.' : 'One batch, then stop (use available now).'}
              >
                {/* Short names, so that the select shows all of its choice in a grid column. */}
                <select value={form.triggerType} onChange={(e) => set('triggerType', e.target.value as JobForm['triggerType'])}>
                  <option value="processing-time">processing time</option>
                  <option value="available-now">available now</option>
                  <option value="once">once (deprecated)</option>
                </select>
              </Field>
              {form.triggerType === 'processing-time' && (
                <Field label="Trigger interval" issues={at('trigger.interval')}>
                  <input value={form.triggerInterval} onChange={(e) => set('triggerInterval', e.target.value)} />
                </Field>
              )}
              <Field label="Checkpoint location" control="checkpointLocation" issues={at('checkpointLocation')} hint="Empty: under the server's checkpoint root. s3://… survives machine loss.">
                <input value={form.checkpointLocation} title={form.checkpointLocation || undefined} onChange={(e) => set('checkpointLocation', e.target.value)} disabled={mode === 'edit'} />
              </Field>
              <Field
                label="State store"
                issues={at('stateStore')}
                hint={
                  form.stateStoreProvider === 'lmdb'
                    ? "On the worker's disk (LMDB), each batch's changes logged in the checkpoint: for state larger than the run's memory (millions of keys). A restart on the same worker reopens it at once; another worker rebuilds it from the checkpoint."
                    : "In the run's memory (Spark's HDFS-backed store, about 100 bytes a key): fastest while the state fits. Choose LMDB for millions of keys. A job's checkpoint keeps the store it started with."
                }
              >
                <select value={form.stateStoreProvider} onChange={(e) => set('stateStoreProvider', e.target.value as JobForm['stateStoreProvider'])}>
                  <option value="hdfs">in memory (HDFS-backed, the default)</option>
                  <option value="lmdb">on disk (LMDB)</option>
                </select>
              </Field>
              <Field
                label="State maintenance interval"
                control="maintenanceInterval"
                issues={at('stateStore.maintenanceInterval')}
                hint="How often snapshots of the state are written and old files deleted (Spark's stateStore.maintenanceInterval). Empty: 60 seconds. Shorter: faster restarts, more snapshot work."
              >
                <input value={form.maintenanceInterval} onChange={(e) => set('maintenanceInterval', e.target.value)} placeholder="60 seconds" />
              </Field>
              <Field label="Restarts after a failure" issues={at('restartPolicy.maxRestarts')} hint="Empty or 0: a failed run stays FAILED until someone starts it">
                <input inputMode="numeric" value={form.restartMax} onChange={(e) => set('restartMax', e.target.value)} placeholder="0" />
              </Field>
              <Field label="First restart delay (ms)" issues={at('restartPolicy.backoffMs')} hint="Doubles with each further restart">
                <input inputMode="numeric" value={form.restartBackoffMs} onChange={(e) => set('restartBackoffMs', e.target.value)} disabled={form.restartMax.trim() === '' || form.restartMax.trim() === '0'} />
              </Field>
            </div>
          </section>
        </div>

        <div>
          <section className="panel" aria-label="Validation">
            <h2>Validation</h2>
            {sqlTooLong ? (
              <p className="field-error" role="alert">
                Not checked: the query is over its size limit (see the Query field).
              </p>
            ) : check.isError ? (
              <div className="error-box" role="alert">
                Could not check the spec: {errorMessage(check.error)}
              </div>
            ) : !check.data ? (
              <p className="muted-text" role="status">
                Checking…
              </p>
            ) : (
              <div role="status" aria-live="polite">
                {stale ? (
                  <p className="small muted-text">Checking…</p>
                ) : allErrors.length === 0 ? (
                  <p>
                    <span className="badge ok">valid</span> Ready to deploy.
                  </p>
                ) : errors.length > 0 ? (
                  <p>
                    <span className="badge bad">{errors.length} problem{errors.length > 1 ? 's' : ''}</span>
                  </p>
                ) : null}
                <ul className="plain-list small issue-list">
                  {errors.map((e, i) => (
                    <li key={i} className="field-error">
                      <strong>{issueWhere(e, optionLabel)}</strong>: {e.path === 'outputMode' ? <ModeAdviceView reason={issueText(e)} /> : issueText(e)}
                    </li>
                  ))}
                  {warnings.map((w, i) => (
                    <li key={`w${i}`} className="field-warning">
                      <strong>{issueWhere(w, optionLabel)}</strong>: {issueText(w)}
                    </li>
                  ))}
                </ul>
                {untouched.length > 0 && (
                  <p className="small muted-text">
                    Still to fill in: {[...new Set(untouched.map((e) => issueWhere({ ...e, line: undefined }, optionLabel)))].join(', ')}.
                  </p>
                )}
                {unplaced.length > 0 && <p className="small">Fix the fields named above.</p>}
              </div>
            )}
          </section>
          <section className="panel" aria-label="Output mode">
            <OutputModePicker value={form.outputMode} onChange={(m) => set('outputMode', m)} verdicts={check.data?.modes} />
          </section>
          <ExplainPanel operators={check.data?.operators} optimizations={check.data?.optimizations} output={check.data?.outputColumns} sink={form.sinkType || undefined} />
          <PreviewPanel spec={spec} disabledReason={severalSources ?? previewBlocked} canReadSource={canSave || me.isLoading} />
          <ContractAudit contract={check.data?.contract} />
          <section className="panel" aria-label="Deploy">
            {!canSave && !me.isLoading && (
              <p className="small muted-text">
                {me.data ? `Signed in as ${me.data.name} (${me.data.role}): creating and editing jobs needs the admin role.` : 'Sign in as an admin to save jobs.'}{' '}
                {!me.data && <a href="/signin">Sign in</a>}
              </p>
            )}
            <div className="actions">
              {mode === 'new' ? (
                <>
                  <button type="submit" className="primary" disabled={!valid || !canSave || save.isPending}>
                    Deploy
                  </button>
                  <button type="button" disabled={!valid || !canSave || save.isPending} onClick={() => save.mutate(false)}>
                    Save without starting
                  </button>
                </>
              ) : (
                <button type="submit" className="primary" disabled={!valid || !canSave || save.isPending || restartCheck?.compatible === false}>
                  Save changes
                </button>
              )}
              <a className="button" href={jobId ? `/jobs/${jobId}` : '/'}>
                Cancel
              </a>
            </div>
            {mode === 'edit' && restartCheck?.compatible === true && restartCheck.checkpointHasBatches && (
              <p className="small muted-text" role="status">
                Checked against the job&apos;s checkpoint: it restarts with this change.
              </p>
            )}
            {incompatible && (
              <div className="error-box" role="alert" aria-label="Incompatible with the checkpoint">
                <p>{restartCheck?.message ?? errorMessage(save.error)}</p>
                <p>Revert the change to keep this job&apos;s state, or save it as a new job on a new checkpoint (it starts with empty state):</p>
                <div className="actions">
                  <label>
                    New job name
                    <input value={copyName} onChange={(e) => setCopyName(e.target.value)} />
                  </label>
                  <button type="button" disabled={!canSave || saveAsNew.isPending || !copyName.trim()} onClick={() => saveAsNew.mutate()}>
                    Save as a new job
                  </button>
                </div>
                {saveAsNew.isError && <p>{errorMessage(saveAsNew.error)}</p>}
              </div>
            )}
            {save.isError && !refusedOnSave && (
              <div className="error-box" role="alert">
                {errorMessage(save.error)}
                {saveErrors.length > 0 && (
                  <ul>
                    {saveErrors.map((e, i) => (
                      <li key={i}>
                        {issueWhere(e, optionLabel)}: {issueText(e)}
                      </li>
                    ))}
                  </ul>
                )}
              </div>
            )}
          </section>
        </div>
      </fieldset>
    </form>
  );
}
