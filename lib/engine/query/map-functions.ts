/**
 * Spark's map functions (group map_funcs) that build, search and unfold maps (map_keys,
 * map_values, str_to_map, map_concat, map_from_arrays, map_from_entries, map_entries,
 * map_contains_key), and the map value's rules they share with map(…): a NULL key is refused,
 * and so is a duplicate one (Spark's default spark.sql.mapKeyDedupPolicy=EXCEPTION).
 *
 * A MAP value is a plain object from each key's text (map-keys.ts) to its value, built
 * with Object.fromEntries so that `__proto__` is an ordinary key. Why a plain object and not a
 * JS Map: every output of the engine (sinks, preview, the state codec) already writes plain
 * objects as JSON, as Spark's to_json writes a map; a Map would write as `{}` wherever a
 * conversion was forgotten. What it costs: keys are strings inside (map_keys reads them back as
 * the key type), and JavaScript orders integer-like keys ('1', '20') first in ascending order,
 * before the other keys in insertion order, where Spark keeps insertion order.
 */
import { RecordExpressionError } from '../errors';
import { isStr } from './function-args';
import type { CollectionFunctionDef } from './function-types';
import { fieldOfType, isMapKeyType, sameType, typeOfField, typeText, type TypeInfo } from './data-types';
import { splitString } from './regexp-functions';
import { mapKeyText, mapKeyValue } from './map-keys';

function fail(fn: string, msg: string): never {
  throw new RecordExpressionError(`${fn}: ${msg}`, { function: fn });
}

/** A map value from key/value pairs: Spark refuses a NULL key and, by default, a duplicate one. */
export function buildMap(fn: string, keys: unknown[], values: unknown[], keyType: TypeInfo): Record<string, unknown> {
  const entries: [string, unknown][] = [];
  const seen = new Set<string>();
  keys.forEach((k, i) => {
    if (k === null || k === undefined) fail(fn, '[NULL_MAP_KEY] Cannot use null as map key.');
    const text = mapKeyText(k, keyType);
    if (seen.has(text)) fail(fn, `[DUPLICATED_MAP_KEY] Duplicate map key ${text} was found, please check the input data (Spark's default spark.sql.mapKeyDedupPolicy=EXCEPTION).`);
    seen.add(text);
    entries.push([text, values[i] ?? null]);
  });
  return Object.fromEntries(entries);
}

const mapType = (k: TypeInfo, v: TypeInfo): TypeInfo => ({
  type: 'map',
  keyType: { ...fieldOfType('key', k.type === 'null' ? { type: 'string' } : k), nullable: false },
  valueType: fieldOfType('value', v.type === 'null' ? { type: 'string' } : v),
});
const isMap = (t: TypeInfo) => t.type === 'map' || t.type === 'null';
const isArr = (t: TypeInfo) => t.type === 'array' || t.type === 'null';
const elem = (t: TypeInfo): TypeInfo => (t.type === 'array' && t.elementType ? typeOfField(t.elementType) : { type: 'null' });
const keyOf = (m: TypeInfo) => typeOfField(m.keyType!);
const isNumber = (t: TypeInfo) => t.type === 'long' || t.type === 'double' || t.type === 'decimal';

/** A number's text as one value has one text: `1`, `1.0` and `1.00` are `1`; a double's exponent form its digits. */
function numberText(text: string): string {
  const plain = /^(-?)(\d+)(?:\.(\d*?)0*)?$/.exec(text);
  if (!plain) return String(Number(text));
  const [, sign, whole, frac] = plain;
  const digits = `${whole.replace(/^0+(?=\d)/, '')}${frac ? `.${frac}` : ''}`;
  return digits === '0' ? '0' : `${sign}${digits}`;
}
/** Spark's INVALID_MAP_KEY_TYPE: a MAP (or a type holding one) cannot key a map. */
const badKey = (fn: string, t: TypeInfo) => `${fn} cannot key a map by ${typeText(t)}: the input ${typeText(t)} is an invalid type for a map key (DATATYPE_MISMATCH.INVALID_MAP_KEY_TYPE)`;

