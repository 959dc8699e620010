//! Reader verification over sample Parquet files: read data files as a field-id reader reads them
//! under a table schema, and show, per file and column, how each field resolved.
//!
//! Data flows one way: a file's footer becomes a [`file_schema::FileSchema`] (ids from the file,
//! or from the table's name mapping); [`resolve`] pairs it with the table schema by field id into
//! per-column statuses and a read plan; [`read`] reads only the planned leaf columns through a
//! byte-counting handle ([`counting`]), [`project`]s each batch into the table's types and hands
//! rows, rendered by [`values`], to a sink, leaving out the rows [`deletes`] deletes; [`sample`]
//! picks files of the table itself from its manifests (read within [`avro`]'s budgets), with the [`partition_values`] readers fill
//! missing columns from, and [`listed`] looks files named by path up in them; [`report`] prints the result for people or as JSON; [`gate`] runs the same reads
//! inside `apply` and `check`, under the schema the change produces, and turns failures into
//! findings.

pub mod avro;
pub mod budget;
pub mod counting;
pub mod deletes;
pub mod error;
pub mod file_schema;
pub mod gate;
pub mod listed;
pub mod partition_values;
pub mod positional;
pub mod project;
pub mod read;
pub mod report;
pub mod resolve;
pub mod sample;
pub mod thrift;
pub mod values;
