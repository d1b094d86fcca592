-- Benchmark input for H2 (komorium-ts `npm run bench`), run by org.h2.tools.RunScript on an
-- in-memory database: a small TPC-H-like schema generated in SQL, then joins, aggregates, window
-- functions, subqueries, updates and deletes. Deterministic: every result is ordered.
CREATE TABLE nation(id INT PRIMARY KEY, name VARCHAR(25), region INT);
INSERT INTO nation SELECT X, 'NATION-' || X, MOD(X, 5) FROM SYSTEM_RANGE(0, 24);
CREATE TABLE customer(id INT PRIMARY KEY, name VARCHAR(40), nation INT, segment VARCHAR(10), balance DECIMAL(12,2));
INSERT INTO customer SELECT X, 'Customer#' || LPAD(X, 9, '0'), MOD(X * 7, 25),
  CASE MOD(X, 5) WHEN 0 THEN 'BUILDING' WHEN 1 THEN 'AUTOMOBILE' WHEN 2 THEN 'MACHINERY' WHEN 3 THEN 'HOUSEHOLD' ELSE 'FURNITURE' END,
  MOD(X * 7919, 1000000) / 100.0 - 999.99 FROM SYSTEM_RANGE(1, 6000);
CREATE TABLE orders(id INT PRIMARY KEY, cust INT, odate DATE, total DECIMAL(12,2), status CHAR(1), prio VARCHAR(15));
INSERT INTO orders SELECT X, MOD(X * 31, 6000) + 1, DATEADD(DAY, MOD(X * 13, 2400), DATE '1992-01-01'),
  MOD(X * 104729, 5000000) / 100.0, CASE MOD(X, 3) WHEN 0 THEN 'F' WHEN 1 THEN 'O' ELSE 'P' END,
  CASE MOD(X, 5) WHEN 0 THEN '1-URGENT' WHEN 1 THEN '2-HIGH' WHEN 2 THEN '3-MEDIUM' WHEN 3 THEN '4-NOT SPECIFIED' ELSE '5-LOW' END
  FROM SYSTEM_RANGE(1, 50000);
CREATE TABLE lineitem(orderid INT, line INT, part INT, qty INT, price DECIMAL(12,2), discount DECIMAL(4,2), shipdate DATE, PRIMARY KEY(orderid, line));
INSERT INTO lineitem SELECT o.id, l.X, MOD(o.id * 17 + l.X * 101, 20000), MOD(o.id + l.X * 7, 50) + 1,
  MOD(o.id * 31 + l.X * 53, 100000) / 100.0, MOD(o.id + l.X, 11) / 100.0, DATEADD(DAY, MOD(l.X * 3, 120), o.odate)
  FROM orders o, SYSTEM_RANGE(1, 3) l WHERE MOD(o.id, 2) = 0 OR l.X = 1;
CREATE INDEX orders_cust ON orders(cust);
CREATE INDEX lineitem_part ON lineitem(part);
SELECT COUNT(*), SUM(qty), MIN(shipdate), MAX(shipdate) FROM lineitem;
-- pricing summary (TPC-H Q1-like)
SELECT l.discount, COUNT(*) AS n, SUM(l.qty) AS qty, SUM(l.price * (1 - l.discount)) AS revenue, AVG(l.price) AS avg_price
  FROM lineitem l WHERE l.shipdate <= DATE '1998-09-02' GROUP BY l.discount ORDER BY l.discount;
-- revenue per nation and year (join of four tables)
SELECT n.name, EXTRACT(YEAR FROM o.odate) AS y, SUM(l.price * (1 - l.discount)) AS revenue
  FROM nation n JOIN customer c ON c.nation = n.id JOIN orders o ON o.cust = c.id JOIN lineitem l ON l.orderid = o.id
  WHERE n.region = 2 GROUP BY n.name, y ORDER BY revenue DESC, n.name, y LIMIT 20;
-- top customers by segment (window function)
SELECT segment, name, spent, r FROM (
  SELECT c.segment, c.name, SUM(o.total) AS spent, RANK() OVER (PARTITION BY c.segment ORDER BY SUM(o.total) DESC, c.name) AS r
  FROM customer c JOIN orders o ON o.cust = c.id GROUP BY c.segment, c.name) t
  WHERE r <= 3 ORDER BY segment, r;
-- customers without urgent orders (anti-join), and with above-average balance (scalar subquery)
SELECT COUNT(*) FROM customer c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.cust = c.id AND o.prio = '1-URGENT');
SELECT COUNT(*), SUM(balance) FROM customer WHERE balance > (SELECT AVG(balance) FROM customer);
-- parts ordered most often, by text matching and string functions
SELECT part, COUNT(DISTINCT orderid) AS orders, SUM(qty) AS qty FROM lineitem WHERE MOD(part, 7) = 3
  GROUP BY part HAVING COUNT(*) > 9 ORDER BY orders DESC, part LIMIT 15;
SELECT SUBSTRING(name, 1, 12) AS prefix, COUNT(*) FROM customer WHERE name LIKE '%7%3%' GROUP BY prefix ORDER BY 2 DESC, 1 LIMIT 10;
-- updates and deletes through the indexes
UPDATE orders SET status = 'X', total = total * 1.1 WHERE cust IN (SELECT id FROM customer WHERE segment = 'MACHINERY' AND nation < 5);
DELETE FROM lineitem WHERE orderid IN (SELECT id FROM orders WHERE status = 'X' AND MOD(id, 4) = 0);
SELECT status, COUNT(*), SUM(total) FROM orders GROUP BY status ORDER BY status;
SELECT COUNT(*), SUM(price) FROM lineitem;
-- a recursive query over the order dates
WITH RECURSIVE months(m, d) AS (SELECT 1, DATE '1992-01-01' UNION ALL SELECT m + 1, DATEADD(MONTH, 1, d) FROM months WHERE m < 80)
  SELECT EXTRACT(YEAR FROM d) AS y, COUNT(o.id) FROM months LEFT JOIN orders o ON o.odate >= d AND o.odate < DATEADD(MONTH, 1, d) AND o.cust < 400
  GROUP BY y ORDER BY y;
