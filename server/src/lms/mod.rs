//! The LMS as the course server calls it (LTI 1.3 Advantage's services): [`platform`] (its
//! key set, access tokens, line items, scores, members) and [`keys`] (the tool's own key,
//! which signs what the tool sends it). The tool's side of LTI is [`crate::lti`].

pub(crate) mod keys;
pub(crate) mod platform;

pub(crate) use platform::Platform;
