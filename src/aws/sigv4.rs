//! AWS Signature Version 4 in the `Authorization` header, for a REST catalog behind AWS (Glue's
//! and S3 Tables' Iceberg endpoints, API Gateway): what pyiceberg's and Iceberg Java's signers
//! send. The canonical request follows AWS's rules for services other than S3: the path
//! normalised (dot segments and empty segments removed) and percent-encoded once more, the query
//! decoded and re-encoded with its pairs sorted, and the headers `host`, `content-type` and every
//! `x-amz-*` signed, including `x-amz-content-sha256` (the body's SHA-256).

use hmac::{KeyInit as _, Mac as _};
use sha2::{Digest as _, Sha256};

use crate::aws::profile::Credentials;

/// Everything but the unreserved characters is percent-encoded, in upper-case hex.
const AWS_ENCODE: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');
/// The path's canonical form keeps its `/`.
const PATH_ENCODE: &percent_encoding::AsciiSet = &AWS_ENCODE.remove(b'/');

#[derive(Debug)]
pub struct Signer {
    pub credentials: Credentials,
    pub region: String,
    /// The signing name: `execute-api` unless the service says otherwise (`glue`, `s3tables`).
    pub service: String,
}

impl Signer {
    /// The headers that sign a request of `method` to `url` whose other headers are `headers`
    /// and whose body is `body`, at `now`: `x-amz-date`, `x-amz-content-sha256`,
    /// `x-amz-security-token` with a session token, and `Authorization`.
    pub fn sign(
        &self,
        method: &str,
        url: &str,
        headers: &[(String, String)],
        body: &[u8],
        now: jiff::Timestamp,
    ) -> Result<Vec<(String, String)>, String> {
        let parts = UrlParts::of(url)?;
        let date_time = now.strftime("%Y%m%dT%H%M%SZ").to_string();
        let date = &date_time[..8];
        let payload = hex(&Sha256::digest(body));
        let mut added = vec![
            ("x-amz-date".to_string(), date_time.clone()),
            ("x-amz-content-sha256".to_string(), payload.clone()),
        ];
        if let Some(token) = &self.credentials.session_token {
            added.push(("x-amz-security-token".to_string(), token.clone()));
        }
        let mut signed: Vec<(String, String)> = vec![("host".to_string(), parts.host.clone())];
        for (name, value) in headers.iter().chain(&added) {
            let name = name.to_ascii_lowercase();
            if name == "content-type" || name.starts_with("x-amz-") {
                signed.push((name, value.split_whitespace().collect::<Vec<_>>().join(" ")));
            }
        }
        signed.sort();
        let names = signed
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(";");
        let canonical_headers: String = signed.iter().map(|(n, v)| format!("{n}:{v}\n")).collect();
        let canonical = format!(
            "{method}\n{}\n{}\n{canonical_headers}\n{names}\n{payload}",
            canonical_path(&parts.path),
            canonical_query(&parts.query),
        );
        let scope = format!("{date}/{}/{}/aws4_request", self.region, self.service);
        let to_sign = format!(
            "AWS4-HMAC-SHA256\n{date_time}\n{scope}\n{}",
            hex(&Sha256::digest(canonical.as_bytes()))
        );
        let secret = format!("AWS4{}", self.credentials.secret_access_key);
        let mut key = hmac(secret.as_bytes(), date.as_bytes())?;
        for part in [self.region.as_str(), self.service.as_str(), "aws4_request"] {
            key = hmac(&key, part.as_bytes())?;
        }
        let signature = hex(&hmac(&key, to_sign.as_bytes())?);
        added.push((
            "Authorization".to_string(),
            format!(
                "AWS4-HMAC-SHA256 Credential={}/{scope}, SignedHeaders={names}, Signature={signature}",
                self.credentials.access_key_id
            ),
        ));
        Ok(added)
    }
}

fn hmac(key: &[u8], data: &[u8]) -> Result<Vec<u8>, String> {
    let mut mac = hmac::Hmac::<Sha256>::new_from_slice(key)
        .map_err(|_| "the SigV4 signing key is not usable".to_string())?;
    mac.update(data);
    Ok(mac.finalize().into_bytes().to_vec())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

struct UrlParts {
    /// `host[:port]`, without a default port, as the `Host` header carries it.
    host: String,
    path: String,
    query: String,
}

impl UrlParts {
    fn of(url: &str) -> Result<UrlParts, String> {
        let (scheme, rest) = url
            .split_once("://")
            .ok_or_else(|| format!("`{url}` is not an http:// or https:// URL"))?;
        let rest = rest.split('#').next().unwrap_or_default();
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, path_and_query) = rest.split_at(end);
        let authority = authority.rsplit('@').next().unwrap_or_default();
        let default_port = match scheme.to_ascii_lowercase().as_str() {
            "http" => ":80",
            "https" => ":443",
            _ => return Err(format!("`{url}` is not an http:// or https:// URL")),
        };
        let host = authority.strip_suffix(default_port).unwrap_or(authority);
        if host.is_empty() {
            return Err(format!("`{url}` names no host"));
        }
        let (path, query) = path_and_query
            .split_once('?')
            .unwrap_or((path_and_query, ""));
        Ok(UrlParts {
            host: host.to_ascii_lowercase(),
            path: path.to_string(),
            query: query.to_string(),
        })
    }
}

