import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SqlValidationError } from '../sql-error';
import {
  ArrayType, BinaryType, BooleanType, ByteType, DateType, DayTimeIntervalType, DecimalType, DoubleType, FloatType, IntegerType,
  LongType, MapType, ShortType, StringType, StructField, StructType, TimestampNTZType, TimestampType, YearMonthIntervalType,
  simpleString, sql, toDDL,
} from './data-type';
import type { DataType } from './data-type';
import { parseDataType, parseSchema } from './data-type-parser';

describe("Spark's type names", () => {
  it('reads the aliases as visitPrimitiveDataType does', () => {
    const names: Record<string, string> = {
      LONG: 'bigint', BIGINT: 'bigint', INT: 'int', INTEGER: 'int', SHORT: 'smallint', SMALLINT: 'smallint', BYTE: 'tinyint', TINYINT: 'tinyint',
      REAL: 'float', FLOAT: 'float', DOUBLE: 'double', DEC: 'decimal(10,0)', NUMERIC: 'decimal(10,0)', 'DECIMAL(5)': 'decimal(5,0)', 'decimal(10,2)': 'decimal(10,2)',
      STRING: 'string', 'VARCHAR(10)': 'varchar(10)', 'CHAR(3)': 'char(3)', 'CHARACTER(3)': 'char(3)', BINARY: 'binary', BOOLEAN: 'boolean', DATE: 'date',
      TIMESTAMP: 'timestamp', TIMESTAMP_LTZ: 'timestamp', TIMESTAMP_NTZ: 'timestamp_ntz', VOID: 'void', INTERVAL: 'interval',
      'INTERVAL YEAR': 'interval year', 'INTERVAL YEAR TO MONTH': 'interval year to month', 'INTERVAL DAY TO SECOND': 'interval day to second', 'INTERVAL HOUR TO MINUTE': 'interval hour to minute',
      'array<int>': 'array<int>', 'MAP<STRING,INT>': 'map<string,int>', 'STRUCT<a: INT, b: STRING>': 'struct<a:int,b:string>', 'struct<a int>': 'struct<a:int>',
      'ARRAY<ARRAY<STRUCT<`x y`: LONG>>>': 'array<array<struct<x y:bigint>>>',
    };
    for (const [name, simple] of Object.entries(names)) expect([name, simpleString(parseDataType(name))]).toEqual([name, simple]);
  });

  it('prints sql as Spark does', () => {
    expect(sql(StructType([StructField('a', IntegerType), StructField('b c', ArrayType(StringType), false, "it's")]))).toBe("STRUCT<a: INT, `b c`: ARRAY<STRING> NOT NULL COMMENT 'it\\'s'>");
    expect(sql(MapType(StringType, DecimalType(10, 2)))).toBe('MAP<STRING, DECIMAL(10,2)>');
    expect(sql(DayTimeIntervalType(0, 1))).toBe('INTERVAL DAY TO HOUR');
  });

  it("refuses what Spark refuses, with Spark's error classes", () => {
    const errorClass = (s: string) => {
      try {
        parseDataType(s);
      } catch (e) {
        if (e instanceof SqlValidationError) return e.errorClass;
        throw e;
      }
      return 'parsed';
    };
    expect(errorClass('FOO')).toBe('UNSUPPORTED_DATATYPE');
    expect(errorClass('VARCHAR')).toBe('DATATYPE_MISSING_SIZE');
    expect(errorClass('ARRAY')).toBe('INCOMPLETE_TYPE_DEFINITION.ARRAY');
    expect(errorClass('DECIMAL(39,2)')).toBe('DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION');
    expect(errorClass('INT INT')).toBe('PARSE_SYNTAX_ERROR');
  });
});

describe('DDL schema strings', () => {
  it('reads column lists with NOT NULL and COMMENT, and single types', () => {
    expect(parseSchema('id BIGINT, tags ARRAY<STRING>, price DECIMAL(10,2)')).toEqual(
      StructType([StructField('id', LongType), StructField('tags', ArrayType(StringType)), StructField('price', DecimalType(10, 2))]),
    );
    expect(parseSchema("a INT NOT NULL COMMENT 'the \\'a\\''")).toEqual(StructType([StructField('a', IntegerType, false, "the 'a'")]));
    expect(simpleString(parseSchema('ARRAY<STRUCT<id: BIGINT>>'))).toBe('array<struct<id:bigint>>');
    expect(simpleString(parseSchema('MAP<STRING, INT>'))).toBe('map<string,int>');
  });

  const atomic = fc.constantFrom<DataType>(
    BooleanType, ByteType, ShortType, IntegerType, LongType, FloatType, DoubleType, StringType, BinaryType, DateType, TimestampType,
    TimestampNTZType, DecimalType(10, 2), DecimalType(38, 0), YearMonthIntervalType(0, 1), DayTimeIntervalType(1, 3), { kind: 'varchar', length: 5 },
  );
  const name = fc.oneof(fc.stringMatching(/^[a-z_][a-z0-9_]{0,6}$/), fc.constantFrom('my col', 'a`b', 'select', 'x.y'));
  const comment = fc.option(fc.constantFrom("plain", "it's", 'back\\slash', ''), { nil: undefined });
  const { type } = fc.letrec<{ type: DataType; struct: DataType }>((tie) => ({
    type: fc.oneof({ depthSize: 'small', withCrossShrink: true }, atomic, tie('struct'), tie('type').map((t) => ArrayType(t)), fc.tuple(atomic, tie('type')).map(([k, v]) => MapType(k, v))),
    struct: fc.uniqueArray(fc.tuple(name, tie('type'), fc.boolean(), comment), { minLength: 1, maxLength: 4, selector: ([n]) => n.toLowerCase() })
      .map((fs) => StructType(fs.map(([n, t, nullable, c]) => StructField(n, t, nullable, c)))),
  }));

  it('every type round-trips through sql and parseDataType', () => {
    fc.assert(fc.property(type, (t) => { expect(parseDataType(sql(t))).toEqual(t); }), { numRuns: 200 });
  });

  it('every schema round-trips through toDDL and parseSchema', () => {
    const schema = fc.uniqueArray(fc.tuple(name, type, fc.boolean(), comment), { minLength: 1, maxLength: 5, selector: ([n]) => n.toLowerCase() })
      .map((fs) => StructType(fs.map(([n, t, nullable, c]) => StructField(n, t, nullable, c))));
    fc.assert(fc.property(schema, (s) => { expect(parseSchema(toDDL(s))).toEqual(s); }), { numRuns: 200 });
  });
});
