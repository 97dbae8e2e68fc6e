-- Spark's SQL reference docs/sql-ref-syntax-qry-select-sortby.md (apache/spark 13019a69a54024afb44ffffc483214aec9d9e472), its Examples.
CREATE TABLE person (zip_code INT, name STRING, age INT);
INSERT INTO person VALUES
    (94588, 'Zen Hui', 50), 
    (94588, 'Dan Li', 18), 
    (94588, 'Anil K', 27),
    (94588, 'John V', NULL),
    (94511, 'David K', 42),
    (94511, 'Aryan B.', 18),
    (94511, 'Lalit B.', NULL);

-- Use `REPARTITION` hint to partition the data by `zip_code` to 
-- examine the `SORT BY` behavior. This is used in rest of the
-- examples.

-- Sort rows by `name` within each partition in ascending manner
SELECT /*+ REPARTITION(zip_code) */ name, age, zip_code FROM person SORT BY name;

  +--------+----+--------+
  |name    |age |zip_code|
  +--------+----+--------+
  |Anil K  |27  |94588   |
  |Dan Li  |18  |94588   |
  |John V  |null|94588   |
  |Zen Hui |50  |94588   |
  |Aryan B.|18  |94511   |
  |David K |42  |94511   |
  |Lalit B.|null|94511   |
  +--------+----+--------+

-- Sort rows within each partition using column position.
SELECT /*+ REPARTITION(zip_code) */ name, age, zip_code FROM person SORT BY 1;

  +--------+----+--------+
  |name    |age |zip_code|
  +--------+----+--------+
  |Anil K  |27  |94588   |
  |Dan Li  |18  |94588   |
  |John V  |null|94588   |
  |Zen Hui |50  |94588   |
  |Aryan B.|18  |94511   |
  |David K |42  |94511   |
  |Lalit B.|null|94511   |
  +--------+----+--------+

-- Sort rows within partition in ascending manner keeping null values to be last.
SELECT /*+ REPARTITION(zip_code) */ age, name, zip_code FROM person SORT BY age NULLS LAST;

  +----+--------+--------+
  |age |name    |zip_code|
  +----+--------+--------+
  |18  |Dan Li  |94588   |
  |27  |Anil K  |94588   |
  |50  |Zen Hui |94588   |
  |null|John V  |94588   |
  |18  |Aryan B.|94511   |
  |42  |David K |94511   |
  |null|Lalit B.|94511   |
  +----+--------+--------+

-- Sort rows by age within each partition in descending manner.
SELECT /*+ REPARTITION(zip_code) */ age, name, zip_code FROM person SORT BY age DESC;
 
  +----+--------+--------+
  |age |name    |zip_code|
  +----+--------+--------+
  |50  |Zen Hui |94588   |
  |27  |Anil K  |94588   |
  |18  |Dan Li  |94588   |
  |null|John V  |94588   |
  |42  |David K |94511   |
  |18  |Aryan B.|94511   |
  |null|Lalit B.|94511   |
  +----+--------+--------+

-- Sort rows by age within each partition in ascending manner keeping null values to be first.
SELECT /*+ REPARTITION(zip_code) */ age, name, zip_code FROM person SORT BY age DESC NULLS FIRST;

  +----+--------+--------+
  |age |name    |zip_code|
  +----+--------+--------+
  |null|John V  |94588   |
  |50  |Zen Hui |94588   |
  |27  |Anil K  |94588   |
  |18  |Dan Li  |94588   |
  |null|Lalit B.|94511   |
  |42  |David K |94511   |
  |18  |Aryan B.|94511   |
  +----+--------+--------+

-- Sort rows within each partition based on more than one column with each column having
-- different sort direction.
SELECT /*+ REPARTITION(zip_code) */ name, age, zip_code FROM person
   SORT BY name ASC, age DESC;

  +--------+----+--------+
  |name    |age |zip_code|
  +--------+----+--------+
  |Anil K  |27  |94588   |
  |Dan Li  |18  |94588   |
  |John V  |null|94588   |
  |Zen Hui |50  |94588   |
  |Aryan B.|18  |94511   |
  |David K |42  |94511   |
  |Lalit B.|null|94511   |
  +--------+----+--------+