/// The path without `.`, `..` and empty segments, each byte but the unreserved ones and `/`
/// percent-encoded again (the path as sent is already encoded once).
fn canonical_path(path: &str) -> String {
    let mut segments: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            other => segments.push(other),
        }
    }
    let trailing = path.ends_with('/') && !segments.is_empty();
    let normalised = format!("/{}{}", segments.join("/"), if trailing { "/" } else { "" });
    percent_encoding::utf8_percent_encode(&normalised, PATH_ENCODE).to_string()
}

/// The query's pairs decoded, encoded as AWS encodes them, and sorted.
fn canonical_query(query: &str) -> String {
    let encode = |text: &str| {
        let decoded =
            percent_encoding::percent_decode_str(&text.replace('+', " ")).collect::<Vec<u8>>();
        percent_encoding::percent_encode(&decoded, AWS_ENCODE).to_string()
    };
    let mut pairs: Vec<(String, String)> = query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (encode(key), encode(value))
        })
        .collect();
    pairs.sort();
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The get-vanilla request of AWS's SigV4 test suite with `x-amz-content-sha256` signed
    /// too; the signature is the one botocore's `SigV4Auth` computes for it (without that
    /// header, botocore gives the suite's published 5fa00fa3...).
    #[test]
    fn the_signature_of_awss_test_suite_request() {
        let signer = Signer {
            credentials: Credentials {
                access_key_id: "AKIDEXAMPLE".into(),
                secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
                session_token: None,
            },
            region: "us-east-1".into(),
            service: "service".into(),
        };
        let now: jiff::Timestamp = "2015-08-30T12:36:00Z".parse().unwrap();
        let headers = signer
            .sign("GET", "https://example.amazonaws.com/", &[], b"", now)
            .unwrap();
        let authorization = &headers.last().unwrap().1;
        assert_eq!(
            authorization,
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=726c5c4879a6b4ccbbd3b24edbd6b8826d34f87450fbbf4e85546fc7ba9c1642"
        );
    }

    #[test]
    fn paths_and_queries_take_their_canonical_form() {
        assert_eq!(canonical_path(""), "/");
        assert_eq!(canonical_path("/v1//a/./b/../c/"), "/v1/a/c/");
        assert_eq!(
            canonical_path("/v1/namespaces/a%1Fb"),
            "/v1/namespaces/a%251Fb"
        );
        assert_eq!(canonical_query(""), "");
        assert_eq!(canonical_query("b=2&a=x%2Fy&a=1&c"), "a=1&a=x%2Fy&b=2&c=");
        assert_eq!(canonical_query("k=a+b~"), "k=a%20b~");
    }

    #[test]
    fn the_host_has_no_default_port_and_the_token_is_signed() {
        let parts =
            UrlParts::of("https://Glue.us-east-1.amazonaws.com:443/iceberg/v1/config?x=1").unwrap();
        assert_eq!(parts.host, "glue.us-east-1.amazonaws.com");
        assert_eq!(
            (parts.path.as_str(), parts.query.as_str()),
            ("/iceberg/v1/config", "x=1")
        );
        assert_eq!(
            UrlParts::of("http://127.0.0.1:8181/v1").unwrap().host,
            "127.0.0.1:8181"
        );
        assert!(UrlParts::of("ftp://h/").is_err());
        let signer = Signer {
            credentials: Credentials {
                access_key_id: "K".into(),
                secret_access_key: "S".into(),
                session_token: Some("T".into()),
            },
            region: "eu-west-1".into(),
            service: "glue".into(),
        };
        let headers = signer
            .sign(
                "POST",
                "http://h/v1/x",
                &[("Content-Type".into(), "application/json".into())],
                b"{}",
                jiff::Timestamp::UNIX_EPOCH,
            )
            .unwrap();
        assert!(headers.contains(&("x-amz-security-token".into(), "T".into())));
        assert!(headers.last().unwrap().1.contains(
            "/19700101/eu-west-1/glue/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, "
        ));
    }
}
