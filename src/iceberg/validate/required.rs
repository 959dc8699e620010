//! The keys Iceberg Java's `TableMetadataParser.fromJson` reads without a default, by format
//! version: v1 files may still carry the single `schema` and `partition-spec` of early writers,
//! v2 made the lists and their counters mandatory, v3 added row lineage. A file that lacks one
//! is a file Java (and so Spark, Trino and Flink) cannot load, so it is refused here rather than
//! judged with a default Java would never have chosen.

use crate::iceberg::codec::{ModelError, ModelResult, as_array, as_i32, as_i64, as_str};
use crate::json::Node;

/// A list and the id member that must sit beside it: Java reads `current-schema-id` only when
/// `schemas` is there, and so on.
const LISTS: [(&str, &str); 3] = [
    ("schemas", "current-schema-id"),
    ("partition-specs", "default-spec-id"),
    ("sort-orders", "default-sort-order-id"),
];

/// Refuses a document that lacks a key Java requires of its `format_version`, or holds one of the
/// wrong kind, at the key (or at the document when the key is missing).
pub(super) fn required_keys(root: &Node<'_>, format_version: u8) -> ModelResult<()> {
    if let Some(uuid) = root.get("table-uuid") {
        as_str(uuid, "`table-uuid`")?;
    } else if format_version >= 2 {
        return Err(ModelError::at(
            root,
            format!("UUID is required in format v{format_version}: `table-uuid` is missing"),
        ));
    }
    if format_version >= 2 {
        for key in [
            "schemas",
            "partition-specs",
            "last-partition-id",
            "sort-orders",
        ] {
            if root.get(key).is_none() {
                return Err(ModelError::at(
                    root,
                    format!("`{key}` must exist in format v{format_version}"),
                ));
            }
        }
        as_i64(
            required(root, "last-sequence-number", 2)?,
            "`last-sequence-number`",
        )?;
    } else if root.get("partition-specs").is_none() && root.get("partition-spec").is_none() {
        return Err(ModelError::at(
            root,
            "a v1 file without `partition-specs` must have `partition-spec`: Iceberg Java cannot parse it without",
        ));
    }
    if format_version >= 3 {
        as_i64(required(root, "next-row-id", 3)?, "`next-row-id`")?;
    }
    lists_with_their_ids(root)
}

/// Each list present needs its id beside it.
fn lists_with_their_ids(root: &Node<'_>) -> ModelResult<()> {
    for (list, id) in LISTS {
        let Some(items) = root.get(list) else {
            continue;
        };
        as_array(items, &format!("`{list}`"))?;
        let Some(id_node) = root.get(id) else {
            return Err(ModelError::at(
                root,
                format!(
                    "missing required key `{id}`: Iceberg Java reads it whenever `{list}` is there"
                ),
            ));
        };
        as_i32(id_node, &format!("`{id}`"))?;
    }
    Ok(())
}

