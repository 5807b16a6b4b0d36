//! The course inside the university's LMS, by LTI 1.3 Advantage: [`launch`] (the OIDC login
//! initiation, the launch, the tool's key set), [`claims`] (an id_token checked, the roles
//! mapped), [`passback`] (grades posted through a queue in the database) and [`roster`] (the
//! roster read from the LMS). The LMS's own services, as the tool calls them, are
//! [`crate::lms`].

pub(crate) mod claims;
pub(crate) mod launch;
pub(crate) mod passback;
pub(crate) mod roster;
