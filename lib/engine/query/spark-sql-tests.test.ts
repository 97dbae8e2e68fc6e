/**
 * Spark's own SQL test golden files (sql-tests/results/*.sql.out, ANSI off), copied under
 * testing/sql-tests/ (each names the file and commit it comes from): each
 * query runs through the engine over a one-row stream, or, when it reads the file's temporary
 * views of static data, as the static side of a join with that stream (spark-golden-file.ts
 * says how), and Weir's answer printed as Spark's
 * sql-tests print it must be Spark's output, its columns of Spark's types; where Spark refuses a
 * query, Weir must refuse it with Spark's error class. Column names are not compared (Weir
 * quotes a string literal in a generated name, Spark does not), and a query whose columns
 * repeat a name runs with its items aliased (Weir refuses a repeated output name).
 * Most copies are of Spark's master branch (4.x) non-ANSI results, a few of older versions;
 * an answer a later Spark changed to Weir's, or one newer than Spark 3.5, is listed as such.
 * Spark's sql-tests run in America/Los_Angeles, Weir in UTC: the queries copied are those whose
 * answer does not depend on the zone.
 * A statement the harness does not run (a DROP, a SET and the queries under it) shows as
 * skipped with the reason.
 * SPARK_DIFFERENCES lists, per file, the queries Weir still answers otherwise, each with the
 * reason: they run as expected failures, so a fix that makes one agree fails until it is taken
 * off the list.
 */
import { describe, expect, it } from 'vitest';
import { goldenCases, sameColumnTypes, weirAnswer } from './testing/spark-golden-file';

const FILES = ['array', 'arrayJoin', 'binary_base64', 'binary_basic', 'binary_hex', 'bitwise', 'booleanEquality', 'cast', 'ceil-floor-with-scale-param', 'comments', 'comparator', 'conditional-functions', 'count', 'csv-functions', 'cte', 'cte-nested', 'date', 'date_part', 'datetime-formatting-invalid', 'datetime-parsing', 'datetime-parsing-invalid', 'datetime-special', 'decimalArithmeticOperations', 'except', 'except-all', 'extract', 'group-by', 'group-by-filter', 'group-by-ordinal', 'grouping_set', 'having', 'higher-order-functions', 'ilike', 'implicitTypeCasts', 'inline-table', 'intersect-all', 'interval', 'json-functions', 'like-all', 'like-any', 'linear-regression', 'literals', 'map', 'mask-functions', 'math', 'misc-functions', 'null-handling', 'null-propagation', 'operators', 'order-by-nulls-ordering', 'order-by-ordinal', 'percentiles', 'pivot', 'predicate-functions', 'random', 'regexp-functions', 'sql-compatibility-functions', 'string-functions', 'struct', 'timestamp', 'timestamp-ntz', 'try_arithmetic', 'try_cast', 'try_datetime_functions', 'try_element_at', 'union', 'url-functions', 'window', 'xml-functions'] as const;

