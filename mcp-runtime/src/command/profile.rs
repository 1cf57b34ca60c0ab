//! Built-in profiles of well-known programs ([`Program::known`](super::Program::known)):
//! the table of what each refuses is in the [module documentation](super#built-in-profiles).

/// What a profile decided: the arguments to pass, and those that may name paths (operands,
/// option values), to be confined to the service's directories.
pub(crate) struct Checked {
    pub(crate) args: Vec<String>,
    pub(crate) paths: Vec<String>,
}

/// A refusal: the argument (empty: the call as a whole) and why.
pub(crate) type Refusal = (String, String);

/// A well-known program's rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Profile {
    /// Any option but `deny` (short ones also inside clusters when `clusters`).
    Plain {
        deny: &'static [&'static str],
        clusters: bool,
    },
    Find,
    Git,
    Sed,
    Awk,
    Tar,
    /// Runs another program: refused.
    Launcher,
    /// `env`: prints the (cleared) environment without arguments; with some, a launcher.
    Env,
}

const LAUNCHERS: &[&str] = &[
    "xargs",
    "nice",
    "timeout",
    "nohup",
    "setsid",
    "stdbuf",
    "sudo",
    "doas",
    "su",
    "chroot",
    "ionice",
    "taskset",
    "strace",
    "ltrace",
    "gdb",
    "watch",
    "time",
    "flock",
    "parallel",
    "script",
    "unbuffer",
    "expect",
    "busybox",
    "ssh",
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "fish",
    "csh",
    "tcsh",
    "pwsh",
    "powershell",
    "cmd",
    "python",
    "python2",
    "python3",
    "perl",
    "ruby",
    "node",
    "nodejs",
    "deno",
    "bun",
    "php",
    "lua",
    "tclsh",
    "osascript",
];

const PLAIN: &[&str] = &[
    "grep",
    "egrep",
    "fgrep",
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "cut",
    "uniq",
    "tr",
    "diff",
    "cmp",
    "comm",
    "stat",
    "du",
    "df",
    "file",
    "jq",
    "cp",
    "mv",
    "rm",
    "rmdir",
    "mkdir",
    "touch",
    "pwd",
    "echo",
    "printf",
    "date",
    "nl",
    "tac",
    "rev",
    "fold",
    "fmt",
    "column",
    "od",
    "xxd",
    "hexdump",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "base64",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "tree",
    "seq",
    "true",
    "false",
    "whoami",
    "uname",
    "id",
    "which",
    "paste",
    "join",
    "expand",
    "unexpand",
    "split",
    "csplit",
    "truncate",
    "ln",
    "chmod",
    "tee",
];

/// The profile of the program called `name` (its file name without extension, case-folded
/// on Windows), if it has one.
pub(crate) fn profile_of(name: &str) -> Option<Profile> {
    let base = std::path::Path::new(name)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(name);
    let base = if cfg!(windows) {
        base.to_ascii_lowercase()
    } else {
        base.to_owned()
    };
    let profile = match base.as_str() {
        "find" => Profile::Find,
        "git" => Profile::Git,
        "sed" | "gsed" => Profile::Sed,
        "awk" | "gawk" | "mawk" | "nawk" => Profile::Awk,
        "tar" | "gtar" | "bsdtar" => Profile::Tar,
        "env" => Profile::Env,
        "sort" => Profile::Plain {
            deny: &["--compress-program"],
            clusters: true,
        },
        "rg" => Profile::Plain {
            deny: &["--pre"],
            clusters: true,
        },
        other if LAUNCHERS.contains(&other) => Profile::Launcher,
        // `python3.12`, `perl5.36`: interpreters by another name.
        other
            if ["python", "perl", "ruby", "node", "php", "lua"]
                .iter()
                .any(|i| other.starts_with(i)) =>
        {
            Profile::Launcher
        }
        other if PLAIN.contains(&other) => Profile::Plain {
            deny: &[],
            clusters: true,
        },
        _ => return None,
    };
    Some(profile)
}

fn is_option(arg: &str) -> bool {
    arg.starts_with('-') && arg != "-"
}

