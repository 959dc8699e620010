//! Spark/Trino DDL front-end.