fn required<'n, 'a>(root: &'n Node<'a>, key: &str, since: u8) -> ModelResult<&'n Node<'a>> {
    root.get(key).ok_or_else(|| {
        ModelError::at(
            root,
            format!(
                "missing required key `{key}`: Iceberg Java requires it from format v{since} on"
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use crate::iceberg::metadata::TableMetadata;
    use crate::json;

    const V2: &str = r#"{"format-version":2,"table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1","location":"s3://b/t","last-sequence-number":0,"last-updated-ms":1,"last-column-id":1,"current-schema-id":0,"schemas":[{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]}],"default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],"last-partition-id":999,"default-sort-order-id":0,"sort-orders":[{"order-id":0,"fields":[]}]}"#;

    const V1: &str = r#"{"format-version":1,"location":"s3://b/t","last-updated-ms":1,"last-column-id":1,"schema":{"type":"struct","fields":[{"id":1,"name":"id","required":true,"type":"long"}]},"partition-spec":[]}"#;

    fn refusal(text: &str) -> String {
        let root = json::parse(text).unwrap();
        match TableMetadata::from_json(&root) {
            Ok(_) => String::new(),
            Err(error) => error.message,
        }
    }

    /// `text` without `member` (`"key":value`) and the comma beside it.
    fn without(text: &str, member: &str) -> String {
        assert!(text.contains(member), "{member}");
        let followed = format!("{member},");
        if text.contains(&followed) {
            text.replacen(&followed, "", 1)
        } else {
            text.replacen(&format!(",{member}"), "", 1)
        }
    }

    #[test]
    fn v2_needs_every_key_java_reads_without_a_default() {
        assert_eq!(refusal(V2), "");
        for (member, says) in [
            (
                r#""table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1""#,
                "UUID is required in format v2",
            ),
            (
                r#""last-sequence-number":0"#,
                "missing required key `last-sequence-number`: Iceberg Java requires it from format v2 on",
            ),
            (
                r#""partition-specs":[{"spec-id":0,"fields":[]}]"#,
                "`partition-specs` must exist in format v2",
            ),
            (
                r#""last-partition-id":999"#,
                "`last-partition-id` must exist in format v2",
            ),
            (
                r#""sort-orders":[{"order-id":0,"fields":[]}]"#,
                "`sort-orders` must exist in format v2",
            ),
            (
                r#""current-schema-id":0"#,
                "missing required key `current-schema-id`",
            ),
            (
                r#""default-spec-id":0"#,
                "missing required key `default-spec-id`",
            ),
            (
                r#""default-sort-order-id":0"#,
                "missing required key `default-sort-order-id`",
            ),
        ] {
            let message = refusal(&without(V2, member));
            assert!(message.contains(says), "{member}: {message:?}");
        }
    }

    #[test]
    fn v2_with_only_the_v1_schema_is_refused() {
        let schemas = r#""current-schema-id":0,"schemas":[{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]}]"#;
        let text = V2.replacen(
            schemas,
            r#""schema":{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]}"#,
            1,
        );
        assert!(refusal(&text).contains("`schemas` must exist in format v2"));
    }

    #[test]
    fn empty_spec_and_order_lists_are_refused() {
        for (from, says) in [
            (
                r#""partition-specs":[{"spec-id":0,"fields":[]}]"#,
                "Partition specs cannot be null or empty",
            ),
            (
                r#""sort-orders":[{"order-id":0,"fields":[]}]"#,
                "Sort orders cannot be null or empty",
            ),
        ] {
            let list = from.split(':').next().unwrap_or_default();
            let message = refusal(&V2.replacen(from, &format!("{list}:[]"), 1));
            assert!(message.contains(says), "{from}: {message:?}");
        }
    }

    #[test]
    fn v3_needs_next_row_id() {
        let v3 = V2.replacen(r#""format-version":2"#, r#""format-version":3"#, 1);
        assert!(refusal(&v3).contains("missing required key `next-row-id`"));
        let with = v3.replacen(
            r#""last-sequence-number":0"#,
            r#""last-sequence-number":0,"next-row-id":0"#,
            1,
        );
        assert_eq!(refusal(&with), "");
        let wrong = with.replacen(r#""next-row-id":0"#, r#""next-row-id":"0""#, 1);
        assert!(refusal(&wrong).contains("`next-row-id` must be an integer"));
    }

    #[test]
    fn v1_keeps_its_early_forms_but_needs_a_spec() {
        assert_eq!(refusal(V1), "");
        let message = refusal(&V1.replacen(r#","partition-spec":[]"#, "", 1));
        assert!(message.contains("must have `partition-spec`"), "{message}");
        let message = refusal(&V1.replacen(
            r#""format-version":1"#,
            r#""format-version":1,"table-uuid":7"#,
            1,
        ));
        assert!(
            message.contains("`table-uuid` must be a string"),
            "{message}"
        );
    }
}
