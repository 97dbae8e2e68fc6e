/**
 * Spark's data type syntax to DataType values: the `dataType` rule of the grammar (casts,
 * `x :: type`), type strings (`LONG` is bigint, `SHORT` smallint, `BYTE` tinyint, `INTEGER` int,
 * `REAL` float, `DEC`/`NUMERIC` decimal) and DDL schema strings (`id BIGINT, tags ARRAY<STRING>,
 * a INT NOT NULL COMMENT '…'`), following Spark's AstBuilder.visitPrimitiveDataType and
 * `StructType.fromDDL` (a column list first, then a single type).
 * Part of the Spark SQL front end (see unresolved-plan.ts).
 */
import { SqlValidationError } from '../sql-error';
import {
  ArrayType, BinaryType, BooleanType, ByteType, CalendarIntervalType, DateType, DayTimeIntervalType, DecimalType,
  DataTypeError, DoubleType, FloatType, IntegerType, LongType, MapType, NullType, ShortType, StringType, StructField,
  StructType, TimestampNTZType, VariantType, TimestampType, YearMonthIntervalType, intervalField,
} from './data-type';
import type { DataType } from './data-type';
import { identifierText } from './identifiers';
import { unescapeSqlString } from './literals';
import { parseSpark } from './spark-parser';
import type { Ctx, SourceText } from './spark-parser';

type DataTypeContext = InstanceType<typeof Ctx.DataTypeContext>;
type ColTypeListContext = InstanceType<typeof Ctx.ColTypeListContext>;

const PRIMITIVE: Record<string, DataType> = {
  boolean: BooleanType, tinyint: ByteType, byte: ByteType, smallint: ShortType, short: ShortType,
  int: IntegerType, integer: IntegerType, bigint: LongType, long: LongType, float: FloatType, real: FloatType,
  double: DoubleType, date: DateType, timestamp: TimestampType, timestamp_ltz: TimestampType,
  timestamp_ntz: TimestampNTZType, string: StringType, binary: BinaryType, void: NullType, interval: CalendarIntervalType,
  variant: VariantType,
};

function typeError(message: string, errorClass: string, ctx: DataTypeContext, text: SourceText): SqlValidationError {
  return new SqlValidationError(`[${errorClass}] ${message}`, text.span(ctx.start!, ctx.stop), 'type', errorClass);
}

/** A `dataType` parse tree as a DataType (Spark's visitPrimitiveDataType and visitComplexDataType). */
export function dataTypeOf(ctx: DataTypeContext, text: SourceText): DataType {
  const complex = ctx._complex?.text?.toUpperCase();
  if (complex === 'ARRAY') return ArrayType(dataTypeOf(ctx.dataType(0)!, text));
  if (complex === 'MAP') return MapType(dataTypeOf(ctx.dataType(0)!, text), dataTypeOf(ctx.dataType(1)!, text));
  if (complex === 'STRUCT') {
    return StructType(ctx.complexColType().map((f) => StructField(
      identifierText(f.identifier()), dataTypeOf(f.dataType(), text), !f.KW_NOT(), f.stringLit() ? unescapeSqlString(f.stringLit()!.getText()) : undefined,
    )));
  }
  if (ctx.KW_INTERVAL()) {
    const words = (ctx.children ?? []).slice(1).map((c) => c.getText()).filter((w) => w.toUpperCase() !== 'TO');
    const fields = words.map((w) => intervalField(w)!);
    const [start, end] = [fields[0].field, fields[fields.length - 1].field];
    if (end < start) throw typeError(`Intervals FROM ${words[0].toUpperCase()} TO ${words[1].toUpperCase()} are not supported.`, '_LEGACY_ERROR_TEMP_0028', ctx, text);
    return fields[0].yearMonth ? YearMonthIntervalType(start, end) : DayTimeIntervalType(start, end);
  }
  const name = ctx.type()!.getText().toLowerCase();
  const params = ctx.INTEGER_VALUE().map((p) => Number(p.getText()));
  const upper = name.toUpperCase();
  try {
    if (params.length === 0 && PRIMITIVE[name]) return PRIMITIVE[name];
    if (name === 'decimal' || name === 'dec' || name === 'numeric') {
      if (params.length <= 2) return DecimalType(params[0] ?? 10, params[1] ?? 0);
    }
    if ((name === 'char' || name === 'character' || name === 'varchar') && params.length === 1) {
      return { kind: name === 'varchar' ? 'varchar' : 'char', length: params[0] };
    }
  } catch (e) {
    if (e instanceof DataTypeError) throw new SqlValidationError(e.message, text.span(ctx.start!, ctx.stop), 'type', e.errorClass);
    throw e;
  }
  if ((name === 'char' || name === 'character' || name === 'varchar') && params.length === 0) {
    throw typeError(`DataType "${upper}" requires a length parameter, for example "${upper}"(10). Please specify the length.`, 'DATATYPE_MISSING_SIZE', ctx, text);
  }
  if (name === 'array' || name === 'map' || name === 'struct') {
    const example = name === 'array' ? 'ARRAY<elementType>' : name === 'map' ? 'MAP<TIMESTAMP, INT>' : 'STRUCT<field1: INT>';
    throw typeError(`Incomplete complex type: The definition of "${upper}" type is incomplete. You must provide ${name === 'map' ? 'a key type and a value type' : name === 'array' ? 'an element type' : 'at least one field type'}. For example: "${example}".`, `INCOMPLETE_TYPE_DEFINITION.${upper}`, ctx, text);
  }
  throw typeError(`Unsupported data type "${ctx.getText().toUpperCase()}".`, 'UNSUPPORTED_DATATYPE', ctx, text);
}

function structOf(list: ColTypeListContext, text: SourceText): StructType {
  return StructType(list.columnType().map((c) => StructField(
    identifierText(c.errorCapturingIdentifier()), dataTypeOf(c.dataType(), text), !c.KW_NOT(), c.stringLit() ? unescapeSqlString(c.stringLit()!.getText()) : undefined,
  )));
}

/** A type string: `bigint`, `array<struct<a:int>>`, `decimal(10,2)` (Spark's parseDataType). */
export function parseDataType(s: string): DataType {
  const { tree, parsed } = parseSpark(s, (p) => p.dataType());
  return dataTypeOf(tree, parsed.text);
}

/**
 * A DDL schema string as `from_json` and `StructType.fromDDL` read it: a column list
 * (`id BIGINT, tags ARRAY<STRING>`), else a single type (`STRUCT<…>`, `ARRAY<…>`), as Spark tries
 * them in that order.
 */
export function parseSchema(s: string): DataType {
  try {
    const { tree, parsed } = parseSpark(s, (p) => p.colTypeList());
    return structOf(tree, parsed.text);
  } catch (tableError) {
    try {
      return parseDataType(s);
    } catch {
      throw tableError;
    }
  }
}
