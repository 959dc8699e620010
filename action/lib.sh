# shellcheck shell=bash
# Sourced by the action's steps: step outputs and workflow commands written so that no value,
# whoever chose it, can add outputs or commands of its own.

# Appends NAME=VALUE to $GITHUB_OUTPUT in the multi-line form with a random delimiter, so a value
# holding a newline cannot define another output.
set_output() {
  local delimiter
  delimiter="fieldgate_$(random_token)"
  printf '%s<<%s\n%s\n%s\n' "$1" "$delimiter" "$2" "$delimiter" >>"$GITHUB_OUTPUT"
}

# Prints a workflow command (error, warning or notice) titled "fieldgate", the message escaped
# as GitHub's toolkit escapes command data.
annotate() {
  local message=$2
  message=${message//'%'/%25}
  message=${message//$'\r'/%0D}
  message=${message//$'\n'/%0A}
  printf '::%s title=fieldgate::%s\n' "$1" "$message"
}

# Prints FILE to the log with workflow commands turned off, for text that quotes files of the
# pull request (fieldgate's error messages): a line in it that looks like a command stays text.
print_inert() {
  local token
  token=$(random_token)
  printf '::stop-commands::%s\n' "$token"
  cat -- "$1"
  # The command that turns them back on must start a line of its own.
  if [[ -n $(tail -c1 -- "$1") ]]; then
    echo
  fi
  printf '::%s::\n' "$token"
}

random_token() {
  od -An -N16 -tx1 /dev/urandom | tr -d ' \n'
}

# SHA-256 of standard input, in hex (sha256sum on Linux, shasum on macOS).
digest() {
  if command -v sha256sum >/dev/null; then
    sha256sum | cut -c1-64
  else
    shasum -a 256 | cut -c1-64
  fi
}