/** Why Weir answers otherwise. */
const WHY = {
  sparkInternalError: "Spark answers INTERNAL_ERROR (the parameters of its DATATYPE_MISMATCH.WRONG_NUM_ARGS message undefined) where Weir refuses the call's arity",
  btrimBinary: "btrim of a BINARY trims bytes to a BINARY in Weir; this Spark casts the BINARY to STRING",
  binaryFormatClass: "refused with INVALID_PARAMETER_VALUE.BINARY_FORMAT (Spark 3.5's class), not Spark 4's DATATYPE_MISMATCH.INVALID_ARG_VALUE",
  javaDouble: "a DOUBLE printed as its shortest text (Java 19+'s Double.toString); Spark's run on Java 17 printed 17 digits",
  unaryPlusName: "INTERVAL '1 day' (a string of units) is an INTERVAL DAY TO SECOND in Weir; this Spark types it by its units, an INTERVAL DAY (Spark 3.5: the legacy CalendarInterval)",
  schemaDdl: "Spark 3.0's answer (the catalog string); Spark 3.1+ prints the DDL form STRUCT<c1: BIGINT, …>, as Weir does",
  partialResults: "Spark 3.0's answer; Spark 3.4+ keeps the elements that parse (spark.sql.json.enablePartialResults), as Weir does",
  complexMapKey: "a map key of an array or a struct is refused (DATATYPE_MISMATCH.INVALID_MAP_KEY_TYPE: Weir keys a map by its keys' text); Spark builds the map, here failing on the repeated key (DUPLICATED_MAP_KEY)",
  structMapKey: "a map whose keys are structs is refused; Spark writes each key as its text",
  re2Lookahead: "a lookahead (?=…): Weir's patterns run on RE2, which has none, and are refused (INVALID_PARAMETER_VALUE.PATTERN) with the reason",
  legacyInterval: "CAST(… AS INTERVAL) and make_interval are Spark's legacy CalendarInterval (3 months 1 hours), which Weir has no type for",
  legacyParserCheck: "Spark answers NULL; Weir's stand-in for Spark 2's parser (the check behind INCONSISTENT_BEHAVIOR_CROSS_VERSION.PARSE_DATETIME_BY_NEW_PARSER) reads the text and raises that error",
  schemaTypeClass: "refused with UNSUPPORTED_DATATYPE (the type it does not know); this Spark reported the PARSE_SYNTAX_ERROR of its first reading of the schema",
  wrongNumArgsClass: "refused with WRONG_NUM_ARGS.WITHOUT_SUGGESTION, the class Weir gives every wrong arity; this copy's Spark gave WRONG_NUM_ARGS",
  typeofInterval: "INTERVAL '23 days' (a string of units) is typed by its units in this Spark, an INTERVAL DAY (Spark 3.0's was the legacy CalendarInterval, typeof interval); Weir types it as an INTERVAL DAY TO SECOND",
  timeOnlyText: "a time without a date ('10:11:12') casts in Spark to that time of the session's current date; Weir's cast is a function of its text alone, needs the date, and answers NULL",
  farTimestamp: "a TIMESTAMP before 1691 (or after 2248) keeps its microseconds only to within a few: Weir's is epoch milliseconds in a double",
  setOperationLegacyClass: "refused with INCOMPATIBLE_COLUMN_TYPE or NUM_COLUMNS_MISMATCH, the classes a later Spark gives (its analyzer-results for INTERSECT ALL and EXCEPT ALL); this copy's Spark 3.4 gave _LEGACY_ERROR_TEMP_2430 and _LEGACY_ERROR_TEMP_2429",
  setOperationNoClass: "refused with INCOMPATIBLE_COLUMN_TYPE or NUM_COLUMNS_MISMATCH, the classes a later Spark gives (its analyzer-results for EXCEPT ALL); this copy's Spark 3.0 printed its message (ExceptAll can only be performed on …) without a class",
  windowErrorClass: "this copy's Spark (3.2) printed the AnalysisException without an error class; Weir refuses the query with Spark 3.4+'s class (DATATYPE_MISMATCH.…, _LEGACY_ERROR_TEMP_1037, MISSING_WINDOW_SPECIFICATION)",
  avgTimestamp: "avg of a TIMESTAMP is refused (Weir's avg takes numbers and intervals); this Spark averaged its seconds as a DOUBLE",
  momentMerge: "skewness, kurtosis, variance, stddev, corr and the regr_ functions of moments (regr_sxx, regr_slope, regr_intercept, regr_r2) differ in their last digits: Spark merges the partial moments of the rows split over its session's partitions, Weir updates them one row at a time in order",
  repeatedNameInSubquery: "two columns of one name (count(*) and count(1) are both count(1)): Weir refuses the repeated output name (a row holds a column by its name), where Spark's result repeats it",
  starInCall: "a star inside a call (count(testData.*), count(DISTINCT *)) is refused: Weir takes * only as a whole select item or in count(*)",
  distinctOverStream: "a query without FROM runs over the harness's one-row stream, where a DISTINCT aggregate is refused as over a stream (_LEGACY_ERROR_TEMP_3102); Spark answers over its one-row relation",
  unresolvedColumnClass: "refused with UNRESOLVED_COLUMN.WITH_SUGGESTION, Spark 3.4+'s class; this copy's Spark 3.3 gave UNRESOLVED_COLUMN",
  pivotValueCheck: "refused with NON_LITERAL_PIVOT_VALUES: Weir checks that a pivot value is a literal before resolving it; Spark first fails to resolve the column s (UNRESOLVED_COLUMN)",
  pivotValueTypeClass: "a pivot value of another type than a pivot column of two columns is refused with DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION (its cast), not Spark's PIVOT_VALUE_DATA_TYPE_MISMATCH",
  withinGroupGrammar: "refused with PARSE_SYNTAX_ERROR: Weir parses with Spark 3.5's grammar (dt-sql-parser's), whose WITHIN GROUP (ORDER BY x) follows only percentile_cont(p) and percentile_disc(p), one percentage and one ordering, without DISTINCT; Spark 4's grammar takes WITHIN GROUP after any call and its analyzer refuses it with this class",
  repeatedOutputName: "two output columns of one name (a column list `t(x, x)`, or `SELECT *` over two CTEs that both have `a`): Weir refuses the repeated name (a row holds a column by its name), where Spark's result repeats it",
  rangeFunction: "the table-valued function range() is not supported (Weir's FROM reads its sources, static tables, VALUES and subqueries)",
  inSubqueryNoTable: "an IN subquery that reads no table (`IN (WITH t AS (SELECT 2) SELECT * FROM t)`) is refused as a subquery over a stream: an IN subquery must read the job's static tables or an inline table (VALUES); Spark reads its one-row relation",
  scalarSubqueryUnknownTable: "refused as a scalar subquery over a stream: Weir checks what a scalar subquery reads before it resolves its tables, and r (a CTE's own name inside its definition) is no static table; Spark fails to resolve r (TABLE_OR_VIEW_NOT_FOUND)",
  correlatedScalarSubquery: "a correlated scalar subquery (one that reads a column of the outer query) in the select list is refused as not supported: Weir runs one only as a join it can rewrite it to (its correlated column equated to one of its table's); Spark answers it, or here fails on the VALUES that reads the outer column (INVALID_INLINE_TABLE.CANNOT_EVALUATE_EXPRESSION_IN_INLINE_TABLE)",
  inSubqueryInSelect: "an IN subquery in the select list is refused as not supported: Weir runs IN (subquery) only as a WHERE conjunct, a LEFT SEMI join",
  sameNameJoin: "a join of two relations of one name (a CTE and a subquery aliased alike) is refused as a self-join that needs an alias per side; Spark joins them and refuses the qualified same_name.x as ambiguous (AMBIGUOUS_REFERENCE)",
  ansiFractionOfSecond: "Spark 4's default ANSI mode (this file has no ANSI-off results) raises INVALID_FRACTION_OF_SECOND for 60 seconds with a fraction; Weir's SQL is ANSI off and answers NULL, as make_timestamp does in the ANSI-off timestamp.sql.out",
  removedExtractField: "Spark 3.0's preview answer; Spark 3.0.0 took MILLENNIUM, CENTURY, DECADE and ISODOW out of date_part and EXTRACT (DatePart.parseExtractField) and refuses them (INVALID_EXTRACT_FIELD), as Weir does",
  postgresDow: "Spark 3.0's preview answer (DOW counted from Sunday as 0, PostgreSQL's); Spark 3.0.0+ makes DOW DAYOFWEEK (Sunday 1), as Weir does",
  extractErrorClass: "this copy's Spark (3.0 preview) printed the AnalysisException without an error class; Weir refuses the query with Spark 3.4+'s class (INVALID_EXTRACT_FIELD, NON_FOLDABLE_ARGUMENT)",
  mixedIntervalUnits: "an interval literal of year-month and day-time units together is Spark 3.0's CalendarInterval; Spark 3.2+ (ANSI intervals) refuses it (_LEGACY_ERROR_TEMP_0029: cannot mix year-month and day-time fields), as Weir does, so the view and every query of it fail",
  missingGroupByLegacyClass: "refused with MISSING_GROUP_BY, the class a later Spark gives a column beside an aggregate without GROUP BY (its group-by.sql.out: SELECT a, COUNT(b) FROM testData); this copy's Spark gave _LEGACY_ERROR_TEMP_2422",
  subqueryInExpression: "an EXISTS or IN subquery inside an aggregate's FILTER is refused: Weir runs a subquery in an expression only as WHERE <column> IN (SELECT …) over a static table (a LEFT SEMI join), not in another expression",
  groupByWithKeyword: "GROUP BY WITH ROLLUP (no grouping expression): Spark's parser reads WITH, a non-reserved word with ANSI off, as a column and fails to resolve it (UNRESOLVED_COLUMN); Weir's parser refuses the text (PARSE_SYNTAX_ERROR): both refuse it",
  xmlDataSource: "from_xml, schema_of_xml and to_xml (Spark 4's functions of its XML data source) are not supported: Weir refuses them as unknown functions (UNRESOLVED_ROUTINE); its XML functions are the XPath ones (xpath, xpath_string, …)",
  csvBinaryOutputStyle: "to_csv writes a BINARY field as its base64 text with padding: Weir's SQL has no spark.sql.binaryOutputStyle, which this file sets, and Spark 4's CSV writer (UnivocityGenerator) formats a BINARY by it as the printed result does",
  dateStringCompare: "Spark 2.4's answer (a DATE beside a string compared as strings); Spark 3.0+ casts the string to a DATE, as Weir does",
};