/// Whether option `arg` is `denied`: by name (`--x=v` by its name), by a GNU abbreviation of
/// a denied long option, or (with `clusters`) a denied short one inside `-abc`.
fn denied(arg: &str, deny: &[&str], clusters: bool) -> bool {
    let name = arg.split_once('=').map_or(arg, |(n, _)| n);
    deny.iter().any(|d| {
        if name == *d {
            return true;
        }
        if let Some(long) = d.strip_prefix("--") {
            // `--to-com` is `--to-command` to getopt when no other option starts so.
            return name
                .strip_prefix("--")
                .is_some_and(|n| n.len() >= 3 && long.starts_with(n));
        }
        let short = d.strip_prefix('-').filter(|s| s.len() == 1);
        match short {
            Some(letter) if clusters && !name.starts_with("--") && name.len() > 2 => {
                name[1..].contains(letter)
            }
            _ => false,
        }
    })
}

/// What an option argument may carry as a path: `--x=VALUE`'s value, `-fVALUE`'s rest.
fn option_value(arg: &str) -> Option<&str> {
    if arg.starts_with("--") {
        arg.split_once('=').map(|(_, v)| v)
    } else {
        arg.get(2..).filter(|rest| !rest.is_empty())
    }
}

impl Profile {
    /// The arguments to pass for `args`, or the first refused one.
    pub(crate) fn check(self, args: &[String]) -> Result<Checked, Refusal> {
        let refuse = |arg: &str, why: &str| Err((arg.to_owned(), why.to_owned()));
        match self {
            Profile::Launcher => refuse(
                "",
                "this program runs other programs, which this service does not allow",
            ),
            Profile::Env if args.is_empty() => Ok(Checked {
                args: Vec::new(),
                paths: Vec::new(),
            }),
            Profile::Env => refuse(
                "",
                "env with arguments runs another program, which this service does not allow",
            ),
            Profile::Plain { deny, clusters } => plain(args, deny, clusters),
            Profile::Find => find(args),
            Profile::Git => git(args),
            Profile::Sed => sed(args),
            Profile::Awk => awk(args),
            Profile::Tar => tar(args),
        }
    }
}

/// Any option but `deny`; operands and option values may be paths.
fn plain(args: &[String], deny: &[&str], clusters: bool) -> Result<Checked, Refusal> {
    let mut paths = Vec::new();
    let mut operands = false;
    for arg in args {
        if operands || !is_option(arg) {
            paths.push(arg.clone());
            continue;
        }
        if arg == "--" {
            operands = true;
            continue;
        }
        if denied(arg, deny, clusters) {
            return Err((
                arg.clone(),
                "this option runs another program or writes where the caller chooses".into(),
            ));
        }
        if let Some(value) = option_value(arg) {
            paths.push(value.to_owned());
        }
    }
    Ok(Checked {
        args: args.to_vec(),
        paths,
    })
}

const FIND_DENY: &[&str] = &[
    "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
];

fn find(args: &[String]) -> Result<Checked, Refusal> {
    if let Some(bad) = args.iter().find(|a| FIND_DENY.contains(&a.as_str())) {
        return Err((
            bad.clone(),
            "find's actions that run programs, delete or write files are not allowed".into(),
        ));
    }
    // Starting points, then the expression: every word that is not a primary may be a path
    // (`-newer FILE`); a pattern (`-name '*.txt'`) is checked as one and passes.
    let paths = args.iter().filter(|a| !is_option(a)).cloned().collect();
    Ok(Checked {
        args: args.to_vec(),
        paths,
    })
}

const GIT_GLOBAL_DENY: &[&str] = &[
    "-c",
    "-C",
    "--exec-path",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--super-prefix",
    "-p",
    "--paginate",
];

const GIT_READING: &[&str] = &[
    "log",
    "show",
    "status",
    "diff",
    "blame",
    "annotate",
    "grep",
    "ls-files",
    "ls-tree",
    "rev-parse",
    "rev-list",
    "shortlog",
    "describe",
    "cat-file",
    "branch",
    "tag",
    "reflog",
    "show-ref",
    "for-each-ref",
    "count-objects",
    "whatchanged",
    "merge-base",
    "name-rev",
    "version",
];

const GIT_DENY: &[&str] = &[
    "--upload-pack",
    "--receive-pack",
    "--exec",
    "--ext-diff",
    "--textconv",
    "-O",
    "--open-files-in-pager",
];

/// Settings given on git's command line, which win over every configuration file: what a
/// repository's `.git/config` or a `~/.gitconfig` written into the root could make git run.
const GIT_SAFE_CONFIG: &[&str] = &[
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "core.editor=false",
    "sequence.editor=false",
    "core.sshCommand=false",
    "core.askPass=false",
    "diff.external=",
    "gpg.program=false",
    "gpg.ssh.program=false",
    "gpg.x509.program=false",
    "credential.helper=",
    "protocol.allow=never",
];

