/**
 * The examples of Spark's function reference (the `Examples:` of each `@ExpressionDescription`
 * in Spark's catalyst expressions, `> SELECT …;` and the line Spark prints under it), one per
 * line as `query => printed result`; a result between ⟨ ⟩ keeps its spaces. Lines under
 * `# group` headings. spark-function-examples.test.ts runs each through the engine and prints
 * the result as Spark's spark-sql shell does.
 *
 * Spark's examples run with the session time zone America/Los_Angeles; Weir's session zone is
 * UTC, so the few whose answer depends on the zone are listed in SPARK_EXAMPLE_DIFFERENCES.
 */
export const SPARK_FUNCTION_EXAMPLES = String.raw`
# string
SELECT ascii('222') => 50
SELECT ascii(2) => 50
SELECT base64('Spark SQL') => U3BhcmsgU1FM
SELECT bit_length('Spark SQL') => 72
SELECT bit_length(x'537061726b2053514c') => 72
SELECT btrim('    SparkSQL   ') => SparkSQL
SELECT btrim('SSparkSQLS', 'SL') => parkSQ
SELECT char(65) => A
SELECT chr(65) => A
SELECT char_length('Spark SQL ') => 10
SELECT char_length(x'537061726b2053514c') => 9
SELECT CHAR_LENGTH('Spark SQL ') => 10
SELECT CHARACTER_LENGTH('Spark SQL ') => 10
SELECT concat('Spark', 'SQL') => SparkSQL
SELECT concat(array(1, 2, 3), array(4, 5), array(6)) => [1,2,3,4,5,6]
SELECT concat_ws(' ', 'Spark', 'SQL') => Spark SQL
SELECT concat_ws('s') => ⟨⟩
SELECT concat_ws('/', 'foo', null, 'bar') => foo/bar
SELECT concat_ws(null, 'Spark', 'SQL') => NULL
SELECT contains('Spark SQL', 'Spark') => true
SELECT contains('Spark SQL', 'SPARK') => false
SELECT contains('Spark SQL', null) => NULL
SELECT contains(x'537061726b2053514c', x'537061726b') => true
SELECT decode(encode('abc', 'utf-8'), 'utf-8') => abc
SELECT decode(2, 1, 'Southlake', 2, 'San Francisco', 3, 'New Jersey', 4, 'Seattle', 'Non domestic') => San Francisco
SELECT decode(6, 1, 'Southlake', 2, 'San Francisco', 3, 'New Jersey', 4, 'Seattle', 'Non domestic') => Non domestic
SELECT decode(6, 1, 'Southlake', 2, 'San Francisco', 3, 'New Jersey', 4, 'Seattle') => NULL
SELECT decode(null, 6, 'Spark', NULL, 'SQL', 4, 'rocks') => SQL
SELECT elt(1, 'scala', 'java') => scala
SELECT elt(2, 'a', 1) => 1
SELECT encode('abc', 'utf-8') => abc
SELECT endswith('Spark SQL', 'SQL') => true
SELECT endswith('Spark SQL', 'Spark') => false
SELECT endswith('Spark SQL', null) => NULL
SELECT endswith(x'537061726b2053514c', x'53514c') => true
SELECT find_in_set('ab','abc,b,ab,c,def') => 3
SELECT format_number(12332.123456, 4) => 12,332.1235
SELECT format_number(12332.123456, '##################.###') => 12332.123
SELECT format_string("Hello World %d %s", 100, "days") => Hello World 100 days
SELECT printf("Hello World %d %s", 100, "days") => Hello World 100 days
SELECT initcap('sPark sql') => Spark Sql
SELECT instr('SparkSQL', 'SQL') => 6
SELECT lcase('SparkSql') => sparksql
SELECT lower('SparkSql') => sparksql
SELECT left('Spark SQL', 3) => Spa
SELECT len('Spark SQL ') => 10
SELECT length('Spark SQL ') => 10
SELECT length(x'537061726b2053514c') => 9
SELECT levenshtein('kitten', 'sitting') => 3
SELECT levenshtein('kitten', 'sitting', 2) => -1
SELECT locate('bar', 'foobarbar') => 4
SELECT locate('bar', 'foobarbar', 5) => 7
SELECT POSITION('bar' IN 'foobarbar') => 4
SELECT position('bar', 'foobarbar') => 4
SELECT position('bar', 'foobarbar', 5) => 7
SELECT lpad('hi', 5, '??') => ???hi
SELECT lpad('hi', 1, '??') => h
SELECT lpad('hi', 5) => ⟨   hi⟩
SELECT ltrim('    SparkSQL   ') => ⟨SparkSQL   ⟩
SELECT luhn_check('8112189876') => true
SELECT luhn_check('79927398713') => true
SELECT luhn_check('79927398714') => false
SELECT mask('abcd-EFGH-8765-4321') => xxxx-XXXX-nnnn-nnnn
SELECT mask('abcd-EFGH-8765-4321', 'Q') => xxxx-QQQQ-nnnn-nnnn
SELECT mask('AbCD123-@$#', 'Q', 'q') => QqQQnnn-@$#
SELECT mask('AbCD123-@$#') => XxXXnnn-@$#
SELECT mask('AbCD123-@$#', 'Q') => QxQQnnn-@$#
SELECT mask('AbCD123-@$#', 'Q', 'q', 'd') => QqQQddd-@$#
SELECT mask('AbCD123-@$#', 'Q', 'q', 'd', 'o') => QqQQdddoooo
SELECT mask('AbCD123-@$#', NULL, 'q', 'd', 'o') => AqCDdddoooo
SELECT mask('AbCD123-@$#', NULL, NULL, 'd', 'o') => AbCDdddoooo
SELECT mask('AbCD123-@$#', NULL, NULL, NULL, 'o') => AbCD123oooo
SELECT mask(NULL, NULL, NULL, NULL, 'o') => NULL
SELECT mask(NULL) => NULL
SELECT mask('AbCD123-@$#', NULL, NULL, NULL, NULL) => AbCD123-@$#
SELECT octet_length('Spark SQL') => 9
SELECT octet_length(x'537061726b2053514c') => 9
SELECT overlay('Spark SQL' PLACING '_' FROM 6) => Spark_SQL
SELECT overlay('Spark SQL' PLACING 'CORE' FROM 7) => Spark CORE
SELECT overlay('Spark SQL' PLACING 'ANSI ' FROM 7 FOR 0) => Spark ANSI SQL
SELECT overlay('Spark SQL' PLACING 'tructured' FROM 2 FOR 4) => Structured SQL
SELECT quote('Don\'t') => 'Don\'t'
SELECT regexp_count('Steven Jones and Stephen Smith are the best players', 'Ste(v|ph)en') => 2
SELECT regexp_count('abcdefghijklmnopqrstuvwxyz', '[a-z]{3}') => 8
SELECT regexp_extract('100-200', '(\\d+)-(\\d+)', 1) => 100
SELECT regexp_extract_all('100-200, 300-400', '(\\d+)-(\\d+)', 1) => ["100","300"]
SELECT regexp_instr('user@spark.apache.org', '@[^.]*') => 5
SELECT regexp_replace('100-200', '(\\d+)', 'num') => num-num
SELECT regexp_substr('Steven Jones and Stephen Smith are the best players', 'Ste(v|ph)en') => Steven
SELECT regexp_substr('Steven Jones and Stephen Smith are the best players', 'Jeck') => NULL
SELECT repeat('123', 2) => 123123
SELECT replace('ABCabc', 'abc', 'DEF') => ABCDEF
SELECT reverse('Spark SQL') => LQS krapS
SELECT reverse(array(2, 1, 4, 3)) => [3,4,1,2]
SELECT right('Spark SQL', 3) => SQL
SELECT rpad('hi', 5, '??') => hi???
SELECT rpad('hi', 1, '??') => h
SELECT rpad('hi', 5) => ⟨hi   ⟩
SELECT rtrim('    SparkSQL   ') => ⟨    SparkSQL⟩
SELECT sentences('Hi there! Good morning.') => [["Hi","there"],["Good","morning"]]
SELECT soundex('Miller') => M460
SELECT concat(space(2), '1') => ⟨  1⟩
SELECT split('oneAtwoBthreeC', '[ABC]') => ["one","two","three",""]
SELECT split('oneAtwoBthreeC', '[ABC]', -1) => ["one","two","three",""]
SELECT split('oneAtwoBthreeC', '[ABC]', 2) => ["one","twoBthreeC"]
SELECT split_part('11.12.13', '.', 3) => 13
SELECT startswith('Spark SQL', 'Spark') => true
SELECT startswith('Spark SQL', 'SQL') => false
SELECT startswith('Spark SQL', null) => NULL
SELECT startswith(x'537061726b2053514c', x'537061726b') => true
SELECT substr('Spark SQL', 5) => k SQL
SELECT substr('Spark SQL', -3) => SQL
SELECT substr('Spark SQL', 5, 1) => k
SELECT substr('Spark SQL' FROM 5) => k SQL
SELECT substr('Spark SQL' FROM -3) => SQL
SELECT substr('Spark SQL' FROM 5 FOR 1) => k
SELECT substr(encode('Spark SQL', 'utf-8'), 5) => k SQL
SELECT substring('Spark SQL', 5) => k SQL
SELECT substring('Spark SQL', -3) => SQL
SELECT substring('Spark SQL', 5, 1) => k
SELECT substring_index('www.apache.org', '.', 2) => www.apache
SELECT to_binary('abc', 'utf-8') => abc
SELECT to_char(454, '999') => 454
SELECT to_char(454.00, '000D00') => 454.00
SELECT to_char(12454, '99G999') => 12,454
SELECT to_char(78.12, '$99.99') => $78.12
SELECT to_char(-12454.8, '99G999D9S') => 12,454.8-
SELECT to_number('454', '999') => 454
SELECT to_number('454.00', '000.00') => 454.00
SELECT to_number('12,454', '99,999') => 12454
SELECT to_number('$78.12', '$99.99') => 78.12
SELECT to_number('12,454.8-', '99,999.9S') => -12454.8
SELECT translate('AaBbCc', 'abc', '123') => A1B2C3
SELECT trim('    SparkSQL   ') => SparkSQL
SELECT trim(BOTH FROM '    SparkSQL   ') => SparkSQL
SELECT trim(LEADING FROM '    SparkSQL   ') => ⟨SparkSQL   ⟩
SELECT trim(TRAILING FROM '    SparkSQL   ') => ⟨    SparkSQL⟩
SELECT trim('SL' FROM 'SSparkSQLS') => parkSQ
SELECT trim(BOTH 'SL' FROM 'SSparkSQLS') => parkSQ
SELECT trim(LEADING 'SL' FROM 'SSparkSQLS') => parkSQLS
SELECT trim(TRAILING 'SL' FROM 'SSparkSQLS') => SSparkSQ
SELECT try_to_binary('abc', 'utf-8') => abc
SELECT try_to_binary('a!', 'base64') => NULL
SELECT try_to_binary('abc', 'invalidFormat') => NULL
SELECT try_to_number('454', '999') => 454
SELECT try_to_number('454.00', '000.00') => 454.00
SELECT try_to_number('12,454', '99,999') => 12454
SELECT try_to_number('$78.12', '$99.99') => 78.12
SELECT try_to_number('12,454.8-', '99,999.9S') => -12454.8
SELECT ucase('SparkSql') => SPARKSQL
SELECT upper('SparkSql') => SPARKSQL
SELECT unbase64('U3BhcmsgU1FM') => Spark SQL
SELECT decode(unhex('537061726B2053514C'), 'UTF-8') => Spark SQL
SELECT hex(17) => 11
SELECT hex('Spark SQL') => 537061726B2053514C
SELECT is_valid_utf8('Spark') => true
SELECT is_valid_utf8(x'61') => true
SELECT is_valid_utf8(x'80') => false
SELECT is_valid_utf8(x'61C262') => false
SELECT make_valid_utf8('Spark') => Spark
SELECT make_valid_utf8(x'61') => a
SELECT make_valid_utf8(x'80') => �
SELECT make_valid_utf8(x'61C262') => a�b
SELECT validate_utf8('Spark') => Spark
SELECT validate_utf8(x'61') => a
SELECT try_validate_utf8('Spark') => Spark
SELECT try_validate_utf8(x'61') => a
SELECT try_validate_utf8(x'80') => NULL
SELECT try_validate_utf8(x'61C262') => NULL
SELECT url_encode('https://spark.apache.org') => https%3A%2F%2Fspark.apache.org
SELECT url_decode('https%3A%2F%2Fspark.apache.org') => https://spark.apache.org
SELECT try_url_decode('https%3A%2F%2Fspark.apache.org') => https://spark.apache.org
SELECT parse_url('http://spark.apache.org/path?query=1', 'HOST') => spark.apache.org
SELECT parse_url('http://spark.apache.org/path?query=1', 'QUERY') => query=1
SELECT parse_url('http://spark.apache.org/path?query=1', 'QUERY', 'query') => 1
SELECT try_parse_url('http://spark.apache.org/path?query=1', 'HOST') => spark.apache.org
SELECT try_parse_url('http://spark.apache.org/path?query=1', 'QUERY') => query=1
SELECT try_parse_url('inva lid://spark.apache.org/path?query=1', 'QUERY') => NULL
SELECT try_parse_url('http://spark.apache.org/path?query=1', 'QUERY', 'query') => 1
SELECT md5('Spark') => 8cde774d6f7333752ed72cacddb05126
SELECT sha('Spark') => 85f5955f4b27a9a4c2aab6ffe5d7189fc298b92c
SELECT sha1('Spark') => 85f5955f4b27a9a4c2aab6ffe5d7189fc298b92c
SELECT sha2('Spark', 256) => 529bc3b07127ecb7e53a4dcf1991d9152c24537d919178022b2c42657f79a26b
SELECT crc32('Spark') => 1557323817
SELECT hash('Spark', array(123), 2) => -1321691492
SELECT xxhash64('Spark', array(123), 2) => 5602566077635097486

# predicate
SELECT like('Spark', '_park') => true
SELECT ilike('Spark', '_PARK') => true
SELECT rlike('Spark', 'Sp.*') => true
SELECT regexp_like('Spark', 'Sp.*') => true
SELECT isnull(1) => false
SELECT isnotnull(1) => true
SELECT isnan(cast('NaN' as double)) => true
SELECT equal_null(3, 3) => true
SELECT equal_null(1, '11') => false
SELECT equal_null(true, NULL) => false
SELECT equal_null(NULL, 'abc') => false
SELECT equal_null(NULL, NULL) => true

# math
SELECT abs(-1) => 1
SELECT acos(1) => 0.0
SELECT acos(2) => NaN
SELECT acosh(1) => 0.0
SELECT acosh(0) => NaN
SELECT asin(0) => 0.0
SELECT asin(2) => NaN
SELECT asinh(0) => 0.0
SELECT atan(0) => 0.0
SELECT atan2(0, 0) => 0.0
SELECT atanh(0) => 0.0
SELECT atanh(2) => NaN
SELECT bin(13) => 1101
SELECT bin(-13) => 1111111111111111111111111111111111111111111111111111111111110011
SELECT bin(13.3) => 1101
SELECT bround(2.5, 0) => 2
SELECT bround(25, -1) => 20
SELECT cbrt(27.0) => 3.0
SELECT ceil(-0.1) => 0
SELECT ceil(5) => 5
SELECT ceil(3.1411, 3) => 3.142
SELECT ceil(3.1411, -3) => 1000
SELECT ceiling(-0.1) => 0
SELECT ceiling(5) => 5
SELECT conv('100', 2, 10) => 4
SELECT conv(-10, 16, -10) => -16
SELECT cos(0) => 1.0
SELECT cosh(0) => 1.0
SELECT cot(1) => 0.6420926159343306
SELECT csc(1) => 1.1883951057781212
SELECT degrees(3.141592653589793) => 180.0
SELECT e() => 2.718281828459045
SELECT exp(0) => 1.0
SELECT expm1(0) => 0.0
SELECT factorial(5) => 120
SELECT floor(-0.1) => -1
SELECT floor(5) => 5
SELECT floor(3.1411, 3) => 3.141
SELECT floor(3.1411, -3) => 0
SELECT greatest(10, 9, 2, 4, 3) => 10
SELECT hypot(3, 4) => 5.0
SELECT least(10, 9, 2, 4, 3) => 2
SELECT ln(1) => 0.0
SELECT log(10, 100) => 2.0
SELECT log10(10) => 1.0
SELECT log1p(0) => 0.0
SELECT log2(2) => 1.0
SELECT mod(2, 1.8) => 0.2
SELECT negative(1) => -1
SELECT pi() => 3.141592653589793
SELECT pmod(10, 3) => 1
SELECT pmod(-10, 3) => 2
SELECT positive(1) => 1
SELECT pow(2, 3) => 8.0
SELECT power(2, 3) => 8.0
SELECT radians(180) => 3.141592653589793
SELECT rand(0) => 0.7604953758285915
SELECT rand(null) => 0.7604953758285915
SELECT random(0) => 0.7604953758285915
SELECT random(null) => 0.7604953758285915
SELECT randn(0) => 1.6034991609278433
SELECT randn(null) => 1.6034991609278433
SELECT rint(12.3456) => 12.0
SELECT round(2.5, 0) => 3
SELECT round(25, -1) => 30
SELECT sec(0) => 1.0
SELECT shiftleft(2, 1) => 4
SELECT shiftright(4, 1) => 2
SELECT shiftrightunsigned(4, 1) => 2
SELECT sign(40) => 1.0
SELECT signum(40) => 1.0
SELECT sin(0) => 0.0
SELECT sinh(0) => 0.0
SELECT sqrt(4) => 2.0
SELECT tan(0) => 0.0
SELECT tanh(0) => 0.0
SELECT try_add(1, 2) => 3
SELECT try_add(2147483647, 1) => NULL
SELECT try_divide(3, 2) => 1.5
SELECT try_divide(2L, 2L) => 1.0
SELECT try_divide(1, 0) => NULL
SELECT try_multiply(2, 3) => 6
SELECT try_multiply(-2147483648, 10) => NULL
SELECT try_subtract(2, 1) => 1
SELECT try_subtract(-2147483648, 1) => NULL
SELECT width_bucket(5.3, 0.2, 10.6, 5) => 3
SELECT width_bucket(-2.1, 1.3, 3.4, 3) => 0
SELECT width_bucket(8.1, 0.0, 5.7, 4) => 5
SELECT width_bucket(-0.9, 5.2, 0.5, 2) => 3
SELECT bit_count(0) => 0
SELECT bit_get(11, 0) => 1
SELECT bit_get(11, 2) => 0
SELECT getbit(11, 0) => 1
SELECT getbit(11, 2) => 0

# conditional
SELECT coalesce(NULL, 1, NULL) => 1
SELECT if(1 < 2, 'a', 'b') => a
SELECT ifnull(NULL, array('2')) => ["2"]
SELECT nanvl(cast('NaN' as double), 123) => 123.0
SELECT nullif(2, 2) => NULL
SELECT nvl(NULL, array('2')) => ["2"]
SELECT nvl2(NULL, 2, 1) => 1
SELECT zeroifnull(NULL) => 0
SELECT zeroifnull(2) => 2
SELECT nullifzero(0) => NULL
SELECT nullifzero(2) => 2

# datetime
SELECT make_interval(100, 11, 1, 1, 12, 30, 01.001001) => 100 years 11 months 8 days 12 hours 30 minutes 1.001001 seconds
SELECT make_interval(100, null, 3) => NULL
SELECT make_interval(0, 1, 0, 1, 0, 0, 100.000001) => 1 months 1 days 1 minutes 40.000001 seconds
SELECT try_make_interval(100, 11) => 100 years 11 months
SELECT try_make_interval(0) => 0 seconds
SELECT try_make_interval(2147483647, 0) => NULL
SELECT add_months('2016-08-31', 1) => 2016-09-30
SELECT date_add('2016-07-30', 1) => 2016-07-31
SELECT dateadd('2016-07-30', 1) => 2016-07-31
SELECT date_diff('2009-07-31', '2009-07-30') => 1
SELECT date_diff('2009-07-30', '2009-07-31') => -1
SELECT datediff('2009-07-31', '2009-07-30') => 1
SELECT datediff('2009-07-30', '2009-07-31') => -1
SELECT date_format('2016-04-08', 'y') => 2016
SELECT date_from_unix_date(1) => 1970-01-02
SELECT date_part('YEAR', TIMESTAMP '2019-08-12 01:00:00.123456') => 2019
SELECT date_part('week', timestamp'2019-08-12 01:00:00.123456') => 33
SELECT date_part('doy', DATE'2019-08-12') => 224
SELECT date_part('SECONDS', timestamp'2019-10-01 00:00:01.000001') => 1.000001
SELECT date_sub('2016-07-30', 1) => 2016-07-29
SELECT date_trunc('YEAR', '2015-03-05T09:32:05.359') => 2015-01-01 00:00:00
SELECT date_trunc('MM', '2015-03-05T09:32:05.359') => 2015-03-01 00:00:00
SELECT date_trunc('DD', '2015-03-05T09:32:05.359') => 2015-03-05 00:00:00
SELECT date_trunc('HOUR', '2015-03-05T09:32:05.359') => 2015-03-05 09:00:00
SELECT date_trunc('MILLISECOND', '2015-03-05T09:32:05.123456') => 2015-03-05 09:32:05.123
SELECT day('2009-07-30') => 30
SELECT dayofmonth('2009-07-30') => 30
SELECT dayofweek('2009-07-30') => 5
SELECT dayofyear('2016-04-09') => 100
SELECT extract(YEAR FROM TIMESTAMP '2019-08-12 01:00:00.123456') => 2019
SELECT extract(week FROM timestamp'2019-08-12 01:00:00.123456') => 33
SELECT extract(doy FROM DATE'2019-08-12') => 224
SELECT extract(SECONDS FROM timestamp'2019-10-01 00:00:01.000001') => 1.000001
SELECT hour('2009-07-30 12:58:59') => 12
SELECT minute('2009-07-30 12:58:59') => 58
SELECT second('2009-07-30 12:58:59') => 59
SELECT last_day('2009-01-12') => 2009-01-31
SELECT make_date(2013, 7, 15) => 2013-07-15
SELECT make_date(2019, 7, NULL) => NULL
SELECT make_timestamp(2014, 12, 28, 6, 30, 45.887) => 2014-12-28 06:30:45.887
SELECT make_timestamp(2019, 6, 30, 23, 59, 60) => 2019-07-01 00:00:00
SELECT make_timestamp(null, 7, 22, 15, 30, 0) => NULL
SELECT month('2016-07-30') => 7
SELECT months_between('1997-02-28 10:30:00', '1996-10-30') => 3.94959677
SELECT months_between('1997-02-28 10:30:00', '1996-10-30', false) => 3.9495967741935485
SELECT next_day('2015-01-14', 'TU') => 2015-01-20
SELECT quarter('2016-08-31') => 3
SELECT timestamp_micros(1230219000123123) => 2008-12-25 07:30:00.123123
SELECT timestamp_millis(1230219000123) => 2008-12-25 07:30:00.123
SELECT timestamp_seconds(1230219000) => 2008-12-25 07:30:00
SELECT timestamp_seconds(1230219000.123) => 2008-12-25 07:30:00.123
SELECT to_date('2009-07-30 04:17:52') => 2009-07-30
SELECT to_date('2016-12-31', 'yyyy-MM-dd') => 2016-12-31
SELECT to_timestamp('2016-12-31 00:12:00') => 2016-12-31 00:12:00
SELECT to_timestamp('2016-12-31', 'yyyy-MM-dd') => 2016-12-31 00:00:00
SELECT trunc('2019-08-04', 'week') => 2019-07-29
SELECT trunc('2019-08-04', 'quarter') => 2019-07-01
SELECT trunc('2009-02-12', 'MM') => 2009-02-01
SELECT trunc('2015-10-27', 'YEAR') => 2015-01-01
SELECT unix_date(DATE("1970-01-02")) => 1
SELECT unix_micros(TIMESTAMP('1970-01-01 00:00:01Z')) => 1000000
SELECT unix_millis(TIMESTAMP('1970-01-01 00:00:01Z')) => 1000
SELECT unix_seconds(TIMESTAMP('1970-01-01 00:00:01Z')) => 1
SELECT unix_timestamp('2016-04-08', 'yyyy-MM-dd') => 1460098800
SELECT weekday('2009-07-30') => 3
SELECT weekofyear('2008-02-20') => 8
SELECT year('2016-07-30') => 2016
SELECT from_unixtime(0, 'yyyy-MM-dd HH:mm:ss') => 1969-12-31 16:00:00
SELECT timestampadd(HOUR, 8, timestamp_ntz'2022-02-11 20:30:00') => 2022-02-12 04:30:00
SELECT timestampadd(MONTH, 1, timestamp_ltz'2022-01-31 00:00:00') => 2022-02-28 00:00:00
SELECT timestampadd(SECOND, -10, date'2022-01-01') => 2021-12-31 23:59:50
SELECT timestampadd(YEAR, 10, timestamp'2000-01-01 01:02:03.123456') => 2010-01-01 01:02:03.123456
SELECT timestampdiff(HOUR, timestamp_ntz'2022-02-11 20:30:00', timestamp_ntz'2022-02-12 04:30:00') => 8
SELECT timestampdiff(MONTH, timestamp_ltz'2022-01-01 00:00:00', timestamp_ltz'2022-02-28 00:00:00') => 1
SELECT timestampdiff(SECOND, date'2022-01-01', timestamp'2021-12-31 23:59:50') => -10
SELECT timestampdiff(YEAR, date'2022-01-01', date'2021-01-01') => -1

# array
SELECT array(1, 2, 3) => [1,2,3]
SELECT array_append(array('b', 'd', 'c', 'a'), 'd') => ["b","d","c","a","d"]
SELECT array_append(array(1, 2, 3, null), null) => [1,2,3,null,null]
SELECT array_append(CAST(null as Array<Int>), 2) => NULL
SELECT array_compact(array(1, 2, 3, null)) => [1,2,3]
SELECT array_compact(array("a", "b", "c")) => ["a","b","c"]
SELECT array_contains(array(1, 2, 3), 2) => true
SELECT array_distinct(array(1, 2, 3, null, 3)) => [1,2,3,null]
SELECT array_except(array(1, 2, 3), array(1, 3, 5)) => [2]
SELECT array_insert(array(1, 2, 3, 4), 5, 5) => [1,2,3,4,5]
SELECT array_insert(array(5, 4, 3, 2), -1, 1) => [5,4,3,2,1]
SELECT array_insert(array(5, 3, 2, 1), -4, 4) => [5,4,3,2,1]
SELECT array_intersect(array(1, 2, 3), array(1, 3, 5)) => [1,3]
SELECT array_join(array('hello', 'world'), ' ') => hello world
SELECT array_join(array('hello', null ,'world'), ' ') => hello world
SELECT array_join(array('hello', null ,'world'), ' ', ',') => hello , world
SELECT array_max(array(1, 20, null, 3)) => 20
SELECT array_min(array(1, 20, null, 3)) => 1
SELECT array_position(array(312, 773, 708, 708), 708) => 3
SELECT array_position(array(312, 773, 708, 708), 414) => 0
SELECT array_prepend(array('b', 'd', 'c', 'a'), 'd') => ["d","b","d","c","a"]
SELECT array_prepend(array(1, 2, 3, null), null) => [null,1,2,3,null]
SELECT array_prepend(CAST(null as Array<Int>), 2) => NULL
SELECT array_remove(array(1, 2, 3, null, 3), 3) => [1,2,null]
SELECT array_repeat('123', 2) => ["123","123"]
SELECT array_size(array('b', 'd', 'c', 'a')) => 4
SELECT array_sort(array('b', 'd', null, 'c', 'a')) => ["a","b","c","d",null]
SELECT array_union(array(1, 2, 3), array(1, 3, 5)) => [1,2,3,5]
SELECT arrays_overlap(array(1, 2, 3), array(3, 4, 5)) => true
SELECT arrays_zip(array(1, 2, 3), array(2, 3, 4)) => [{"0":1,"1":2},{"0":2,"1":3},{"0":3,"1":4}]
SELECT arrays_zip(array(1, 2), array(2, 3), array(3, 4)) => [{"0":1,"1":2,"2":3},{"0":2,"1":3,"2":4}]
SELECT cardinality(array('b', 'd', 'c', 'a')) => 4
SELECT cardinality(map('a', 1, 'b', 2)) => 2
SELECT element_at(array(1, 2, 3), 2) => 2
SELECT element_at(map(1, 'a', 2, 'b'), 2) => b
SELECT flatten(array(array(1, 2), array(3, 4))) => [1,2,3,4]
SELECT get(array(1, 2, 3), 0) => 1
SELECT get(array(1, 2, 3), 3) => NULL
SELECT get(array(1, 2, 3), -1) => NULL
SELECT sequence(1, 5) => [1,2,3,4,5]
SELECT sequence(5, 1) => [5,4,3,2,1]
SELECT size(array('b', 'd', 'c', 'a')) => 4
SELECT size(map('a', 1, 'b', 2)) => 2
SELECT slice(array(1, 2, 3, 4), 2, 2) => [2,3]
SELECT slice(array(1, 2, 3, 4), -2, 2) => [3,4]
SELECT sort_array(array('b', 'd', null, 'c', 'a'), true) => [null,"a","b","c","d"]
SELECT sort_array(array('b', 'd', null, 'c', 'a'), false) => ["d","c","b","a",null]
SELECT try_element_at(array(1, 2, 3), 2) => 2
SELECT try_element_at(map(1, 'a', 2, 'b'), 2) => b

# lambda
SELECT aggregate(array(1, 2, 3), 0, (acc, x) -> acc + x) => 6
SELECT aggregate(array(1, 2, 3), 0, (acc, x) -> acc + x, acc -> acc * 10) => 60
SELECT reduce(array(1, 2, 3), 0, (acc, x) -> acc + x) => 6
SELECT reduce(array(1, 2, 3), 0, (acc, x) -> acc + x, acc -> acc * 10) => 60
SELECT array_sort(array(5, 6, 1), (left, right) -> case when left < right then -1 when left > right then 1 else 0 end) => [1,5,6]
SELECT array_sort(array('bc', 'ab', 'dc'), (left, right) -> case when left is null and right is null then 0 when left is null then -1 when right is null then 1 when left < right then 1 when left > right then -1 else 0 end) => ["dc","bc","ab"]
SELECT exists(array(1, 2, 3), x -> x % 2 == 0) => true
SELECT exists(array(1, 2, 3), x -> x % 2 == 10) => false
SELECT exists(array(1, null, 3), x -> x % 2 == 0) => NULL
SELECT exists(array(0, null, 2, 3, null), x -> x IS NULL) => true
SELECT exists(array(1, 2, 3), x -> x IS NULL) => false
SELECT filter(array(1, 2, 3), x -> x % 2 == 1) => [1,3]
SELECT filter(array(0, 2, 3), (x, i) -> x > i) => [2,3]
SELECT filter(array(0, null, 2, 3, null), x -> x IS NOT NULL) => [0,2,3]
SELECT forall(array(1, 2, 3), x -> x % 2 == 0) => false
SELECT forall(array(2, 4, 8), x -> x % 2 == 0) => true
SELECT forall(array(1, null, 3), x -> x % 2 == 0) => false
SELECT forall(array(2, null, 8), x -> x % 2 == 0) => NULL
SELECT map_filter(map(1, 0, 2, 2, 3, -1), (k, v) -> k > v) => {1:0,3:-1}
SELECT map_zip_with(map(1, 'a', 2, 'b'), map(1, 'x', 2, 'y'), (k, v1, v2) -> concat(v1, v2)) => {1:"ax",2:"by"}
SELECT transform(array(1, 2, 3), x -> x + 1) => [2,3,4]
SELECT transform(array(1, 2, 3), (x, i) -> x + i) => [1,3,5]
SELECT transform_keys(map_from_arrays(array(1, 2, 3), array(1, 2, 3)), (k, v) -> k + 1) => {2:1,3:2,4:3}
SELECT transform_keys(map_from_arrays(array(1, 2, 3), array(1, 2, 3)), (k, v) -> k + v) => {2:1,4:2,6:3}
SELECT transform_values(map_from_arrays(array(1, 2, 3), array(1, 2, 3)), (k, v) -> v + 1) => {1:2,2:3,3:4}
SELECT transform_values(map_from_arrays(array(1, 2, 3), array(1, 2, 3)), (k, v) -> k + v) => {1:2,2:4,3:6}
SELECT zip_with(array(1, 2, 3), array('a', 'b', 'c'), (x, y) -> (y, x)) => [{"y":"a","x":1},{"y":"b","x":2},{"y":"c","x":3}]
SELECT zip_with(array(1, 2), array(3, 4), (x, y) -> x + y) => [4,6]
SELECT zip_with(array('a', 'b', 'c'), array('d', 'e', 'f'), (x, y) -> concat(x, y)) => ["ad","be","cf"]

# map
SELECT map(1.0, '2', 3.0, '4') => {1.0:"2",3.0:"4"}
SELECT map_concat(map(1, 'a', 2, 'b'), map(3, 'c')) => {1:"a",2:"b",3:"c"}
SELECT map_contains_key(map(1, 'a', 2, 'b'), 1) => true
SELECT map_contains_key(map(1, 'a', 2, 'b'), 3) => false
SELECT map_entries(map(1, 'a', 2, 'b')) => [{"key":1,"value":"a"},{"key":2,"value":"b"}]
SELECT map_from_arrays(array(1.0, 3.0), array('2', '4')) => {1.0:"2",3.0:"4"}
SELECT map_from_entries(array(struct(1, 'a'), struct(2, 'b'))) => {1:"a",2:"b"}
SELECT map_keys(map(1, 'a', 2, 'b')) => [1,2]
SELECT map_values(map(1, 'a', 2, 'b')) => ["a","b"]
SELECT str_to_map('a:1,b:2,c:3', ',', ':') => {"a":"1","b":"2","c":"3"}
SELECT str_to_map('a') => {"a":null}

# struct
SELECT named_struct("a", 1, "b", 2, "c", 3) => {"a":1,"b":2,"c":3}
SELECT struct(1, 'a') => {"col1":1,"col2":"a"}

# json
SELECT from_json('{"a":1, "b":0.8}', 'a INT, b DOUBLE') => {"a":1,"b":0.8}
SELECT from_json('{"time":"26/08/2015"}', 'time Timestamp', map('timestampFormat', 'dd/MM/yyyy')) => {"time":2015-08-26 00:00:00}
SELECT from_json('{"teacher": "Alice", "student": [{"name": "Bob", "rank": 1}, {"name": "Charlie", "rank": 2}]}', 'STRUCT<teacher: STRING, student: ARRAY<STRUCT<name: STRING, rank: INT>>>') => {"teacher":"Alice","student":[{"name":"Bob","rank":1},{"name":"Charlie","rank":2}]}
SELECT get_json_object('{"a":"b"}', '$.a') => b
SELECT json_array_length('[1,2,3,4]') => 4
SELECT json_array_length('[1,2,3,{"f1":1,"f2":[5,6]},4]') => 5
SELECT json_array_length('[1,2') => NULL
SELECT json_object_keys('{}') => []
SELECT json_object_keys('{"key": "value"}') => ["key"]
SELECT json_object_keys('{"f1":"abc","f2":{"f3":"a", "f4":"b"}}') => ["f1","f2"]
SELECT schema_of_json('[{"col":0}]') => ARRAY<STRUCT<col: BIGINT>>
SELECT schema_of_json('[{"col":01}]', map('allowNumericLeadingZeros', 'true')) => ARRAY<STRUCT<col: BIGINT>>
SELECT to_json(named_struct('a', 1, 'b', 2)) => {"a":1,"b":2}
SELECT to_json(named_struct('time', to_timestamp('2015-08-26', 'yyyy-MM-dd')), map('timestampFormat', 'dd/MM/yyyy')) => {"time":"26/08/2015"}
SELECT to_json(array(named_struct('a', 1, 'b', 2))) => [{"a":1,"b":2}]
SELECT to_json(map('a', named_struct('b', 1))) => {"a":{"b":1}}
SELECT to_json(map('a', 1)) => {"a":1}
SELECT to_json(array(map('a', 1))) => [{"a":1}]

# conversion
SELECT cast('10' as int) => 10
SELECT int('10') => 10
SELECT bigint('10') => 10
SELECT double('1.5') => 1.5
SELECT boolean('true') => true
SELECT string(1) => 1
SELECT date('2016-07-30') => 2016-07-30
SELECT timestamp('2016-07-30 01:02:03') => 2016-07-30 01:02:03

# misc
SELECT typeof(1) => int
SELECT typeof(array(1)) => array<int>
SELECT typeof('a') => string
SELECT current_database() => default
SELECT input_file_name() => ⟨⟩
SELECT input_file_block_length() => -1
SELECT input_file_block_start() => -1
SELECT current_schema() => default
SELECT current_catalog() => spark_catalog
SELECT current_user() => mockingjay
SELECT user() => mockingjay
SELECT session_user() => mockingjay
SELECT version() => 3.1.0 a6d6ea3efedbad14d99c24143834cd4e2e52fb40
SELECT hex(aes_encrypt('Spark', '0000111122223333')) => 83F16B2AA704794132802D248E6BFD4E380078182D1544813898AC97E709B28A94
SELECT hex(aes_encrypt('Spark SQL', '0000111122223333', 'GCM')) => 6E7CA17BBB468D3084B5744BCA729FB7B2B7BCB8E4472847D02670489D95FA97DBBA7D3210
SELECT base64(aes_encrypt('Spark SQL', '1234567890abcdef', 'ECB', 'PKCS')) => 3lmwu+Mw0H3fi5NDvcu9lg==
SELECT base64(aes_encrypt('Apache Spark', '1234567890abcdef', 'CBC', 'DEFAULT')) => 2NYmDCjgXTbbxGA3/SnJEfFC/JQ7olk2VQWReIAAFKo=
SELECT base64(aes_encrypt('Spark', 'abcdefghijklmnop12345678ABCDEFGH', 'CBC', 'DEFAULT', unhex('00000000000000000000000000000000'))) => AAAAAAAAAAAAAAAAAAAAAPSd4mWyMZ5mhvjiAPQJnfg=
SELECT base64(aes_encrypt('Spark', 'abcdefghijklmnop12345678ABCDEFGH', 'GCM', 'DEFAULT', unhex('000000000000000000000000'), 'This is an AAD mixed into the input')) => AAAAAAAAAAAAAAAAQiYi+sTLm7KD9UcZ2nlRdYDe/PX4
SELECT aes_decrypt(unhex('83F16B2AA704794132802D248E6BFD4E380078182D1544813898AC97E709B28A94'), '0000111122223333') => Spark
SELECT aes_decrypt(unhex('6E7CA17BBB468D3084B5744BCA729FB7B2B7BCB8E4472847D02670489D95FA97DBBA7D3210'), '0000111122223333', 'GCM') => Spark SQL
SELECT aes_decrypt(unbase64('3lmwu+Mw0H3fi5NDvcu9lg=='), '1234567890abcdef', 'ECB', 'PKCS') => Spark SQL
SELECT aes_decrypt(unbase64('2NYmDCjgXTbbxGA3/SnJEfFC/JQ7olk2VQWReIAAFKo='), '1234567890abcdef', 'CBC') => Apache Spark
SELECT aes_decrypt(unbase64('AAAAAAAAAAAAAAAAAAAAAPSd4mWyMZ5mhvjiAPQJnfg='), 'abcdefghijklmnop12345678ABCDEFGH', 'CBC', 'DEFAULT') => Spark
SELECT aes_decrypt(unbase64('AAAAAAAAAAAAAAAAQiYi+sTLm7KD9UcZ2nlRdYDe/PX4'), 'abcdefghijklmnop12345678ABCDEFGH', 'GCM', 'DEFAULT', 'This is an AAD mixed into the input') => Spark
SELECT try_aes_decrypt(unhex('6E7CA17BBB468D3084B5744BCA729FB7B2B7BCB8E4472847D02670489D95FA97DBBA7D3210'), '0000111122223333', 'GCM') => Spark SQL
SELECT try_aes_decrypt(unhex('----------468D3084B5744BCA729FB7B2B7BCB8E4472847D02670489D95FA97DBBA7D3210'), '0000111122223333', 'GCM') => NULL
SELECT bitmap_bit_position(1) => 0
SELECT bitmap_bit_position(123) => 122
SELECT bitmap_bucket_number(123) => 1
SELECT bitmap_bucket_number(0) => 0
SELECT bitmap_count(X '1010') => 2
SELECT bitmap_count(X 'FFFF') => 16
SELECT bitmap_count(X '0') => 0
SELECT hll_sketch_estimate(hll_sketch_agg(col)) FROM VALUES (1), (1), (2), (2), (3) AS tab(col) => 3
SELECT hll_sketch_estimate(hll_union(hll_sketch_agg(col1), hll_sketch_agg(col2))) FROM VALUES (1, 4), (1, 4), (2, 5), (2, 5), (3, 6) AS tab(col1, col2) => 6

# xml
SELECT xpath('<a><b>b1</b><b>b2</b><b>b3</b><c>c1</c><c>c2</c></a>','a/b/text()') => ["b1","b2","b3"]
SELECT xpath_boolean('<a><b>1</b></a>','a/b') => true
SELECT xpath_double('<a><b>1</b><b>2</b></a>', 'sum(a/b)') => 3.0
SELECT xpath_float('<a><b>1</b><b>2</b></a>', 'sum(a/b)') => 3.0
SELECT xpath_int('<a><b>1</b><b>2</b></a>', 'sum(a/b)') => 3
SELECT xpath_long('<a><b>1</b><b>2</b></a>', 'sum(a/b)') => 3
SELECT xpath_number('<a><b>1</b><b>2</b></a>', 'sum(a/b)') => 3.0
SELECT xpath_short('<a><b>1</b><b>2</b></a>', 'sum(a/b)') => 3
SELECT xpath_string('<a><b>b</b><c>cc</c></a>','a/c') => cc
SELECT from_xml('<p><a>1</a><b>0.8</b></p>', 'a INT, b DOUBLE') => {"a":1,"b":0.8}
SELECT from_xml('<p><time>26/08/2015</time></p>', 'time Timestamp', map('timestampFormat', 'dd/MM/yyyy')) => {"time":2015-08-26 00:00:00}
SELECT from_xml('<p><teacher>Alice</teacher><student><name>Bob</name><rank>1</rank></student><student><name>Charlie</name><rank>2</rank></student></p>', 'STRUCT<teacher: STRING, student: ARRAY<STRUCT<name: STRING, rank: INT>>>') => {"teacher":"Alice","student":[{"name":"Bob","rank":1},{"name":"Charlie","rank":2}]}
SELECT schema_of_xml('<p><a>1</a></p>') => STRUCT<a: BIGINT>
SELECT schema_of_xml('<p><a attr="2">1</a><a>3</a></p>', map('excludeAttribute', 'true')) => STRUCT<a: ARRAY<BIGINT>>

# aggregate
SELECT any(col) FROM VALUES (true), (false), (false) AS tab(col) => true
SELECT any(col) FROM VALUES (NULL), (true), (false) AS tab(col) => true
SELECT any(col) FROM VALUES (false), (false), (NULL) AS tab(col) => false
SELECT any_value(col) FROM VALUES (10), (5), (20) AS tab(col) => 10
SELECT any_value(col) FROM VALUES (NULL), (5), (20) AS tab(col) => NULL
SELECT any_value(col, true) FROM VALUES (NULL), (5), (20) AS tab(col) => 5
SELECT approx_count_distinct(col1) FROM VALUES (1), (1), (2), (2), (3) AS tab(col1) => 3
SELECT approx_percentile(col, array(0.5, 0.4, 0.1), 100) FROM VALUES (0), (1), (2), (10) AS tab(col) => [1,1,0]
SELECT approx_percentile(col, 0.5, 100) FROM VALUES (0), (6), (7), (9), (10) AS tab(col) => 7
SELECT percentile_approx(col, array(0.5, 0.4, 0.1), 100) FROM VALUES (0), (1), (2), (10) AS tab(col) => [1,1,0]
SELECT percentile_approx(col, 0.5, 100) FROM VALUES (0), (6), (7), (9), (10) AS tab(col) => 7
SELECT array_agg(col) FROM VALUES (1), (2), (1) AS tab(col) => [1,2,1]
SELECT avg(col) FROM VALUES (1), (2), (3) AS tab(col) => 2.0
SELECT avg(col) FROM VALUES (1), (2), (NULL) AS tab(col) => 1.5
SELECT mean(col) FROM VALUES (1), (2), (3) AS tab(col) => 2.0
SELECT mean(col) FROM VALUES (1), (2), (NULL) AS tab(col) => 1.5
SELECT substring(hex(bitmap_construct_agg(bitmap_bit_position(col))), 0, 6) FROM VALUES (1), (2), (3) AS tab(col) => 070000
SELECT substring(hex(bitmap_construct_agg(bitmap_bit_position(col))), 0, 6) FROM VALUES (1), (1), (1) AS tab(col) => 010000
SELECT substring(hex(bitmap_or_agg(col)), 0, 6) FROM VALUES (X '10'), (X '20'), (X '40') AS tab(col) => 700000
SELECT substring(hex(bitmap_or_agg(col)), 0, 6) FROM VALUES (X '10'), (X '10'), (X '10') AS tab(col) => 100000
SELECT bool_and(col) FROM VALUES (true), (true), (true) AS tab(col) => true
SELECT bool_and(col) FROM VALUES (NULL), (true), (true) AS tab(col) => true
SELECT bool_and(col) FROM VALUES (true), (false), (true) AS tab(col) => false
SELECT every(col) FROM VALUES (true), (true), (true) AS tab(col) => true
SELECT every(col) FROM VALUES (NULL), (true), (true) AS tab(col) => true
SELECT every(col) FROM VALUES (true), (false), (true) AS tab(col) => false
SELECT bool_or(col) FROM VALUES (true), (false), (false) AS tab(col) => true
SELECT bool_or(col) FROM VALUES (NULL), (true), (false) AS tab(col) => true
SELECT bool_or(col) FROM VALUES (false), (false), (NULL) AS tab(col) => false
SELECT some(col) FROM VALUES (true), (false), (false) AS tab(col) => true
SELECT some(col) FROM VALUES (NULL), (true), (false) AS tab(col) => true
SELECT some(col) FROM VALUES (false), (false), (NULL) AS tab(col) => false
SELECT collect_list(col) FROM VALUES (1), (2), (1) AS tab(col) => [1,2,1]
SELECT collect_set(col) FROM VALUES (1), (2), (1) AS tab(col) => [1,2]
SELECT corr(c1, c2) FROM VALUES (3, 2), (3, 3), (6, 4) as tab(c1, c2) => 0.8660254037844387
SELECT count(*) FROM VALUES (NULL), (5), (5), (20) AS tab(col) => 4
SELECT count(col) FROM VALUES (NULL), (5), (5), (20) AS tab(col) => 3
SELECT count(DISTINCT col) FROM VALUES (NULL), (5), (5), (10) AS tab(col) => 2
SELECT count_if(col % 2 = 0) FROM VALUES (NULL), (0), (1), (2), (3) AS tab(col) => 2
SELECT count_if(col IS NULL) FROM VALUES (NULL), (0), (1), (2), (3) AS tab(col) => 1
SELECT hll_sketch_estimate(hll_sketch_agg(col, 12)) FROM VALUES (1), (1), (2), (2), (3) AS tab(col) => 3
SELECT hex(count_min_sketch(col, 0.5d, 0.5d, 1)) FROM VALUES (1), (2), (1) AS tab(col) => 0000000100000000000000030000000100000004000000005D8D6AB90000000000000000000000000000000200000000000000010000000000000000
SELECT covar_pop(c1, c2) FROM VALUES (1,1), (2,2), (3,3) AS tab(c1, c2) => 0.6666666666666666
SELECT covar_samp(c1, c2) FROM VALUES (1,1), (2,2), (3,3) AS tab(c1, c2) => 1.0
SELECT first(col) FROM VALUES (10), (5), (20) AS tab(col) => 10
SELECT first(col) FROM VALUES (NULL), (5), (20) AS tab(col) => NULL
SELECT first(col, true) FROM VALUES (NULL), (5), (20) AS tab(col) => 5
SELECT first_value(col) FROM VALUES (10), (5), (20) AS tab(col) => 10
SELECT first_value(col) FROM VALUES (NULL), (5), (20) AS tab(col) => NULL
SELECT first_value(col, true) FROM VALUES (NULL), (5), (20) AS tab(col) => 5
SELECT histogram_numeric(col, 5) FROM VALUES (0), (1), (2), (10) AS tab(col) => [{"x":0,"y":1.0},{"x":1,"y":1.0},{"x":2,"y":1.0},{"x":10,"y":1.0}]
SELECT kurtosis(col) FROM VALUES (-10), (-20), (100), (1000) AS tab(col) => -0.7014368047529627
SELECT kurtosis(col) FROM VALUES (1), (10), (100), (10), (1) as tab(col) => 0.19432323191699075
SELECT last(col) FROM VALUES (10), (5), (20) AS tab(col) => 20
SELECT last(col) FROM VALUES (10), (5), (NULL) AS tab(col) => NULL
SELECT last(col, true) FROM VALUES (10), (5), (NULL) AS tab(col) => 5
SELECT last_value(col) FROM VALUES (10), (5), (20) AS tab(col) => 20
SELECT last_value(col) FROM VALUES (10), (5), (NULL) AS tab(col) => NULL
SELECT last_value(col, true) FROM VALUES (10), (5), (NULL) AS tab(col) => 5
SELECT max(col) FROM VALUES (10), (50), (20) AS tab(col) => 50
SELECT min(col) FROM VALUES (10), (-1), (20) AS tab(col) => -1
SELECT max_by(x, y) FROM VALUES ('a', 10), ('b', 50), ('c', 20) AS tab(x, y) => b
SELECT min_by(x, y) FROM VALUES ('a', 10), ('b', 50), ('c', 20) AS tab(x, y) => a
SELECT median(col) FROM VALUES (0), (10) AS tab(col) => 5.0
SELECT mode(col) FROM VALUES (0), (10), (10) AS tab(col) => 10
SELECT mode(col) FROM VALUES (0), (10), (10), (null), (null), (null) AS tab(col) => 10
SELECT percentile(col, 0.3) FROM VALUES (0), (10) AS tab(col) => 3.0
SELECT percentile(col, array(0.25, 0.75)) FROM VALUES (0), (10) AS tab(col) => [2.5,7.5]
SELECT regr_avgx(y, x) FROM VALUES (1, 2), (2, 2), (2, 3), (2, 4) AS tab(y, x) => 2.75
SELECT regr_avgx(y, x) FROM VALUES (1, null) AS tab(y, x) => NULL
SELECT regr_avgx(y, x) FROM VALUES (null, 1) AS tab(y, x) => NULL
SELECT regr_avgx(y, x) FROM VALUES (1, 2), (2, null), (2, 3), (2, 4) AS tab(y, x) => 3.0
SELECT regr_avgx(y, x) FROM VALUES (1, 2), (2, null), (null, 3), (2, 4) AS tab(y, x) => 3.0
SELECT regr_avgy(y, x) FROM VALUES (1, 2), (2, 2), (2, 3), (2, 4) AS tab(y, x) => 1.75
SELECT regr_avgy(y, x) FROM VALUES (1, null) AS tab(y, x) => NULL
SELECT regr_avgy(y, x) FROM VALUES (null, 1) AS tab(y, x) => NULL
SELECT regr_avgy(y, x) FROM VALUES (1, 2), (2, null), (2, 3), (2, 4) AS tab(y, x) => 1.6666666666666667
SELECT regr_avgy(y, x) FROM VALUES (1, 2), (2, null), (null, 3), (2, 4) AS tab(y, x) => 1.5
SELECT regr_count(y, x) FROM VALUES (1, 2), (2, 2), (2, 3), (2, 4) AS tab(y, x) => 4
SELECT regr_count(y, x) FROM VALUES (1, 2), (2, null), (2, 3), (2, 4) AS tab(y, x) => 3
SELECT regr_count(y, x) FROM VALUES (1, 2), (2, null), (null, 3), (2, 4) AS tab(y, x) => 2
SELECT regr_intercept(y, x) FROM VALUES (1,1), (2,2), (3,3) AS tab(y, x) => 0.0
SELECT regr_r2(y, x) FROM VALUES (1, 2), (2, 2), (2, 3), (2, 4) AS tab(y, x) => 0.2727272727272727
SELECT regr_slope(y, x) FROM VALUES (1,1), (2,2), (3,3) AS tab(y, x) => 1.0
SELECT regr_sxx(y, x) FROM VALUES (1, 2), (2, 2), (2, 3), (2, 4) AS tab(y, x) => 2.75
SELECT regr_sxy(y, x) FROM VALUES (1, 2), (2, 2), (2, 3), (2, 4) AS tab(y, x) => 0.75
SELECT regr_syy(y, x) FROM VALUES (1, 2), (2, 2), (2, 3), (2, 4) AS tab(y, x) => 0.75
SELECT skewness(col) FROM VALUES (-10), (-20), (100), (1000) AS tab(col) => 1.1135657469022011
SELECT skewness(col) FROM VALUES (-1000), (-100), (10), (20) AS tab(col) => -1.1135657469022011
SELECT std(col) FROM VALUES (1), (2), (3) AS tab(col) => 1.0
SELECT stddev(col) FROM VALUES (1), (2), (3) AS tab(col) => 1.0
SELECT stddev_pop(col) FROM VALUES (1), (2), (3) AS tab(col) => 0.816496580927726
SELECT stddev_samp(col) FROM VALUES (1), (2), (3) AS tab(col) => 1.0
SELECT sum(col) FROM VALUES (5), (10), (15) AS tab(col) => 30
SELECT sum(col) FROM VALUES (NULL), (10), (15) AS tab(col) => 25
SELECT sum(col) FROM VALUES (NULL), (NULL) AS tab(col) => NULL
SELECT try_avg(col) FROM VALUES (1), (2), (3) AS tab(col) => 2.0
SELECT try_avg(col) FROM VALUES (1), (2), (NULL) AS tab(col) => 1.5
SELECT try_sum(col) FROM VALUES (5), (10), (15) AS tab(col) => 30
SELECT try_sum(col) FROM VALUES (NULL), (10), (15) AS tab(col) => 25
SELECT try_sum(col) FROM VALUES (NULL), (NULL) AS tab(col) => NULL
SELECT var_pop(col) FROM VALUES (1), (2), (3) AS tab(col) => 0.6666666666666666
SELECT var_samp(col) FROM VALUES (1), (2), (3) AS tab(col) => 1.0
SELECT variance(col) FROM VALUES (1), (2), (3) AS tab(col) => 1.0
`;