const SPARK_DIFFERENCES: Record<(typeof FILES)[number], Record<string, string>> = {
  array: {
  },
  arrayJoin: {},
  bitwise: {
  },
  booleanEquality: {},
  cast: {
    "SELECT CAST('interval 3 month 1 hour' AS interval)": WHY.legacyInterval,
    "SELECT 'interval 3 month 1 hour' :: interval": WHY.legacyInterval,
  },
  date_part: {
    "select date_part('millennium', c) from t": WHY.removedExtractField,
    "select date_part('millennia', c) from t": WHY.removedExtractField,
    "select date_part('mil', c) from t": WHY.removedExtractField,
    "select date_part('mils', c) from t": WHY.removedExtractField,
    "select date_part('century', c) from t": WHY.removedExtractField,
    "select date_part('centuries', c) from t": WHY.removedExtractField,
    "select date_part('c', c) from t": WHY.removedExtractField,
    "select date_part('cent', c) from t": WHY.removedExtractField,
    "select date_part('decade', c) from t": WHY.removedExtractField,
    "select date_part('decades', c) from t": WHY.removedExtractField,
    "select date_part('dec', c) from t": WHY.removedExtractField,
    "select date_part('decs', c) from t": WHY.removedExtractField,
    "select date_part('dow', c) from t": WHY.postgresDow,
    "select date_part('isodow', c) from t": WHY.removedExtractField,
    "select date_part('not_supported', c) from t": WHY.extractErrorClass,
    "select date_part(c, c) from t": WHY.extractErrorClass,
    "CREATE TEMPORARY VIEW t2 AS select interval 1010 year 9 month 8 day 7 hour 6 minute 5 second 4 millisecond 3 microsecond as c": WHY.mixedIntervalUnits,
    "select date_part('millennium', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('millennia', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('mil', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('mils', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('century', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('centuries', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('c', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('cent', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('decade', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('decades', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('dec', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('decs', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('year', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('y', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('years', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('yr', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('yrs', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('quarter', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('qtr', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('month', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('mon', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('mons', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('months', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('day', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('d', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('days', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('hour', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('h', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('hours', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('hr', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('hrs', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('minute', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('m', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('min', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('mins', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('minutes', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('second', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('s', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('sec', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('seconds', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('secs', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('milliseconds', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('msec', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('msecs', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('millisecon', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('mseconds', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('ms', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('microseconds', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('usec', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('usecs', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('useconds', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('microsecon', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('us', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('epoch', c) from t2": WHY.mixedIntervalUnits,
    "select date_part('not_supported', c) from t2": WHY.mixedIntervalUnits,
    "select date_part(c, c) from t2": WHY.mixedIntervalUnits,
    "select date_part(null, c) from t2": WHY.mixedIntervalUnits,
  },
  "datetime-formatting-invalid": {},
  "datetime-parsing": {},
  "datetime-special": {},
  "datetime-parsing-invalid": {
    "select to_timestamp('123', 'yy')": WHY.legacyParserCheck,
    "select to_timestamp('1', 'yyy')": WHY.legacyParserCheck,
  },
  decimalArithmeticOperations: {},
  except: {
  },
  "except-all": {
    "SELECT * FROM tab1\nEXCEPT ALL\nSELECT array(1)": WHY.setOperationNoClass,
    "SELECT k FROM tab3\nEXCEPT ALL\nSELECT k, v FROM tab4": WHY.setOperationNoClass,
  },
  extract: {},
  "group-by": {
    "SELECT SKEWNESS(a), KURTOSIS(a), MIN(a), MAX(a), AVG(a), VARIANCE(a), STDDEV(a), SUM(a), COUNT(a)\nFROM testData": WHY.momentMerge,
  },
  "group-by-filter": {
    "SELECT a, COUNT(b) FILTER (WHERE a >= 2) FROM testData": WHY.missingGroupByLegacyClass,
    "SELECT emp.dept_id,\n       avg(salary),\n       avg(salary) FILTER (WHERE EXISTS (SELECT state\n               FROM dept\n               WHERE dept.dept_id = emp.dept_id))\nFROM emp\nGROUP BY dept_id": WHY.subqueryInExpression,
    "SELECT emp.dept_id, \n       Sum(salary),\n       Sum(salary) FILTER (WHERE NOT EXISTS (SELECT state \n                   FROM dept \n                   WHERE dept.dept_id = emp.dept_id))\nFROM emp \nGROUP BY dept_id": WHY.subqueryInExpression,
    "SELECT emp.dept_id, \n       avg(salary),\n       avg(salary) FILTER (WHERE emp.dept_id IN (SELECT DISTINCT dept_id\n               FROM dept))\nFROM emp \nGROUP BY dept_id": WHY.subqueryInExpression,
    "SELECT emp.dept_id, \n       Sum(salary),\n       Sum(salary) FILTER (WHERE emp.dept_id NOT IN (SELECT DISTINCT dept_id\n               FROM dept))\nFROM emp \nGROUP BY dept_id": WHY.subqueryInExpression,
  },
  "group-by-ordinal": {},
  grouping_set: {
    "SELECT a, b, c, count(d) FROM grouping GROUP BY WITH ROLLUP": WHY.groupByWithKeyword,
    "SELECT a, b, c, count(d) FROM grouping GROUP BY WITH CUBE": WHY.groupByWithKeyword,
  },
  having: {},
  "higher-order-functions": {
    "select transform_keys(map('a', 1, 'b', 2), struct('key', 'value')) as transform_keys_struct_literal": WHY.complexMapKey,
    "select transform_keys(map('a', 1, 'b', 2), array('new_key')) as transform_keys_array_literal": WHY.complexMapKey,
  },
  ilike: {},
  implicitTypeCasts: {
    "SELECT hour( '10:11:12') FROM t": WHY.timeOnlyText,
    "SELECT minute( '10:11:12') FROM t": WHY.timeOnlyText,
    "SELECT second( '10:11:12') FROM t": WHY.timeOnlyText,
  },
  "intersect-all": {
    "SELECT * FROM tab1\nINTERSECT ALL\nSELECT array(1), 2": WHY.setOperationLegacyClass,
    "SELECT k FROM tab1\nINTERSECT ALL\nSELECT k, v FROM tab2": WHY.setOperationLegacyClass,
  },
  interval: {
    "select make_interval(1)": WHY.legacyInterval,
    "select make_interval(1, 2)": WHY.legacyInterval,
    "select make_interval(1, 2, 3)": WHY.legacyInterval,
    "select make_interval(1, 2, 3, 4)": WHY.legacyInterval,
    "select make_interval(1, 2, 3, 4, 5)": WHY.legacyInterval,
    "select make_interval(1, 2, 3, 4, 5, 6)": WHY.legacyInterval,
    "select make_interval(1, 2, 3, 4, 5, 6, 7.008009)": WHY.legacyInterval,
    "select make_interval(1, 2, 3, 4, 0, 0, 123456789012.123456)": WHY.legacyInterval,
    "select make_interval(0, 0, 0, 0, 0, 0, 1234567890123456789)": WHY.legacyInterval,
    "select cast('1 second' as interval)": WHY.legacyInterval,
    "select cast('+1 second' as interval)": WHY.legacyInterval,
    "select cast('-1 second' as interval)": WHY.legacyInterval,
    "select cast('+     1 second' as interval)": WHY.legacyInterval,
    "select cast('-     1 second' as interval)": WHY.legacyInterval,
    "select cast('- -1 second' as interval)": WHY.legacyInterval,
    "select cast('- +1 second' as interval)": WHY.legacyInterval,
  },
  "json-functions": {
    "select to_json(map(named_struct('a', 1, 'b', 2), named_struct('a', 1, 'b', 2)))": WHY.structMapKey,
    "select schema_of_json('{\"c1\":0, \"c2\":[1]}')": WHY.schemaDdl,
    "select from_json('[1, \"2\", 3]', 'array<int>')": WHY.partialResults,
    "select from_json('[{\"a\": 1}, 2]', 'array<map<string,int>>')": WHY.partialResults,
    "select schema_of_json('{\"c1\":1}', map('primitivesAsString', 'true'))": WHY.schemaDdl,
    "select schema_of_json('{\"c1\":01, \"c2\":0.1}', map('allowNumericLeadingZeros', 'true', 'prefersDecimal', 'true'))": WHY.schemaDdl,
  },
  "ceil-floor-with-scale-param": {
    "SELECT CEIL(2.5, 0, 0)": WHY.sparkInternalError,
    "SELECT FLOOR(2.5, 0, 0)": WHY.sparkInternalError,
  },
  comparator: {},
  count: {
    "SELECT\n  count(*), count(1), count(null), count(a), count(b), count(a + b), count((a, b))\nFROM testData": WHY.repeatedNameInSubquery,
    "SELECT count(a, b), count(b, a), count(testData.*) FROM testData": WHY.starInCall,
    "SELECT\n  count(DISTINCT a, b), count(DISTINCT b, a), count(DISTINCT *), count(DISTINCT testData.*)\nFROM testData": WHY.starInCall,
    "SELECT count(DISTINCT 3,2)": WHY.distinctOverStream,
    "SELECT count(DISTINCT 2), count(DISTINCT 2,3)": WHY.distinctOverStream,
    "SELECT count(DISTINCT 2), count(DISTINCT 3,2)": WHY.distinctOverStream,
  },
  cte: {
    "WITH r AS (SELECT (SELECT * FROM r))\nSELECT * FROM r": WHY.scalarSubqueryUnknownTable,
    "WITH t(x, x) AS (SELECT 1, 2)\nSELECT * FROM t": WHY.repeatedOutputName,
    "SELECT count(*) FROM (\n  WITH q1(x) AS (SELECT random() FROM range(1, 5))\n    SELECT * FROM q1\n  UNION\n    SELECT * FROM q1\n) ss": WHY.rangeFunction,
    "SELECT ( WITH cte(foo) AS ( VALUES(id) )\n         SELECT (SELECT foo FROM cte) )\nFROM t": WHY.correlatedScalarSubquery,
    "WITH same_name(x) AS (SELECT 42)\nSELECT same_name.x FROM (SELECT 10) AS same_name(x), same_name": WHY.sameNameJoin,
    "select 1 in (with q as (select 1) select * from q)": WHY.inSubqueryInSelect,
    "WITH T1 as (select 1 a)\nselect *\nfrom\n  T1 x,\n  (WITH T1 as (select 2 b) select * from T1) y,\n  T1 z": WHY.repeatedOutputName,
    "select\n  (WITH q AS (select T.x) select * from q)\nfrom (select 1 x, 2 y) T": WHY.correlatedScalarSubquery,
    "select\n  (WITH q AS (select 3 z) select x + t.y + z from q)\nfrom (select 1 x, 2 y) T": WHY.correlatedScalarSubquery,
  },
  "cte-nested": {
    "SELECT (\n  WITH unreferenced AS (SELECT id)\n  SELECT 1\n) FROM range(1)": WHY.rangeFunction,
    "SELECT (\n  WITH unreferenced AS (SELECT 1)\n  SELECT id\n) FROM range(1)": WHY.rangeFunction,
    "SELECT * FROM\n  (\n   WITH cte AS (SELECT * FROM range(10))\n   SELECT * FROM cte WHERE id = 8\n  ) a\nUNION\nSELECT * FROM cte": WHY.rangeFunction,
    "WITH t(c) AS (SELECT 1)\nSELECT * FROM t\nWHERE c IN (\n  WITH t(c) AS (SELECT 2)\n  SELECT * FROM t\n)": WHY.inSubqueryNoTable,
  },
  "inline-table": {},
  "csv-functions": {
    "select from_csv('1', 'a InvalidType')": WHY.schemaTypeClass,
    "select from_csv()": WHY.wrongNumArgsClass,
  },
  "conditional-functions": {
  },
  date: {
  },
  "like-all": {},
  "like-any": {},
  "linear-regression": {
    "SELECT k, corr(y, x) FILTER (WHERE x IS NOT NULL), regr_r2(y, x) FROM testRegression GROUP BY k": WHY.momentMerge,
    "SELECT k, corr(y, x), regr_r2(y, x) FROM testRegression GROUP BY k": WHY.momentMerge,
    "SELECT k, regr_intercept(y, x) FROM testRegression GROUP BY k": WHY.momentMerge,
    "SELECT k, regr_intercept(y, x) FROM testRegression WHERE x IS NOT NULL AND y IS NOT NULL GROUP BY k": WHY.momentMerge,
    "SELECT k, regr_slope(y, x) FROM testRegression GROUP BY k": WHY.momentMerge,
    "SELECT k, regr_slope(y, x) FROM testRegression WHERE x IS NOT NULL AND y IS NOT NULL GROUP BY k": WHY.momentMerge,
    "SELECT k, regr_sxx(y, x) FROM testRegression GROUP BY k": WHY.momentMerge,
    "SELECT k, regr_sxx(y, x) FROM testRegression WHERE x IS NOT NULL AND y IS NOT NULL GROUP BY k": WHY.momentMerge,
    "SELECT regr_intercept(y, x) FROM testRegression": WHY.momentMerge,
    "SELECT regr_intercept(y, x) FROM testRegression WHERE x IS NOT NULL AND y IS NOT NULL": WHY.momentMerge,
    "SELECT regr_r2(y, x) FROM testRegression": WHY.momentMerge,
    "SELECT regr_r2(y, x) FROM testRegression WHERE x IS NOT NULL": WHY.momentMerge,
    "SELECT regr_slope(y, x) FROM testRegression": WHY.momentMerge,
    "SELECT regr_slope(y, x) FROM testRegression WHERE x IS NOT NULL AND y IS NOT NULL": WHY.momentMerge,
    "SELECT regr_sxx(y, x) FROM testRegression": WHY.momentMerge,
    "SELECT regr_sxx(y, x) FROM testRegression WHERE x IS NOT NULL AND y IS NOT NULL": WHY.momentMerge,
  },
  literals: {
    "select +interval '1 day'": WHY.unaryPlusName,
  },
  random: {},
  "regexp-functions": {
    "SELECT regexp_count('passwd7 plain A1234 a1234', '(?=[^ ]*[a-z])(?=[^ ]*[0-9])[^ ]+')": WHY.re2Lookahead,
  },
  map: {
  },
  "mask-functions": {},
  math: {},
  "misc-functions": {
    "select typeof(date '1986-05-23'),  typeof(timestamp '1986-05-23'), typeof(interval '23 days')": WHY.typeofInterval,
  },
  "null-handling": {},
  "null-propagation": {},
  operators: {},
  "order-by-nulls-ordering": {},
  "order-by-ordinal": {},
  percentiles: {
    "SELECT\n  round(v, 0) WITHIN GROUP (ORDER BY v)\nFROM aggr": WHY.withinGroupGrammar,
    "SELECT\n  round(v, 0) WITHIN GROUP (ORDER BY v) OVER (PARTITION BY k)\nFROM aggr": WHY.withinGroupGrammar,
    "SELECT\n  percentile(v, 0.5) WITHIN GROUP (ORDER BY v)\nFROM aggr": WHY.withinGroupGrammar,
    "SELECT\n  percentile(v, 0.5) WITHIN GROUP (ORDER BY v) OVER (PARTITION BY k)\nFROM aggr": WHY.withinGroupGrammar,
    "SELECT\n  percentile_cont(DISTINCT 0.5) WITHIN GROUP (ORDER BY v)\nFROM aggr": WHY.withinGroupGrammar,
    "SELECT\n  percentile_cont(DISTINCT 0.5) WITHIN GROUP (ORDER BY v) OVER (PARTITION BY k)\nFROM aggr": WHY.withinGroupGrammar,
    "SELECT\n  percentile_cont() WITHIN GROUP (ORDER BY v)\nFROM aggr": WHY.withinGroupGrammar,
    "SELECT\n  percentile_cont() WITHIN GROUP (ORDER BY v) OVER (PARTITION BY k)\nFROM aggr": WHY.withinGroupGrammar,
    "SELECT\n  percentile_cont(0.5) WITHIN GROUP (ORDER BY k, v)\nFROM aggr": WHY.withinGroupGrammar,
    "SELECT\n  percentile_cont(k, 0.5) WITHIN GROUP (ORDER BY v)\nFROM aggr": WHY.withinGroupGrammar,
  },
  pivot: {
    "SELECT * FROM (\n  SELECT course, earnings FROM courseSales\n)\nPIVOT (\n  sum(earnings)\n  FOR year IN (2012, 2013)\n)": WHY.unresolvedColumnClass,
    "SELECT * FROM (\n  SELECT course, year, earnings, s\n  FROM courseSales\n  JOIN years ON year = y\n)\nPIVOT (\n  sum(earnings)\n  FOR (course, year) IN ('dotNET', 'Java')\n)": WHY.pivotValueTypeClass,
    "SELECT * FROM courseSales\nPIVOT (\n  sum(earnings)\n  FOR year IN (s, 2013)\n)": WHY.pivotValueCheck,
  },
  "predicate-functions": {
    "select to_date('2009-07-30 04:17:52') >= '2009-07-30 04:17:52'": WHY.dateStringCompare,
    "select to_date('2009-07-30 04:17:52') < '2009-07-30 04:17:52'": WHY.dateStringCompare,
  },
  "sql-compatibility-functions": {},
  "string-functions": {
    "SELECT btrim(encode(\" xyz \", 'utf-8'))": WHY.btrimBinary,
    "SELECT btrim(encode('yxTomxx', 'utf-8'), encode('xyz', 'utf-8'))": WHY.btrimBinary,
    "SELECT btrim(encode('xxxbarxxx', 'utf-8'), encode('x', 'utf-8'))": WHY.btrimBinary,
    "select to_binary('abc', 1)": WHY.binaryFormatClass,
    "select to_binary('abc', 'invalidFormat')": WHY.binaryFormatClass,
  },
  struct: {},
  timestamp: {
    "SELECT make_timestamp(1, 1, 1, 1, 1, 59.999999)": WHY.farTimestamp,
    "select to_timestamp('2019-10-06 10:11:12.1234567PST', 'yyyy-MM-dd HH:mm:ss.SSSSSS[zzz]')": WHY.legacyParserCheck,
    "select to_timestamp('223456 2019-10-06 10:11:12.123456PST', 'SSSSSS yyyy-MM-dd HH:mm:ss.SSSSSS[zzz]')": WHY.legacyParserCheck,
    "select to_timestamp(\"12.1232019-10-06S10:11\", \"ss.SSSSyyyy-MM-dd'S'HH:mm\")": WHY.legacyParserCheck,
    "select to_timestamp(\"12.1234019-10-06S10:11\", \"ss.SSSSy-MM-dd'S'HH:mm\")": WHY.farTimestamp,
  },
  "timestamp-ntz": {
    "SELECT make_timestamp_ntz(2021, 07, 11, 6, 30, 60.007)": WHY.ansiFractionOfSecond,
  },
  try_arithmetic: {
    "SELECT try_divide(1, (2147483647 + 1))": WHY.javaDouble,
  },
  try_cast: {
    "SELECT TRY_CAST('interval 3 month 1 hour' AS interval)": WHY.legacyInterval,
    "SELECT TRY_CAST('abc' AS interval)": WHY.legacyInterval,
  },
  try_datetime_functions: {},
  try_element_at: {},
  union: {
  },
  "url-functions": {},
  window: {
    "SELECT val_long, cate, sum(val_long) OVER(PARTITION BY cate ORDER BY val_long\nROWS BETWEEN CURRENT ROW AND 2147483648 FOLLOWING) FROM testData ORDER BY cate, val_long": WHY.windowErrorClass,
    "SELECT val_date, cate, avg(val_timestamp) OVER(PARTITION BY cate ORDER BY val_date\nRANGE BETWEEN CURRENT ROW AND interval '1-1' year to month FOLLOWING) FROM testData\nORDER BY cate, val_date": WHY.avgTimestamp,
    "SELECT val_date, cate, avg(val_timestamp) OVER(PARTITION BY cate ORDER BY val_date\nRANGE BETWEEN CURRENT ROW AND interval '1 2:3:4.001' day to second FOLLOWING) FROM testData\nORDER BY cate, val_date": WHY.windowErrorClass,
    "SELECT val, cate, count(val) OVER(PARTITION BY cate\nROWS BETWEEN UNBOUNDED FOLLOWING AND 1 FOLLOWING) FROM testData ORDER BY cate, val": WHY.windowErrorClass,
    "SELECT val, cate, count(val) OVER(PARTITION BY cate\nRANGE BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM testData ORDER BY cate, val": WHY.windowErrorClass,
    "SELECT val, cate, count(val) OVER(PARTITION BY cate ORDER BY val, cate\nRANGE BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM testData ORDER BY cate, val": WHY.windowErrorClass,
    "SELECT val, cate, count(val) OVER(PARTITION BY cate ORDER BY current_timestamp\nRANGE BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM testData ORDER BY cate, val": WHY.windowErrorClass,
    "SELECT val, cate, count(val) OVER(PARTITION BY cate ORDER BY val\nRANGE BETWEEN 1 FOLLOWING AND 1 PRECEDING) FROM testData ORDER BY cate, val": WHY.windowErrorClass,
    "SELECT val, cate, count(val) OVER(PARTITION BY cate ORDER BY val\nRANGE BETWEEN CURRENT ROW AND current_date PRECEDING) FROM testData ORDER BY cate, val": WHY.windowErrorClass,
    "SELECT val, cate,\nmax(val) OVER w AS max,\nmin(val) OVER w AS min,\nmin(val) OVER w AS min,\ncount(val) OVER w AS count,\nsum(val) OVER w AS sum,\navg(val) OVER w AS avg,\nstddev(val) OVER w AS stddev,\nfirst_value(val) OVER w AS first_value,\nfirst_value(val, true) OVER w AS first_value_ignore_null,\nfirst_value(val, false) OVER w AS first_value_contain_null,\nlast_value(val) OVER w AS last_value,\nlast_value(val, true) OVER w AS last_value_ignore_null,\nlast_value(val, false) OVER w AS last_value_contain_null,\nrank() OVER w AS rank,\ndense_rank() OVER w AS dense_rank,\ncume_dist() OVER w AS cume_dist,\npercent_rank() OVER w AS percent_rank,\nntile(2) OVER w AS ntile,\nrow_number() OVER w AS row_number,\nvar_pop(val) OVER w AS var_pop,\nvar_samp(val) OVER w AS var_samp,\napprox_count_distinct(val) OVER w AS approx_count_distinct,\ncovar_pop(val, val_long) OVER w AS covar_pop,\ncorr(val, val_long) OVER w AS corr,\nstddev_samp(val) OVER w AS stddev_samp,\nstddev_pop(val) OVER w AS stddev_pop,\ncollect_list(val) OVER w AS collect_list,\ncollect_set(val) OVER w AS collect_set,\nskewness(val_double) OVER w AS skewness,\nkurtosis(val_double) OVER w AS kurtosis\nFROM testData\nWINDOW w AS (PARTITION BY cate ORDER BY val)\nORDER BY cate, val": WHY.repeatedNameInSubquery,
    "SELECT val, cate, row_number() OVER(PARTITION BY cate) FROM testData ORDER BY cate, val": WHY.windowErrorClass,
    "SELECT val, cate,\ncount(val) FILTER (WHERE val > 1) OVER(PARTITION BY cate)\nFROM testData ORDER BY cate, val": WHY.windowErrorClass,
    "SELECT\n\tnth_value(employee_name, 2) OVER w second_highest_salary\nFROM\n\tbasic_pays": WHY.windowErrorClass,
    "SELECT\n\tSUM(salary) OVER w sum_salary\nFROM\n\tbasic_pays": WHY.windowErrorClass,
  },
  "xml-functions": {
    "select from_xml('<p><a>1</a></p>', 'a INT')": WHY.xmlDataSource,
    "select from_xml('<p><time>26/08/2015</time></p>', 'time Timestamp', map('timestampFormat', 'dd/MM/yyyy'))": WHY.xmlDataSource,
    "select from_xml('<p><a>1</a></p>', 1)": WHY.xmlDataSource,
    "select from_xml('<p><a>1</a></p>', 'a InvalidType')": WHY.xmlDataSource,
    "select from_xml('<p><a>1</a></p>', 'a INT', named_struct('mode', 'PERMISSIVE'))": WHY.xmlDataSource,
    "select from_xml('<p><a>1</a></p>', 'a INT', map('mode', 1))": WHY.xmlDataSource,
    "select from_xml()": WHY.xmlDataSource,
    "select from_xml('<p><a>1</a></p>', 'struct<a:array<int>>')": WHY.xmlDataSource,
    "select from_xml('<p><a>1</a><b>\"2\"</b></p>', 'struct<a:int,b:string>')": WHY.xmlDataSource,
    "select schema_of_xml('<p><a>1</a><b>\"2\"</b></p>')": WHY.xmlDataSource,
    "select from_xml('<p><a>1</a><a>2</a><a>3</a></p>', schema_of_xml('<p><a>1</a><a>2</a></p>'))": WHY.xmlDataSource,
    "select from_xml('<p><a>1</a><a>2</a></p>', 'struct<a:array<int>>')": WHY.xmlDataSource,
    "select from_xml('<p><a>1</a><a>\"2\"</a></p>', 'struct<a:array<int>>')": WHY.xmlDataSource,
    "select from_xml('<p><a>1</a><a></a></p>', 'struct<a:array<int>>')": WHY.xmlDataSource,
    "select from_xml('<p><a attr=\"1\"><b>2</b></a></p>', 'struct<a:map<string,int>>')": WHY.xmlDataSource,
    "select from_xml('<p><d>2012-12-15</d><t>2012-12-15 15:15:15</t></p>', 'd date, t timestamp')": WHY.xmlDataSource,
    "select from_xml(\n  '<p><d>12/15 2012</d><t>12/15 2012 15:15:15</t>}</p>',\n  'd date, t timestamp',\n  map('dateFormat', 'MM/dd yyyy', 'timestampFormat', 'MM/dd yyyy HH:mm:ss'))": WHY.xmlDataSource,
    "select from_xml(\n  '<p><d>02-29</d></p>',\n  'd date',\n  map('dateFormat', 'MM-dd'))": WHY.xmlDataSource,
    "select from_xml(\n  '<p><t>02-29</t></p>',\n  't timestamp',\n  map('timestampFormat', 'MM-dd'))": WHY.xmlDataSource,
    "select schema_of_xml(null)": WHY.xmlDataSource,
    "SELECT schema_of_xml(xmlField) FROM xmlTable": WHY.xmlDataSource,
  },
  binary_base64: {
    "SELECT to_csv(named_struct('n', 1, 'info', X'4561736F6E2059616F20323031382D31312D31373A31333A33333A3333'))": WHY.csvBinaryOutputStyle,
  },
  binary_hex: {},
  comments: {},
  binary_basic: {
    "SELECT to_csv(named_struct('n', 1, 'info', X'4561736F6E2059616F20323031382D31312D31373A31333A33333A3333'))": WHY.csvBinaryOutputStyle,
    "select to_xml(named_struct('name', binary('Eason'), 'birth', 2018, 'org', binary('Kindergarten Cop')))": WHY.xmlDataSource,
  },
};

for (const file of FILES) {
  describe(`${file}.sql.out`, () => {
    for (const c of goldenCases(file)) {
      if (c.skip) {
        it.skip(`${c.query}  [not run: ${c.skip}]`, () => {});
        continue;
      }
      const reason = SPARK_DIFFERENCES[file][c.query];
      (reason ? it.fails : it)(reason ? `${c.query}  [differs: ${reason}]` : c.query, async () => {
        const got = await weirAnswer(c.query, c.views, c.binaryOutputStyle);
        expect(got.output).toBe(c.output);
        if (got.schema) expect(sameColumnTypes(c.schema, got.schema), `${c.schema} has Weir's column types`).toBe(true);
      });
    }
  });
}

it('keeps every listed difference a query of its file', () => {
  for (const file of FILES) {
    const queries = new Set(goldenCases(file).map((c) => c.query));
    expect(Object.keys(SPARK_DIFFERENCES[file]).filter((q) => !queries.has(q))).toEqual([]);
  }
});