fn git(args: &[String]) -> Result<Checked, Refusal> {
    let command = args.iter().position(|a| !is_option(a));
    let (global, rest) = args.split_at(command.unwrap_or(args.len()));
    for option in global {
        if denied(option, GIT_GLOBAL_DENY, false) {
            return Err((
                option.clone(),
                "git options that change its configuration or where it works are not allowed"
                    .into(),
            ));
        }
    }
    let mut out: Vec<String> = Vec::with_capacity(args.len() + 2 * GIT_SAFE_CONFIG.len() + 3);
    out.push("--no-pager".into());
    for setting in GIT_SAFE_CONFIG {
        out.push("-c".into());
        out.push((*setting).into());
    }
    out.extend(global.iter().cloned());
    let Some((sub, sub_args)) = rest.split_first() else {
        return Ok(Checked {
            args: out,
            paths: Vec::new(),
        });
    };
    if !GIT_READING.contains(&sub.as_str()) {
        return Err((
            sub.clone(),
            format!(
                "only git's reading commands are allowed ({})",
                GIT_READING.join(", ")
            ),
        ));
    }
    out.push(sub.clone());
    if matches!(sub.as_str(), "diff" | "log" | "show" | "whatchanged") {
        out.push("--no-ext-diff".into());
        out.push("--no-textconv".into());
    }
    let checked = plain(sub_args, GIT_DENY, false)?;
    out.extend(checked.args);
    Ok(Checked {
        args: out,
        paths: checked.paths,
    })
}

fn sed(args: &[String]) -> Result<Checked, Refusal> {
    let checked = plain(args, &["-i", "--in-place"], true).map_err(|(arg, _)| {
        (
            arg,
            "sed may not edit files in place (it writes where the caller chooses)".into(),
        )
    })?;
    let mut out = Vec::with_capacity(args.len() + 1);
    out.push("--sandbox".to_owned());
    out.extend(checked.args);
    Ok(Checked {
        args: out,
        paths: checked.paths,
    })
}

const AWK_DENY: &[&str] = &[
    "-f",
    "--file",
    "-E",
    "--exec",
    "-l",
    "--load",
    "-i",
    "--include",
];

/// Words in an awk program that run commands, read or write files of its choosing, or load
/// code.
const AWK_UNSAFE: &[&str] = &["system", "getline", "|", ">", "@load", "@include"];

fn awk(args: &[String]) -> Result<Checked, Refusal> {
    // No clusters: `-vi=1` assigns `i`, it is not `-v -i`.
    let checked = plain(args, AWK_DENY, false).map_err(|(arg, _)| {
        (
            arg,
            "awk may not read its program from a file or load extensions".into(),
        )
    })?;
    // The program: every `-e`/`--source` value, else the first operand.
    let mut programs = Vec::new();
    let mut operand_seen = false;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if matches!(arg.as_str(), "-e" | "--source") {
            programs.extend(args.get(i).cloned());
            i += 1;
        } else if let Some(text) = arg.strip_prefix("--source=") {
            programs.push(text.to_owned());
        } else if matches!(arg.as_str(), "-v" | "-F" | "--assign" | "--field-separator") {
            i += 1;
        } else if !is_option(arg) && !operand_seen && programs.is_empty() {
            operand_seen = true;
            programs.push(arg.clone());
        }
    }
    for program in &programs {
        if let Some(word) = AWK_UNSAFE.iter().find(|w| program.contains(*w)) {
            return Err((
                program.clone(),
                format!(
                    "awk programs may not use `{word}` (commands, files and pipes of the program's choosing; compare with `<`)"
                ),
            ));
        }
    }
    Ok(checked)
}

const TAR_DENY: &[&str] = &[
    "--to-command",
    "--checkpoint-action",
    "--use-compress-program",
    "-I",
    "--rsh-command",
    "--rmt-command",
    "--info-script",
    "--new-volume-script",
    "-F",
    "--absolute-names",
    "-P",
];

