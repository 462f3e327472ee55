//! `registry!`: the one generator of the four registries of types (layer types in
//! [`crate::map::layer`], map item types in [`crate::map`], snapshot object types in
//! [`crate::netobj`], message types in [`crate::netmsg`]). A registry is a table with one line
//! per type; from it follow a kind enum, a value enum holding each type, the lookups between
//! kinds and their numbers, UUIDs and names, decoding and encoding, and the kind's description in
//! the format reference. A new type is its struct and its line (docs/extending.md).
//!
//! ```text
//! registry! {
//!     /// docs and attributes of the kind enum
//!     kind Kind [, serde(container attributes)] {
//!         /// The catch-all kind: a unit variant, or one that keeps its number (`Other(i32)`).
//!         Unknown,
//!     }
//!     /// docs and attributes of the value enum
//!     value Value [, serde(container attributes)] [, picked by import] {
//!         /// The catch-all value.
//!         Unknown { ints: Vec<i32> },
//!     }
//!     methods {
//!         // Each optional, in this order; docs after the role, then the signature.
//!         decode: fn decode(kind: Kind, input: Type [, context: Type]) -> Result {
//!             |args| expression reading one type from `input`, _ => the catch-all value }
//!         encode: fn encode(&self [, output: Type]) -> Result {
//!             |value| expression writing one value, catch-all pattern => expression }
//!         all:   pub const ALL;                                  every kind, in line order
//!         name:  pub const fn name(self) -> &'static str;        the lines' short names
//!         uuid:  pub const fn uuid_name(self) -> Option<&'static str>;  and `uuid()`
//!         id:    pub const fn type_id(self) -> Option<u16>;      the numbers of `numbers` lines
//!                (or `-> i32` where the catch-all kind keeps its number: `to_i32`)
//!         pair:  pub const fn number(self, p: P) -> Option<i32> = [pattern 1, pattern 2];
//!         flag:  pub const fn pre_agreed(self) -> bool;         `numbers` lines not flagged
//!         group: pub const fn family(self) -> Type = default;    the `group(...)` of a section
//!     }
//!     /// docs of the section's list
//!     section: numbers|uuids|patterns|pairs [=> LIST] [, names NAMES] [, group(value)]
//!         [, /// docs
//!            pub fn lookup(key: Type) -> Option<Kind> or Kind (the catch-all otherwise)] {
//!         /// docs
//!         #[cfg(...)]                    (optional)
//!         Variant(Type) = key [, "name"] [, option];
//!     }
//! }
//! ```
//!
//! The key of a line is, by its section: a number (`numbers`: a literal or a constant), the name
//! a UUID is derived from (`uuids`), a pattern of numbers (`patterns`), or the numbers in two
//! protocols (`pairs`: `6 / 7`, `_` where a protocol lacks the type). A line's option is
//! `args |context| expression` (binrw arguments from the decode function's context) or
//! `not_pre_agreed` (for the `flag` method). The kind's `describe()` (with the `reference`
//! feature) and, when the catch-all kind is a unit variant, the value's `kind()` are always
//! generated.
//!
//! A value enum `picked by import` is read by binrw (little-endian, described for the reference)
//! with an `i32` import: each variant under `pre_assert(import == key)`, the catch-all when no
//! key matches. binrw's derive cannot see `#[cfg]` on a variant, so such an enum is defined
//! twice, with and without the lines that carry a `#[cfg]` (which must then all carry the same
//! one).
//!
//! Decoding binds the line's binrw arguments (`<Type as BinRead>::Args`, `()` without `args`)
//! to the pattern of `|args|` and takes the expression's value with `?`; encoding binds the
//! value to the pattern of `|value|`.

