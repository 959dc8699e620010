"""What Spark's own SQL parser reads of each statement in corpus.sql.

One JVM for the whole corpus: a local SparkSession, whose `sessionState().sqlParser()` parses
each statement (`parsePlan`) exactly as `spark.sql` would before analysis. For each statement it
records whether Spark accepts it and, if so, the column comments it carries, in order. Written as
JSON lines; `--write` replaces spark_reads.jsonl, `--check` fails if Spark now reads the corpus
differently from what is committed (CI runs `--check`, so the expectations that
tests/spark_corpus.rs holds fieldgate to are Spark's own).
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def statements():
    with open(os.path.join(HERE, "corpus.sql"), encoding="utf-8") as corpus:
        for line in corpus:
            line = line.rstrip("\n")
            if line.strip() and not line.startswith("--"):
                yield line


def option(value):
    return value.get() if value.isDefined() else None


def seq(scala_seq):
    return [scala_seq.apply(i) for i in range(scala_seq.length())]


def comments(plan):
    """The column comments a parsed plan carries, in statement order (None: set to null)."""
    kind = plan.getClass().getSimpleName()
    if kind == "AlterColumns":
        return [option(spec.newComment()) for spec in seq(plan.specs()) if spec.newComment().isDefined()]
    if kind == "AddColumns":
        return [c for c in (option(col.comment()) for col in seq(plan.columnsToAdd())) if c is not None]
    if kind in ("CreateTable", "CreateTableAsSelect"):
        return [c for c in (option(col.comment()) for col in seq(plan.columns())) if c is not None]
    return []


def read_all():
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.catalogImplementation", "in-memory")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("OFF")
    parser = spark._jsparkSession.sessionState().sqlParser()
    out = []
    for sql in statements():
        try:
            plan = parser.parsePlan(sql)
            out.append({"sql": sql, "accepted": True, "comments": comments(plan)})
        except Exception:  # Spark's ParseException, through py4j
            out.append({"sql": sql, "accepted": False, "comments": []})
    spark.stop()
    return out


def main():
    ap = argparse.ArgumentParser()
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    args = ap.parse_args()
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in read_all())
    path = os.path.join(HERE, "spark_reads.jsonl")
    if args.write:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return 0
    with open(path, encoding="utf-8") as f:
        committed = f.read()
    if committed != text:
        for old, new in zip(committed.splitlines(), text.splitlines()):
            if old != new:
                print(f"committed: {old}\nSpark now: {new}")
        print("spark_reads.jsonl is not what Spark reads: regenerate it with --write")
        return 1
    print(f"{text.count(chr(10))} statements: Spark reads them as spark_reads.jsonl says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
