-- Statements read by both Spark's own SQL parser and fieldgate (`--dialect spark`), one per line.
-- spark_reads.py records what Spark reads of each (accepted or refused, and each comment's
-- value) in spark_reads.jsonl; tests/spark_corpus.rs checks that fieldgate reads the same.
-- Add a line, then regenerate (see the README, Development): spark_reads.py --write
ALTER TABLE db.t ADD COLUMN a int
ALTER TABLE db.t ADD COLUMNS (a int COMMENT 'x', b string NOT NULL FIRST)
ALTER TABLE db.t ADD COLUMNS a int, b bigint AFTER a
ALTER TABLE db.t ADD COLUMN s.y struct<p: int, q: array<map<string, decimal(10,2)>>>
ALTER TABLE db.t ADD COLUMN x timestamp(6), y timestamp_ntz(6), z timestamp_ltz(6)
ALTER TABLE db.t ADD COLUMN a timestamp(3)
ALTER TABLE db.t ADD COLUMN a timestamp_ntz(9)
ALTER TABLE db.t ADD COLUMN a varchar(10), b char(3), c character(5)
ALTER TABLE db.t ADD COLUMN a varchar
ALTER TABLE db.t ADD COLUMN a char
ALTER TABLE db.t ADD COLUMN a text
ALTER TABLE db.t ADD COLUMN a double precision
ALTER TABLE db.t ADD COLUMN a decimal, b dec(5), c numeric(38, 38)
ALTER TABLE db.t ADD COLUMN a tinyint, b byte, c short, d long, e real, f binary, g boolean, h date
ALTER TABLE db.t ADD COLUMN été int
ALTER TABLE db.t ADD COLUMN `été` int COMMENT 'quoted'
ALTER TABLE db.t ADD COLUMN _1a int, 1b int
ALTER TABLE db.t ADD COLUMN k int AFTER s.y
ALTER TABLE db.t ADD COLUMNS (a int) CASCADE
ALTER TABLE db.t ADD COLUMN a int /*+ hint */
ALTER /*+ REPARTITION(2) */ TABLE db.t ADD COLUMN a int
ALTER TABLE db.t ADD COLUMN a int /* plain comment */ COMMENT 'c'
ALTER TABLE db.t ALTER COLUMN a COMMENT '\u00e9t\u00e9'
ALTER TABLE db.t ALTER COLUMN a COMMENT '\U0001F600 \uD83D\uDE00'
ALTER TABLE db.t ALTER COLUMN a COMMENT '\101\a\f\q\0'
ALTER TABLE db.t ALTER COLUMN a COMMENT '100\% \_ \\ \' \"'
ALTER TABLE db.t ALTER COLUMN a COMMENT 'it''s' "d""q"
ALTER TABLE db.t ALTER COLUMN a COMMENT 'a' 'b' "c"
ALTER TABLE db.t ALTER COLUMN a COMMENT r'raw\n' R"\t"
ALTER TABLE db.t ALTER COLUMN a COMMENT r'a\' R"b\"
ALTER TABLE db.t ALTER COLUMN a COMMENT r'a''b' R"c""d"
ALTER TABLE db.t ALTER COLUMN a COMMENT r'x\', b COMMENT 'y\''
ALTER TABLE db.t ALTER COLUMN a COMMENT r'x\' 'y\'' r"z'\"
ALTER TABLE db.t ALTER COLUMN a COMMENT r'unterminated\
ALTER TABLE db.t ALTER COLUMN a COMMENT '\n\t\r\Z\b'
ALTER TABLE db.t ALTER COLUMN a COMMENT '\201 \18 \u00zz'
ALTER TABLE db.t ALTER COLUMN a COMMENT 'x', b COMMENT 'y'
ALTER TABLE db.t ALTER COLUMN a TYPE bigint, a COMMENT 'x'
ALTER TABLE db.t ALTER COLUMN a TYPE bigint COMMENT 'x'
ALTER TABLE db.t ALTER COLUMN a SET DATA TYPE bigint
ALTER TABLE db.t ALTER COLUMN a FIRST
ALTER TABLE db.t ALTER COLUMN s.y AFTER x
ALTER TABLE db.t ALTER COLUMN s.y AFTER s.x
ALTER TABLE db.t ALTER a DROP NOT NULL
ALTER TABLE db.t ALTER COLUMN a SET NOT NULL
ALTER TABLE db.t CHANGE COLUMN c C bigint
ALTER TABLE db.t CHANGE COLUMN a a bigint COMMENT 'x' FIRST
ALTER TABLE db.t CHANGE a TYPE bigint, b COMMENT 'y'
ALTER TABLE db.t CHANGE COLUMN a b bigint
ALTER TABLE db.t RENAME COLUMN a TO b
ALTER TABLE db.t RENAME COLUMN s.a TO b
ALTER TABLE db.t DROP COLUMN a
ALTER TABLE db.t DROP COLUMNS IF EXISTS (a, s.b)
ALTER TABLE db.t DROP COLUMNS a, b
COMMENT ON COLUMN db.t.c IS 'x'
COMMENT ON COLUMN db.t.c IS NULL
CREATE TABLE db.t (id bigint NOT NULL COMMENT 'k', ts timestamp, s string) USING iceberg PARTITIONED BY (days(ts))
CREATE TABLE db.t (id bigint, v varchar) USING iceberg
