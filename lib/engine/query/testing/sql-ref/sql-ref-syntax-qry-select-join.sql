-- Spark's SQL reference docs/sql-ref-syntax-qry-select-join.md (apache/spark 178130d1ee8d13993898e9c71dff50ef3c682ee6), its Examples.
-- The page prints its tables employee and department without creating them: their views, of the rows it prints.
CREATE TEMPORARY VIEW employee(id, name, deptno) AS VALUES (105, 'Chloe', 5), (103, 'Paul', 3), (101, 'John', 1), (102, 'Lisa', 2), (104, 'Evan', 4), (106, 'Amy', 6);
CREATE TEMPORARY VIEW department(deptno, deptname) AS VALUES (3, 'Engineering'), (2, 'Sales'), (1, 'Marketing');

-- Use employee and department tables to demonstrate different type of joins.
SELECT * FROM employee;

  +---+-----+-------+
  |id |name |deptno |
  +---+-----+-------+
  |105|Chloe|5      |
  |103|Paul |3      |
  |101|John |1      |
  |102|Lisa |2      |
  |104|Evan |4      |
  |106|Amy  |6      |
  +---+-----+-------+

SELECT * FROM department;
  +-------+-----------+
  |deptno |deptname   |
  +-------+-----------+
  |3      |Engineering|
  |2      |Sales      |
  |1      |Marketing  |
  +-------+-----------+

-- Use employee and department tables to demonstrate inner join.
SELECT id, name, employee.deptno, deptname
  FROM employee INNER JOIN department ON employee.deptno = department.deptno;
  +---+-----+-------+-----------|
  |id |name |deptno |deptname   |
  +---+-----+-------+-----------|
  |103|Paul |3      |Engineering|
  |101|John |1      |Marketing  |
  |102|Lisa |2      |Sales      |
  +---+-----+-------+-----------|

-- Use employee and department tables to demonstrate left join.
SELECT id, name, employee.deptno, deptname
  FROM employee LEFT JOIN department ON employee.deptno = department.deptno;
  +---+-----+-------+-----------|
  |id |name |deptno |deptname   |
  +---+-----+-------+-----------|
  |105|Chloe|5      |NULL       |
  |103|Paul |3      |Engineering|
  |101|John |1      |Marketing  |
  |102|Lisa |2      |Sales      |
  |104|Evan |4      |NULL       |
  |106|Amy  |6      |NULL       |
  +---+-----+-------+-----------|

-- Use employee and department tables to demonstrate right join.
SELECT id, name, employee.deptno, deptname
  FROM employee RIGHT JOIN department ON employee.deptno = department.deptno;
  +---+-----+-------+-----------|
  |id |name |deptno |deptname   |
  +---+-----+-------+-----------|
  |103|Paul |3      |Engineering|
  |101|John |1      |Marketing  |
  |102|Lisa |2      |Sales      |
  +---+-----+-------+-----------|

-- Use employee and department tables to demonstrate full join.
SELECT id, name, employee.deptno, deptname
  FROM employee FULL JOIN department ON employee.deptno = department.deptno;
  +---+-----+-------+-----------|
  |id |name |deptno |deptname   |
  +---+-----+-------+-----------|
  |101|John |1      |Marketing  |
  |106|Amy  |6      |NULL       |
  |103|Paul |3      |Engineering|
  |105|Chloe|5      |NULL       |
  |104|Evan |4      |NULL       |
  |102|Lisa |2      |Sales      |
  +---+-----+-------+-----------|

-- Use employee and department tables to demonstrate cross join.
SELECT id, name, employee.deptno, deptname FROM employee CROSS JOIN department;
  +---+-----+-------+-----------|
  |id |name |deptno |deptname   |
  +---+-----+-------+-----------|
  |105|Chloe|5      |Engineering|
  |105|Chloe|5      |Marketing  |
  |105|Chloe|5      |Sales      |
  |103|Paul |3      |Engineering|
  |103|Paul |3      |Marketing  |
  |103|Paul |3      |Sales      |
  |101|John |1      |Engineering|
  |101|John |1      |Marketing  |
  |101|John |1      |Sales      |
  |102|Lisa |2      |Engineering|
  |102|Lisa |2      |Marketing  |
  |102|Lisa |2      |Sales      |
  |104|Evan |4      |Engineering|
  |104|Evan |4      |Marketing  |
  |104|Evan |4      |Sales      |
  |106|Amy  |4      |Engineering|
  |106|Amy  |4      |Marketing  |
  |106|Amy  |4      |Sales      |
  +---+-----+-------+-----------|

-- Use employee and department tables to demonstrate semi join.
SELECT * FROM employee SEMI JOIN department ON employee.deptno = department.deptno;
  +---+-----+-------+
  |id |name |deptno |
  +---+-----+-------+
  |103|Paul |3      |
  |101|John |1      |
  |102|Lisa |2      |
  +---+-----+-------+

-- Use employee and department tables to demonstrate anti join.
SELECT * FROM employee ANTI JOIN department ON employee.deptno = department.deptno;
  +---+-----+-------+
  |id |name |deptno |
  +---+-----+-------+
  |105|Chloe|5      |
  |104|Evan |4      |
  |106|Amy  |6      |
  +---+-----+-------+
