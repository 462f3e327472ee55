//! Open value sets: fields whose values the games number and DDNet keeps adding to (curve
//! types, image formats, weapons, ...), as a newtype of the stored `i32` with a constant per
//! known value, the way gimli defines DWARF's constants.
//!
//! An enum with an `Other(i32)` catch-all breaks its users when a value is added: code that
//! matched `Other(6)` stops matching once 6 gets a variant. A newtype does not: `CurveType(6)`
//! read today is the same value as the `CurveType::NEW_ONE` constant added tomorrow, every
//! value is kept as stored, and matching on the constants reads like matching on variants:
//!
//! ```
//! use twcodec_schema::map::envelope::CurveType;
//!
//! let speed = |curve: CurveType| match curve {
//!     CurveType::STEP => "jumps",
//!     CurveType::LINEAR => "steady",
//!     _ if curve.is_known() => "eased",
//!     _ => "unknown, drawn linear by DDNet",
//! };
//! assert_eq!(speed(CurveType::from_i32(1)), "steady");
//! assert_eq!(speed(CurveType(9)), "unknown, drawn linear by DDNet");
//! assert_eq!(format!("{:?} {:?}", CurveType::BEZIER, CurveType(9)), "Bezier Unknown(9)");
//! ```
//!
//! `Debug` and serde write what the enums these types replace wrote: the known values by
//! name (`"Bezier"`), any other as `{"Unknown": 9}`, so that dumps, JSON and the directory
//! form of maps did not change.

