use super::error::assert_uri_template;
use super::*;

fn template(source: &str) -> UriTemplate {
    UriTemplate::parse(source).unwrap_or_else(|e| panic!("{source}: {e}"))
}

fn vars(pairs: &[(&str, &str)]) -> Variables {
    let mut vars = Variables::new();
    for &(name, value) in pairs {
        vars.insert(name, value);
    }
    vars
}

#[test]
fn conformance_template() {
    let t = template("test://template/{id}/data");
    assert_eq!(
        t.matches("test://template/123/data"),
        Some(vars(&[("id", "123")]))
    );
    assert_eq!(t.matches("test://template/123/other"), None);
    assert_eq!(t.matches("test://template//data"), None);
    assert_eq!(t.matches("test://template/1/2/data"), None);
    assert_eq!(t.matches("test://template/123/data/"), None);
    assert_eq!(
        t.expand(&vars(&[("id", "123")])),
        "test://template/123/data"
    );
}

#[test]
fn simple_variables() {
    let t = template("greeting://{name}");
    assert_eq!(t.matches("greeting://Ada"), Some(vars(&[("name", "Ada")])));
    assert_eq!(
        t.matches("greeting://Ada%20Lovelace"),
        Some(vars(&[("name", "Ada Lovelace")]))
    );
    assert_eq!(
        t.matches("greeting://Jos%C3%A9"),
        Some(vars(&[("name", "José")]))
    );
    assert_eq!(
        t.matches("greeting://José"),
        Some(vars(&[("name", "José")]))
    );
    assert_eq!(t.matches("greeting://"), None);
    assert_eq!(
        t.expand(&vars(&[("name", "Ada Lovelace")])),
        "greeting://Ada%20Lovelace"
    );

    let t = template("users://{id}/profile");
    assert_eq!(t.matches("users://42/profile"), Some(vars(&[("id", "42")])));
    assert_eq!(t.matches("users:///profile"), None);
    assert_eq!(t.matches("users://42/profile?x=1"), None);
}

#[test]
fn a_simple_variable_is_one_segment_even_encoded() {
    let t = template("x://{x}");
    assert_eq!(t.matches("x://a/b"), None);
    assert_eq!(t.matches("x://a%2Fb"), None);
    assert_eq!(t.matches("x://a%2fb"), None);
    assert_eq!(t.matches("x://a?b"), None);
    assert_eq!(t.matches("x://a#b"), None);
    // Other reserved characters are taken as they come.
    assert_eq!(t.matches("x://a:b@c"), Some(vars(&[("x", "a:b@c")])));
    assert_eq!(t.matches("x://a,b"), Some(vars(&[("x", "a,b")])));
    assert_eq!(t.expand(&vars(&[("x", "a/b")])), "x://a%2Fb");
}

#[test]
fn reserved_paths_and_dot_segments() {
    let t = template("file:///{+path}");
    assert_eq!(
        t.matches("file:///a/b/c.txt"),
        Some(vars(&[("path", "a/b/c.txt")]))
    );
    assert_eq!(t.matches("file:///a/../etc/passwd"), None);
    assert_eq!(t.matches("file:///a/%2e%2E/etc/passwd"), None);
    assert_eq!(t.matches("file:///..\\etc"), None);
    assert_eq!(t.matches("file:///a/..%5Cb"), None);
    assert_eq!(t.matches("file:///./a"), None);
    assert_eq!(t.matches("file:///"), None);
    assert_eq!(
        t.matches("file:///a..b/.c/d."),
        Some(vars(&[("path", "a..b/.c/d.")]))
    );
    let lenient = t.clone().allow_dot_segments(true);
    assert_eq!(
        lenient.matches("file:///a/../etc/passwd"),
        Some(vars(&[("path", "a/../etc/passwd")]))
    );
    assert_eq!(t.expand(&vars(&[("path", "a b/c?d")])), "file:///a%20b/c?d");

    let t = template("x://{x}/y");
    assert_eq!(t.matches("x://../y"), None);
    assert_eq!(t.matches("x://%2E/y"), None);
    assert_eq!(
        t.clone().allow_dot_segments(true).matches("x://../y"),
        Some(vars(&[("x", "..")]))
    );
}

#[test]
fn values_must_decode_to_safe_utf8() {
    let t = template("x://{x}");
    assert_eq!(t.matches("x://a%00b"), None);
    assert_eq!(t.matches("x://%FF"), None);
    assert_eq!(t.matches("x://a%2"), None);
    assert_eq!(t.matches("x://a%zz"), None);
    assert_eq!(t.matches("x://a+b"), Some(vars(&[("x", "a+b")])));
    assert_eq!(template("x://{+x}").matches("x://a/%00"), None);
}

