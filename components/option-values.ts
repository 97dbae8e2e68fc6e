/**
 * Source and sink options edited through fields (one per option of the type, from
 * lib/server/connector-catalog.ts) on top of the options JSON, which stays the one state: a field
 * shows its option as text and writes the text back as the option's JSON type. Text that is not
 * of the field's type is kept as the text, never dropped, so the server's validation names the
 * field; an emptied field removes the option, so its default applies.
 */
import type { OptionField } from '@/lib/server/connector-catalog';
import { optionsObject } from './job-form';

type Obj = Record<string, unknown>;

/** The field's text for an option value (absent: empty). */
export function optionText(value: unknown, f: OptionField): string {
  if (value === undefined || value === null) return '';
  if (f.kind === 'list' && Array.isArray(value)) return value.join(', ');
  if (typeof value === 'string') return value;
  if (f.kind === 'json' || typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The option value a field's text stands for (undefined: remove the option). */
export function optionValue(text: string, f: OptionField): unknown {
  const t = text.trim();
  if (t === '') return undefined;
  switch (f.kind) {
    case 'integer':
    case 'number': {
      const n = Number(t);
      return Number.isFinite(n) && (f.kind === 'number' || Number.isInteger(n)) ? n : text;
    }
    case 'boolean':
      return t === 'true' ? true : t === 'false' ? false : text;
    case 'list':
      return t
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x !== '');
    case 'json':
      try {
        return JSON.parse(t);
      } catch {
        return text;
      }
    // Every member listed, so that a new one is a lint error until it is handled here.
    case 'enum': case 'string':
    default:
      return text;
  }
}

/** A problem the form can see in a field's text before the server does (wrong type). */
export function optionProblem(text: string, f: OptionField): string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  if ((f.kind === 'integer' || f.kind === 'number') && typeof optionValue(text, f) !== 'number') {
    return f.kind === 'integer' ? 'must be a whole number' : 'must be a number';
  }
  if (f.kind === 'json' && typeof optionValue(text, f) === 'string') return 'must be JSON, e.g. {"X-Team": "data"}';
  return undefined;
}

/** The options with one field set from its text (a copy; key order kept, a new key last). */
export function withOption(options: Obj, f: OptionField, text: string): Obj {
  const v = optionValue(text, f);
  const out: Obj = { ...options };
  if (v === undefined) delete out[f.name];
  else out[f.name] = v;
  return out;
}

/**
 * Options carried over when the type changes: those the new type also has, so switching
 * postgres → postgres-upsert keeps the connection string and the table.
 */
function carryOptions(options: Obj, fields: OptionField[]): Obj {
  const names = new Set(fields.map((f) => f.name));
  return Object.fromEntries(Object.entries(options).filter(([k]) => names.has(k)));
}

/** Options JSON text after its type changes: the options the new type shares (the connection string, the table) carried. */
export const retypedOptionsJson = (json: string, fields: OptionField[] = []): string => JSON.stringify(carryOptions(optionsObject(json) ?? {}, fields), null, 2);

/**
 * Whether an option means something for the other options chosen (its `appliesWhen`): a CSV
 * header is hidden while the format is json. An unset option counts as its default.
 */
export function optionApplies(f: OptionField, options: Obj, fields: OptionField[]): boolean {
  if (!f.appliesWhen) return true;
  return Object.entries(f.appliesWhen).every(([name, values]) => {
    const v = options[name] ?? fields.find((x) => x.name === name)?.default;
    return values.includes(String(v));
  });
}
