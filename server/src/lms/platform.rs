//! The platform (the LMS) as the tool calls it, over HTTP(S), blocking (callers run it on a
//! blocking thread): its key set (cached; fetched again for a `kid` it lacks, at most once
//! a second), an access token by the client-credentials grant with a JWT client assertion
//! (cached until shortly before it expires), line items, scores and memberships.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::DecodingKey;
use serde_json::{json, Value};

use super::keys::ToolKey;
use crate::course::Lti;

pub(crate) const SCOPE_SCORE: &str = "https://purl.imsglobal.org/spec/lti-ags/scope/score";
pub(crate) const SCOPE_LINEITEM: &str = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem";
pub(crate) const SCOPE_MEMBERS: &str =
    "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly";

/// How soon the key set may be fetched again for an unknown `kid`.
const REFETCH_AFTER: Duration = Duration::from_secs(1);
/// Pages of a membership list read at most.
const PAGES: usize = 200;

pub(crate) struct Platform {
    pub(crate) config: Lti,
    pub(crate) key: ToolKey,
    agent: ureq::Agent,
    jwks: Mutex<Option<(JwkSet, Instant)>>,
    tokens: Mutex<Vec<(String, String, Instant)>>,
}

/// One member of the context, as NRPS lists them.
#[derive(Debug, Clone)]
pub(crate) struct Member {
    pub(crate) user_id: String,
    pub(crate) name: String,
    pub(crate) email: String,
    pub(crate) roles: Vec<String>,
    pub(crate) active: bool,
}

impl Platform {
    pub(crate) fn new(config: Lti, key: ToolKey) -> Platform {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(15)))
            .build()
            .into();
        Platform {
            config,
            key,
            agent,
            jwks: Mutex::new(None),
            tokens: Mutex::new(Vec::new()),
        }
    }

    fn fetch_jwks(&self) -> Result<JwkSet, String> {
        let url = &self.config.jwks_url;
        let mut response = self
            .agent
            .get(url)
            .call()
            .map_err(|err| format!("the platform's key set ({url}): {err}"))?;
        if !response.status().is_success() {
            return Err(format!(
                "the platform's key set ({url}): HTTP {}",
                response.status()
            ));
        }
        response
            .body_mut()
            .read_json::<JwkSet>()
            .map_err(|err| format!("the platform's key set ({url}): {err}"))
    }

    /// The platform's key `kid`: from the cached set, else from the set fetched again.
    pub(crate) fn decoding_key(&self, kid: &str) -> Result<DecodingKey, String> {
        let mut cached = self.jwks.lock().unwrap_or_else(|p| p.into_inner());
        let found = |set: &JwkSet| set.find(kid).map(DecodingKey::from_jwk);
        if let Some((set, fetched)) = cached.as_ref() {
            if let Some(key) = found(set) {
                return key.map_err(|err| format!("the platform's key `{kid}`: {err}"));
            }
            if fetched.elapsed() < REFETCH_AFTER {
                return Err(format!("the platform's key set has no key `{kid}`"));
            }
        }
        let set = self.fetch_jwks()?;
        let key = found(&set);
        *cached = Some((set, Instant::now()));
        match key {
            Some(key) => key.map_err(|err| format!("the platform's key `{kid}`: {err}")),
            None => Err(format!("the platform's key set has no key `{kid}`")),
        }
    }

    /// An access token for `scope`, by the client-credentials grant with a client assertion
    /// signed by the tool's key (IMS Security Framework §4.1).
    pub(crate) fn access_token(&self, scope: &str) -> Result<String, String> {
        {
            let tokens = self.tokens.lock().unwrap_or_else(|p| p.into_inner());
            if let Some((_, token, _)) = tokens
                .iter()
                .find(|(s, _, until)| s == scope && Instant::now() < *until)
            {
                return Ok(token.clone());
            }
        }
        let now = chrono::Utc::now().timestamp();
        let (jti, _) = crate::auth::new_token();
        let assertion = self.key.sign(&json!({
            "iss": self.config.client_id,
            "sub": self.config.client_id,
            "aud": self.config.token_url,
            "iat": now,
            "exp": now + 300,
            "jti": jti,
        }))?;
        let url = &self.config.token_url;
        let form = [
            ("grant_type", "client_credentials"),
            (
                "client_assertion_type",
                "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            ),
            ("client_assertion", assertion.as_str()),
            ("scope", scope),
        ];
        let mut response = self
            .agent
            .post(url)
            .send_form(form)
            .map_err(|err| format!("the platform's token endpoint ({url}): {err}"))?;
        let status = response.status();
        let body: Value = response.body_mut().read_json().unwrap_or(Value::Null);
        let token = body["access_token"]
            .as_str()
            .filter(|_| status.is_success());
        let Some(token) = token else {
            return Err(format!(
                "the platform's token endpoint ({url}) refused: HTTP {status} {body}"
            ));
        };
        let lifetime = body["expires_in"].as_u64().unwrap_or(3600).max(60);
        let until = Instant::now() + Duration::from_secs(lifetime - 30);
        let mut tokens = self.tokens.lock().unwrap_or_else(|p| p.into_inner());
        tokens.retain(|(s, _, _)| s != scope);
        tokens.push((scope.to_string(), token.to_string(), until));
        Ok(token.to_string())
    }

    fn authorized(
        &self,
        request: ureq::RequestBuilder<ureq::typestate::WithoutBody>,
        scope: &str,
    ) -> Result<ureq::RequestBuilder<ureq::typestate::WithoutBody>, String> {
        Ok(request.header(
            "Authorization",
            format!("Bearer {}", self.access_token(scope)?),
        ))
    }

    /// Posts `score` to line item `lineitem` (its `/scores`).
    pub(crate) fn post_score(&self, lineitem: &str, score: &Value) -> Result<(), String> {
        let url = sub_resource(lineitem, "scores");
        let token = self.access_token(SCOPE_SCORE)?;
        let response = self
            .agent
            .post(&url)
            .header("Authorization", format!("Bearer {token}"))
            .header("Content-Type", "application/vnd.ims.lis.v1.score+json")
            .send(score.to_string())
            .map_err(|err| format!("{url}: {err}"))?;
        match response.status().as_u16() {
            200..=299 => Ok(()),
            status => Err(format!("{url}: HTTP {status}")),
        }
    }

    /// The line item of `assignment` under `lineitems`: the one whose `resourceId` names it,
    /// else one made now (`scoreMaximum` as given).
    pub(crate) fn lineitem_for(
        &self,
        lineitems: &str,
        assignment: &str,
        label: &str,
        maximum: f64,
    ) -> Result<String, String> {
        let query = format!("resource_id={assignment}");
        let url = match lineitems.contains('?') {
            true => format!("{lineitems}&{query}"),
            false => format!("{lineitems}?{query}"),
        };
        let mut response = self
            .authorized(self.agent.get(&url), SCOPE_LINEITEM)?
            .header(
                "Accept",
                "application/vnd.ims.lis.v2.lineitemcontainer+json",
            )
            .call()
            .map_err(|err| format!("{url}: {err}"))?;
        if response.status().is_success() {
            let found: Value = response.body_mut().read_json().unwrap_or(Value::Null);
            let items = found.as_array().cloned().unwrap_or_default();
            let ours = items
                .iter()
                .find(|item| item["resourceId"] == assignment)
                .and_then(|item| item["id"].as_str());
            if let Some(id) = ours {
                return Ok(id.to_string());
            }
        }
        let token = self.access_token(SCOPE_LINEITEM)?;
        let item = json!({
            "label": label, "scoreMaximum": maximum, "resourceId": assignment,
            "tag": "gridjudge",
        });
        let mut response = self
            .agent
            .post(lineitems)
            .header("Authorization", format!("Bearer {token}"))
            .header("Content-Type", "application/vnd.ims.lis.v2.lineitem+json")
            .send(item.to_string())
            .map_err(|err| format!("{lineitems}: {err}"))?;
        let status = response.status();
        let made: Value = response.body_mut().read_json().unwrap_or(Value::Null);
        match made["id"].as_str().filter(|_| status.is_success()) {
            Some(id) => Ok(id.to_string()),
            None => Err(format!("{lineitems}: no line item made: HTTP {status}")),
        }
    }

    /// Every member of the context at `url`, page after page (the `Link: rel="next"` header,
    /// or a `next` the body names).
    pub(crate) fn members(&self, url: &str) -> Result<Vec<Member>, String> {
        let mut members = Vec::new();
        let mut next = Some(url.to_string());
        let mut pages = 0;
        while let Some(url) = next.take() {
            pages += 1;
            if pages > PAGES {
                return Err(format!("{url}: more than {PAGES} pages of members"));
            }
            let mut response = self
                .authorized(self.agent.get(&url), SCOPE_MEMBERS)?
                .header(
                    "Accept",
                    "application/vnd.ims.lti-nrps.v2.membershipcontainer+json",
                )
                .call()
                .map_err(|err| format!("{url}: {err}"))?;
            if !response.status().is_success() {
                return Err(format!("{url}: HTTP {}", response.status()));
            }
            let link = response
                .headers()
                .get_all("link")
                .iter()
                .filter_map(|value| value.to_str().ok())
                .find_map(next_link);
            let body: Value = response
                .body_mut()
                .read_json()
                .map_err(|err| format!("{url}: {err}"))?;
            for member in body["members"].as_array().into_iter().flatten() {
                let text = |key: &str| member[key].as_str().unwrap_or_default().to_string();
                members.push(Member {
                    user_id: text("user_id"),
                    name: text("name"),
                    email: text("email"),
                    roles: member["roles"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|r| r.as_str().map(str::to_string))
                        .collect(),
                    active: member["status"].as_str().is_none_or(|s| s == "Active"),
                });
            }
            next = link.or_else(|| body["next"].as_str().map(str::to_string));
        }
        Ok(members)
    }
}

