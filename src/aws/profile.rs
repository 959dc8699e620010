//! The AWS shared configuration files, read as the AWS SDKs read them: `~/.aws/config`
//! (`AWS_CONFIG_FILE`) with `[default]` and `[profile NAME]` sections, `~/.aws/credentials`
//! (`AWS_SHARED_CREDENTIALS_FILE`) with `[NAME]` sections and precedence over the config file,
//! the profile chosen by `AWS_PROFILE`, and `[services NAME]` sections whose sub-properties set
//! a service's `endpoint_url`. The parser is strict: a line it cannot read is an error naming the
//! file and the line, and never quoting it (it may hold a secret).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A shared file larger than this is not a profile file.
const MAX_FILE: u64 = 1024 * 1024;

/// A section's properties, keys lower-cased; a property with sub-properties (`s3 =` followed by
/// indented `endpoint_url = ...`) holds them as `s3.endpoint_url`.
type Properties = BTreeMap<String, String>;

/// The sections of one file, by name as the file spells it (`profile x`, `default`, `services y`).
#[derive(Debug, Default)]
struct Sections(BTreeMap<String, Properties>);

/// What the chosen profile says.
#[derive(Debug, Default)]
pub struct Profile {
    /// The profile's name and where it was looked for, for messages.
    pub name: String,
    pub files: Vec<PathBuf>,
    /// Config file first, credentials file second (its values win).
    properties: Properties,
    /// The profile's `services` section, if it names one that exists.
    services: Properties,
}

/// Static credentials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: Option<String>,
}

/// Credential sources of a profile that fieldgate does not run (each needs an STS, SSO or
/// process call).
const UNSUPPORTED: &[&str] = &[
    "role_arn",
    "credential_process",
    "sso_session",
    "sso_start_url",
    "web_identity_token_file",
    "credential_source",
];

impl Profile {
    /// The profile `AWS_PROFILE` names (else `default`) from the shared files `env` locates. A
    /// missing file is no error; a profile named by `AWS_PROFILE` that neither file holds is.
    pub fn load(env: &dyn Fn(&str) -> Option<String>) -> Result<Profile, String> {
        let explicit = env("AWS_PROFILE").filter(|p| !p.trim().is_empty());
        let name = explicit.clone().unwrap_or_else(|| "default".to_string());
        let home = env("HOME")
            .or_else(|| env("USERPROFILE"))
            .filter(|h| !h.is_empty());
        let located = |var: &str, default: &str| {
            env(var)
                .filter(|p| !p.is_empty())
                .map(|p| expand_home(&p, home.as_deref()))
                .or_else(|| {
                    home.as_ref()
                        .map(|h| Path::new(h).join(".aws").join(default))
                })
        };
        let config_path = located("AWS_CONFIG_FILE", "config");
        let credentials_path = located("AWS_SHARED_CREDENTIALS_FILE", "credentials");
        let config = read_sections(config_path.as_deref())?;
        let credentials = read_sections(credentials_path.as_deref())?;

        let config_section = if name == "default" {
            // The SDKs accept `[profile default]` too, and prefer it.
            config
                .get("profile default")
                .or_else(|| config.get("default"))
        } else {
            config.get(&format!("profile {name}"))
        };
        let credentials_section = credentials.get(&name);
        if explicit.is_some() && config_section.is_none() && credentials_section.is_none() {
            return Err(format!(
                "the AWS profile `{name}` (AWS_PROFILE) is in neither {}",
                describe(&[&config_path, &credentials_path])
            ));
        }
        let mut properties = config_section.cloned().unwrap_or_default();
        properties.extend(credentials_section.cloned().unwrap_or_default());
        let services = properties
            .get("services")
            .and_then(|s| config.get(&format!("services {s}")))
            .cloned()
            .unwrap_or_default();
        Ok(Profile {
            name,
            files: [config_path, credentials_path]
                .into_iter()
                .flatten()
                .collect(),
            properties,
            services,
        })
    }

