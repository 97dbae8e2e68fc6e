/**
 * The worked examples of Spark's SQL reference pages (docs/sql-ref-*.md), copied under
 * testing/sql-ref/ (each names its page and commit): each example runs through the engine as
 * the golden files' queries do (spark-golden-file.ts: the page's CREATE TABLE and INSERT
 * statements are views of static data) and Weir's rows must be those the page prints, compared
 * by value: the pages' tables are written by hand, so their layout and column names are not
 * compared, and the rows are compared sorted unless the query has a top-level ORDER BY.
 * SKIPPED names the examples Weir cannot run (a catalog's commands); DIFFERENCES lists, per
 * page, the examples whose answer differs from the page's, with the reason (a table the page
 * got wrong, or what Weir answers otherwise): they run as expected failures.
 */
import { describe, expect, it } from 'vitest';
import { ordersRows, sqlRefCases, weirAnswer } from './testing/spark-golden-file';

const PAGES = [
  'sql-ref-syntax-qry-select-where',
  'sql-ref-syntax-qry-select-groupby',
  'sql-ref-syntax-qry-select-having',
  'sql-ref-syntax-qry-select-orderby',
  'sql-ref-syntax-qry-select-case',
  'sql-ref-syntax-qry-select-pivot',
  'sql-ref-syntax-qry-select-setops',
  'sql-ref-syntax-qry-select-join',
  'sql-ref-syntax-qry-select-like',
  'sql-ref-syntax-qry-select-window',
  'sql-ref-syntax-qry-select-cte',
  'sql-ref-syntax-qry-select-inline-table',
  'sql-ref-syntax-qry-select-unpivot',
  'sql-ref-syntax-qry-select-lateral-view',
  'sql-ref-null-semantics',
  'sql-ref-syntax-qry-select-sortby',
  'sql-ref-syntax-qry-select-offset',
  'sql-ref-syntax-qry-select-lateral-subquery',
  'sql-ref-syntax-qry-select-tvf',
  'sql-ref-literals',
  'sql-ref-syntax-qry-select-clusterby',
  'sql-ref-syntax-qry-select-distribute-by',
] as const;