#[test]
fn queries_in_any_order_with_optional_parameters() {
    let t = template("search://items{?q,limit}");
    assert_eq!(t.matches("search://items"), Some(Variables::new()));
    assert_eq!(
        t.matches("search://items?q=rust"),
        Some(vars(&[("q", "rust")]))
    );
    assert_eq!(
        t.matches("search://items?limit=10&q=a%20b"),
        Some(vars(&[("q", "a b"), ("limit", "10")]))
    );
    assert_eq!(t.matches("search://items?q="), Some(vars(&[("q", "")])));
    assert_eq!(t.matches("search://items?q"), Some(vars(&[("q", "")])));
    assert_eq!(t.matches("search://items?"), Some(Variables::new()));
    // Unknown and repeated parameters are not dropped silently: no match.
    assert_eq!(t.matches("search://items?q=a&page=2"), None);
    assert_eq!(t.matches("search://items?q=a&q=b"), None);
    assert_eq!(t.matches("search://items?q=a&&limit=1"), None);
    assert_eq!(t.matches("search://items?q=%2e%2e"), None);
    assert_eq!(
        t.matches("search://items?q=a%2Fb"),
        Some(vars(&[("q", "a/b")]))
    );
    assert_eq!(
        t.expand(&vars(&[("q", "a b&c"), ("limit", "10")])),
        "search://items?q=a%20b%26c&limit=10"
    );
    assert_eq!(t.expand(&vars(&[("limit", "")])), "search://items?limit=");
    assert_eq!(t.expand(&Variables::new()), "search://items");
}

#[test]
fn query_continuations_join_the_query() {
    let t = template("s://x{?a}{&b}");
    assert_eq!(
        t.matches("s://x?b=1&a=2"),
        Some(vars(&[("a", "2"), ("b", "1")]))
    );
    // What RFC 6570 writes when `a` is undefined.
    assert_eq!(t.matches("s://x&b=1"), Some(vars(&[("b", "1")])));
    assert_eq!(t.expand(&vars(&[("b", "1")])), "s://x&b=1");

    let t = template("s://x?fixed=1{&a}");
    assert_eq!(t.matches("s://x?fixed=1&a=2"), Some(vars(&[("a", "2")])));
    assert_eq!(t.matches("s://x?fixed=1"), Some(Variables::new()));
}

#[test]
fn exploded_lists() {
    let t = template("repo://x{/segments*}");
    let mut abc = Variables::new();
    abc.insert_list("segments", ["a", "b c", "d"]);
    assert_eq!(t.matches("repo://x/a/b%20c/d"), Some(abc.clone()));
    assert_eq!(t.expand(&abc), "repo://x/a/b%20c/d");
    assert_eq!(t.matches("repo://x"), Some(Variables::new()));
    assert_eq!(t.matches("repo://x/a//d"), None);
    assert_eq!(t.matches("repo://x/a/../d"), None);
    assert_eq!(t.matches("repo://x/a%2Fb"), None);
    let one = t.matches("repo://x/a").expect("matches");
    assert_eq!(one.get_list("segments"), Some(&["a".to_owned()][..]));
    assert_eq!(one.get("segments"), None);

    let t = template("s://x{?tag*,limit}");
    let m = t.matches("s://x?tag=a&limit=5&tag=b").expect("matches");
    assert_eq!(
        m.get_list("tag"),
        Some(&["a".to_owned(), "b".to_owned()][..])
    );
    assert_eq!(m.get("limit"), Some("5"));
    assert_eq!(m.get_list("limit"), Some(&["5".to_owned()][..]));

    let t = template("s://{a,list*}");
    let m = t.matches("s://1,2,3").expect("matches");
    assert_eq!(m.get("a"), Some("1"));
    assert_eq!(
        m.get_list("list"),
        Some(&["2".to_owned(), "3".to_owned()][..])
    );

    let mut list = Variables::new();
    list.insert_list("x", ["a", "b"]);
    assert_eq!(template("s://{x}").expand(&list), "s://a,b");
    assert_eq!(template("s://{.x*}").expand(&list), "s://.a.b");
    assert_eq!(template("s://{?x}").expand(&list), "s://?x=a,b");
    assert_eq!(template("s://{?x*}").expand(&list), "s://?x=a&x=b");
    list.insert_list("x", Vec::<String>::new());
    assert_eq!(template("s://{/x*}").expand(&list), "s://");
}

