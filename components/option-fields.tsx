'use client';
/**
 * A source's or a sink's options as fields, one per option of its type (from the connector
 * catalog the page passes in), over the options JSON text that the form keeps; the JSON itself
 * stays editable below the fields, for anything a field cannot say.
 */
import { useState } from 'react';
import type { ConnectorInfo, OptionField } from '@/lib/server/connector-catalog';
import { Field } from './field';
import { optionsObject, type FormIssue } from './job-form';
import { optionApplies, optionProblem, optionText, withOption } from './option-values';

/** A value as the field shows it; a value that shows as nothing (an empty list) as its JSON. */
const shown = (v: unknown, f: OptionField) => optionText(v, f) || JSON.stringify(v);

function hintOf(f: OptionField): string | undefined {
  const parts = [f.description];
  if (f.required) parts.push('required');
  else if (f.default !== undefined) parts.push(`default: ${shown(f.default, f)}`);
  if (f.kind === 'list') parts.push('comma-separated');
  if (f.secret) parts.push('secret: masked whenever the job is read back');
  const text = parts.filter(Boolean).join(' · ');
  return text || undefined;
}

/** The default, else an example, as the field would show it. */
function placeholderOf(f: OptionField): string | undefined {
  const v = f.default !== undefined ? f.default : f.example;
  return v === undefined ? undefined : shown(v, f);
}

export function OptionFields({
  connector,
  json,
  onJson,
  issues,
  label,
  path,
}: {
  connector: ConnectorInfo | undefined;
  json: string;
  onJson: (json: string) => void;
  /** The form's and the server's issues under `path`. */
  issues: FormIssue[];
  /** `source` or `sink`: names the JSON box. */
  label: 'source' | 'sink';
  /** The options' spec path: `source.options`, `sources.1.options`, `sink.options`. */
  path: string;
}) {
  // The text of the field being typed in: "a," in a list or "-" in a number is not a value yet,
  // so the field shows what was typed, not what the JSON made of it, until it loses focus.
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const options = optionsObject(json);
  const base = path;
  const fieldOf = (i: FormIssue) => (i.path.startsWith(`${base}.`) ? i.path.slice(base.length + 1).split('.')[0] : undefined);
  const withField = new Set(options !== null ? (connector?.fields.map((f) => f.name) ?? []) : []);
  // Issues of the options as a whole, or of an option without a field, go with the JSON box.
  const jsonIssues = issues.filter((i) => !withField.has(fieldOf(i) ?? ''));
  return (
    <>
      {connector && options === null && (
        <p className="field-error wide" role="alert">
          The options JSON below is not a JSON object: fix it there to edit the fields again.
        </p>
      )}
      {connector &&
        options !== null &&
        connector.fields
          .filter((f) => optionApplies(f, options, connector.fields))
          .map((f) => {
          const text = drafts[f.name] ?? optionText(options[f.name], f);
          const change = (t: string) => {
            setDrafts((d) => ({ ...d, [f.name]: t }));
            onJson(JSON.stringify(withOption(options, f, t), null, 2));
          };
          const blur = () =>
            setDrafts((d) => {
              const { [f.name]: _, ...rest } = d;
              return rest;
            });
          const problem = optionProblem(text, f);
          const own = [...(problem ? [{ message: problem }] : []), ...issues.filter((i) => fieldOf(i) === f.name)];
          const defaultLabel = f.default !== undefined ? `default (${shown(f.default, f)})` : '(not set)';
          return (
            <Field key={f.name} label={f.label} issues={own} hint={hintOf(f)}>
              {f.kind === 'enum' || f.kind === 'boolean' ? (
                <select value={text} onChange={(e) => change(e.target.value)}>
                  <option value="" disabled={f.required}>
                    {f.required ? 'choose…' : defaultLabel}
                  </option>
                  {(f.kind === 'enum' ? f.values! : ['true', 'false']).map((v) => (
                    <option key={v} value={v}>
                      {v}
                    </option>
                  ))}
                </select>
              ) : f.kind === 'json' ? (
                <textarea rows={2} value={text} onChange={(e) => change(e.target.value)} onBlur={blur} placeholder={placeholderOf(f)} />
              ) : (
                <input
                  value={text}
                  onChange={(e) => change(e.target.value)}
                  onBlur={blur}
                  inputMode={f.kind === 'integer' ? 'numeric' : undefined}
                  placeholder={placeholderOf(f)}
                  autoComplete="off"
                  spellCheck={false}
                />
              )}
            </Field>
          );
        })}
      <details className="wide options-json" open={!connector || options === null || jsonIssues.length > 0}>
        <summary>Options as JSON</summary>
        <Field label={`${label === 'source' ? 'Source' : 'Sink'} options (JSON)`} issues={jsonIssues}>
          <textarea rows={5} value={json} onChange={(e) => onJson(e.target.value)} spellCheck={false} />
        </Field>
      </details>
    </>
  );
}
