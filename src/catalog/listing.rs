//! What a catalog holds: ListNamespaces (a level at a time, from a parent) and ListTables, page
//! by page as the spec's `pageToken` / `next-page-token` run, within bounds a hostile or broken
//! server cannot push past (a token that never ends, a tree without a bottom).

use percent_encoding::utf8_percent_encode;
use serde_json::Value;

use crate::catalog::http::{Http, Method};
use crate::catalog::rest::{CatalogError, ErrorKind, RestClient, SEGMENT};

/// The most pages one listing reads, and the most names all listings of a run return.
const MAX_PAGES: usize = 10_000;
const MAX_LISTED: usize = 100_000;

/// How deep namespaces nest before the walk gives up: real catalogs use one to three levels.
const MAX_DEPTH: usize = 16;

impl<H: Http> RestClient<H> {
    /// Every table in `roots` and the namespaces under them (the whole catalog when `roots` is
    /// empty), sorted: the tree is walked a level at a time, each namespace listed once.
    pub fn all_tables(&self, roots: &[Vec<String>]) -> Result<Vec<Vec<String>>, CatalogError> {
        let mut level: Vec<Vec<String>> = match roots {
            [] => self.list_namespaces(&[])?,
            _ => roots.to_vec(),
        };
        let mut tables = Vec::new();
        for _ in 0..MAX_DEPTH {
            let mut next = Vec::new();
            for namespace in &level {
                tables.extend(self.list_tables(namespace)?);
                next.extend(self.list_namespaces(namespace)?);
                if tables.len() + next.len() > MAX_LISTED {
                    return Err(too_many(&format!("catalog `{}`", self.name)));
                }
            }
            // A server that lists a namespace under itself must not loop the walk.
            next.retain(|child| level.iter().all(|parent| child.len() > parent.len()));
            if next.is_empty() {
                tables.sort();
                tables.dedup();
                return Ok(tables);
            }
            level = next;
        }
        Err(CatalogError {
            kind: ErrorKind::Other,
            message: format!(
                "catalog `{}`: namespaces nest deeper than {MAX_DEPTH} levels",
                self.name
            ),
        })
    }

    /// The namespaces directly under `parent` (the catalog's top level when empty).
    pub fn list_namespaces(&self, parent: &[String]) -> Result<Vec<Vec<String>>, CatalogError> {
        let mut url = self.namespaces_url();
        if !parent.is_empty() {
            url.push_str(&format!("?parent={}", self.encoded_namespace(parent)));
        }
        let what = match parent {
            [] => format!("the namespaces of catalog `{}`", self.name),
            _ => format!(
                "the namespaces in `{}` of catalog `{}`",
                parent.join("."),
                self.name
            ),
        };
        let items = self.pages(&url, &what, "namespaces")?;
        items
            .iter()
            .map(|item| self.parts(item, &what, "a namespace"))
            .collect()
    }

    /// The tables of `namespace`, each as its namespace's levels followed by its name.
    pub fn list_tables(&self, namespace: &[String]) -> Result<Vec<Vec<String>>, CatalogError> {
        let url = format!("{}/tables", self.namespace_url(namespace));
        let what = format!(
            "the tables of `{}` in catalog `{}`",
            namespace.join("."),
            self.name
        );
        let items = self.pages(&url, &what, "identifiers")?;
        items
            .iter()
            .map(|item| {
                let mut parts = match item.get("namespace") {
                    Some(levels) => self.parts(levels, &what, "a table's namespace")?,
                    None => {
                        return Err(self.malformed(&what, "a table identifier has no `namespace`"));
                    }
                };
                let name = item.get("name").and_then(Value::as_str);
                let name =
                    name.ok_or_else(|| self.malformed(&what, "a table identifier has no `name`"))?;
                parts.push(name.to_string());
                Ok(parts)
            })
            .collect()
    }

    /// Every item of the list `key` over all pages of `url`.
    fn pages(&self, url: &str, what: &str, key: &str) -> Result<Vec<Value>, CatalogError> {
        let joiner = if url.contains('?') { '&' } else { '?' };
        let mut token = String::new();
        let mut items = Vec::new();
        for _ in 0..MAX_PAGES {
            let page = format!(
                "{url}{joiner}pageToken={}",
                utf8_percent_encode(&token, SEGMENT)
            );
            let reply = self.exchange(Method::Get, page, None, true)?;
            let body = self.expect_ok(what, &reply, None)?;
            let listed = body.get(key).and_then(Value::as_array);
            let listed = listed
                .ok_or_else(|| self.malformed(what, &format!("the answer has no `{key}` list")))?;
            items.extend(listed.iter().cloned());
            if items.len() > MAX_LISTED {
                return Err(too_many(what));
            }
            match body.get("next-page-token").and_then(Value::as_str) {
                Some(next) if !next.is_empty() => token = next.to_string(),
                _ => return Ok(items),
            }
        }
        Err(CatalogError {
            kind: ErrorKind::Other,
            message: format!("{what}: the catalog's pages did not end after {MAX_PAGES} pages"),
        })
    }

    /// A namespace as the spec writes it: a list of its levels, each a string.
    fn parts(&self, value: &Value, what: &str, item: &str) -> Result<Vec<String>, CatalogError> {
        let levels = value.as_array().filter(|l| !l.is_empty());
        let levels = levels
            .ok_or_else(|| self.malformed(what, &format!("{item} is not a list of names")))?;
        levels
            .iter()
            .map(|level| {
                level.as_str().map(str::to_string).ok_or_else(|| {
                    self.malformed(what, &format!("{item} holds a name that is not a string"))
                })
            })
            .collect()
    }
}

fn too_many(what: &str) -> CatalogError {
    CatalogError {
        kind: ErrorKind::Other,
        message: format!("{what}: more than {MAX_LISTED} names, more than fieldgate lists"),
    }
}