/// `{url}/{name}`, with `url`'s query kept after it.
pub(crate) fn sub_resource(url: &str, name: &str) -> String {
    match url.split_once('?') {
        Some((path, query)) => format!("{}/{name}?{query}", path.trim_end_matches('/')),
        None => format!("{}/{name}", url.trim_end_matches('/')),
    }
}

/// The `rel="next"` address of a `Link` header.
fn next_link(header: &str) -> Option<String> {
    header.split(',').find_map(|part| {
        let (target, params) = part.split_once(';')?;
        let next = params
            .split(';')
            .any(|p| p.trim().replace(' ', "") == "rel=\"next\"" || p.trim() == "rel=next");
        next.then(|| {
            target
                .trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .to_string()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_go_under_the_line_item_with_its_query_kept() {
        assert_eq!(
            sub_resource("https://lms/a/lineitems/7", "scores"),
            "https://lms/a/lineitems/7/scores"
        );
        assert_eq!(
            sub_resource("https://lms/a/lineitems/7/?type_id=3", "scores"),
            "https://lms/a/lineitems/7/scores?type_id=3"
        );
    }

    #[test]
    fn the_next_page_is_read_off_the_link_header() {
        let header = "<https://lms/m?page=1>; rel=\"prev\", <https://lms/m?page=3>; rel=\"next\"";
        assert_eq!(next_link(header).as_deref(), Some("https://lms/m?page=3"));
        assert_eq!(next_link("<https://lms/m?page=1>; rel=\"prev\""), None);
    }
}