    pub fn region(&self) -> Option<&str> {
        self.get("region")
    }

    /// The endpoint for `service` (its key in a `services` section, e.g. `s3`): the services
    /// section's, else the profile's own `endpoint_url`.
    pub fn endpoint(&self, service: &str) -> Option<&str> {
        self.services
            .get(&format!("{service}.endpoint_url"))
            .map(String::as_str)
            .filter(|v| !v.is_empty())
            .or_else(|| self.get("endpoint_url"))
    }

    /// The profile's static credentials; a profile that only names a source fieldgate does not
    /// run (a role to assume, SSO, a process) is an error saying so.
    pub fn credentials(&self) -> Result<Option<Credentials>, String> {
        match (
            self.get("aws_access_key_id"),
            self.get("aws_secret_access_key"),
        ) {
            (Some(key), Some(secret)) => Ok(Some(Credentials {
                access_key_id: key.to_string(),
                secret_access_key: secret.to_string(),
                session_token: self.get("aws_session_token").map(str::to_string),
            })),
            (Some(_), None) | (None, Some(_)) => Err(format!(
                "the AWS profile `{}` sets only one of `aws_access_key_id` and `aws_secret_access_key`",
                self.name
            )),
            (None, None) => match UNSUPPORTED.iter().find(|k| self.get(k).is_some()) {
                Some(key) => Err(format!(
                    "the AWS profile `{}` gets its credentials through `{key}`, which fieldgate does not run: give it static keys, or set AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (e.g. from `aws configure export-credentials --format env`)",
                    self.name
                )),
                None => Ok(None),
            },
        }
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.properties
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

fn describe(paths: &[&Option<PathBuf>]) -> String {
    let named: Vec<String> = paths
        .iter()
        .filter_map(|p| p.as_ref().map(|p| format!("`{}`", p.display())))
        .collect();
    match named.as_slice() {
        [] => "shared file (no home directory to find them in)".to_string(),
        [one] => one.clone(),
        many => many.join(" nor "),
    }
}

fn expand_home(path: &str, home: Option<&str>) -> PathBuf {
    match (path.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => Path::new(home).join(rest),
        _ => PathBuf::from(path),
    }
}

impl Sections {
    fn get(&self, name: &str) -> Option<&Properties> {
        self.0.get(name)
    }
}

fn read_sections(path: Option<&Path>) -> Result<Sections, String> {
    let Some(path) = path else {
        return Ok(Sections::default());
    };
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Sections::default()),
        Err(e) => return Err(format!("cannot read `{}`: {e}", path.display())),
    };
    let mut bytes = Vec::new();
    file.take(MAX_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    if bytes.len() as u64 > MAX_FILE {
        return Err(format!(
            "`{}` is larger than {MAX_FILE} bytes: not an AWS configuration file",
            path.display()
        ));
    }
    let text =
        String::from_utf8(bytes).map_err(|_| format!("`{}` is not UTF-8 text", path.display()))?;
    parse(&text).map_err(|(line, why)| format!("`{}`, line {line}: {why}", path.display()))
}

/// The sections of an AWS INI file; an error is the line number and why, never the line.
fn parse(text: &str) -> Result<Sections, (usize, &'static str)> {
    let mut sections = Sections::default();
    let mut section: Option<String> = None;
    // The last property of the section, to which an indented line belongs.
    let mut last: Option<String> = None;
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        let line = raw.trim_end_matches('\r');
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        let indented = line.starts_with([' ', '\t']);
        if let Some(header) = trimmed.strip_prefix('[') {
            let name = header_name(header).ok_or((number, "a section header must be `[name]`"))?;
            sections.0.entry(name.clone()).or_default();
            section = Some(name);
            last = None;
            continue;
        }
        let Some(current) = &section else {
            return Err((number, "a property before any `[section]` header"));
        };
        let properties = sections.0.entry(current.clone()).or_default();
        let (key, value) = trimmed
            .split_once('=')
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .ok_or((
                number,
                "expected `name = value`, a `[section]` header or a comment",
            ))?;
        if key.is_empty() || key.contains(char::is_whitespace) {
            return Err((number, "a property's name is empty or holds a space"));
        }
        match (indented, &last) {
            (true, Some(parent)) if properties.get(parent).is_some_and(String::is_empty) => {
                properties.insert(format!("{parent}.{key}"), value);
            }
            (true, _) => {
                return Err((
                    number,
                    "an indented property must follow a property with an empty value (`s3 =`)",
                ));
            }
            (false, _) => {
                properties.insert(key.clone(), value);
                last = Some(key);
            }
        }
    }
    Ok(sections)
}

