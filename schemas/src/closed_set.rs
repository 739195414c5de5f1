//! A closed set of values the API writes by name (`FLIGHT_INSTANCE_STATUS_LANDED`): the Rust enum
//! that produces them also declares them, so the OpenAPI document's enums (the serving edge's
//! `WireName`) are taken from the code that writes the answers and cannot drift from it.

use std::borrow::Cow;

pub trait ClosedSet: Sized + Copy + PartialEq + Send + Sync + 'static {
    /// Its name in the API's documents (`FlightInstanceStatus`).
    const NAME: &'static str;
    /// Every value the code can write, in declaration order.
    const VALUES: &'static [Self];
    /// The value as the API writes it.
    fn wire_name(self) -> Cow<'static, str>;

    /// The value written `name`, exactly.
    fn from_wire_name(name: &str) -> Option<Self> {
        Self::VALUES.iter().copied().find(|v| v.wire_name() == name)
    }
}

/// An enum of values written by a fixed name each, and its [`ClosedSet`].
#[macro_export]
macro_rules! closed_set {
    ($(#[$doc:meta])* $name:ident, $api_name:literal, [$($variant:ident = $wire:literal),+ $(,)?]) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $($variant),+ }

        impl $name {
            pub const fn as_str(self) -> &'static str {
                match self { $($name::$variant => $wire),+ }
            }
        }

        impl $crate::closed_set::ClosedSet for $name {
            const NAME: &'static str = $api_name;
            const VALUES: &'static [Self] = &[$($name::$variant),+];
            fn wire_name(self) -> std::borrow::Cow<'static, str> {
                self.as_str().into()
            }
        }
    };
}
