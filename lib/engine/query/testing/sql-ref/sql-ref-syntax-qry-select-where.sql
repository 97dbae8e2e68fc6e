-- Spark's SQL reference docs/sql-ref-syntax-qry-select-where.md (apache/spark 0781899eb72b7d7c8d9267bd53aed769c64eaf3a), its Examples.
CREATE TABLE person (id INT, name STRING, age INT);
INSERT INTO person VALUES (100, 'John', 30),
                          (200, 'Mary', NULL),
                          (300, 'Mike', 80),
                          (400, 'Dan',  50);

-- Comparison operator in `WHERE` clause.
SELECT * FROM person WHERE id > 200 ORDER BY id;
  +---+----+---+
  |id |name|age|
  +---+----+---+
  |300|Mike|80 |
  |400|Dan |50 |
  +---+----+---+

-- Comparison and logical operators in `WHERE` clause.
SELECT * FROM person WHERE id = 200 OR id = 300 ORDER BY id;
  +---+----+----+
  |id |name|age |
  +---+----+----+
  |200|Mary|null|
  |300|Mike|80  |
  +---+----+----+

-- ISNULL expression in `WHERE` clause.
SELECT * FROM person WHERE id > 300 OR age IS NULL ORDER BY id;
  +---+----+----+
  |id |name|age |
  +---+----+----+
  |200|Mary|null|
  |400|Dan |50  |
  +---+----+----+

-- Function expression in `WHERE` clause.
SELECT * FROM person WHERE length(name) > 3 ORDER BY id;
  +---+----+----+
  |id |name|age |
  +---+----+----+
  |100|John|30  |
  |200|Mary|null|
  |300|Mike|80  |
  +---+----+----+

-- `BETWEEN` expression in `WHERE` clause.
SELECT * FROM person WHERE id BETWEEN 200 AND 300 ORDER BY id;
  +---+----+----+
  | id|name| age|
  +---+----+----+
  |200|Mary|null|
  |300|Mike|  80|
  +---+----+----+

-- Scalar Subquery in `WHERE` clause.
SELECT * FROM person WHERE age > (SELECT avg(age) FROM person);
  +---+----+---+
  |id |name|age|
  +---+----+---+
  |300|Mike|80 |
  +---+----+---+

-- Correlated column reference in `WHERE` clause of subquery.
SELECT * FROM person AS parent 
WHERE EXISTS (
              SELECT 1 FROM person AS child
              WHERE parent.id = child.id AND child.age IS NULL
             );
  +---+----+----+
  |id |name|age |
  +---+----+----+
  |200|Mary|null|
  +---+----+----+
