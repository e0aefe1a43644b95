//! Which names hold secrets, by their words: a name (a header, a query parameter, an option, a
//! field of a tool's arguments or of a server's answer) is split into words (snake_case,
//! camelCase, kebab-case, dots) and is a secret when those words name a credential. A substring
//! test cannot tell `author` from `auth` or `max_tokens` from `token`; words can. The
//! credential ends the name: `token_count`, `secret_type` or `closeCookieModals` only talk about
//! one.

/// Where a name is read. OAuth's own messages (the sign-in's bodies and forms, its redirect URLs)
/// carry the authorization code and the PKCE verifier, which are secrets there; anywhere else
/// `code` is a plain word (an error's code, a zip code, a snippet of code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Anywhere,
    OAuth,
}

/// Words that name a credential on their own (`password`, `x-auth-token`, `Set-Cookie`), with
/// the run-together spellings of a few pairs (`apikey`, `accesstoken`).
const CREDENTIAL_WORDS: &[&str] = &[
    // `auth` ends a name only as credentials do: `auth` (a user and password), `basic_auth`.
    "auth",
    "password",
    "passwords",
    "passwd",
    "passphrase",
    "secret",
    "secrets",
    "token",
    "bearer",
    "authorization",
    "cookie",
    "cookies",
    "credential",
    "credentials",
    "apikey",
    "apitoken",
    "accesstoken",
    "refreshtoken",
    "authtoken",
    "idtoken",
    "sessiontoken",
    "clientsecret",
    "privatekey",
    "secretkey",
];

/// Words that make the `key` after them a credential (`api_key`, `private_key`, `signing_key`);
/// a key of any other kind is a name (`key_name`, `primary_key`, `sort_key`).
const KEY_KINDS: &[&str] = &["api", "private", "secret", "access", "signing", "encryption", "master", "auth"];

/// Words that make the `token` after them no credential: MCP's progress token, paging cursors
/// (`page_token`, `NextToken`), and a model's vocabulary (`stop_token`, `eos_token`).
const NOT_CREDENTIAL_TOKENS: &[&str] = &[
    "progress",
    "page",
    "next",
    "pagination",
    "continuation",
    "cursor",
    "resume",
    "sync",
    "cancellation",
    "max",
    "min",
    "stop",
    "start",
    "end",
    "bos",
    "eos",
    "pad",
    "unk",
    "sep",
    "cls",
    "mask",
    "special",
    "input",
    "output",
    "prompt",
    "completion",
    "num",
    "total",
];

/// Words after a credential that still name its value (`auth_token_value`, `password_hash`).
const VALUE_WORDS: &[&str] =
    &["value", "values", "string", "raw", "plain", "text", "data", "encoded", "base64", "b64", "hash"];

/// Words before a credential that make the name ask about one rather than hold one
/// (`requires_authorization`, `has_password`).
const ASKING_WORDS: &[&str] = &["requires", "required", "needs", "has", "is"];

/// The words of `name`, lower case: split at every character that is not a letter or a digit,
/// and where camelCase turns (`progressToken` → progress, token; `XAPIKey` → xapi, key... and
/// `APIKey` → api, key).
pub fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut words = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        let previous = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1).copied();
        let turns = c.is_uppercase()
            && previous.is_some_and(|p| {
                p.is_lowercase() || p.is_ascii_digit() || (p.is_uppercase() && next.is_some_and(char::is_lowercase))
            });
        if turns && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// True for names whose values are secrets anywhere: `Authorization`, `Proxy-Authorization`,
/// `Cookie`, `Set-Cookie`, `X-Api-Key`, `X-Auth-Token`, `api_key`, `access_token`, `password`,
/// `--client-secret`... and not `author`, `max_tokens`, `session_name`, `code` or
/// `Mcp-Session-Id`.
pub fn is_secret_name(name: &str) -> bool {
    is_secret_name_in(name, Place::Anywhere)
}

/// [`is_secret_name`] for a name read in `place`: in OAuth's messages the authorization code
/// (`code`, `device_code`) and the PKCE `code_verifier` are secrets too.
pub fn is_secret_name_in(name: &str, place: Place) -> bool {
    // Most names on the wire are one lower-case word (`jsonrpc`, `method`, `params`, `content`):
    // judged as the word they are, without splitting (this runs for every name of every
    // message recorded).
    if name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()) {
        return words_are_secret(&[name], place);
    }
    let words = words(name);
    words_are_secret(&words.iter().map(String::as_str).collect::<Vec<_>>(), place)
}

