/**
 * The schema box of a source or a static table: one column per line (`name type`) or one line of
 * Spark DDL, parsed into the spec by job-form.ts's one parser for both.
 */
import type { ReactNode } from 'react';
import { Field, type FieldIssue } from './field';

const SCHEMA_TYPES = 'Spark types: bigint, int, double, decimal(10,2), string, boolean, date, timestamp, binary, array<string>, map<string,bigint>, struct<x: double>; or one line of DDL: id BIGINT, price DECIMAL(10,2)';

export function SchemaField({ control, issues, value, onChange, note }: { control: string; issues: FieldIssue[]; value: string; onChange: (text: string) => void; note?: ReactNode }) {
  return (
    <Field label="Schema (one column per line: name type)" control={control} issues={issues} hint={note ? <>{note}; {SCHEMA_TYPES}</> : SCHEMA_TYPES}>
      <textarea rows={4} value={value} onChange={(e) => onChange(e.target.value)} />
    </Field>
  );
}