export const MAP_FUNCTIONS: Record<string, CollectionFunctionDef> = {
  // Spark's MapContainsKey reads the key and the map's keys as their wider type
  // (findWiderTypeWithoutStringPromotion): a number is looked up among numeric keys by value,
  // map_contains_key(map(1, 'a'), 1.0) is true; a string beside a number is refused.
  map_contains_key: {
    min: 2, max: 2,
    type: (a) => {
      if (!isMap(a[0])) return `map_contains_key() takes (map, key), got ${typeText(a[0])}`;
      if (a[0].type === 'map' && a[1].type !== 'null' && keyOf(a[0]).type !== a[1].type && !(isNumber(keyOf(a[0])) && isNumber(a[1]))) {
        return `map_contains_key() takes a key of the map's key type ${typeText(keyOf(a[0]))}, got ${typeText(a[1])} (DATATYPE_MISMATCH.MAP_FUNCTION_DIFF_TYPES)`;
      }
      return { type: 'boolean' };
    },
    impl: ([m, k], t) => {
      const kt = keyOf(t[0]);
      // An array or struct key is written as the map's key type (its numbers as the map's), as element_at finds it.
      if (sameType(kt, t[1]) || !isNumber(kt)) return Object.hasOwn(m as object, mapKeyText(k, kt));
      const wanted = numberText(mapKeyText(k, t[1]));
      return Object.keys(m as object).some((key) => numberText(key) === wanted);
    },
  },
  // NULL when any map is NULL; a key in two maps is Spark's DUPLICATED_MAP_KEY.
  map_concat: {
    min: 0, max: 64, widenArgs: true,
    type: (a) => {
      if (a.length === 0) return mapType({ type: 'string' }, { type: 'string' });
      if (!a.every(isMap)) return `map_concat() takes maps, got ${a.map((t) => typeText(t)).join(', ')}`;
      // map() (MAP<VOID, VOID>, empty) widens to any map.
      const maps = a.filter((t) => t.type === 'map' && !(t.keyType?.void && t.valueType?.void));
      if (maps.some((t) => !sameType(t, maps[0]))) return `map_concat() takes maps of one type, got ${a.map((t) => typeText(t)).join(', ')}; CAST them to one type (DATATYPE_MISMATCH.DATA_DIFF_TYPES)`;
      return maps[0] ?? mapType({ type: 'string' }, { type: 'string' });
    },
    impl: (ms, _t, result) => {
      const keys: unknown[] = [];
      const values: unknown[] = [];
      const kt = keyOf(result);
      for (const m of ms as Record<string, unknown>[]) for (const [k, v] of Object.entries(m)) { keys.push(mapKeyValue(k, kt)); values.push(v); }
      return buildMap('map_concat()', keys, values, kt);
    },
  },
  map_from_arrays: {
    min: 2, max: 2,
    type: (a) => {
      if (!isArr(a[0]) || !isArr(a[1])) return `map_from_arrays() takes (array of keys, array of values), got ${typeText(a[0])} and ${typeText(a[1])}`;
      if (!isMapKeyType(elem(a[0]))) return badKey('map_from_arrays()', elem(a[0]));
      return mapType(elem(a[0]), elem(a[1]));
    },
    impl: ([ks, vs], _t, result) => {
      const keys = ks as unknown[], values = vs as unknown[];
      if (keys.length !== values.length) fail('map_from_arrays()', `The key array and value array of MapData must have the same length, got ${keys.length} and ${values.length}`);
      return buildMap('map_from_arrays()', keys, values, keyOf(result));
    },
  },
  // An array of two-field structs (key, value), as Spark's MapFromEntries; a NULL entry makes NULL.
  map_from_entries: {
    min: 1, max: 1,
    type: (a) => {
      const e = elem(a[0]);
      if (a[0].type === 'null') return mapType({ type: 'string' }, { type: 'string' });
      if (!isArr(a[0]) || e.type !== 'struct' || (e.fields ?? []).length !== 2) return `map_from_entries() takes an array of two-field structs (key, value), got ${typeText(a[0])}`;
      const [k, v] = e.fields!;
      if (!isMapKeyType(typeOfField(k))) return badKey('map_from_entries()', typeOfField(k));
      return mapType(typeOfField(k), typeOfField(v));
    },
    impl: ([arr], t, result) => {
      const [kf, vf] = elem(t[0]).fields!;
      const entries = arr as (Record<string, unknown> | null)[];
      if (entries.some((x) => x === null || x === undefined)) return null;
      return buildMap('map_from_entries()', entries.map((x) => x![kf.name]), entries.map((x) => x![vf.name]), keyOf(result));
    },
  },
  map_entries: {
    min: 1, max: 1,
    type: (a) => (a[0].type === 'map'
      ? { type: 'array', elementType: { name: 'element', type: 'struct', nullable: true, fields: [{ ...a[0].keyType!, name: 'key' }, { ...a[0].valueType!, name: 'value' }] } }
      : `map_entries() takes a map, got ${typeText(a[0])}`),
    impl: ([m], t) => {
      const kt = keyOf(t[0]);
      return Object.entries(m as Record<string, unknown>).map(([k, v]) => ({ key: mapKeyValue(k, kt), value: v ?? null }));
    },
  },
  map_keys: {
    min: 1, max: 1, type: (a) => (a[0].type === 'map' ? { type: 'array', elementType: { ...a[0].keyType!, name: 'element' } } : `map_keys() takes a map, got ${typeText(a[0])}`),
    impl: ([m], t) => {
      const kt = typeOfField(t[0].keyType!);
      return Object.keys(m as object).map((k) => mapKeyValue(k, kt));
    },
  },
  map_values: {
    min: 1, max: 1, type: (a) => (a[0].type === 'map' ? { type: 'array', elementType: { ...a[0].valueType!, name: 'element' } } : `map_values() takes a map, got ${typeText(a[0])}`),
    impl: ([m]) => Object.values(m as object),
  },
  // Spark: both delimiters are regular expressions; a pair without the key-value delimiter has a NULL value.
  str_to_map: {
    min: 1, max: 3,
    type: (a) => (a.every((t) => isStr(t.type)) ? { type: 'map', keyType: { name: 'key', type: 'string', nullable: false }, valueType: { name: 'value', type: 'string', nullable: true } } : 'str_to_map() takes (text[, pairDelim[, keyValueDelim]])'),
    impl: ([s, pd, kd]) => {
      const pairs = splitString(s as string, (pd as string | undefined) ?? ',', -1);
      const kv = pairs.map((p) => splitString(p, (kd as string | undefined) ?? ':', 2));
      return buildMap('str_to_map()', kv.map((x) => x[0]), kv.map((x) => x[1] ?? null), { type: 'string' });
    },
  },
};