#[test]
fn several_variables_fill_in_order() {
    let t = template("map://{lat,lng}");
    assert_eq!(
        t.matches("map://1.5,2"),
        Some(vars(&[("lat", "1.5"), ("lng", "2")]))
    );
    assert_eq!(t.matches("map://1.5"), Some(vars(&[("lat", "1.5")])));
    assert_eq!(t.matches("map://1,2,3"), None);
    assert_eq!(t.matches("map://1,"), None);
    assert_eq!(t.expand(&vars(&[("lat", "1"), ("lng", "2")])), "map://1,2");

    let t = template("p://x{/a,b}");
    assert_eq!(
        t.matches("p://x/1/2"),
        Some(vars(&[("a", "1"), ("b", "2")]))
    );
}

#[test]
fn labels_fragments_and_greedy_splits() {
    // A literal between: the earlier expression takes the longest value.
    let t = template("file://{name}.{ext}");
    assert_eq!(
        t.matches("file://a.tar.gz"),
        Some(vars(&[("name", "a.tar"), ("ext", "gz")]))
    );
    // An operator character right after a value ends it.
    let t = template("file://{name}{.ext}");
    assert_eq!(
        t.matches("file://a.tar.gz"),
        Some(vars(&[("name", "a"), ("ext", "tar.gz")]))
    );
    assert_eq!(t.matches("file://a"), Some(vars(&[("name", "a")])));
    assert_eq!(
        t.expand(&vars(&[("name", "a"), ("ext", "gz")])),
        "file://a.gz"
    );

    let t = template("doc://page{#section}");
    assert_eq!(
        t.matches("doc://page#intro/x"),
        Some(vars(&[("section", "intro/x")]))
    );
    assert_eq!(t.matches("doc://page"), Some(Variables::new()));
    assert_eq!(
        t.expand(&vars(&[("section", "a b/c")])),
        "doc://page#a%20b/c"
    );

    let t = template("git://{+path}{?rev}");
    assert_eq!(
        t.matches("git://a/b?rev=1"),
        Some(vars(&[("path", "a/b"), ("rev", "1")]))
    );
    assert_eq!(
        template("git://{+path}").matches("git://a/b?rev=1"),
        Some(vars(&[("path", "a/b?rev=1")]))
    );
    // An absent expression in between: the one after it still ends the value.
    let t = template("git://{+path}{?rev}{#line}");
    assert_eq!(
        t.matches("git://a/b#L1"),
        Some(vars(&[("path", "a/b"), ("line", "L1")]))
    );

    // A list takes what it can; optional expressions after it get the rest.
    let t = template("fs://{/dirs*}/{file}{/rev}");
    let m = t.matches("fs:///a/b/c").expect("matches");
    assert_eq!(
        m.get_list("dirs"),
        Some(&["a".to_owned(), "b".to_owned()][..])
    );
    assert_eq!(m.get("file"), Some("c"));
    assert_eq!(m.get("rev"), None);
}

#[test]
fn literals_match_as_written_or_encoded() {
    let t = template("café://{x}");
    assert!(!t.is_literal());
    assert_eq!(t.matches("café://1"), Some(vars(&[("x", "1")])));
    assert_eq!(t.matches("caf%C3%A9://1"), Some(vars(&[("x", "1")])));
    assert_eq!(t.expand(&vars(&[("x", "1")])), "caf%C3%A9://1");

    let t = template("config://app/settings");
    assert!(t.is_literal());
    assert_eq!(t.matches("config://app/settings"), Some(Variables::new()));
    assert_eq!(t.matches("config://app/settings2"), None);
    assert_eq!(t.matches("CONFIG://app/settings"), None);
    assert_eq!(t.expand(&Variables::new()), "config://app/settings");
}

#[test]
fn repeated_variables_are_refused() {
    // They used to be read in each place and required to agree; fuzzing found repeats
    // whose matches do not expand back to the URI, so a variable is named once.
    let e = UriTemplate::parse("x://{a}/{b}/{a}{?c,a}").unwrap_err();
    assert_eq!(e, UriTemplateError::RepeatedVariable { offset: 12 });
}