/** Why an example is not run, or answers otherwise. */
const WHY = {
  showCommand: 'a CTE of a SHOW command (SHOW NAMESPACES, SHOW TABLES) reads the catalog: Weir has no catalog',
  pageCarModels: "the page's table writes the car models without their space (HondaAccord, HondaCRV, HondaCivic), where its INSERT writes 'Honda Accord', 'Honda CRV', 'Honda Civic'; Weir's rows are the page's otherwise",
  pageTieOrder: "the two rows of NULL age (Mary and Jerry) are equal under the ORDER BY, whose order among them is not defined: the page prints Jerry first, Weir keeps them in the table's order, Mary first; the rows agree",
  pageCrossJoinDeptno: "the page's table gives Amy (106) deptno 4 in the cross join, where its employee table (and its left and full joins) give 6",
  pageEvanCase: "the page inserts 'Evan_w' and prints Evan_W: Weir's row is the one inserted",
  pageHelen: "the page's tables hold a row (Helen, Marketing, 29000, 40) that its INSERTs do not insert, so Marketing's rows (and Jeff's rank, 3 where Weir's is 2) differ; Weir's rows agree with the rows inserted",
  pageCumeDist: "the page's tables hold a row (Helen, Marketing, 29000, 40) that its INSERTs do not insert, and give Engineering's Chloe (age 25) 0.75 and Fred (28) 0.25, where the ages 23, 25, 28, 33 make them 0.5 and 0.75, as Weir answers",
  pageLagColumns: "the page's table has a dept column the query does not select, and the row Helen its INSERTs do not insert; Chloe and Tom (both 23000) are equal under the ORDER BY, so which of them LAG reads first is not defined (the page: Chloe 21000, Tom 23000; Weir: Chloe 23000, Tom 21000)",
  pageUnpivotNames: "the page prints the name column's values as Q1 … Q4, where its IN list names the columns q1 … q4 (and its first example prints q1 … q4): Weir's values are the columns' names as written, q1 … q4",
  pageNoAggregate: "SELECT * with GROUP BY age: name is neither grouped nor aggregated, which Spark refuses (MISSING_AGGREGATION) as Weir does; the page prints the rows and a count(1) column of another query",
  pageTieOrderNull: "rows equal under the ORDER BY (ages 30 and 50, Joe and Michelle, Fred and Dan): their order among them is not defined, and the page gives it differently from one of its examples to the next; Weir keeps the table's order. The rows agree",
  pageExceptColumns: "an EXCEPT of two columns and one: Spark refuses it (NUM_COLUMNS_MISMATCH) as Weir does; the page prints rows",
  offsetFunction: "refused: Weir folds a LIMIT's or OFFSET's integer arithmetic and casts over literals while it validates the job, and evaluates no other foldable expression there (length('SPARK')); Spark folds it to 5 and answers",
  limitLikeLegacyClass: "refused with INVALID_LIMIT_LIKE_EXPRESSION.IS_UNFOLDABLE, the class Spark 4 gives an OFFSET that is no constant; this page's Spark (3.4) gave _LEGACY_ERROR_TEMP_2400",
  pageLiteralText: "the page's table gives the string otherwise than its literal writes it ('SPARK SQL' printed Spark SQL, 'it\\'s $10.' printed It's $10.): Weir's value is the literal's",
  pageSessionZone: "the page's Spark ran in America/Los_Angeles, where the instant 1997-01-31 01:26:56.666666 UTC shows as 1997-01-30 17:26:56.666666; Weir's session zone is UTC, where it shows as 01:26:56.666666",
  legacyInterval: "the page shows Spark 3.0's intervals (CalendarInterval, printed 3 years, -1 hours -57 minutes): Spark 3.2+ makes an interval literal an ANSI interval (INTERVAL YEAR, INTERVAL HOUR TO MINUTE, …), as Weir does, and refuses one that mixes year-month and day-time units (_LEGACY_ERROR_TEMP_0029)",
  groupsFrame: "a GROUPS window frame (ROWS and RANGE's third kind, peer groups counted), newer than Spark 3.5's grammar, which Weir's parser reads: refused as a syntax error (PARSE_SYNTAX_ERROR)",
};

const SKIPPED: Record<(typeof PAGES)[number], Record<string, string>> = {
  'sql-ref-syntax-qry-select-where': {},
  'sql-ref-syntax-qry-select-groupby': {},
  'sql-ref-syntax-qry-select-having': {},
  'sql-ref-syntax-qry-select-orderby': {},
  'sql-ref-syntax-qry-select-case': {},
  'sql-ref-syntax-qry-select-pivot': {},
  'sql-ref-syntax-qry-select-setops': {},
  'sql-ref-syntax-qry-select-join': {},
  'sql-ref-syntax-qry-select-like': {},
  'sql-ref-syntax-qry-select-window': {},
  'sql-ref-syntax-qry-select-cte': {
    'WITH\n    s AS (SHOW NAMESPACES)\nSELECT * FROM s': WHY.showCommand,
    "WITH\n    s(ns, tn, t) AS (SHOW TABLES)\nSELECT * FROM s WHERE tn = 'test_show_tables'": WHY.showCommand,
  },
  'sql-ref-syntax-qry-select-inline-table': {},
  'sql-ref-syntax-qry-select-unpivot': {},
  'sql-ref-syntax-qry-select-lateral-view': {},
  'sql-ref-null-semantics': {},
  'sql-ref-syntax-qry-select-sortby': {},
  'sql-ref-syntax-qry-select-offset': {},
  'sql-ref-syntax-qry-select-lateral-subquery': {},
  'sql-ref-syntax-qry-select-tvf': {},
  'sql-ref-literals': {},
  'sql-ref-syntax-qry-select-clusterby': {},
  'sql-ref-syntax-qry-select-distribute-by': {},
};