/// Defines an open value set (see the module docs).
///
/// ```text
/// open_enum! {
///     /// doc
///     [described]                      // also a format reference entry (#[describe])
///     pub struct Name(i32) {
///         /// doc
///         CONST = value as Variant;    // Variant: the name Debug and serde use
///     }
///     /// doc of the catch-all
///     else Other;                      // how Debug and serde name any other value
/// }
/// ```
macro_rules! open_enum {
    (
        $(#[doc = $doc:literal])*
        $([$described:ident])?
        pub struct $name:ident(i32) {
            $(
                $(#[doc = $vdoc:literal])*
                $konst:ident = $value:literal as $variant:ident;
            )*
        }
        $(#[doc = $odoc:literal])*
        else $other:ident;
    ) => {
        $(#[doc = $doc])*
        ///
        /// An open value set: a constant per known value; any other value is kept as stored
        /// ([`crate::open_enum`]).
        #[binrw::binrw]
        #[brw(little)]
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(transparent)]
        pub struct $name(pub i32);

        #[allow(missing_docs)]
        impl $name {
            $(
                $(#[doc = $vdoc])*
                pub const $konst: $name = $name($value);
            )*

            /// The known values, in the order the games number them.
            pub const KNOWN: &'static [$name] = &[$($name::$konst),*];

            /// The value stored as `value`.
            pub const fn from_i32(value: i32) -> $name {
                $name(value)
            }

            /// The number stored.
            pub const fn to_i32(self) -> i32 {
                self.0
            }

            /// The name of a known value (`Debug`'s, and serde's), `None` for another value.
            pub const fn name(self) -> Option<&'static str> {
                match self.0 {
                    $($value => Some(stringify!($variant)),)*
                    _ => None,
                }
            }

            /// Whether this is one of the known values.
            pub const fn is_known(self) -> bool {
                self.name().is_some()
            }
        }

        impl ::core::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self.name() {
                    Some(name) => f.write_str(name),
                    None => write!(f, concat!(stringify!($other), "({})"), self.0),
                }
            }
        }

        impl From<i32> for $name {
            fn from(value: i32) -> $name {
                $name(value)
            }
        }

        impl From<$name> for i32 {
            fn from(value: $name) -> i32 {
                value.0
            }
        }

        // The enum this type replaces, kept private: serde's form of it, and (with
        // `described`) the format reference's entry, are the enum's.
        const _: () = {
            $crate::open_enum::open_enum!(@enum [$($described)?] $name [$(#[doc = $doc])*]
                { $($(#[doc = $vdoc])* $variant = $value,)* }
                [$(#[doc = $odoc])*] $other
            );

            impl $name {
                #[allow(dead_code)]
                fn from_i32(value: i32) -> $name {
                    match value {
                        $($value => $name::$variant,)*
                        other => $name::$other(other),
                    }
                }

                #[allow(dead_code)]
                fn to_i32(&self) -> i32 {
                    match self {
                        $($name::$variant => $value,)*
                        $name::$other(other) => *other,
                    }
                }
            }

            #[cfg(feature = "serde")]
            impl serde::Serialize for self::$name {
                fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                    serde::Serialize::serialize(&$name::from_i32(self.0), serializer)
                }
            }

            #[cfg(feature = "serde")]
            impl<'de> serde::Deserialize<'de> for self::$name {
                fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                    let value: $name = serde::Deserialize::deserialize(deserializer)?;
                    Ok(self::$name(value.to_i32()))
                }
            }

            $crate::open_enum::open_enum!(@describe [$($described)?] $name);
        };
    };
    (@enum [] $name:ident [$(#[doc = $doc:literal])*] { $($(#[doc = $vdoc:literal])* $variant:ident = $value:literal,)* } [$(#[doc = $odoc:literal])*] $other:ident) => {
        #[allow(dead_code)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        enum $name {
            $($(#[doc = $vdoc])* $variant,)*
            $(#[doc = $odoc])* $other(i32),
        }
    };
    (@enum [described] $name:ident [$(#[doc = $doc:literal])*] { $($(#[doc = $vdoc:literal])* $variant:ident = $value:literal,)* } [$(#[doc = $odoc:literal])*] $other:ident) => {
        $(#[doc = $doc])*
        #[twcodec_schema_derive::describe]
        #[binrw::binrw]
        #[brw(little)]
        #[br(map = $name::from_i32)]
        #[bw(map = |value: &$name| value.to_i32())]
        #[allow(dead_code)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        enum $name {
            $($(#[doc = $vdoc])* $variant,)*
            $(#[doc = $odoc])* $other(i32),
        }
    };
    (@describe [] $name:ident) => {};
    (@describe [described] $name:ident) => {
        #[cfg(feature = "reference")]
        impl $crate::reference::OnDisk for self::$name {
            fn size() -> $crate::reference::Size {
                <$name as $crate::reference::OnDisk>::size()
            }
            fn link() -> Option<&'static str> {
                <$name as $crate::reference::OnDisk>::link()
            }
            fn structure() -> Option<$crate::reference::Structure> {
                <$name as $crate::reference::OnDisk>::structure()
            }
        }

        #[cfg(feature = "reference")]
        impl $crate::reference::Describe for self::$name {
            fn describe_as(symbolic: bool) -> $crate::reference::Structure {
                <$name as $crate::reference::Describe>::describe_as(symbolic)
            }
        }
    };
}
pub(crate) use open_enum;

#[cfg(test)]
mod tests {
    use crate::map::envelope::CurveType;
    use crate::map::image::ImageFormat;
    use crate::netobj::common::Weapon;

    #[test]
    fn debug_names_known_values_and_the_catch_all_as_the_enums_did() {
        assert_eq!(format!("{:?}", CurveType::SMOOTH), "Smooth");
        assert_eq!(format!("{:?}", CurveType(-7)), "Unknown(-7)");
        assert_eq!(format!("{:?}", ImageFormat(-1)), "Other(-1)");
        assert_eq!(format!("{:?}", Some(Weapon::NINJA)), "Some(Ninja)");
        assert_eq!(CurveType::KNOWN.len(), 6);
        assert_eq!(CurveType::from_i32(5), CurveType::BEZIER);
        assert_eq!(i32::from(ImageFormat::RGBA), 1);
        assert!(!ImageFormat(2).is_known() && ImageFormat(1).is_known());
    }

    #[cfg(feature = "serde")]
    #[test]
    fn serde_writes_what_the_enums_wrote() {
        let cases = [
            (CurveType::LINEAR, r#""Linear""#),
            (CurveType(9), r#"{"Unknown":9}"#),
        ];
        for (value, json) in cases {
            assert_eq!(serde_json::to_string(&value).unwrap(), json);
            assert_eq!(serde_json::from_str::<CurveType>(json).unwrap(), value);
        }
        assert_eq!(
            serde_json::to_string(&ImageFormat(-1)).unwrap(),
            r#"{"Other":-1}"#
        );
        assert_eq!(serde_json::to_string(&Weapon::GUN).unwrap(), r#""Gun""#);
        // A known value written as the catch-all reads as the known value.
        assert_eq!(
            serde_json::from_str::<ImageFormat>(r#"{"Other":1}"#).unwrap(),
            ImageFormat::RGBA
        );
        assert!(serde_json::from_str::<ImageFormat>(r#""Rgbx""#).is_err());
    }
}