#[test]
fn accessors_and_conversions() {
    let t: UriTemplate = "x://{a}".parse().expect("parses");
    assert_eq!(t.as_str(), "x://{a}");
    assert_eq!(t.to_string(), "x://{a}");
    assert_eq!(t, template("x://{a}"));
    assert_ne!(t, template("x://{a}").allow_dot_segments(true));

    let mut v = Variables::new();
    v.insert("a", "1");
    v.insert_list("b", ["x", "y"]);
    assert_eq!(v.len(), 2);
    assert!(!v.is_empty());
    assert_eq!(v.get_value("a"), Some(&VarValue::String("1".into())));
    assert_eq!(
        v.iter().map(|(name, _)| name).collect::<Vec<_>>(),
        ["a", "b"]
    );
    assert_eq!(
        serde_json::Value::Object(v.to_json()),
        serde_json::json!({"a": "1", "b": ["x", "y"]})
    );
}

#[test]
fn overlong_uris_match_nothing() {
    let t = template("x://{+x}");
    let long = format!("x://{}", "a".repeat(MAX_MATCHED_URI_LEN));
    assert_eq!(t.matches(&long), None);
    let fits = format!("x://{}", "a".repeat(MAX_MATCHED_URI_LEN - 4));
    assert!(t.matches(&fits).is_some());
}

#[test]
fn parse_errors_say_what_and_where() {
    let cases: &[(&str, UriTemplateError, &str)] = &[
        (
            "x://{id",
            UriTemplateError::Unclosed { offset: 4 },
            "unclosed `{` at byte 4: an expression ends with `}` before any other `{`",
        ),
        (
            "x://{a{b}",
            UriTemplateError::Unclosed { offset: 4 },
            "unclosed `{` at byte 4: an expression ends with `}` before any other `{`",
        ),
        (
            "x://a}",
            UriTemplateError::UnmatchedClose { offset: 5 },
            "`}` at byte 5 closes no expression",
        ),
        (
            "x://{;a}",
            UriTemplateError::UnsupportedOperator {
                offset: 5,
                operator: ';',
            },
            "operator `;` (path-style parameters) at byte 5 is not supported; use `{/x}` or `{?x}`",
        ),
        (
            "x://{!a}",
            UriTemplateError::UnsupportedOperator {
                offset: 5,
                operator: '!',
            },
            "operator `!` at byte 5 is reserved by RFC 6570 and has no meaning yet",
        ),
        (
            "x://{}",
            UriTemplateError::EmptyVariableName { offset: 5 },
            "empty variable name at byte 5",
        ),
        (
            "x://{a,}",
            UriTemplateError::EmptyVariableName { offset: 7 },
            "empty variable name at byte 7",
        ),
        (
            "x://{+}",
            UriTemplateError::EmptyVariableName { offset: 6 },
            "empty variable name at byte 6",
        ),
        (
            "x://{a b}",
            UriTemplateError::InvalidVariableName {
                offset: 6,
                character: ' ',
            },
            "' ' at byte 6 cannot be part of a variable name (ASCII letters, digits, `_`, %-escapes, and `.` between them)",
        ),
        (
            "x://{a.}",
            UriTemplateError::InvalidVariableName {
                offset: 6,
                character: '.',
            },
            "'.' at byte 6 cannot be part of a variable name (ASCII letters, digits, `_`, %-escapes, and `.` between them)",
        ),
        (
            "x://{é}",
            UriTemplateError::InvalidVariableName {
                offset: 5,
                character: 'é',
            },
            "'é' at byte 5 cannot be part of a variable name (ASCII letters, digits, `_`, %-escapes, and `.` between them)",
        ),
        (
            "x://{a:3}",
            UriTemplateError::PrefixModifier { offset: 6 },
            "prefix modifier at byte 6 is not supported: a URI carrying only a prefix of a value cannot be matched back to that value",
        ),
        (
            "x://{a*,b}",
            UriTemplateError::ExplodeNotLast { offset: 6 },
            "`*` at byte 6 makes a list of a variable that is not the last of its expression: nothing would mark where the list ends (only `{?…}` and `{&…}` can do that)",
        ),
        (
            "x://{a}{b}",
            UriTemplateError::AdjacentExpressions { offset: 7 },
            "the expression at byte 7 directly follows another one, and nothing would mark where that one's value ends: put a literal between them (`{a}/{b}`), or start the second with an operator the first cannot contain (`{a}{/b}`)",
        ),
        (
            "x://{/a}{+b}",
            UriTemplateError::AdjacentExpressions { offset: 8 },
            "",
        ),
        (
            "x://{/a*}{/b}",
            UriTemplateError::AdjacentExpressions { offset: 9 },
            "",
        ),
        (
            "x://{.a,b}{.c}",
            UriTemplateError::AdjacentExpressions { offset: 10 },
            "",
        ),
        (
            "x://{/a*}{?q}{/b}",
            UriTemplateError::AdjacentExpressions { offset: 13 },
            "",
        ),
        (
            "x://a b",
            UriTemplateError::InvalidLiteral {
                offset: 5,
                character: ' ',
            },
            "' ' at byte 5 is not allowed in a URI template; percent-encode it",
        ),
        (
            "x://%zz",
            UriTemplateError::InvalidPercentEncoding { offset: 4 },
            "`%` at byte 4 is not followed by two hex digits",
        ),
        (
            "x://{a%z}",
            UriTemplateError::InvalidPercentEncoding { offset: 6 },
            "",
        ),
    ];
    for (source, error, message) in cases {
        let got = UriTemplate::parse(source).expect_err(source);
        assert_eq!(&got, error, "{source}");
        assert_eq!(got.offset(), error.offset());
        if !message.is_empty() {
            assert_eq!(got.to_string(), *message, "{source}");
        }
    }
}

