-- Spark's SQL reference docs/sql-ref-null-semantics.md (apache/spark 028746b2d8f417851c1e990a203bb06889ae45fd), its Examples.
-- The page shows its table person as a Markdown table (Id, Name, Age) without creating it; its queries print it as the
-- columns name and age: its view, of those columns of the rows the page shows. The page's view unknown_age
-- (`CREATE VIEW unknown_age SELECT …`, without its AS, which no Spark parses) is written here as the page means it.
CREATE TEMPORARY VIEW person(name, age) AS VALUES ('Joe', 30), ('Marry', NULL), ('Mike', 18), ('Fred', 50), ('Albert', NULL), ('Michelle', 30), ('Dan', 50);
CREATE TEMPORARY VIEW unknown_age AS SELECT * FROM person WHERE age IS NULL;

-- Normal comparison operators return `NULL` when one of the operand is `NULL`.
SELECT 5 > null AS expression_output;
  +-----------------+
  |expression_output|
  +-----------------+
  |             null|
  +-----------------+

-- Normal comparison operators return `NULL` when both the operands are `NULL`.
SELECT null = null AS expression_output;
  +-----------------+
  |expression_output|
  +-----------------+
  |             null|
  +-----------------+

-- Null-safe equal operator return `False` when one of the operand is `NULL`
SELECT 5 <=> null AS expression_output;
  +-----------------+
  |expression_output|
  +-----------------+
  |            false|
  +-----------------+

-- Null-safe equal operator return `True` when one of the operand is `NULL`
SELECT NULL <=> NULL;
  +-----------------+
  |expression_output|
  +-----------------+
  |             true|
  +-----------------+

-- Normal comparison operators return `NULL` when one of the operands is `NULL`.
SELECT (true OR null) AS expression_output;
  +-----------------+
  |expression_output|
  +-----------------+
  |             true|
  +-----------------+

-- Normal comparison operators return `NULL` when both the operands are `NULL`.
SELECT (null OR false) AS expression_output
  +-----------------+
  |expression_output|
  +-----------------+
  |             null|
  +-----------------+

-- Null-safe equal operator returns `False` when one of the operands is `NULL`
SELECT NOT(null) AS expression_output;
  +-----------------+
  |expression_output|
  +-----------------+
  |             null|
  +-----------------+

SELECT concat('John', null) AS expression_output;
  +-----------------+
  |expression_output|
  +-----------------+
  |             null|
  +-----------------+

SELECT positive(null) AS expression_output;
  +-----------------+
  |expression_output|
  +-----------------+
  |             null|
  +-----------------+

SELECT to_date(null) AS expression_output;
  +-----------------+
  |expression_output|
  +-----------------+
  |             null|
  +-----------------+

SELECT isnull(null) AS expression_output;
  +-----------------+
  |expression_output|
  +-----------------+
  |             true|
  +-----------------+

-- Returns the first occurrence of non `NULL` value.
SELECT coalesce(null, null, 3, null) AS expression_output;
  +-----------------+
  |expression_output|
  +-----------------+
  |                3|
  +-----------------+

-- Returns `NULL` as all its operands are `NULL`. 
SELECT coalesce(null, null, null, null) AS expression_output;
  +-----------------+
  |expression_output|
  +-----------------+
  |             null|
  +-----------------+

SELECT isnan(null) AS expression_output;
  +-----------------+
  |expression_output|
  +-----------------+
  |            false|
  +-----------------+

-- `count(*)` does not skip `NULL` values.
SELECT count(*) FROM person;
  +--------+
  |count(1)|
  +--------+
  |       7|
  +--------+

-- `NULL` values in column `age` are skipped from processing.
SELECT count(age) FROM person;
  +----------+
  |count(age)|
  +----------+
  |         5|
  +----------+

-- `count(*)` on an empty input set returns 0. This is unlike the other
-- aggregate functions, such as `max`, which return `NULL`.
SELECT count(*) FROM person where 1 = 0;
  +--------+
  |count(1)|
  +--------+
  |       0|
  +--------+

