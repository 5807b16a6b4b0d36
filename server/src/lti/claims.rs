//! An id_token checked as the IMS Security Framework (§5.1.3) and LTI 1.3 Core (§5.3) say:
//! its RS256 signature by a key of the platform's set, `iss`, `aud` and `azp`, `exp` and
//! `iat` (a minute's leeway), the nonce its login flow issued, the deployment, the message
//! type and the version; then who launched (`sub`, name, email, role) and what for (the
//! custom `assignment`, else an `assignment` in the link's address; the grade service's line
//! items, the roster service).

use jsonwebtoken::{Algorithm, Validation};
use serde_json::Value;

use crate::db::lti::Link;
use crate::lms::Platform;

const LTI: &str = "https://purl.imsglobal.org/spec/lti/claim/";
const AGS: &str = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint";
const NRPS: &str = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice";
/// Seconds of clock difference allowed between the platform and the tool.
pub(crate) const LEEWAY: i64 = 60;

/// What the course makes of a launch's LIS roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Student,
    /// An Instructor, a TeachingAssistant or an Administrator: the instructor's pages.
    Instructor,
}

/// A launch that passed every check.
#[derive(Debug, Clone)]
pub(crate) struct Launch {
    pub(crate) sub: String,
    pub(crate) name: String,
    pub(crate) email: String,
    pub(crate) role: Role,
    /// The custom claim `assignment`, as the LMS link sets it.
    pub(crate) assignment: Option<String>,
    pub(crate) link: Link,
}

/// The role of LIS `roles`: an instructor's role wins over a learner's; none of them is none.
pub(crate) fn role_of(roles: &[String]) -> Option<Role> {
    let name = |role: &String| {
        // `…/membership#Instructor`, `…/membership/Instructor#TeachingAssistant`,
        // `…/institution/person#Administrator`, or a bare `Instructor`.
        let (scope, name) = match role.rsplit_once('#') {
            Some((scope, name)) => (scope.to_string(), name.to_string()),
            None => (String::new(), role.clone()),
        };
        (scope, name)
    };
    let mut found = None;
    for (scope, role) in roles.iter().map(name) {
        let context = scope.is_empty() || scope.contains("/membership");
        let administrator = role == "Administrator"
            && (context
                || scope.contains("/institution/person")
                || scope.contains("/system/person"));
        if administrator
            || (context && ["Instructor", "TeachingAssistant"].contains(&role.as_str()))
        {
            return Some(Role::Instructor);
        }
        if context && role == "Learner" {
            found = Some(Role::Student);
        }
    }
    found
}

/// Checks `id_token` against `platform` and the `nonce` its flow issued; a launch, or why not.
pub(crate) fn verify(platform: &Platform, id_token: &str, nonce: &str) -> Result<Launch, String> {
    let config = &platform.config;
    let header = jsonwebtoken::decode_header(id_token)
        .map_err(|err| format!("the id_token is no JWT: {err}"))?;
    if header.alg != Algorithm::RS256 {
        return Err(format!(
            "the id_token is signed by {:?}, not RS256",
            header.alg
        ));
    }
    let kid = header
        .kid
        .ok_or("the id_token's header names no key (`kid`)")?;
    let key = platform.decoding_key(&kid)?;
    let mut validation = Validation::new(Algorithm::RS256);
    validation.set_issuer(&[&config.issuer]);
    validation.set_audience(&[&config.client_id]);
    validation.set_required_spec_claims(&["exp", "iat", "iss", "aud", "sub"]);
    validation.leeway = LEEWAY as u64;
    let claims = jsonwebtoken::decode::<Value>(id_token, &key, &validation)
        .map_err(|err| format!("the id_token is refused: {err}"))?
        .claims;
    checked(config, &claims, nonce)?;
    launch_of(&claims)
}

/// The checks of a signed id_token's claims that jsonwebtoken does not make: `azp`, `iat`,
/// the nonce, the deployment, the message type, the version, the resource link.
fn checked(config: &crate::course::Lti, claims: &Value, nonce: &str) -> Result<(), String> {
    let text = |key: &str| claims[key].as_str().unwrap_or_default().to_string();
    // `azp`: where the token has several audiences, it must name this tool; where it is
    // present at all, it must be this tool.
    let audiences = claims["aud"].as_array().map_or(1, Vec::len);
    match claims.get("azp").and_then(Value::as_str) {
        Some(azp) if azp != config.client_id => {
            return Err(format!("the id_token is for another party (azp `{azp}`)"))
        }
        None if audiences > 1 => return Err("the id_token has several audiences and no azp".into()),
        _ => {}
    }
    let now = chrono::Utc::now().timestamp();
    if claims["iat"].as_i64().is_none_or(|iat| iat > now + LEEWAY) {
        return Err("the id_token was issued in the future (`iat`)".into());
    }
    if !crate::auth::same(&text("nonce"), nonce) {
        return Err("the id_token's nonce is not the one this sign-in issued".into());
    }
    let deployment = claims[format!("{LTI}deployment_id")]
        .as_str()
        .unwrap_or_default();
    if !config.deployment_ids.iter().any(|d| d == deployment) {
        return Err(format!(
            "the deployment `{deployment}` is not one of this course's (course.toml [lti] deployment_id)"
        ));
    }
    let message_type = claims[format!("{LTI}message_type")]
        .as_str()
        .unwrap_or_default();
    if message_type != "LtiResourceLinkRequest" {
        return Err(format!(
            "the message is `{message_type}`; this tool takes LtiResourceLinkRequest launches"
        ));
    }
    let version = claims[format!("{LTI}version")].as_str().unwrap_or_default();
    if version != "1.3.0" {
        return Err(format!("the LTI version is `{version}`, not 1.3.0"));
    }
    if claims[format!("{LTI}resource_link")]["id"]
        .as_str()
        .is_none()
    {
        return Err("the launch names no resource link".into());
    }
    Ok(())
}

