'use client';
/**
 * The job editor's static tables (the spec's `staticTables`): the tables a query joins the stream
 * with (`FROM events e JOIN regions r ON e.region = r.code`), each a JSON-lines or CSV file or a
 * PostgreSQL table, read again at each batch with data as Spark re-reads a static DataFrame, or
 * once per run when cached (Spark's `.cache()`). One group of fields per table, its issues at
 * `staticTables.<i>.<field>`; the schema box is the sources' own.
 */
import { Field } from './field';
import { formControlOf, issueText, STATIC_TABLE_LABELS as LABEL, type FormIssue, type StaticTableField, type StaticTableForm } from './job-form';
import { SchemaField } from './schema-field';

function StaticTableFields({
  table,
  index,
  issuesAt,
  onChange,
  onRemove,
}: {
  table: StaticTableForm;
  index: number;
  issuesAt: (path: string) => FormIssue[];
  onChange: (field: StaticTableField, patch: Partial<StaticTableForm>) => void;
  onRemove: () => void;
}) {
  const path = `staticTables.${index}`;
  const title = `Static table ${index + 1}`;
  const control = (f: StaticTableField) => `${path}.${f}`;
  // A field's issues; `more` names spec fields shown on the same control.
  // In the form's words: the server's "staticTables.0.path resolves to …" names the field by its label.
  const at = (f: string) => issuesAt(`${path}.${f}`).map((e) => ({ message: issueText(e) }));
  // The table's issues no field of it shows (an unknown field of a spec written by hand).
  const own = issuesAt(path).filter((e) => !formControlOf(e.path)).map(issueText);
  return (
    <fieldset className="plain static-table" aria-label={title}>
      <div className="panel-heading">
        <h3>
          {title}
          {table.name ? <span className="muted-text">: {table.name}</span> : null}
        </h3>
        <button type="button" onClick={onRemove} aria-label={`Remove static table ${index + 1}${table.name ? ` (${table.name})` : ''}`}>
          Remove
        </button>
      </div>
      {own.map((text, k) => (
        <p key={k} className="field-error" role="alert">
          {text}
        </p>
      ))}
      <div className="form-grid">
        <Field label={LABEL.name} control={control('name')} issues={at('name')}>
          <input value={table.name} onChange={(e) => onChange('name', { name: e.target.value })} />
        </Field>
        <Field label={LABEL.type} control={control('type')} issues={at('type')}>
          <select value={table.type} onChange={(e) => onChange('type', { type: e.target.value as StaticTableForm['type'] })}>
            <option value="file">file (JSON lines or CSV)</option>
            <option value="postgres">PostgreSQL table</option>
          </select>
        </Field>
        {table.type === 'file' ? (
          <>
            <Field label={LABEL.path} control={control('path')} issues={at('path')} hint="A file under the server's files roots (WEIR_FILES_ROOTS; a relative path is taken under the first)">
              <input value={table.path} onChange={(e) => onChange('path', { path: e.target.value })} />
            </Field>
            <Field label={LABEL.format} control={control('format')} issues={at('format')}>
              <select value={table.format} onChange={(e) => onChange('format', { format: e.target.value as StaticTableForm['format'] })}>
                <option value="json">json (one object per line)</option>
                <option value="csv">csv</option>
              </select>
            </Field>
            {table.format === 'csv' && (
              <Field label={LABEL.header} control={control('header')} issues={at('header')} hint="Spark's header option; unchecked, the columns are the schema's in order">
                <input type="checkbox" checked={table.header !== false} onChange={(e) => onChange('header', { header: e.target.checked })} />
              </Field>
            )}
          </>
        ) : (
          <>
            <Field label={LABEL.connectionString} control={control('connectionString')} issues={at('connectionString')} hint="postgres://user:password@host:5432/db; kept as a secret: shown masked, and a masked value keeps the stored one">
              <input value={table.connectionString} onChange={(e) => onChange('connectionString', { connectionString: e.target.value })} autoComplete="off" />
            </Field>
            <Field label={LABEL.table} control={control('table')} issues={at('table')}>
              <input value={table.table} onChange={(e) => onChange('table', { table: e.target.value })} />
            </Field>
            <Field label={LABEL.dbSchema} control={control('dbSchema')} issues={at('dbSchema')} hint="empty for public">
              <input value={table.dbSchema} onChange={(e) => onChange('dbSchema', { dbSchema: e.target.value })} />
            </Field>
          </>
        )}
        <Field label={LABEL.cache} control={control('cache')} issues={at('cache')} hint="Spark's .cache(): unchecked, the table is read again at each batch with data (a file only when it changed), so updates join from the next batch">
          <input type="checkbox" checked={table.cache === true} onChange={(e) => onChange('cache', { cache: e.target.checked })} />
        </Field>
        <SchemaField control={control('schemaText')} issues={at('schema')} value={table.schemaText} onChange={(schemaText) => onChange('schemaText', { schemaText })} />
      </div>
    </fieldset>
  );
}

export function StaticTablesPanel({
  tables,
  issuesAt,
  onChange,
  onAdd,
  onRemove,
}: {
  tables: StaticTableForm[];
  /** The shown issues under a spec path. */
  issuesAt: (path: string) => FormIssue[];
  /** Changes fields of table `index`; `field` is the control the user changed. */
  onChange: (index: number, field: StaticTableField, patch: Partial<StaticTableForm>) => void;
  onAdd: () => void;
  onRemove: (index: number) => void;
}) {
  return (
    <section className="panel" aria-label="Static tables">
      <h2>Static tables</h2>
      {issuesAt('staticTables').filter((e) => e.path === 'staticTables').map((e, k) => (
        <p key={k} className="field-error" role="alert">
          {e.message}
        </p>
      ))}
      <p className="small muted-text">
        Tables the query joins the stream with (<code>FROM events e JOIN regions r ON e.region = r.code</code>), each by the name the SQL gives it, read again at each batch with data unless cached.
      </p>
      {tables.map((t, i) => (
        <StaticTableFields key={i} table={t} index={i} issuesAt={issuesAt} onChange={(field, patch) => onChange(i, field, patch)} onRemove={() => onRemove(i)} />
      ))}
      <div className="actions">
        <button type="button" onClick={onAdd}>
          Add static table
        </button>
      </div>
    </section>
  );
}