fn tar(args: &[String]) -> Result<Checked, Refusal> {
    // An old-style first word (`xvf`) is a cluster of options without its dash.
    if let Some(first) = args.first()
        && !is_option(first)
        && first.chars().all(|c| c.is_ascii_alphabetic())
        && first.chars().any(|c| matches!(c, 'P' | 'I' | 'F'))
    {
        return Err((
            first.clone(),
            "tar options that run programs or leave the directory are not allowed".into(),
        ));
    }
    plain(args, TAR_DENY, true).map_err(|(arg, _)| {
        (
            arg,
            "tar options that run programs or leave the directory are not allowed".into(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, args: &[&str]) -> Result<Vec<String>, String> {
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        profile_of(name)
            .expect("a profile")
            .check(&args)
            .map(|c| c.args)
            .map_err(|(arg, why)| format!("{arg}: {why}"))
    }

    #[test]
    fn ordinary_uses_pass_and_executing_forms_are_refused() {
        assert!(check("find", &[".", "-name", "*.txt", "-type", "f"]).is_ok());
        for action in FIND_DENY {
            assert!(check("find", &[".", action, "x"]).is_err(), "{action}");
        }
        let log = check("git", &["log", "--oneline", "-1"]).unwrap();
        assert_eq!(log[0], "--no-pager");
        assert!(log.ends_with(&[
            "log".into(),
            "--no-ext-diff".into(),
            "--no-textconv".into(),
            "--oneline".into(),
            "-1".into()
        ]));
        for bad in [
            &["-c", "core.pager=sh", "log"][..],
            &["--exec-path=/tmp", "log"],
            &["-C", "/", "log"],
            &["--git-dir=/x", "log"],
            &["config", "core.fsmonitor", "x"],
            &["clone", "--upload-pack=touch x", "repo"],
            &["log", "--ext-diff"],
            &["grep", "-O", "x"],
            &["fetch"],
        ] {
            assert!(check("git", bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            check("sed", &["-n", "s/a/b/p", "f"]).unwrap(),
            ["--sandbox", "-n", "s/a/b/p", "f"]
        );
        for bad in [
            &["-i", "s/a/b/", "f"][..],
            &["-ni", "p", "f"],
            &["--in-pl", "p"],
        ] {
            assert!(check("sed", bad).is_err(), "{bad:?}");
        }
        assert!(check("awk", &["-F", ",", "{print $1}", "f.csv"]).is_ok());
        assert!(check("awk", &["$1 < 5 { n++ } END { print n }", "f"]).is_ok());
        for bad in [
            &["BEGIN{system(\"id\")}"][..],
            &["{print | \"sh\"}"],
            &["{print > \"/tmp/x\"}"],
            &["-f", "prog.awk"],
            &["-e", "BEGIN{\"id\" | getline}"],
        ] {
            assert!(check("awk", bad).is_err(), "{bad:?}");
        }
        assert!(check("tar", &["-tf", "a.tar"]).is_ok());
        assert!(check("tar", &["tf", "a.tar"]).is_ok());
        for bad in [
            &["-xf", "a.tar", "--to-command=sh"][..],
            &["--to-com=sh", "-xf", "a.tar"],
            &["--checkpoint-action=exec=sh"],
            &["xPf", "a.tar"],
            &["-xPf", "a.tar"],
            &["-I", "sh", "-xf", "a.tar"],
        ] {
            assert!(check("tar", bad).is_err(), "{bad:?}");
        }
        assert!(check("sort", &["-u", "-o", "out.txt", "in.txt"]).is_ok());
        assert!(check("sort", &["--compress-program=sh", "in"]).is_err());
        assert!(check("grep", &["-rn", "--include=*.rs", "TODO", "."]).is_ok());
        for launcher in [
            "xargs",
            "nice",
            "timeout",
            "sudo",
            "sh",
            "python3.12",
            "bash",
        ] {
            assert!(check(launcher, &["id"]).is_err(), "{launcher}");
        }
        assert!(check("env", &[]).is_ok());
        assert!(check("env", &["sh"]).is_err());
        assert!(profile_of("my-tool").is_none());
    }

    #[test]
    fn operands_and_option_values_are_the_path_candidates() {
        let args: Vec<String> = ["-f", "-o/etc/x", "--file=../up", "pattern", "--", "-file"]
            .iter()
            .map(|a| (*a).to_owned())
            .collect();
        let checked = Profile::Plain {
            deny: &[],
            clusters: true,
        }
        .check(&args)
        .ok()
        .unwrap();
        assert_eq!(checked.paths, ["/etc/x", "../up", "pattern", "-file"]);
    }
}
