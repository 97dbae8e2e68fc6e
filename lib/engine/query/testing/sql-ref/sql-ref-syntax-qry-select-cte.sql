-- Spark's SQL reference docs/sql-ref-syntax-qry-select-cte.md (apache/spark 171c6cec156a83d9af047250d8d7d1a9d8b6849d), its Examples.
-- CTE with multiple column aliases
WITH t(x, y) AS (SELECT 1, 2)
SELECT * FROM t WHERE x = 1 AND y = 2;
+---+---+
|  x|  y|
+---+---+
|  1|  2|
+---+---+

-- CTE in CTE definition
WITH t AS (
    WITH t2 AS (SELECT 1)
    SELECT * FROM t2
)
SELECT * FROM t;
+---+
|  1|
+---+
|  1|
+---+

-- CTE in subquery
SELECT max(c) FROM (
    WITH t(c) AS (SELECT 1)
    SELECT * FROM t
);
+------+
|max(c)|
+------+
|     1|
+------+

-- CTE in subquery expression
SELECT (
    WITH t AS (SELECT 1)
    SELECT * FROM t
);
+----------------+
|scalarsubquery()|
+----------------+
|               1|
+----------------+

-- CTE in CREATE VIEW statement
CREATE VIEW v AS
    WITH t(a, b, c, d) AS (SELECT 1, 2, 3, 4)
    SELECT * FROM t;
SELECT * FROM v;
+---+---+---+---+
|  a|  b|  c|  d|
+---+---+---+---+
|  1|  2|  3|  4|
+---+---+---+---+

-- If name conflict is detected in nested CTE, then AnalysisException is thrown by default.
-- SET spark.sql.legacy.ctePrecedencePolicy = CORRECTED (which is recommended),
-- inner CTE definitions take precedence over outer definitions.
SET spark.sql.legacy.ctePrecedencePolicy = CORRECTED;
WITH
    t AS (SELECT 1),
    t2 AS (
        WITH t AS (SELECT 2)
        SELECT * FROM t
    )
SELECT * FROM t2;
+---+
|  2|
+---+
|  2|
+---+

-- Query SHOW NAMESPACES with CTE
WITH
    s AS (SHOW NAMESPACES)
SELECT * FROM s;
+---------------------+
|            namespace|
+---------------------+
|              default|
+---------------------+
|  query_ddl_namespace|
+---------------------+

-- Query SHOW TABLES with CTE with multiple column aliases
WITH
    s(ns, tn, t) AS (SHOW TABLES)
SELECT * FROM s WHERE tn = 'test_show_tables';
+---------------------+---------------------+---------------------+
|                   ns|                   tn|                    t|
+---------------------+---------------------+---------------------+
|  query_ddl_namespace|     test_show_tables|                false|
+---------------------+---------------------+---------------------+