-- `NULL` values are excluded from computation of maximum value.
SELECT max(age) FROM person;
  +--------+
  |max(age)|
  +--------+
  |      50|
  +--------+

-- `max` returns `NULL` on an empty input set.
SELECT max(age) FROM person where 1 = 0;
  +--------+
  |max(age)|
  +--------+
  |    null|
  +--------+

-- Persons whose age is unknown (`NULL`) are filtered out from the result set.
SELECT * FROM person WHERE age > 0;
  +--------+---+
  |    name|age|
  +--------+---+
  |Michelle| 30|
  |    Fred| 50|
  |    Mike| 18|
  |     Dan| 50|
  |     Joe| 30|
  +--------+---+

-- `IS NULL` expression is used in disjunction to select the persons
-- with unknown (`NULL`) records.
SELECT * FROM person WHERE age > 0 OR age IS NULL;
  +--------+----+
  |    name| age|
  +--------+----+
  |  Albert|null|
  |Michelle|  30|
  |    Fred|  50|
  |    Mike|  18|
  |     Dan|  50|
  |   Marry|null|
  |     Joe|  30|
  +--------+----+

-- Person with unknown(`NULL`) ages are skipped from processing.
SELECT * FROM person GROUP BY age HAVING max(age) > 18;
  +---+--------+                                                                  
  |age|count(1)|
  +---+--------+
  | 50|       2|
  | 30|       2|
  +---+--------+

-- A self join case with a join condition `p1.age = p2.age AND p1.name = p2.name`.
-- The persons with unknown age (`NULL`) are filtered out by the join operator.
SELECT * FROM person p1, person p2
    WHERE p1.age = p2.age
    AND p1.name = p2.name;
  +--------+---+--------+---+
  |    name|age|    name|age|
  +--------+---+--------+---+
  |Michelle| 30|Michelle| 30|
  |    Fred| 50|    Fred| 50|
  |    Mike| 18|    Mike| 18|
  |     Dan| 50|     Dan| 50|
  |     Joe| 30|     Joe| 30|
  +--------+---+--------+---+

-- The age column from both legs of join are compared using null-safe equal which
-- is why the persons with unknown age (`NULL`) are qualified by the join.
SELECT * FROM person p1, person p2
    WHERE p1.age <=> p2.age
    AND p1.name = p2.name;
  +--------+----+--------+----+
  |    name| age|    name| age|
  +--------+----+--------+----+
  |  Albert|null|  Albert|null|
  |Michelle|  30|Michelle|  30|
  |    Fred|  50|    Fred|  50|
  |    Mike|  18|    Mike|  18|
  |     Dan|  50|     Dan|  50|
  |   Marry|null|   Marry|null|
  |     Joe|  30|     Joe|  30|
  +--------+----+--------+----+

-- `NULL` values are put in one bucket in `GROUP BY` processing.
SELECT age, count(*) FROM person GROUP BY age;
  +----+--------+                                                                 
  | age|count(1)|
  +----+--------+
  |null|       2|
  |  50|       2|
  |  30|       2|
  |  18|       1|
  +----+--------+

-- All `NULL` ages are considered one distinct value in `DISTINCT` processing.
SELECT DISTINCT age FROM person;
  +----+
  | age|
  +----+
  |null|
  |  50|
  |  30|
  |  18|
  +----+

-- `NULL` values are shown at first and other values
-- are sorted in ascending way.
SELECT age, name FROM person ORDER BY age;
  +----+--------+
  | age|    name|
  +----+--------+
  |null|   Marry|
  |null|  Albert|
  |  18|    Mike|
  |  30|Michelle|
  |  30|     Joe|
  |  50|    Fred|
  |  50|     Dan|
  +----+--------+

-- Column values other than `NULL` are sorted in ascending
-- way and `NULL` values are shown at the last.
SELECT age, name FROM person ORDER BY age NULLS LAST;
  +----+--------+
  | age|    name|
  +----+--------+
  |  18|    Mike|
  |  30|Michelle|
  |  30|     Joe|
  |  50|     Dan|
  |  50|    Fred|
  |null|   Marry|
  |null|  Albert|
  +----+--------+