/// See the module documentation.
macro_rules! registry {
    // The header, read once; the sections go one at a time to `@section`.
    (
        $(#[$kattr:meta])*
        kind $kind:ident $(, serde($($kserde:tt)*))? {
            $(#[doc = $kcdoc:literal])*
            $kcatch:ident $(($kcty:ty))? $(,)?
        }
        $(#[$vattr:meta])*
        value $value:ident $(, serde($($vserde:tt)*))? $(, picked by $import:ident)? {
            $(#[doc = $vcdoc:literal])*
            $vcatch:ident $vcbody:tt $(,)?
        }
        methods $methods:tt
        $($sections:tt)*
    ) => {
        registry!(@section [
            $kind { [$(#[doc = $kcdoc])*] $kcatch [$($kcty)?] }
                [$(#[$kattr])*] [$(($($kserde)*))?]
            $value { [$(#[doc = $vcdoc])*] $vcatch $vcbody }
                [$(#[$vattr])*] [$(($($vserde)*))?] [$($import)?]
            $methods
        ] [] [] $($sections)*);
    };

    // Sections. Each defines its list and lookup, and adds its lines, each with its key in the
    // column of its section's kind of key, to those `@generate` takes.
    (@section $header:tt $lines:tt [$($items:tt)*]
        $(#[doc = $sdoc:literal])*
        $section:ident: numbers $(=> $list:ident)? $(, group($group:expr))? $(,
            $(#[doc = $ldoc:literal])*
            pub fn $lookup:ident($param:ident: $pty:ty) -> $lret:ident $(<$lkind:ident>)?
        )? {
            $(
                $(#[doc = $doc:literal])*
                $(#[cfg($cfg:meta)])?
                $variant:ident($ty:ty) = $id:tt $(, $name:literal)?
                    $(, $opt:ident $(|$ctx:ident| $args:expr)?)?;
            )*
        }
        $($rest:tt)*
    ) => {
        registry!(@add $header $lines [$($items)*
            registry!(@list $header [$(#[doc = $sdoc])*] [$($list)?] [$([$($cfg)?] $variant)*]);
            registry!(@lookup $header
                [$($(#[doc = $ldoc])* $lookup $param [$pty] $lret $($lkind)?)?]
                [$([$($cfg)?] $variant [$id])*]);
        ] [$($group)?] [$({
            [$($cfg)?] [$($doc)*] $variant ($ty) id[$id] uuid[] pair[] name[$($name)?]
            opt[$($opt $([$ctx $args])?)?]
        })*] $($rest)*);
    };
    (@section $header:tt $lines:tt [$($items:tt)*]
        $(#[doc = $sdoc:literal])*
        $section:ident: uuids $(=> $list:ident)? $(, names $names:ident)? $(, group($group:expr))? {
            $(
                $(#[doc = $doc:literal])*
                $(#[cfg($cfg:meta)])?
                $variant:ident($ty:ty) = $uuid:literal, $name:literal
                    $(, $opt:ident $(|$ctx:ident| $args:expr)?)?;
            )*
        }
        $($rest:tt)*
    ) => {
        registry!(@add $header $lines [$($items)*
            registry!(@list $header [$(#[doc = $sdoc])*] [$($list)?] [$([$($cfg)?] $variant)*]);
            registry!(@uuid_names $header [$($list)?] [$($names)?] [$([$($cfg)?] $uuid)*]);
        ] [$($group)?] [$({
            [$($cfg)?] [$($doc)*] $variant ($ty) id[] uuid[$uuid] pair[] name[$name]
            opt[$($opt $([$ctx $args])?)?]
        })*] $($rest)*);
    };
    (@section $header:tt $lines:tt [$($items:tt)*]
        $(#[doc = $sdoc:literal])*
        $section:ident: patterns $(=> $list:ident)? $(, group($group:expr))? $(,
            $(#[doc = $ldoc:literal])*
            pub fn $lookup:ident($param:ident: $pty:ty) -> $lret:ident $(<$lkind:ident>)?
        )? {
            $(
                $(#[doc = $doc:literal])*
                $(#[cfg($cfg:meta)])?
                $variant:ident($ty:ty) = $pattern:pat, $name:literal;
            )*
        }
        $($rest:tt)*
    ) => {
        registry!(@add $header $lines [$($items)*
            registry!(@list $header [$(#[doc = $sdoc])*] [$($list)?] [$([$($cfg)?] $variant)*]);
            registry!(@lookup $header
                [$($(#[doc = $ldoc])* $lookup $param [$pty] $lret $($lkind)?)?]
                [$([$($cfg)?] $variant [$pattern])*]);
        ] [$($group)?] [$({
            [$($cfg)?] [$($doc)*] $variant ($ty) id[] uuid[] pair[] name[$name] opt[]
        })*] $($rest)*);
    };
    (@section $header:tt $lines:tt [$($items:tt)*]
        $(#[doc = $sdoc:literal])*
        $section:ident: pairs $(=> $list:ident)? $(, group($group:expr))? {
            $(
                $(#[doc = $doc:literal])*
                $(#[cfg($cfg:meta)])?
                $variant:ident($ty:ty) = $first:tt / $second:tt, $name:literal;
            )*
        }
        $($rest:tt)*
    ) => {
        registry!(@add $header $lines [$($items)*
            registry!(@list $header [$(#[doc = $sdoc])*] [$($list)?] [$([$($cfg)?] $variant)*]);
        ] [$($group)?] [$({
            [$($cfg)?] [$($doc)*] $variant ($ty) id[] uuid[] pair[$first $second] name[$name]
            opt[]
        })*] $($rest)*);
    };
    (@section $header:tt $lines:tt $items:tt) => { registry!(@generate $header $lines $items); };
    (@add $header:tt [$($lines:tt)*] $items:tt $group:tt [$({$($line:tt)*})*] $($rest:tt)*) => {
        registry!(@section $header [$($lines)* $({$($line)* group $group})*] $items $($rest)*);
    };

    // What takes every line.
    (@generate [
        $kind:ident { [$($kcdoc:tt)*] $kcatch:ident [$($kcty:ty)?] }
            [$($kattr:tt)*] [$($kserde:tt)?]
        $value:ident $vcatch:tt [$($vattr:tt)*] [$($vserde:tt)?] $import:tt
        {
            $(decode:
                $(#[doc = $ddoc:literal])*
                $dvis:vis fn $decode:ident($dkind:ident: $dkty:ty, $input:ident: $ity:ty
                    $(, $context:ident: $cty:ty)?) -> $dret:ty
                { |$darg:pat_param| $deach:expr, _ => $dcatch:expr $(,)? }
            )?
            $(encode:
                $(#[doc = $edoc:literal])*
                $evis:vis fn $encode:ident(&self $(, $output:ident: $oty:ty)?) -> $eret:ty
                { |$earg:pat_param| $eeach:expr, $ecatch:pat => $ecatchexpr:expr $(,)? }
            )?
            $(all: $(#[doc = $adoc:literal])* pub const $all:ident;)?
            $(name: $(#[doc = $ndoc:literal])* pub const fn $name_fn:ident(self) -> $nret:ty;)?
            $(uuid: $(#[doc = $udoc:literal])* pub const fn $uuid_fn:ident(self) -> $uret:ty;)?
            $(id:
                $(#[doc = $idoc:literal])*
                pub const fn $id_fn:ident(self) -> $iret:ident $(<$iinner:ty>)?;
            )?
            $(pair:
                $(#[doc = $pdoc:literal])*
                pub const fn $pair_fn:ident(self, $pparam:ident: $pty:ty) -> $pret:ty
                    = [$pfirst:pat, $psecond:pat];
            )?
            $(flag: $(#[doc = $fdoc:literal])* pub const fn $flag_fn:ident(self) -> bool;)?
            $(group:
                $(#[doc = $gdoc:literal])*
                pub const fn $group_fn:ident(self) -> $gret:ty = $gdefault:expr;
            )?
        }
    ] [$({
        [$($cfg:meta)?] [$($doc:literal)*] $variant:ident ($ty:ty) id[$($id:tt)?]
        uuid[$($uuid:literal)?] pair[$($first:tt $second:tt)?] name[$($name:literal)?]
        opt $opt:tt group[$($group:expr)?]
    })*] [$($items:tt)*]) => {
        $($kattr)*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        $(#[cfg_attr(feature = "serde", serde $kserde)])?
        #[non_exhaustive]
        pub enum $kind {
            $($(#[doc = $doc])* $(#[cfg($cfg)])? $variant,)*
            $($kcdoc)*
            $kcatch $(($kcty))?,
        }

        registry!(@value $import [$($vattr)*] [$($vserde)?] $value $vcatch
            [$({[$($cfg)?] [$($doc)*] $variant ($ty) [$($id)?]})*]);

        impl $kind {
            $($items)*
            /// The format reference's description of this kind's structure (see
            /// [`crate::reference`]);
            #[doc = concat!("`None` for [`", stringify!($kind), "::", stringify!($kcatch), "`].")]
            #[cfg(feature = "reference")]
            pub fn describe(self) -> Option<fn() -> crate::reference::Structure> {
                use crate::reference::Describe;
                match self {
                    $($(#[cfg($cfg)])? $kind::$variant => Some(<$ty>::describe),)*
                    _ => None,
                }
            }

            registry!(@list [$kind] [$($(#[doc = $adoc])*)?] [$($all)?] [$([$($cfg)?] $variant)*]);
            registry!(@method [$($(#[doc = $ndoc])* $name_fn () [$nret])?] $kind
                [$([$($cfg)?] $variant [registry!(@required "a name" $($name)?)])*]
                [_ => "unknown"]);
            registry!(@method [$($(#[doc = $udoc])* $uuid_fn () [$uret])?] $kind
                [$([$($cfg)?] $variant [registry!(@some $($uuid)?)])*] [_ => None]);
            registry!(@uuid $kind [$($uuid_fn)?]);
            registry!(@method [$($(#[doc = $fdoc])* $flag_fn () [bool])?] $kind
                [$([$($cfg)?] $variant [registry!(@flag [$($id)?] $opt)])*] [_ => false]);
            registry!(@method [$($(#[doc = $gdoc])* $group_fn () [$gret])?] $kind
                [$([$($cfg)?] $variant [registry!(@required "a group" $($group)?)])*]
                [$(_ => $gdefault)?]);
            registry!(@pair_fn
                [$($(#[doc = $pdoc])* $pair_fn $pparam [$pty] [$pret] [$pfirst, $psecond])?]
                $kind [$([$($cfg)?] $variant [$($first $second)?])*]);
            registry!(@id [$($(#[doc = $idoc])* $id_fn $iret $($iinner)?)?] $kind $kcatch
                [$($kcty)?] [$([$($cfg)?] $variant [$($id)?])*]);
        }

        impl $value {
            registry!(@kind_of [$($kcty)?] $kind $kcatch $value [$([$($cfg)?] $variant)*]);
            registry!(@decode [$(
                [$(#[doc = $ddoc])*] [$dvis] $decode $dkind [$dkty] $input [$ity]
                [$($context [$cty])?] [$($context)?] [$dret] [$darg] [$deach] [$dcatch]
            )?] $kind $value [$([$($cfg)?] $variant ($ty) $opt)*]);
            registry!(@encode [$(
                [$(#[doc = $edoc])*] [$evis] $encode [$($output [$oty])?] [$eret] [$earg] [$eeach]
                [$ecatch] [$ecatchexpr]
            )?] $value [$([$($cfg)?] $variant)*]);
        }
    };

    // The value enum: plain, with every line's `cfg` on its variant ...
    (@value [] [$($vattr:tt)*] $serde:tt $value:ident $catch:tt
        [$({[$($cfg:meta)?] [$($doc:literal)*] $variant:ident ($ty:ty) $id:tt})*]
    ) => {
        registry!(@enum [$($vattr)*] $serde $value [] $catch
            [$({[$(#[doc = $doc])* $(#[cfg($cfg)])?] $variant ($ty)})*]);
    };
    // ... or read by binrw, picked by `import`: defined with the lines that have no `cfg`, and
    // with every line where their (common) `cfg` holds.
    (@value [$import:ident] $attrs:tt $serde:tt $value:ident $catch:tt $lines:tt) => {
        registry!(@split [$import $attrs $serde $value $catch] [] [] [] $lines);
    };
    (@split $enum:tt [$($plain:tt)*] [$($every:tt)*] $cfgs:tt
        [{[] $($line:tt)*} $($rest:tt)*]
    ) => {
        registry!(@split $enum [$($plain)* {$($line)*}] [$($every)* {$($line)*}] $cfgs
            [$($rest)*]);
    };
    (@split $enum:tt $plain:tt [$($every:tt)*] [$($cfgs:tt)*]
        [{[$cfg:meta] $($line:tt)*} $($rest:tt)*]
    ) => {
        registry!(@split $enum $plain [$($every)* {$($line)*}] [$($cfgs)* $cfg,] [$($rest)*]);
    };
    (@split $enum:tt $plain:tt $every:tt [] []) => { registry!(@binrw [] $enum $every); };
    (@split $enum:tt $plain:tt $every:tt [$($cfg:meta,)+] []) => {
        registry!(@binrw [#[cfg(not(any($($cfg),+)))]] $enum $plain);
        registry!(@binrw [#[cfg(all($($cfg),+))]] $enum $every);
    };
    (@binrw [$($when:tt)*] [$import:ident [$($vattr:tt)*] $serde:tt $value:ident $catch:tt]
        [$({[$($doc:literal)*] $variant:ident ($ty:ty) [$id:tt]})*]
    ) => {
        registry!(@enum [
            $($when)* $($vattr)*
            #[twcodec_schema_derive::describe]
            #[binrw::binrw]
            #[brw(little)]
            #[br(import { $import: i32 })]
        ] $serde $value [
            #[br(pre_assert(!matches!($import, $($id)|*), crate::SchemaError::OtherLayout))]
        ] $catch [$({[
            $(#[doc = $doc])*
            #[br(pre_assert($import == $id, crate::SchemaError::OtherLayout))]
        ] $variant ($ty)})*]);
    };
    (@enum [$($head:tt)*] [$($serde:tt)?] $value:ident [$($catch_attr:tt)*]
        { [$($vcdoc:tt)*] $vcatch:ident $vcbody:tt } [$({[$($attr:tt)*] $variant:ident ($ty:ty)})*]
    ) => {
        $($head)*
        #[derive(Debug, Clone, PartialEq, Eq)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        $(#[cfg_attr(feature = "serde", serde $serde)])?
        #[non_exhaustive]
        pub enum $value {
            $($($attr)* $variant($ty),)*
            $($vcdoc)*
            $($catch_attr)*
            $vcatch $vcbody,
        }
    };

    // A list of kinds (a section's, or `all`).
    (@list $header:tt $docs:tt [] $kinds:tt) => {};
    (@list [$kind:ident $($header:tt)*] [$(#[doc = $doc:literal])*] [$list:ident]
        [$([$($cfg:meta)?] $variant:ident)*]
    ) => {
        $(#[doc = $doc])*
        pub const $list: &'static [$kind] = &[$($(#[cfg($cfg)])? $kind::$variant,)*];
    };

    (@uuid_names $header:tt $list:tt [] $uuids:tt) => {};
    (@uuid_names [$kind:ident $($header:tt)*] [$list:ident] [$names:ident]
        [$([$($cfg:meta)?] $uuid:literal)*]
    ) => {
        #[doc = concat!("The names the UUIDs of [`", stringify!($kind), "::",
            stringify!($list), "`] are derived from.")]
        pub const $names: &'static [&'static str] = &[$($(#[cfg($cfg)])? $uuid,)*];
    };

    // A section's lookup by key: `-> Option<Kind>`, `None` for a key no line has ...
    (@lookup $header:tt [] $keys:tt) => {};
    (@lookup [$kind:ident $($header:tt)*]
        [$(#[doc = $doc:literal])* $lookup:ident $param:ident [$pty:ty] Option $lkind:ident]
        [$([$($cfg:meta)?] $variant:ident [$key:pat])*]
    ) => {
        $(#[doc = $doc])*
        pub fn $lookup($param: $pty) -> Option<$kind> {
            match $param {
                $($(#[cfg($cfg)])? $key => Some($kind::$variant),)*
                _ => None,
            }
        }
    };
    // ... or `-> Kind`: the catch-all kind (with the key, when it keeps one) for the others.
    (@lookup [$kind:ident { $cdocs:tt $catch:ident [$($cty:ty)?] } $($header:tt)*]
        [$(#[doc = $doc:literal])* $lookup:ident $param:ident [$pty:ty] $lret:ident]
        [$([$($cfg:meta)?] $variant:ident [$key:pat])*]
    ) => {
        $(#[doc = $doc])*
        pub fn $lookup($param: $pty) -> $kind {
            match $param {
                $($(#[cfg($cfg)])? $key => $kind::$variant,)*
                _ => registry!(@catch $kind::$catch [$($cty)?] $param),
            }
        }
    };

    // A `const fn` of the kind: a value per line, and an arm for the catch-all.
    (@method [] $($rest:tt)*) => {};
    (@method [$(#[doc = $doc:literal])* $method:ident ($($param:ident: $pty:ty)?) [$ret:ty]]
        $kind:ident [$([$($cfg:meta)?] $variant:ident [$value:expr])*]
        [$catch:pat => $default:expr]
    ) => {
        $(#[doc = $doc])*
        pub const fn $method(self $(, $param: $pty)?) -> $ret {
            match self {
                $($(#[cfg($cfg)])? $kind::$variant => $value,)*
                $catch => $default,
            }
        }
    };
    // `id`: `-> Option<T>`, `None` for the kinds without a number, or `-> T` of a registry
    // whose catch-all kind keeps its number.
    (@id [] $($rest:tt)*) => {};
    (@id [$(#[doc = $doc:literal])* $id_fn:ident Option $inner:ty] $kind:ident $catch:ident
        $cty:tt [$([$($cfg:meta)?] $variant:ident [$($id:tt)?])*]
    ) => {
        registry!(@method [$(#[doc = $doc])* $id_fn () [Option<$inner>]] $kind
            [$([$($cfg)?] $variant [registry!(@some $($id)?)])*] [_ => None]);
    };
    (@id [$(#[doc = $doc:literal])* $id_fn:ident $iret:ident] $kind:ident $catch:ident [$cty:ty]
        [$([$($cfg:meta)?] $variant:ident [$id:tt])*]
    ) => {
        registry!(@method [$(#[doc = $doc])* $id_fn () [$iret]] $kind
            [$([$($cfg)?] $variant [$id])*] [$kind::$catch(other) => other]);
    };
    // `pair`: a line's first or second number, by the parameter.
    (@pair_fn [] $($rest:tt)*) => {};
    (@pair_fn [$(#[doc = $doc:literal])* $method:ident $param:ident [$pty:ty] [$ret:ty] $pats:tt]
        $kind:ident [$([$($cfg:meta)?] $variant:ident [$($one:tt $two:tt)?])*]
    ) => {
        registry!(@method [$(#[doc = $doc])* $method ($param: $pty) [$ret]] $kind
            [$([$($cfg)?] $variant [registry!(@pair $param $pats $($one $two)?)])*] [_ => None]);
    };
    (@uuid $kind:ident []) => {};
    (@uuid $kind:ident [$uuid_fn:ident]) => {
        #[doc = concat!("The UUID of a kind named by a UUID (from [`", stringify!($kind),
            "::", stringify!($uuid_fn), "`]).")]
        pub fn uuid(self) -> Option<crate::uuid::Uuid> {
            self.$uuid_fn().map(crate::uuid::uuid_from_name)
        }
    };

    // The value's kind, when the catch-all kind is a unit variant.
    (@kind_of [$cty:ty] $kind:ident $catch:ident $value:ident $variants:tt) => {};
    (@kind_of [] $kind:ident $catch:ident $value:ident [$([$($cfg:meta)?] $variant:ident)*]) => {
        #[doc = concat!("Its kind: the [`", stringify!($kind), "`] of its line.")]
        pub fn kind(&self) -> $kind {
            match self {
                $($(#[cfg($cfg)])? $value::$variant(_) => $kind::$variant,)*
                _ => $kind::$catch,
            }
        }
    };

    (@decode [] $($rest:tt)*) => {};
    (@decode [
        [$($doc:tt)*] [$vis:vis] $decode:ident $dkind:ident [$dkty:ty] $input:ident [$ity:ty]
        [$($context:ident [$cty:ty])?] $args_context:tt [$ret:ty] [$arg:pat_param] [$each:expr]
        [$catch:expr]
    ] $kind:ident $value:ident [$([$($cfg:meta)?] $variant:ident ($ty:ty) $opt:tt)*]) => {
        $($doc)*
        #[allow(unused_variables)]
        $vis fn $decode($dkind: $dkty, $input: $ity $(, $context: $cty)?) -> $ret {
            Ok(match $dkind {
                $($(#[cfg($cfg)])? $kind::$variant => $value::$variant({
                    let $arg: <$ty as binrw::BinRead>::Args<'_> =
                        registry!(@args $args_context $opt);
                    $each?
                }),)*
                _ => $catch,
            })
        }
    };
    (@encode [] $($rest:tt)*) => {};
    (@encode [
        [$($doc:tt)*] [$vis:vis] $encode:ident [$($output:ident [$oty:ty])?] [$ret:ty]
        [$arg:pat_param] [$each:expr] [$catch:pat] [$catchexpr:expr]
    ] $value:ident [$([$($cfg:meta)?] $variant:ident)*]) => {
        $($doc)*
        $vis fn $encode(&self $(, $output: $oty)?) -> $ret {
            match self {
                $($(#[cfg($cfg)])? $value::$variant($arg) => $each,)*
                $catch => $catchexpr,
            }
        }
    };

    // Values of a line.
    (@some) => { None };
    (@some $value:expr) => { Some($value) };
    (@required $what:literal $value:expr) => { $value };
    (@required $what:literal) => {
        compile_error!(concat!("every line of this registry needs ", $what))
    };
    (@catch $kind:ident::$catch:ident [] $param:ident) => { $kind::$catch };
    (@catch $kind:ident::$catch:ident [$cty:ty] $param:ident) => { $kind::$catch($param) };
    (@pair $param:ident $patterns:tt) => { None };
    (@pair $param:ident [$first:pat, $second:pat] $one:tt $two:tt) => {
        match $param {
            $first => registry!(@number $one),
            $second => registry!(@number $two),
        }
    };
    (@number _) => { None };
    (@number $number:literal) => { Some($number) };
    (@flag [] $opt:tt) => { false };
    (@flag [$id:tt] []) => { true };
    (@flag [$id:tt] [not_pre_agreed]) => { false };
    (@flag [$id:tt] [args $args:tt]) => { true };
    (@args $context:tt []) => { () };
    (@args $context:tt [not_pre_agreed]) => { () };
    (@args [$context:ident] [args [$ctx:ident $args:expr]]) => {{
        let $ctx = $context;
        $args
    }};
    (@args $context:tt $opt:tt) => {
        compile_error!(concat!(
            "a line's option is `args |context| ...` (where decoding has a context) or ",
            "`not_pre_agreed`, not `", stringify!($opt), "`"
        ))
    };
}