const DIFFERENCES: Record<(typeof PAGES)[number], Record<string, string>> = {
  'sql-ref-syntax-qry-select-where': {},
  'sql-ref-syntax-qry-select-groupby': {
    'SELECT city, car_model, sum(quantity) AS sum FROM dealer\n    GROUP BY GROUPING SETS ((city, car_model), (city), (car_model), ())\n    ORDER BY city': WHY.pageCarModels,
    'SELECT city, car_model, sum(quantity) AS sum FROM dealer\n    GROUP BY city, car_model WITH ROLLUP\n    ORDER BY city, car_model': WHY.pageCarModels,
    'SELECT city, car_model, sum(quantity) AS sum FROM dealer\n    GROUP BY city, car_model WITH CUBE\n    ORDER BY city, car_model': WHY.pageCarModels,
  },
  'sql-ref-syntax-qry-select-having': {},
  'sql-ref-syntax-qry-select-orderby': {
    'SELECT name, age FROM person ORDER BY age': WHY.pageTieOrder,
    'SELECT name, age FROM person ORDER BY age DESC': WHY.pageTieOrder,
    'SELECT name, age FROM person ORDER BY age DESC NULLS FIRST': WHY.pageTieOrder,
  },
  'sql-ref-syntax-qry-select-case': {},
  'sql-ref-syntax-qry-select-pivot': {},
  'sql-ref-syntax-qry-select-setops': {},
  'sql-ref-syntax-qry-select-join': {
    'SELECT id, name, employee.deptno, deptname FROM employee CROSS JOIN department': WHY.pageCrossJoinDeptno,
  },
  'sql-ref-syntax-qry-select-like': {
    "SELECT * FROM person WHERE name NOT LIKE 'M_ry'": WHY.pageEvanCase,
    "SELECT * FROM person WHERE name LIKE '%\\_%'": WHY.pageEvanCase,
    "SELECT * FROM person WHERE name LIKE '%$_%' ESCAPE '$'": WHY.pageEvanCase,
    "SELECT * FROM person WHERE name LIKE ANY ('%an%', '%an')": WHY.pageEvanCase,
    "SELECT * FROM person WHERE name LIKE SOME ('%an%', '%an')": WHY.pageEvanCase,
    "SELECT * FROM person WHERE name NOT LIKE ANY ('%an%', '%an')": WHY.pageEvanCase,
    "SELECT * FROM person WHERE name NOT LIKE SOME ('%an%', '%an')": WHY.pageEvanCase,
  },
  'sql-ref-syntax-qry-select-window': {
    'SELECT * FROM employees': WHY.pageHelen,
    'SELECT name, dept, salary, RANK() OVER (PARTITION BY dept ORDER BY salary) AS rank FROM employees': WHY.pageHelen,
    'SELECT name, dept, salary, DENSE_RANK() OVER (PARTITION BY dept ORDER BY salary ROWS BETWEEN\n    UNBOUNDED PRECEDING AND CURRENT ROW) AS dense_rank FROM employees': WHY.pageHelen,
    'SELECT name, dept, age, CUME_DIST() OVER (PARTITION BY dept ORDER BY age\n    RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS cume_dist FROM employees': WHY.pageCumeDist,
    'SELECT name, dept, salary, MIN(salary) OVER (PARTITION BY dept ORDER BY salary) AS min\n    FROM employees': WHY.pageHelen,
    'SELECT name, salary,\n    LAG(salary) OVER (PARTITION BY dept ORDER BY salary) AS lag,\n    LEAD(salary, 1, 0) OVER (PARTITION BY dept ORDER BY salary) AS lead\n    FROM employees': WHY.pageLagColumns,
    'SELECT batch_id, amount,\n    SUM(amount) OVER (ORDER BY batch_id GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) AS moving_sum\n    FROM batches\n    ORDER BY batch_id, amount': WHY.groupsFrame,
  },
  'sql-ref-syntax-qry-select-cte': {},
  'sql-ref-syntax-qry-select-inline-table': {},
  'sql-ref-syntax-qry-select-unpivot': {
    'SELECT up.* FROM sales_quarterly\n    UNPIVOT INCLUDE NULLS (\n        sales FOR quarter IN (q1, q2, q3, q4)\n    ) AS up': WHY.pageUnpivotNames,
  },
  'sql-ref-syntax-qry-select-lateral-view': {},
  'sql-ref-null-semantics': {
    'SELECT * FROM person GROUP BY age HAVING max(age) > 18': WHY.pageNoAggregate,
    'SELECT age, name FROM person ORDER BY age': WHY.pageTieOrderNull,
    'SELECT age, name FROM person ORDER BY age NULLS LAST': WHY.pageTieOrderNull,
    'SELECT age, name FROM person ORDER BY age DESC NULLS LAST': WHY.pageTieOrderNull,
    'SELECT age, name FROM person\n    EXCEPT\n    SELECT age FROM unknown_age': WHY.pageExceptColumns,
  },
  'sql-ref-syntax-qry-select-sortby': {},
  'sql-ref-syntax-qry-select-offset': {
    "SELECT name, age FROM person ORDER BY name OFFSET length('SPARK')": WHY.offsetFunction,
    'SELECT name, age FROM person ORDER BY name OFFSET length(name)': WHY.limitLikeLegacyClass,
  },
  'sql-ref-syntax-qry-select-lateral-subquery': {},
  'sql-ref-syntax-qry-select-tvf': {},
  'sql-ref-literals': {
    'SELECT "SPARK SQL" AS col': WHY.pageLiteralText,
    "SELECT 'it\\'s $10.' AS col": WHY.pageLiteralText,
    "SELECT TIMESTAMP '1997-01-31 09:26:56.66666666UTC+08:00' AS col": WHY.pageSessionZone,
    'SELECT INTERVAL 3 YEAR AS col': WHY.legacyInterval,
    "SELECT INTERVAL -2 HOUR '3' MINUTE AS col": WHY.legacyInterval,
    "SELECT INTERVAL '1 YEAR 2 DAYS 3 HOURS'": WHY.legacyInterval,
    'SELECT INTERVAL 1 YEARS 2 MONTH 3 WEEK 4 DAYS 5 HOUR 6 MINUTES 7 SECOND 8\n    MILLISECOND 9 MICROSECONDS AS col': WHY.legacyInterval,
    "SELECT INTERVAL '2-3' YEAR TO MONTH AS col": WHY.legacyInterval,
    "SELECT INTERVAL '20 15:40:32.99899999' DAY TO SECOND AS col": WHY.legacyInterval,
  },
  'sql-ref-syntax-qry-select-clusterby': {},
  'sql-ref-syntax-qry-select-distribute-by': {},
};

