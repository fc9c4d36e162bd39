//! How the engine reaches the cluster: the spec's [`Connection`] (contact points,
//! credentials, TLS, request timeout and retries) and the password it resolves, given in
//! the spec or read from the environment variable `password_env` names.

use serde::{Deserialize, Deserializer, Serialize};

use super::{check, defaults};

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Connection {
    pub contact_points: Vec<String>,
    #[serde(default)]
    pub local_dc: Option<String>,
    #[serde(default)]
    pub username: Option<String>,
    /// For a hand-written spec only: casslab never writes a password to a spec file; it
    /// names an environment variable in `password_env` instead.
    #[serde(default)]
    pub password: Option<String>,
    /// The environment variable that holds the password (casslab sets
    /// `CASSLAB_ENGINE_PASSWORD` in the engine's environment).
    #[serde(default)]
    pub password_env: Option<String>,
    #[serde(default)]
    pub tls: bool,
    #[serde(default)]
    pub tls_ca_file: Option<String>,
    #[serde(default = "defaults::request_timeout_s")]
    pub request_timeout_s: f64,
    /// Per operation, for idempotent statements; 0 <= retries < 2**32 (a number outside
    /// fails here with the rule's message, as in Python).
    #[serde(default = "defaults::retries", deserialize_with = "retries_in_range")]
    pub retries: u32,
    #[serde(default = "defaults::retry_backoff_ms")]
    pub retry_backoff_ms: f64,
}

impl Connection {
    /// The password: given in the spec, or read from the variable `password_env` names.
    pub fn password(&self) -> Result<Option<String>, String> {
        let Some(name) = &self.password_env else {
            return Ok(self.password.clone());
        };
        match std::env::var(name) {
            Ok(value) => Ok(Some(value)),
            Err(std::env::VarError::NotPresent) => Err(format!(
                "connection.password_env: the environment variable {name} is not set; set it \
                 to the password in the engine's environment (casslab does this for \
                 password= and password-env=)"
            )),
            Err(std::env::VarError::NotUnicode(_)) => Err(format!(
                "connection.password_env: the environment variable {name} is not valid UTF-8"
            )),
        }
    }
}

/// `connection.retries` as a u32, or the spec rule's message when it does not fit.
fn retries_in_range<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let retries = i128::deserialize(d)?;
    u32::try_from(retries).map_err(|_| serde::de::Error::custom(check::retries_message(retries)))
}

#[cfg(test)]
mod tests {
    use crate::spec::tests::with_connection;

    #[test]
    fn password_env_is_read_from_the_environment() {
        let name = "CASSLAB_ENGINE_TEST_PASSWORD_7F3A";
        let spec =
            with_connection(&format!(r#""username": "u", "password_env": "{name}""#)).unwrap();
        let missing = spec.connection.password().unwrap_err();
        assert!(
            missing.contains(name) && missing.contains("not set"),
            "{missing}"
        );
        std::env::set_var(name, "s3cret");
        assert_eq!(
            spec.connection.password().unwrap().as_deref(),
            Some("s3cret")
        );
        std::env::remove_var(name);
    }
}
