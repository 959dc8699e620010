//! Which commit a change is judged against: the merge base with the branch given, named by
//! CI, or the upstream default, and the messages that say how to fetch one that is missing.

use super::{Base, Repo, commit_info};

/// The branches tried, in order, when neither `--base` nor `GITHUB_BASE_REF` names one.
const DEFAULT_BRANCHES: [&str; 4] = ["origin/main", "origin/master", "main", "master"];

impl Repo {
    /// The merge base of HEAD with `given`, else with the branch CI names (`GITHUB_BASE_REF`),
    /// else with the upstream default branch (`origin/HEAD`, `origin/main`, `origin/master`,
    /// `main`, `master`). A base that is not in the clone is an error that says how to fetch it,
    /// never a fallback to a wrong base.
    pub fn base(&self, given: Option<&str>, ci_base_ref: Option<&str>) -> Result<Base, String> {
        let head = self
            .repo
            .head()
            .and_then(|h| h.peel_to_commit())
            .map_err(|e| format!("HEAD has no commit: {}", e.message()))?;
        let candidates: Vec<String> = match (given, ci_base_ref.filter(|r| !r.is_empty())) {
            (Some(given), _) => vec![given.to_string()],
            (None, Some(branch)) => vec![format!("origin/{branch}"), branch.to_string()],
            (None, None) => self
                .origin_head()
                .into_iter()
                .chain(DEFAULT_BRANCHES.iter().map(|b| b.to_string()))
                .collect(),
        };
        let found = candidates.iter().find_map(|name| {
            let commit = self
                .repo
                .revparse_single(name)
                .ok()?
                .peel_to_commit()
                .ok()?;
            Some((name.clone(), commit))
        });
        let Some((against, base)) = found else {
            return Err(self.missing_base(&candidates));
        };
        let merge_base = self
            .repo
            .merge_base(head.id(), base.id())
            .map_err(|_| self.no_common_history(&against))?;
        let commit = self
            .repo
            .find_commit(merge_base)
            .map_err(|e| format!("cannot read the base commit {merge_base}: {}", e.message()))?;
        Ok(Base {
            commit: merge_base,
            against,
            info: commit_info(&commit),
        })
    }

    /// `origin/HEAD`'s target as a short name (`origin/main`), if the clone recorded one.
    fn origin_head(&self) -> Option<String> {
        let reference = self.repo.find_reference("refs/remotes/origin/HEAD").ok()?;
        let target = reference.symbolic_target().ok()??;
        Some(
            target
                .strip_prefix("refs/remotes/")
                .unwrap_or(target)
                .to_string(),
        )
    }

    fn missing_base(&self, candidates: &[String]) -> String {
        let tried = candidates
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let branch = candidates
            .first()
            .map(|c| c.strip_prefix("origin/").unwrap_or(c).to_string())
            .unwrap_or_else(|| "main".into());
        let mut message = format!(
            "the base branch is not in this clone (tried {tried}), so there is nothing to compare the change with"
        );
        if self.repo.is_shallow() {
            message.push_str(
                ": this is a shallow clone (GitHub's actions/checkout fetches a single commit by default)",
            );
        }
        message.push_str(&format!(
            ". Fetch the history: set `fetch-depth: 0` on actions/checkout, or run `git fetch origin {branch}` before `fieldgate check`; or name the base with `--base REF`"
        ));
        message
    }

    fn no_common_history(&self, against: &str) -> String {
        let branch = against.strip_prefix("origin/").unwrap_or(against);
        if self.repo.is_shallow() {
            format!(
                "HEAD and `{against}` share no commit in this shallow clone, so the base of the change is unknown. Fetch the history: set `fetch-depth: 0` on actions/checkout, or run `git fetch --unshallow origin {branch}` (or `git fetch origin {branch}` with enough depth) before `fieldgate check`"
            )
        } else {
            format!(
                "HEAD and `{against}` have no common history, so the change has no base: give the branch this change starts from with `--base REF`"
            )
        }
    }
}