/// The name inside `[...]` (the text after `[`), with a trailing comment allowed after `]`.
fn header_name(header: &str) -> Option<String> {
    let (inside, after) = header.split_once(']')?;
    let after = after.trim();
    if !(after.is_empty() || after.starts_with('#') || after.starts_with(';')) {
        return None;
    }
    let words: Vec<&str> = inside.split_whitespace().collect();
    if words.is_empty() || inside.contains('[') {
        return None;
    }
    Some(words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(config: &str, credentials: &str) -> (tempfile::TempDir, Vec<(String, String)>) {
        let dir = tempfile::tempdir().unwrap();
        let aws = dir.path().join(".aws");
        std::fs::create_dir_all(&aws).unwrap();
        std::fs::write(aws.join("config"), config).unwrap();
        std::fs::write(aws.join("credentials"), credentials).unwrap();
        let home = dir.path().display().to_string();
        (dir, vec![("HOME".to_string(), home)])
    }

    fn load(vars: &[(String, String)], extra: &[(&str, &str)]) -> Result<Profile, String> {
        let lookup = |name: &str| {
            extra
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
                .or_else(|| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
        };
        Profile::load(&lookup)
    }

    const CONFIG: &str = "# shared config\n[default]\nregion = eu-west-1\n\n[profile lake]\nregion = eu-central-1\nservices = local\ncredential_process = /bin/false\n\n[services local]\ns3 =\n  endpoint_url = http://127.0.0.1:9000\n[profile static]\naws_access_key_id = CONFIGKEY\naws_secret_access_key = config-secret\n";
    const CREDENTIALS: &str = "[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = default/secret+x\n\n[lake]\naws_access_key_id = AKIDLAKE\naws_secret_access_key = lake-secret\naws_session_token = lake-token\n[static]\naws_secret_access_key = credentials-secret\n";

    #[test]
    fn the_default_profile_comes_from_both_files() {
        let (_dir, vars) = files(CONFIG, CREDENTIALS);
        let profile = load(&vars, &[]).unwrap();
        assert_eq!(profile.region(), Some("eu-west-1"));
        assert_eq!(profile.endpoint("s3"), None);
        let credentials = profile.credentials().unwrap().unwrap();
        assert_eq!(credentials.access_key_id, "AKIDDEFAULT");
        assert_eq!(credentials.secret_access_key, "default/secret+x");
        assert_eq!(credentials.session_token, None);
    }

    #[test]
    fn aws_profile_chooses_a_profile_and_its_services_endpoint() {
        let (_dir, vars) = files(CONFIG, CREDENTIALS);
        let profile = load(&vars, &[("AWS_PROFILE", "lake")]).unwrap();
        assert_eq!(profile.region(), Some("eu-central-1"));
        assert_eq!(profile.endpoint("s3"), Some("http://127.0.0.1:9000"));
        assert_eq!(profile.endpoint("glue"), None);
        // The credentials file's keys win over the config's credential_process.
        let credentials = profile.credentials().unwrap().unwrap();
        assert_eq!(
            (
                credentials.access_key_id.as_str(),
                credentials.session_token.as_deref()
            ),
            ("AKIDLAKE", Some("lake-token"))
        );
        // The credentials file overrides the config file key by key.
        let mixed = load(&vars, &[("AWS_PROFILE", "static")]).unwrap();
        let credentials = mixed.credentials().unwrap().unwrap();
        assert_eq!(credentials.access_key_id, "CONFIGKEY");
        assert_eq!(credentials.secret_access_key, "credentials-secret");
    }

    #[test]
    fn a_profile_that_is_nowhere_or_needs_a_process_is_an_error() {
        let (_dir, vars) = files(CONFIG, "");
        let missing = load(&vars, &[("AWS_PROFILE", "nope")]).unwrap_err();
        assert!(
            missing.starts_with("the AWS profile `nope` (AWS_PROFILE) is in neither `"),
            "{missing}"
        );
        let process = load(&vars, &[("AWS_PROFILE", "lake")]).unwrap();
        let why = process.credentials().unwrap_err();
        assert!(why.contains("through `credential_process`"), "{why}");
        // No files, no profile: nothing, and no error.
        let none = load(&[], &[]).unwrap();
        assert_eq!(none.credentials().unwrap(), None);
    }

    #[test]
    fn other_files_are_found_through_the_environment() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("cfg");
        let credentials = dir.path().join("creds");
        std::fs::write(&config, "[profile x]\nregion = ap-south-1\n").unwrap();
        std::fs::write(
            &credentials,
            "[x]\naws_access_key_id = K\naws_secret_access_key = S\n",
        )
        .unwrap();
        let vars = vec![
            ("AWS_CONFIG_FILE".to_string(), config.display().to_string()),
            (
                "AWS_SHARED_CREDENTIALS_FILE".to_string(),
                credentials.display().to_string(),
            ),
            ("AWS_PROFILE".to_string(), "x".to_string()),
        ];
        let profile = load(&vars, &[]).unwrap();
        assert_eq!(profile.region(), Some("ap-south-1"));
        assert_eq!(profile.credentials().unwrap().unwrap().access_key_id, "K");
    }

    #[test]
    fn a_malformed_file_is_an_error_at_its_line_without_the_line() {
        for (text, line, why) in [
            (
                "[default]\naws_secret_access_key hunter2\n",
                2,
                "expected `name = value`",
            ),
            (
                "aws_secret_access_key = hunter2\n",
                1,
                "before any `[section]`",
            ),
            ("[default\naws_secret_access_key = hunter2\n", 1, "`[name]`"),
            (
                "[default]\n  aws_secret_access_key = hunter2\n",
                2,
                "an indented property",
            ),
            ("[default]\n = hunter2\n", 2, "name is empty"),
            ("[default] hunter2\n", 1, "`[name]`"),
        ] {
            let (_dir, vars) = files("", text);
            let error = load(&vars, &[]).unwrap_err();
            assert!(
                error.contains(&format!("credentials`, line {line}: ")),
                "{error}"
            );
            assert!(error.contains(why), "{error}");
            assert!(!error.contains("hunter2"), "{error}");
        }
        let (_dir, vars) = files(
            "",
            "[default]\r\naws_access_key_id = K\r\naws_secret_access_key = S\r\n",
        );
        let crlf = load(&vars, &[]).unwrap().credentials().unwrap().unwrap();
        assert_eq!(crlf.secret_access_key, "S");
    }

    #[test]
    fn a_file_too_large_or_not_text_is_refused() {
        let (_dir, vars) = files("", "");
        let home = &vars[0].1;
        let path = Path::new(home).join(".aws/credentials");
        std::fs::write(&path, [0xff, 0xfe, b'[']).unwrap();
        assert!(load(&vars, &[]).unwrap_err().contains("is not UTF-8 text"));
        std::fs::write(&path, vec![b'#'; (MAX_FILE + 1) as usize]).unwrap();
        assert!(load(&vars, &[]).unwrap_err().contains("larger than"));
    }
}