/** Examples whose answer in Weir is not Spark's, with the reason (docs/sql.md lists them). */
export const SPARK_EXAMPLE_DIFFERENCES: Record<string, string> = {
  ...Object.fromEntries(['current_user', 'user', 'session_user'].map((f) => [`SELECT ${f}()`, "whom the query runs as: Spark's example ran as mockingjay, a query with no user given runs as weir"])),
  ...Object.fromEntries([
    "SELECT hex(aes_encrypt('Spark', '0000111122223333'))",
    "SELECT hex(aes_encrypt('Spark SQL', '0000111122223333', 'GCM'))",
    "SELECT base64(aes_encrypt('Apache Spark', '1234567890abcdef', 'CBC', 'DEFAULT'))",
  ].map((q) => [q, "without an iv, GCM and CBC draw a random IV: Spark's printed bytes are one draw, Weir's another (aes_decrypt gives the value back)"])),
  'SELECT version()': "Weir's release and no git revision (0.1.0 unknown), where Spark gives its own",
  "SELECT timestamp_micros(1230219000123123)":
    "Spark's example ran in the America/Los_Angeles session zone; Weir's session zone is UTC",
  "SELECT timestamp_millis(1230219000123)":
    "Spark's example ran in the America/Los_Angeles session zone; Weir's session zone is UTC",
  "SELECT timestamp_seconds(1230219000)":
    "Spark's example ran in the America/Los_Angeles session zone; Weir's session zone is UTC",
  "SELECT timestamp_seconds(1230219000.123)":
    "Spark's example ran in the America/Los_Angeles session zone; Weir's session zone is UTC",
  "SELECT unix_timestamp('2016-04-08', 'yyyy-MM-dd')":
    "Spark's example ran in the America/Los_Angeles session zone; Weir's session zone is UTC",
  "SELECT from_unixtime(0, 'yyyy-MM-dd HH:mm:ss')":
    "Spark's example ran in the America/Los_Angeles session zone; Weir's session zone is UTC",
  "SELECT count(DISTINCT col) FROM VALUES (NULL), (5), (5), (10) AS tab(col)":
    "refused on a stream, as Spark refuses distinct aggregations on streaming DataFrames",
  "SELECT kurtosis(col) FROM VALUES (-10), (-20), (100), (1000) AS tab(col)":
    "the last bits: Spark's documented run merged partial buffers from several partitions, which rounds differently from one pass",
  "SELECT kurtosis(col) FROM VALUES (1), (10), (100), (10), (1) as tab(col)":
    "the last bits: Spark's documented run merged partial buffers from several partitions, which rounds differently from one pass",
  "SELECT regr_sxx(y, x) FROM VALUES (1, 2), (2, 2), (2, 3), (2, 4) AS tab(y, x)":
    "the last bits: Spark's documented run merged partial buffers from several partitions, which rounds differently from one pass",
  "SELECT regr_sxy(y, x) FROM VALUES (1, 2), (2, 2), (2, 3), (2, 4) AS tab(y, x)":
    "the last bits: Spark's documented run merged partial buffers from several partitions, which rounds differently from one pass",
  "SELECT skewness(col) FROM VALUES (-1000), (-100), (10), (20) AS tab(col)":
    "the last bits: Spark's documented run merged partial buffers from several partitions, which rounds differently from one pass",
};