/// Who launched and what for, from checked claims.
fn launch_of(claims: &Value) -> Result<Launch, String> {
    let text = |key: &str| claims[key].as_str().unwrap_or_default().to_string();
    let sub = text("sub");
    if sub.is_empty() || sub.len() > 255 {
        return Err("the launch names no user (`sub`)".into());
    }
    let roles: Vec<String> = claims[format!("{LTI}roles")]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r.as_str().map(str::to_string))
        .collect();
    let role = role_of(&roles).ok_or_else(|| {
        format!(
            "the launch's roles ({}) are none this course knows: Learner, Instructor, \
             TeachingAssistant, Administrator",
            roles.join(", ")
        )
    })?;
    let given = [text("given_name"), text("family_name")].join(" ");
    let name = [text("name"), given.trim().to_string(), sub.clone()]
        .into_iter()
        .find(|n| !n.trim().is_empty())
        .unwrap_or_default();
    let ags = &claims[AGS];
    let url = |value: &Value| value.as_str().map(str::to_string);
    Ok(Launch {
        email: text("email"),
        name,
        role,
        assignment: claims[format!("{LTI}custom")]["assignment"]
            .as_str()
            .map(str::to_string)
            .or_else(|| assignment_in(claims[format!("{LTI}target_link_uri")].as_str()?)),
        link: Link {
            lineitem: url(&ags["lineitem"]),
            lineitems: url(&ags["lineitems"]),
            memberships: url(&claims[NRPS]["context_memberships_url"]),
        },
        sub,
    })
}

/// The `assignment` of a link's address (`https://grader.example.edu/lti/launch?assignment=go`),
/// for an LMS whose links carry no custom parameters of their own.
fn assignment_in(target_link_uri: &str) -> Option<String> {
    let (_, query) = target_link_uri.split_once('?')?;
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query).ok()?;
    pairs
        .into_iter()
        .find(|(key, _)| key == "assignment")
        .map(|(_, value)| value)
}

/// The course's id for the LMS user `sub`: `sub` itself where it is a good id, else one made
/// from its hash (`lms-` and 16 hex digits).
pub(crate) fn student_id(sub: &str) -> String {
    let good = !sub.is_empty()
        && sub.len() <= 64
        && !sub.starts_with('.')
        && sub
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.@".contains(c));
    match good {
        true => sub.to_string(),
        false => format!("lms-{}", &crate::auth::hash(sub)[..16]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roles(list: &[&str]) -> Vec<String> {
        list.iter().map(|r| r.to_string()).collect()
    }

    #[test]
    fn lis_roles_map_to_the_course_s() {
        let lis = "http://purl.imsglobal.org/vocab/lis/v2/";
        let learner = format!("{lis}membership#Learner");
        let instructor = format!("{lis}membership#Instructor");
        let ta = format!("{lis}membership/Instructor#TeachingAssistant");
        let admin = format!("{lis}institution/person#Administrator");
        let faculty = format!("{lis}institution/person#Instructor");
        assert_eq!(role_of(&roles(&[&learner])), Some(Role::Student));
        assert_eq!(role_of(&roles(&[&instructor])), Some(Role::Instructor));
        assert_eq!(role_of(&roles(&[&ta])), Some(Role::Instructor));
        assert_eq!(role_of(&roles(&[&admin, &learner])), Some(Role::Instructor));
        assert_eq!(role_of(&roles(&["Learner"])), Some(Role::Student));
        // Faculty of the institution, but only a learner of this course.
        assert_eq!(role_of(&roles(&[&faculty, &learner])), Some(Role::Student));
        assert_eq!(role_of(&roles(&[&faculty])), None);
        assert_eq!(role_of(&[]), None);
    }

    #[test]
    fn a_link_s_address_may_name_the_assignment() {
        let uri = "https://grader.example.edu/lti/launch?x=1&assignment=go%2D2";
        assert_eq!(assignment_in(uri).as_deref(), Some("go-2"));
        assert_eq!(assignment_in("https://grader.example.edu/lti/launch"), None);
    }

    #[test]
    fn an_lms_id_is_the_student_id_where_it_can_be() {
        assert_eq!(student_id("a7-b_c.d@x"), "a7-b_c.d@x");
        let made = student_id("https://lms.example/users/7");
        assert!(made.starts_with("lms-") && made.len() == 20, "{made}");
        assert_eq!(made, student_id("https://lms.example/users/7"));
    }
}