/**
 * The rows as compared: sorted unless the query orders them at its top level (weirAnswer sorts its
 * own so), an array's elements without the space a page's DataFrame.show() writes after each comma
 * (`[0, 1]`, where the shell prints `[0,1]`).
 */
const rowsOf = (output: string, ordered: boolean) => {
  const rows = output.split('\n').map((row) => row.split('\t').map((cell) => (/^\[.*\]$/.test(cell) ? cell.replace(/, /g, ',') : cell)).join('\t'));
  return (ordered ? rows : rows.sort()).join('\n');
};

for (const page of PAGES) {
  describe(`${page}.md`, () => {
    for (const c of sqlRefCases(page)) {
      const skip = c.skip ?? SKIPPED[page][c.query];
      if (skip) {
        it.skip(`${c.query}  [not run: ${skip}]`, () => {});
        continue;
      }
      const reason = DIFFERENCES[page][c.query];
      (reason ? it.fails : it)(reason ? `${c.query}  [differs: ${reason}]` : c.query, async () => {
        // A page's table is DataFrame.show()'s: a BINARY as its bytes in hex, `[12 34 56]`.
        const got = await weirAnswer(c.query, c.views, 'HEX_DISCRETE');
        const ordered = ordersRows(c.query);
        expect(rowsOf(got.output.replace(/\s+$/, ''), ordered)).toBe(rowsOf(c.output, ordered));
      });
    }
  });
}

it('keeps every listed example a query of its page', () => {
  for (const page of PAGES) {
    const queries = new Set(sqlRefCases(page).map((c) => c.query));
    expect([...Object.keys(SKIPPED[page]), ...Object.keys(DIFFERENCES[page])].filter((q) => !queries.has(q))).toEqual([]);
  }
});