/// The rules run in a `const` (what `#[mcp_resource]` relies on), and the compile-time
/// check refuses each kind of mistake with a sentence about it.
#[test]
fn the_rules_run_at_compile_time() {
    const ACCEPTED: () = assert_uri_template("users://{id}/profile{?fields,sort}");
    const REFUSED: Result<(), UriTemplateError> = validate("x://{a}{b}");
    let () = ACCEPTED;
    assert_eq!(
        REFUSED,
        Err(UriTemplateError::AdjacentExpressions { offset: 7 })
    );
    let cases = [
        ("x://{id", "is not closed"),
        ("x://a}", "closes no expression"),
        ("x://{;a}", "path-style parameters"),
        ("x://{!a}", "reserved by RFC 6570"),
        ("x://{}", "empty variable name"),
        ("x://{a b}", "a variable name is made of"),
        ("x://{a:3}", "prefix modifier"),
        ("x://{a*,b}", "not the last of its expression"),
        ("x://{a}{b}", "directly follows another one"),
        ("x://a b", "percent-encode it"),
        ("x://%zz", "two hex digits"),
    ];
    for (source, expected) in cases {
        assert!(validate(source).is_err(), "{source}");
        let panic = std::panic::catch_unwind(|| assert_uri_template(source)).expect_err(source);
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        assert!(
            message.starts_with("invalid URI template: ") && message.contains(expected),
            "{source}: {message}"
        );
    }
}

#[test]
fn accepted_shapes() {
    for source in [
        "x://{a}{/b}",
        "x://{a}{.b}",
        "x://{a}{?b}",
        "x://{a}{#b}",
        "x://{/a}{/b}",
        "x://{/a*}{?b}",
        "x://{+path}{?q}{#f}",
        "x://{?a}{&b}{&c*}",
        "x://{?a*,b*}",
        "x://{a.b_c%20}",
        "x://%41/{x}",
        "{x}",
        "",
    ] {
        UriTemplate::parse(source).unwrap_or_else(|e| panic!("{source}: {e}"));
    }
}

/// Found by fuzzing: templates naming a variable again matched URIs their own expansions
/// did not (`{?q,q}`; `{?id*}{#id}`, a list in one place and a string in the other;
/// `{a}{&a}{&a}`, where one expression swallows the next's text); so did a query followed
/// by a path (`{&a}/{+path}`).
#[test]
fn a_variable_named_twice_or_a_query_before_a_path_is_refused() {
    for (template, offset) in [
        ("x{?q,q,r}", 1),
        ("{?id*}{#id}{#ifr}", 6),
        ("{a}{&a}{&a}", 3),
        ("x/{id}/y{?id}", 8),
        ("{xq,q,nOq,rq,npxq,nOq,rq,nOr}", 0),
        ("{#rg}{#rg}", 5),
    ] {
        let e = UriTemplate::parse(template).unwrap_err();
        assert_eq!(
            e,
            UriTemplateError::RepeatedVariable { offset },
            "{template}"
        );
    }
    let e = UriTemplate::parse("{a}{&b}/{+path}").unwrap_err();
    assert_eq!(e, UriTemplateError::QueryNotLast { offset: 3 });
    for fine in ["x/{q}{?r}{&s}", "x{?a}#frag", "x{?a}{#f}", "x/{+path}{?q}"] {
        assert!(UriTemplate::parse(fine).is_ok(), "{fine}");
    }
}
