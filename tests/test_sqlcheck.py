import pytest

from awm.sql.checks import read_only_problem


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1",
        "SELECT COUNT(*) = 1 FROM orders o JOIN initial.orders i USING (id)",
        "WITH x AS (SELECT 1 AS a) SELECT a FROM x",
        "SELECT 1 UNION SELECT 2",
    ],
)
def test_reads_pass(sql):
    assert read_only_problem(sql) is None


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        ("DELETE FROM orders", "DELETE"),
        ("UPDATE orders SET status = 'x'", "UPDATE"),
        ("INSERT INTO orders SELECT * FROM orders", "INSERT"),
        ("SELECT 1; DROP TABLE orders", "one statement"),
        ("WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d", "write"),
        ("PRAGMA query_only = OFF", "PRAGMA"),
        ("ATTACH 'x.db' AS x", "ATTACH"),
        ("SELECT load_extension('evil')", "load_extension"),
        ("REPLACE INTO orders VALUES (1)", "SELECT"),
        ("SELEC 1", "parse"),
    ],
)
def test_writes_and_tricks_fail(sql, why):
    problem = read_only_problem(sql)
    assert problem is not None and why in problem
