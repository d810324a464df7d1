use guardrails::{IssueCode, ToolArgs, ToolEnum};
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Debug, Deserialize, ToolEnum, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Role {
    Admin,
    Moderator,
    User,
    Guest,
}

/// Create a new user.
#[derive(Debug, Deserialize, ToolArgs)]
struct CreateUser {
    /// Login name.
    #[guard(length(min = 3, max = 20), pattern = "^[a-zA-Z0-9_]+$")]
    username: String,
    /// Contact address.
    #[guard(format = "email")]
    email: String,
    #[guard(range(min = 18, max = 120))]
    age: u8,
    role: Role,
    #[guard(length(min = 1, max = 5), unique)]
    tags: Option<Vec<String>>,
}

fn obj(v: Value) -> serde_json::Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => panic!("not an object"),
    }
}

#[test]
fn valid_call_builds_the_struct() {
    let args = CreateUser::validate(obj(json!({
        "username": "john_doe", "email": "j@example.com", "age": 30, "role": "admin", "tags": ["a", "b"]
    })))
    .expect("valid");
    assert_eq!(args.username, "john_doe");
    assert_eq!(args.role, Role::Admin);
    assert_eq!(
        args.tags.as_deref(),
        Some(&["a".to_owned(), "b".to_owned()][..])
    );
}

#[test]
fn every_issue_in_one_pass() {
    let report = CreateUser::validate(obj(json!({
        "username": "ab", "age": "fifteen", "role": "superadmin", "usrname": "x", "tags": ["a", "a"]
    })))
    .unwrap_err();
    let codes: Vec<(String, IssueCode)> = report
        .issues()
        .iter()
        .map(|i| (i.path.clone(), i.code))
        .collect();
    println!("{report:#?}");
    assert!(
        codes.contains(&("username".into(), IssueCode::TooShort)),
        "{codes:?}"
    );
    assert!(
        codes.contains(&("email".into(), IssueCode::Missing)),
        "{codes:?}"
    );
    assert!(
        codes.contains(&("age".into(), IssueCode::Type)),
        "{codes:?}"
    );
    assert!(
        codes.contains(&("role".into(), IssueCode::Enum)),
        "{codes:?}"
    );
    assert!(
        codes.contains(&("usrname".into(), IssueCode::UnknownField)),
        "{codes:?}"
    );
    assert!(
        codes.contains(&("tags".into(), IssueCode::NotUnique)),
        "{codes:?}"
    );
    let unknown = report.at("usrname").unwrap();
    assert!(
        unknown.message.contains("\"username\""),
        "{}",
        unknown.message
    );
    let out = guardrails::render::render_report(
        "create_user",
        &report,
        CreateUser::info(),
        CreateUser::example(),
        &Default::default(),
    );
    println!("{out}");
    println!(
        "{}",
        serde_json::to_string_pretty(CreateUser::schema()).unwrap()
    );
    assert_eq!(Role::VARIANTS, ["admin", "moderator", "user", "guest"]);
}