-- Columns other than `NULL` values are sorted in descending
-- and `NULL` values are shown at the last.
SELECT age, name FROM person ORDER BY age DESC NULLS LAST;
  +----+--------+
  | age|    name|
  +----+--------+
  |  50|    Fred|
  |  50|     Dan|
  |  30|Michelle|
  |  30|     Joe|
  |  18|    Mike|
  |null|   Marry|
  |null|  Albert|
  +----+--------+

CREATE VIEW unknown_age SELECT * FROM person WHERE age IS NULL;

-- Only common rows between two legs of `INTERSECT` are in the 
-- result set. The comparison between columns of the row are done
-- in a null-safe manner.
SELECT name, age FROM person
    INTERSECT
    SELECT name, age from unknown_age;
  +------+----+                                                                   
  |  name| age|
  +------+----+
  |Albert|null|
  | Marry|null|
  +------+----+

-- `NULL` values from two legs of the `EXCEPT` are not in output. 
-- This basically shows that the comparison happens in a null-safe manner.
SELECT age, name FROM person
    EXCEPT
    SELECT age FROM unknown_age;
  +---+--------+                                                                  
  |age|    name|
  +---+--------+
  | 30|     Joe|
  | 50|    Fred|
  | 30|Michelle|
  | 18|    Mike|
  | 50|     Dan|
  +---+--------+

-- Performs `UNION` operation between two sets of data. 
-- The comparison between columns of the row ae done in
-- null-safe manner.
SELECT name, age FROM person
    UNION 
    SELECT name, age FROM unknown_age;
  +--------+----+                                                                 
  |    name| age|
  +--------+----+
  |  Albert|null|
  |     Joe|  30|
  |Michelle|  30|
  |   Marry|null|
  |    Fred|  50|
  |    Mike|  18|
  |     Dan|  50|
  +--------+----+

-- Even if subquery produces rows with `NULL` values, the `EXISTS` expression
-- evaluates to `TRUE` as the subquery produces 1 row.
SELECT * FROM person WHERE EXISTS (SELECT null);
  +--------+----+                                                                 
  |    name| age|
  +--------+----+
  |  Albert|null|
  |Michelle|  30|
  |    Fred|  50|
  |    Mike|  18|
  |     Dan|  50|
  |   Marry|null|
  |     Joe|  30|
  +--------+----+

-- `NOT EXISTS` expression returns `FALSE`. It returns `TRUE` only when
-- subquery produces no rows. In this case, it returns 1 row.
SELECT * FROM person WHERE NOT EXISTS (SELECT null);
  +----+---+
  |name|age|
  +----+---+
  +----+---+

-- `NOT EXISTS` expression returns `TRUE`.
SELECT * FROM person WHERE NOT EXISTS (SELECT 1 WHERE 1 = 0);
  +--------+----+
  |    name| age|
  +--------+----+
  |  Albert|null|
  |Michelle|  30|
  |    Fred|  50|
  |    Mike|  18|
  |     Dan|  50|
  |   Marry|null|
  |     Joe|  30|
  +--------+----+

-- The subquery has only `NULL` value in its result set. Therefore,
-- the result of `IN` predicate is UNKNOWN.
SELECT * FROM person WHERE age IN (SELECT null);
  +----+---+
  |name|age|
  +----+---+
  +----+---+

-- The subquery has `NULL` value in the result set as well as a valid 
-- value `50`. Rows with age = 50 are returned. 
SELECT * FROM person
    WHERE age IN (SELECT age FROM VALUES (50), (null) sub(age));
  +----+---+
  |name|age|
  +----+---+
  |Fred| 50|
  | Dan| 50|
  +----+---+

-- Since subquery has `NULL` value in the result set, the `NOT IN`
-- predicate would return UNKNOWN. Hence, no rows are
-- qualified for this query.
SELECT * FROM person
    WHERE age NOT IN (SELECT age FROM VALUES (50), (null) sub(age));
  +----+---+
  |name|age|
  +----+---+
  +----+---+