fn words_are_secret(words: &[&str], place: Place) -> bool {
    if place == Place::OAuth && is_oauth_code(words) {
        return true;
    }
    // The credential ends the name (but for words naming its value): a name whose last word is
    // another (`token_count`, `secret_type`, `token_endpoint`, `closeCookieModals`) describes a
    // secret, or something near one, and holds none.
    let end = words.len() - words.iter().rev().take_while(|w| VALUE_WORDS.contains(w)).count();
    let Some(last) = end.checked_sub(1) else { return false };
    let before = last.checked_sub(1).map(|b| words[b]);
    if before.is_some_and(|b| ASKING_WORDS.contains(&b)) {
        return false;
    }
    match words[last] {
        "token" => before.is_none_or(|b| !NOT_CREDENTIAL_TOKENS.contains(&b)),
        "key" | "keys" => before.is_some_and(|b| KEY_KINDS.contains(&b)),
        word => CREDENTIAL_WORDS.contains(&word),
    }
}

/// Words that, ending a name inside a secret field's object, say which secret it is rather than
/// hold it: OTC's `authorization: [{"id": "google", "token": …}]`, a cookie's `name` and `domain`.
const NAMING_WORDS: &[&str] =
    &["id", "type", "kind", "name", "provider", "scope", "scopes", "domain", "path", "url", "uri", "expires", "status"];

/// True for a field that names or describes the secret it stands beside (inside a secret
/// field's object): shown, while the rest of that object is masked.
pub fn names_a_secret(name: &str) -> bool {
    words(name).last().is_some_and(|last| NAMING_WORDS.contains(&last.as_str()))
}

/// OAuth's authorization code and the verifier that redeems it.
fn is_oauth_code(words: &[&str]) -> bool {
    matches!(words, ["code"] | ["code", "verifier"] | ["device" | "authorization", "code"])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_into_words_every_way_they_are_written() {
        assert_eq!(words("access_token"), ["access", "token"]);
        assert_eq!(words("progressToken"), ["progress", "token"]);
        assert_eq!(words("X-Api-Key"), ["x", "api", "key"]);
        assert_eq!(words("APIKey"), ["api", "key"]);
        assert_eq!(words("oauth2.clientSecret"), ["oauth2", "client", "secret"]);
        assert_eq!(words("--client-secret"), ["client", "secret"]);
        assert_eq!(words("MAX_TOKENS"), ["max", "tokens"]);
        assert!(words("_-.").is_empty());
    }

    #[test]
    fn credentials_are_secret() {
        let secret = [
            "password",
            "passwd",
            "passphrase",
            "db_password",
            "secret",
            "token",
            "access_token",
            "refresh_token",
            "id_token",
            "auth_token",
            "bearer",
            "session_token",
            "openai_api_key",
            "api_key",
            "apiKey",
            "apikey",
            "private_key",
            "client_secret",
            "clientSecret",
            "authorization",
            "cookie",
            "credentials",
            "registration_access_token",
            "csrf_token",
            "aws_secret_access_key",
            "--api-key",
            "--token",
            "API_KEY",
            "GITHUB_TOKEN",
            "auth_token_value",
            "password_hash",
            "initialCookies",
            "secretKey",
            "auth",
            "basic_auth",
        ];
        for name in secret {
            assert!(is_secret_name(name), "{name} should be secret");
        }
    }

    #[test]
    fn headers_keep_their_rule() {
        for name in ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "X-Auth-Token"] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in
            ["Mcp-Session-Id", "Content-Type", "Accept", "User-Agent", "Mcp-Protocol-Version", "WWW-Authenticate"]
        {
            assert!(!is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn words_that_only_look_alike_are_not_secret() {
        let plain = [
            "author",
            "authority",
            "keyword",
            "keywords",
            "key",
            "key_name",
            "max_tokens",
            "maxTokens",
            "max_new_tokens",
            "token_count",
            "tokens",
            "session_name",
            "session_id",
            "code",
            "zip_code",
            "error_code",
            "passenger",
            "secret_type",
            "secret_name",
            "progressToken",
            "next_page_token",
            "nextToken",
            "primary_key",
            "sort_key",
            "aws_access_key_id",
            "token_endpoint",
            "token_type",
            "token_endpoint_auth_methods_supported",
            "authorization_servers",
            "authorization_endpoint",
            "client_secret_expires_at",
            "refresh_token_expires_in",
            "password_min_length",
            "api_key_env",
            "closeCookieModals",
            "removeCookieWarnings",
            "requires_authorization",
            "has_password",
            "auth_type",
            "oauth",
            "oauth2",
        ];
        for name in plain {
            assert!(!is_secret_name(name), "{name} should not be secret");
        }
    }

    #[test]
    fn the_oauth_code_is_a_secret_only_in_oauth() {
        for name in ["code", "code_verifier", "device_code"] {
            assert!(is_secret_name_in(name, Place::OAuth), "{name}");
            assert!(!is_secret_name_in(name, Place::Anywhere), "{name}");
        }
        for name in ["zip_code", "error_code", "code_challenge", "code_challenge_method"] {
            assert!(!is_secret_name_in(name, Place::OAuth), "{name}");
        }
        assert!(is_secret_name_in("access_token", Place::OAuth));
        assert!(!is_secret_name_in("token_type", Place::OAuth));
    }
}
