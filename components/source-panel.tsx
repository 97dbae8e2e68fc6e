'use client';
/**
 * One source of the job editor: its type, the name the SQL reads it by, its options (as fields of
 * its type and as JSON), schema, event time and watermark delay. The editor shows one panel per
 * source; the fields are the same whether the spec writes the source as `source` or as one of
 * `sources`, only the issue paths (`path`) differ.
 */
import type { ConnectorInfo } from '@/lib/server/connector-catalog';
import { Field } from './field';
import { schemaTextForType, type FormIssue, type SourceField, type SourceForm } from './job-form';
import { OptionFields } from './option-fields';
import { retypedOptionsJson } from './option-values';
import { SchemaField } from './schema-field';

export function SourcePanel({
  source,
  index,
  count,
  path,
  connectors,
  issuesAt,
  onChange,
  onRemove,
}: {
  source: SourceForm;
  /** Its place in the spec's sources (offsets/N's order), from 0. */
  index: number;
  /** How many sources the job has: one is "Source" and cannot be removed. */
  count: number;
  /** Its spec path: `source`, or `sources.<index>`. */
  path: string;
  connectors: ConnectorInfo[];
  /** The shown issues under a spec path. */
  issuesAt: (path: string) => FormIssue[];
  /** Changes fields of this source; `field` is the control the user changed. */
  onChange: (field: SourceField, patch: Partial<SourceForm>) => void;
  onRemove: () => void;
}) {
  const connector = connectors.find((c) => c.type === source.type);
  const title = count === 1 ? 'Source' : `Source ${index + 1}`;
  // data-control names the field for links to it (output-mode advice): `sources.<i>.<field>`.
  const control = (f: SourceField) => `sources.${index}.${f}`;
  return (
    <section className="panel" aria-label={title}>
      <div className="panel-heading">
        <h2>
          {title}
          {count > 1 && source.name ? <span className="muted-text">: {source.name}</span> : null}
        </h2>
        {count > 1 && (
          <button type="button" onClick={onRemove} aria-label={`Remove source ${index + 1}${source.name ? ` (${source.name})` : ''}`}>
            Remove
          </button>
        )}
      </div>
      <div className="form-grid">
        <Field label="Source type" control={control('type')} issues={issuesAt(`${path}.type`)}>
          <select
            value={source.type}
            onChange={(e) => {
              const next = connectors.find((c) => c.type === e.target.value);
              onChange('type', { type: e.target.value, optionsJson: retypedOptionsJson(source.optionsJson, next?.fields), schemaText: schemaTextForType(source.schemaText, !!next?.defaultColumns) });
            }}
          >
            {connectors.map((c) => (
              <option key={c.type}>{c.type}</option>
            ))}
          </select>
        </Field>
        <Field label="Table name in SQL" control={control('name')} issues={issuesAt(`${path}.name`)}>
          <input value={source.name} onChange={(e) => onChange('name', { name: e.target.value })} />
        </Field>
        <OptionFields label="source" path={`${path}.options`} connector={connector} json={source.optionsJson} onJson={(v) => onChange('optionsJson', { optionsJson: v })} issues={issuesAt(`${path}.options`)} />
        <SchemaField
          control={control('schemaText')}
          issues={issuesAt(`${path}.schema`)}
          value={source.schemaText}
          onChange={(schemaText) => onChange('schemaText', { schemaText })}
          note={connector?.defaultColumns && `empty for the source's own columns (${connector.defaultColumns.map((c) => `${c.name} ${c.type}`).join(', ')})`}
        />
        <Field label="Event-time column" control={control('eventTime')} issues={issuesAt(`${path}.eventTime`)} hint="For a watermark: a timestamp column of the schema, or one the SQL selects (e.g. o.ts AS ts of a from_json struct); empty for none">
          <input value={source.eventTime} onChange={(e) => onChange('eventTime', { eventTime: e.target.value })} />
        </Field>
        <Field label="Watermark delay" control={control('watermarkDelay')} issues={issuesAt(`${path}.watermarkDelay`)} hint='e.g. "10 seconds", "1 hour 30 minutes" or "2 years 5 months" (a month counts as 31 days, as in Spark)'>
          <input value={source.watermarkDelay} onChange={(e) => onChange('watermarkDelay', { watermarkDelay: e.target.value })} />
        </Field>
        <Field label="Bad records" control={control('onBadRecord')} issues={[...issuesAt(`${path}.onBadRecord`), ...issuesAt(`${path}.badRecordsPath`)]}>
          <select value={source.onBadRecord} onChange={(e) => onChange('onBadRecord', { onBadRecord: e.target.value as SourceForm['onBadRecord'] })}>
            <option value="fail">fail the batch</option>
            <option value="dead-letter">dead-letter them</option>
          </select>
        </Field>
      </div>
    </section>
  );
}
